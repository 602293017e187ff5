import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { phoneCodeJob, SEND_PHONE_CODE } from './delivery.ts';

/** The background jobs of phone verification, by job name. */
export function phoneVerificationJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [SEND_PHONE_CODE]: phoneCodeJob(services) };
}
