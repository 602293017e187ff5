import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';

/** The background jobs of members, by job name (none yet). */
export function membersJobs(_services: Services): Record<string, JobProcessor> {
  return {};
}
