import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';

/** The background jobs of phone verification, by job name (none yet). */
export function phoneVerificationJobs(_services: Services): Record<string, JobProcessor> {
  return {};
}
