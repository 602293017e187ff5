import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';
import { phoneCodeJob, SEND_PHONE_CODE } from './delivery.ts';

/** The background jobs of phone verification, by job name. */
export function phoneVerificationJobs(services: Services): Record<string, JobProcessor> {
  return { [SEND_PHONE_CODE]: phoneCodeJob(services) };
}
