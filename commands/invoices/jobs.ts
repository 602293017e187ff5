import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';

/** The background jobs of invoices, by job name (none yet). */
export function invoicesJobs(_services: Services): Record<string, JobProcessor> {
  return {};
}
