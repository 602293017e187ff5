import type { AnyEvent, EventSet } from '../events/define.ts';
import type { JobOptions, JobQueue } from '../ports/jobs.ts';
import { defineReactor, type Reactor } from './projection.ts';

type DataOf<E extends AnyEvent, T extends E['type']> = Extract<E, { type: T }>['data'];

/**
 * A reactor that turns each event of one type (of the feature's event set) into one background job, keyed
 * (`options.jobId`) so that a replayed event adds nothing: the side effect happens once. `job` may answer
 * null to add nothing.
 */
export function jobReactor<E extends AnyEvent, T extends E['type']>(
  jobs: JobQueue,
  events: EventSet<E>,
  reactor: { name: string; on: T; job: (data: DataOf<E, T>) => { name: string; data: unknown; options: JobOptions } | null },
): Reactor {
  return defineReactor({
    name: reactor.name,
    events: [events],
    handles: [reactor.on],
    async react(event) {
      const job = reactor.job(event.data as DataOf<E, T>);
      if (job) await jobs.add(job.name, job.data, job.options);
    },
  });
}
