import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';

/** The background jobs of identity documents, by job name (none yet). */
export function identityDocumentsJobs(_services: Services): Record<string, JobProcessor> {
  return {};
}
