/**
 * What /readyz looks at in a process without projections (`worker`): every engine it works on, each touched by
 * one cheap read, as an `api`'s /readyz reaches the log and the read models through its projections' status.
 * Each read is bounded, so an engine that accepts connections and never answers makes /readyz answer 503 rather
 * than hold the probe.
 */
import type { EventLog } from '../ports/event-log.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { DocumentStore } from '../ports/read-models.ts';

/** How long /readyz waits for an engine (ms) before it counts it unreachable: within an orchestrator's probe. */
export const READY_PROBE_MS = 3_000;

/** One cheap read per engine, by the engine's name. */
export type EngineChecks = Record<string, () => Promise<unknown>>;

/** Thrown by a probe: the engines that failed or did not answer in time (their errors in `errors`). */
export class EnginesUnreachableError extends AggregateError {
  constructor(
    readonly engines: string[],
    errors: unknown[],
  ) {
    super(errors, `engines unreachable: ${engines.join(', ')}`);
    this.name = 'EnginesUnreachableError';
  }
}

/**
 * The engines a `worker` works on: the event log (its jobs append, the webhooks' delivery worker reads it), the read
 * models (its jobs read them), the job queue (Redis with BullMQ), and PostgreSQL when any part is on it (`ping`).
 */
export function workerChecks(engines: {
  log: Pick<EventLog, 'headPosition'>;
  documents: Pick<DocumentStore, 'parkedCounts'>;
  jobs: Pick<JobQueue, 'parkedCounts'>;
  ping(): Promise<void>;
}): EngineChecks {
  return {
    log: () => engines.log.headPosition(),
    readModels: () => engines.documents.parkedCounts(),
    jobs: () => engines.jobs.parkedCounts(),
    postgres: () => engines.ping(),
  };
}

/**
 * A probe for /readyz (OpsSources.ping): runs every check at once, each bounded by `timeoutMs`, and throws
 * EnginesUnreachableError naming those that failed or ran out. A check still waiting from an earlier probe is
 * waited on again rather than asked anew, so an engine that never answers does not collect a call per probe.
 */
export function engineProbe(checks: EngineChecks, timeoutMs = READY_PROBE_MS): () => Promise<void> {
  const names = Object.keys(checks);
  const bounded = names.map((name) => boundedShared(checks[name], timeoutMs, name));
  return async () => {
    const results = await Promise.allSettled(bounded.map((call) => call()));
    const failed = names.filter((_, i) => results[i].status === 'rejected');
    if (failed.length === 0) return;
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    throw new EnginesUnreachableError(failed, errors);
  };
}

/**
 * `read`, bounded by `timeoutMs` (then it rejects naming `name`), and shared: a call still waiting from an earlier
 * probe is waited on again rather than asked anew, so an engine that never answers does not collect a call per probe.
 */
export function boundedShared<T>(read: () => Promise<T>, timeoutMs: number, name: string): () => Promise<T> {
  let waiting: Promise<T> | null = null;
  return () => {
    if (!waiting) {
      const call = Promise.resolve().then(read);
      waiting = call;
      const done = () => void (waiting === call && (waiting = null));
      call.then(done, done);
    }
    return bounded(waiting, timeoutMs, name);
  };
}

async function bounded<T>(call: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call, expired]);
  } finally {
    clearTimeout(timer);
  }
}
