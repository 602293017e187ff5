// A reactor's spec, given events, then jobs: the feature's reactor (the one its `<f>Commands` registers) reacts to the
// events as the log records them (typed and checked by their schemas: projection-spec.ts's `record`), and the spec
// reads the jobs it added, with their ids (a replayed event adds a job of a known id, which the queue ignores).
import type { FeaturePart } from '../../src/feature.ts';
import type { AnyEvent } from '../../src/events/define.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import type { JobOptions, JobQueue } from '../../src/ports/jobs.ts';
import { record, registered, type GivenEvent } from './projection-spec.ts';

/** A job as a reactor asked for it. */
export interface AddedJob {
  name: string;
  data: unknown;
  options: JobOptions;
}

/** The jobs the feature's reactor adds for the given events, in order (each event reacted to `times` times: a replay). */
export async function jobsAddedFor<E extends AnyEvent>(
  part: FeaturePart,
  given: ReadonlyArray<GivenEvent<E>>,
  options: { times?: number; documents?: DocumentStore } = {},
): Promise<AddedJob[]> {
  const added: AddedJob[] = [];
  const jobs = {
    async add(name: string, data: unknown, jobOptions: JobOptions) {
      added.push({ name, data, options: jobOptions });
      return { id: jobOptions.jobId, added: true };
    },
  } as unknown as JobQueue;
  const reactor = registered(part, 'reactor', { jobs, documents: options.documents ?? ({} as DocumentStore) });
  for (const event of record(given)) for (let i = 0; i < (options.times ?? 1); i++) await reactor.react(event);
  return added;
}
