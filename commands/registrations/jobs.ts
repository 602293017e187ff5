import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';

/** The background jobs of registrations, by job name (none yet). */
export function registrationsJobs(_services: JobDeps): Record<string, JobProcessor> {
  return {};
}
