import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { CHECK_VAT_NUMBER, vatCheckJob } from './vat-check.ts';

/** The background jobs of profile, by job name. */
export function profileJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [CHECK_VAT_NUMBER]: vatCheckJob(services) };
}
