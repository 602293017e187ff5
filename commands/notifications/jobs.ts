import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';

/** The background jobs of notifications, by job name (none yet). */
export function notificationsJobs(_services: Services): Record<string, JobProcessor> {
  return {};
}
