import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';
import { service } from './index.ts';

/** Every background job the worker runs, by job name (each feature's, app/features/index.ts). */
export function allJobs(services: Services): Record<string, JobProcessor> {
  return service.jobs(services);
}
