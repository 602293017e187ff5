import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';

/** The background jobs of profile, by job name (none yet). */
export function profileJobs(_services: Services): Record<string, JobProcessor> {
  return {};
}
