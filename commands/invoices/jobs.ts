import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';

/**
 * The background jobs of invoices, by job name: none. Invoices have no side effect to run in the background;
 * the printed invoice is made from the read model on first request and kept per version (src/generated-files.ts).
 */
export function invoicesJobs(_services: JobDeps): Record<string, JobProcessor> {
  return {};
}
