import type { EventDefinition, EventSet } from './events/define.ts';
import type { Operation } from './http/operation.ts';
import type { IntakeKind } from './intake-kind.ts';
import type { JobProcessor, JobQueue } from './ports/jobs.ts';
import type { CollectionSpec } from './ports/read-models.ts';
import type { EventFeed } from './events/feed.ts';
import type { PublicUrlGuard } from './security/public-url.ts';
import type { Projection, ReactorDeps } from './projector/projection.ts';
import type { Services } from './services.ts';

/**
 * An HTTP operation of any credentials and schemas. Each one is type-checked where defineOperation declares
 * it; here only its shape matters (its handler's context depends on its credentials, so no one type fits all).
 */
export type AnyOperation = Omit<Operation, 'handler'> & { handler: (...args: never[]) => unknown };

/**
 * What a feature brings to the service; each part is optional. The core (src/) knows features only through
 * this shape: each feature folder exports the part it holds from its `index.ts` (`commands/<f>`: `<f>Commands`,
 * its events, command operations, reactors, jobs, intake kinds; `projections/<f>`: `<f>ReadModels`, its
 * projections; `queries/<f>`: `<f>Queries`, its query operations), and the composition root
 * (app/features/index.ts) puts each feature together with defineFeature and lists every feature once.
 */
export interface Feature {
  name: string;
  /** Its events. docs/events.md lists every feature's, in the order of the feature list. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any feature's own event set
  events?: EventSet<any>;
  /**
   * Its HTTP operations, in the order they are routed: a literal path before a parameter path it overlaps
   * (`/v1/lots/search` before `/v1/lots/{id}`).
   */
  operations?: readonly AnyOperation[];
  /** Its projections and reactors, in the order they run when caught up one after another. */
  projections?: (deps: ReactorDeps) => Projection[];
  /** Its background jobs, by job name. */
  jobs?: (deps: JobDeps) => Record<string, JobProcessor>;
  /** The NDJSON intake record kinds it brings (docs/intake.md). */
  intake?: readonly IntakeKind[];
  /**
   * Collections its commands write themselves, not a projection's (a worker's cursors): every role declares them,
   * a rebuild never touches them.
   */
  collections?: readonly CollectionSpec[];
  /** Its workers: loops of their own, each with its own cursors, that the worker role runs beside the jobs. */
  workers?: (deps: WorkerDeps) => FeatureWorker[];
}

/**
 * A loop of a feature's own that follows the log where a reactor cannot (one checkpoint per reactor, one event
 * after another): the webhooks' deliveries, one cursor per webhook, each retried for hours without holding the
 * others. Started in the worker role once the engines are open, stopped before they close.
 */
export interface FeatureWorker {
  name: string;
  start(): Promise<void>;
  /** Takes no new work and waits for the work in flight (bounded). */
  stop(): Promise<void>;
}

/** What a delivery worker reports to /metrics: its tries by outcome, and each target's lag (null: it is gone). */
export interface DeliveryMetrics {
  delivery(outcome: 'delivered' | 'failed'): void;
  lag(target: string, seconds: number | null): void;
}

/**
 * What workers work with: the log (to decide and append), read models, the tenants' event feed they follow, the
 * URL rules of outgoing calls, the clock, the logger and the delivery metrics (absent when metrics are off).
 */
export type WorkerDeps = Pick<Services, 'log' | 'documents' | 'now' | 'logger'> & {
  feed: EventFeed;
  urls: PublicUrlGuard;
  metrics?: DeliveryMetrics;
};

/**
 * What background jobs work with: the log (to decide and append), read models, outgoing messages and pushes, files, keys,
 * the links mails carry and the VAT check, the clock and the logger, adding jobs; never the HTTP side (tokens, rate limits), the projector or the
 * search index. A job names its tenant from its data.
 */
export type JobDeps = Pick<
  Services,
  'log' | 'documents' | 'outbox' | 'push' | 'files' | 'keys' | 'links' | 'vat' | 'now' | 'logger' | 'counters'
> & {
  /** To schedule a follow-up (a reminder moved to its new time). */
  jobs: Pick<JobQueue, 'add'>;
};

/** The part of a feature one of its folders exports. */
export type FeaturePart = Omit<Feature, 'name'>;

/** One feature from the parts its folders export, in the order given (operations are routed in that order). */
export function defineFeature(name: string, ...parts: FeaturePart[]): Feature {
  const events = parts.flatMap((p) => (p.events ? [p.events] : []));
  if (events.length > 1) throw new Error(`feature ${name} declares its events in more than one part`);
  const projections = parts.flatMap((p) => (p.projections ? [p.projections] : []));
  const jobs = parts.flatMap((p) => (p.jobs ? [p.jobs] : []));
  const workers = parts.flatMap((p) => (p.workers ? [p.workers] : []));
  return {
    name,
    ...(events.length ? { events: events[0] } : {}),
    operations: parts.flatMap((p) => p.operations ?? []),
    projections: (deps) => projections.flatMap((make) => make(deps)),
    jobs: (services) => mergeJobs(jobs.map((make) => make(services))),
    intake: parts.flatMap((p) => p.intake ?? []),
    collections: parts.flatMap((p) => p.collections ?? []),
    workers: (deps) => workers.flatMap((make) => make(deps)),
  };
}

function mergeJobs(lists: Array<Record<string, JobProcessor>>): Record<string, JobProcessor> {
  const all: Record<string, JobProcessor> = {};
  for (const list of lists)
    for (const [name, processor] of Object.entries(list)) {
      if (all[name]) throw new Error(`two processors for the job ${name}`);
      all[name] = processor;
    }
  return all;
}

function unique(what: string, names: string[]) {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new Error(`${what} ${name} is registered twice`);
    seen.add(name);
  }
}

/**
 * Everything the features register, as the runtime uses it, checked once: an event type, projection, job or
 * intake kind registered by two features would make the log or the worker ambiguous.
 */
export function assembleFeatures(features: readonly Feature[]) {
  unique(
    'feature',
    features.map((f) => f.name),
  );
  const events: EventDefinition[] = features.flatMap((f) => f.events?.definitions ?? []);
  unique(
    'event type',
    events.map((e) => e.type),
  );
  const intake = features.flatMap((f) => f.intake ?? []);
  unique(
    'intake kind',
    intake.map((k) => k.kind),
  );
  const collections = features.flatMap((f) => f.collections ?? []);
  unique(
    'collection',
    collections.map((c) => c.name),
  );
  return {
    features,
    /** Every event definition, feature by feature (docs/events.md). */
    events,
    /** Every HTTP operation, feature by feature, each feature's in its routing order. */
    operations: features.flatMap((f) => f.operations ?? []) as unknown as Operation[],
    projections(deps: ReactorDeps): Projection[] {
      const projections = features.flatMap((f) => f.projections?.(deps) ?? []);
      unique(
        'projection',
        projections.map((p) => p.name),
      );
      return projections;
    },
    jobs: (deps: JobDeps) => mergeJobs(features.map((f) => f.jobs?.(deps) ?? {})),
    intake,
    /** The collections features write outside their projections (declared by every role, exported by the tools). */
    collections,
    /** Every feature's workers (the worker role starts them). */
    workers(deps: WorkerDeps): FeatureWorker[] {
      const workers = features.flatMap((f) => f.workers?.(deps) ?? []);
      unique(
        'worker',
        workers.map((w) => w.name),
      );
      return workers;
    },
  };
}
