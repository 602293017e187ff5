import type { AppEvent } from '../events/catalog.ts';
import { asAppEvent } from '../events/registry.ts';
import type { JobOptions, JobQueue } from '../ports/jobs.ts';
import type { Reactor } from './projection.ts';

type EventData<T extends AppEvent['type']> = Extract<AppEvent, { type: T }>['data'];

/**
 * A reactor that turns each event of one type into one background job, keyed (`options.jobId`) so that a
 * replayed event adds nothing: the side effect happens once. `job` may answer null to add nothing.
 */
export function jobReactor<T extends AppEvent['type']>(
  jobs: JobQueue,
  reactor: { name: string; on: T; job: (data: EventData<T>) => { name: string; data: unknown; options: JobOptions } | null },
): Reactor {
  return {
    kind: 'reactor',
    name: reactor.name,
    handles: [reactor.on],
    async react(recorded) {
      const event = asAppEvent(recorded);
      if (event.type !== reactor.on) return;
      const job = reactor.job(event.data as EventData<T>);
      if (job) await jobs.add(job.name, job.data, job.options);
    },
  };
}
