import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { Services } from '../../src/services.ts';
import type { JobDeps } from '../../src/feature.ts';
import { service } from './index.ts';

/**
 * Every background job the worker runs, by job name (each feature's, app/features/index.ts). Jobs get only
 * what JobDeps names, not the process's whole set of services.
 */
export function allJobs(services: Services): Record<string, JobProcessor> {
  // Read through at each use: the clock and the VAT checker are the configured ones when the job runs.
  const deps: JobDeps = {
    get log() {
      return services.log;
    },
    get documents() {
      return services.documents;
    },
    get outbox() {
      return services.outbox;
    },
    get push() {
      return services.push;
    },
    get files() {
      return services.files;
    },
    get counters() {
      return services.counters;
    },
    get keys() {
      return services.keys;
    },
    get links() {
      return services.links;
    },
    get vat() {
      return services.vat;
    },
    get now() {
      return services.now;
    },
    get logger() {
      return services.logger;
    },
    jobs: { add: (name, data, options) => services.jobs.add(name, data, options) },
  };
  return service.jobs(deps);
}
