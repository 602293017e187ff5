import type { RecordedEvent } from '../ports/event-log.ts';
import type { AnyEvent, EventSet, EventsOf, Recorded } from '../events/define.ts';
import type { CollectionSpec, Doc, DocumentStore, WriteOp, WriteTarget } from '../ports/read-models.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { SearchCollectionSpec, SearchDocument } from '../ports/search.ts';
/* eslint-disable @typescript-eslint/no-explicit-any -- `EventSet<any>` constrains to any feature's event set */

/**
 * A unit of work over one batch of events for document projections. `update` is guarded by the global
 * position: a document remembers (in `_pos`) the last event applied to it, and an event at or below that
 * position is skipped, so handling an event twice changes nothing.
 */
export class UnitOfWork {
  private readonly cache = new Map<string, Doc | null>();
  private readonly dirty = new Map<string, WriteOp>();
  current!: RecordedEvent;

  constructor(
    private readonly target: WriteTarget,
    /** Documents as the last batches committed them (a live loop's), read instead of the store. */
    private readonly kept?: KeptDocuments,
  ) {}

  private key(collection: string, tenant: string, id: string) {
    return `${collection}\u0000${tenant}\u0000${id}`;
  }

  async get<T extends Doc>(collection: string, tenant: string, id: string): Promise<T | null> {
    const key = this.key(collection, tenant, id);
    if (!this.cache.has(key)) {
      const kept = this.kept?.get(key);
      this.cache.set(key, kept !== undefined ? kept : await this.target.get(collection, tenant, id));
    }
    return this.cache.get(key) as T | null;
  }

  /** Every document held (read or written), by key: what a committed batch leaves for the next (KeptDocuments). */
  held(): Iterable<[string, Doc | null]> {
    return this.cache.entries();
  }

  /**
   * Replaces the document with fn(current); returning null deletes it. fn returns a new object or the current
   * one changed in place (a rebuild holds many documents: no copy per event); the unit of work keeps what it
   * returns, with `_id` and `_pos` set on it, so fn must not return an object it shares with anything else.
   */
  async update<T extends Doc>(
    collection: string,
    tenant: string,
    id: string,
    fn: (current: T | null) => Omit<T, '_pos'> | null,
  ): Promise<void> {
    const current = await this.get<T>(collection, tenant, id);
    const position = this.current.position;
    if (current && typeof current._pos === 'number' && current._pos >= position) return;
    const next = fn(current);
    const key = this.key(collection, tenant, id);
    if (next === null) {
      this.cache.set(key, null);
      if (current) this.dirty.set(key, { op: 'delete', collection, tenant, id });
      return;
    }
    // Adopted as it is: a new document fn made for this write, or the current one it changed in place.
    const doc = next as unknown as Doc;
    doc._id = id;
    doc._pos = position;
    this.cache.set(key, doc);
    this.dirty.set(key, { op: 'put', collection, tenant, doc });
  }

  /**
   * Writes a document whose id is new by construction (a number drawn from a document this batch read and
   * guarded by its `_pos`), without reading it first: no store round trip for a document nobody wrote yet.
   */
  create<T extends Doc>(collection: string, tenant: string, id: string, doc: Omit<T, '_pos' | '_id'>): void {
    const written = doc as unknown as Doc;
    written._id = id;
    written._pos = this.current.position;
    const key = this.key(collection, tenant, id);
    this.cache.set(key, written);
    this.dirty.set(key, { op: 'put', collection, tenant, doc: written });
  }

  ops(): WriteOp[] {
    return [...this.dirty.values()];
  }

  /** Documents held (read or written). */
  get size(): number {
    return this.cache.size;
  }

  /** The writes so far, which are then no longer pending (the documents stay held). */
  flush(): WriteOp[] {
    const ops = [...this.dirty.values()];
    this.dirty.clear();
    return ops;
  }

  /** Lets go of the documents held longest, keeping `keep` (only after flush: nothing pending is lost). */
  forget(keep: number): void {
    if (this.dirty.size > 0) throw new Error('forget() with writes pending: flush() first');
    for (const key of this.cache.keys()) {
      if (this.cache.size <= keep) break;
      this.cache.delete(key);
    }
  }
}

/**
 * The documents a live loop's last batches committed, kept for its next ones (a hot lot's document is then
 * not read back and parsed for every batch). Exact while the loop is its collections' only writer: the
 * projector's lease and the checkpoint's expected position make it so; any failed batch forgets them all,
 * since a batch changes the documents it holds in place. Bounded: the least recently used go first.
 */
export class KeptDocuments {
  private readonly docs = new Map<string, Doc | null>();

  constructor(private readonly max: number) {}

  get(key: string): Doc | null | undefined {
    return this.docs.get(key);
  }

  /** After a batch committed: its documents, as committed. */
  keep(held: Iterable<[string, Doc | null]>): void {
    for (const [key, doc] of held) {
      this.docs.delete(key);
      this.docs.set(key, doc);
    }
    for (const key of this.docs.keys()) {
      if (this.docs.size <= this.max) break;
      this.docs.delete(key);
    }
  }

  clear(): void {
    this.docs.clear();
  }
}

/*
 * What the runtime (runtime.ts) sees of a projection: event types by name and recorded events. Features
 * declare theirs with defineDocumentProjection, defineSearchProjection and defineReactor below, which type
 * them over the event sets they read.
 */

export interface DocumentProjection {
  kind: 'documents';
  name: string;
  collections: CollectionSpec[];
  /**
   * How many documents its live loop keeps between batches (KeptDocuments), for a projection that updates the
   * same documents batch after batch (a lot's, for each bid); none when absent.
   */
  keepDocuments?: number;
  /** Event types it reads; other events only move its checkpoint. */
  handles: readonly string[];
  apply(event: RecordedEvent, uow: UnitOfWork): Promise<void>;
}

/**
 * Collects a batch's index writes in order. Consecutive writes of the same kind and tenant are sent to the
 * index together (Typesense: one import call), so order between upserts, updates and deletes is kept.
 */
export type SearchOp =
  | { op: 'upsert'; tenant: string; docs: SearchDocument[] }
  | { op: 'update'; tenant: string; docs: SearchDocument[] }
  | { op: 'delete'; tenant: string; ids: string[] };

export class SearchBatch {
  readonly ops: SearchOp[] = [];

  /** `readStream`: the log's (EventLog.readStream), for earlier(); a batch without it reads nothing. */
  constructor(private readonly readStream?: (streamId: string) => Promise<RecordedEvent[]>) {}

  /**
   * The events of the event's stream before it, in revision order, as the log holds them. A search
   * projection reads nothing back from its index: what an event needs of its aggregate's past (a lot closed
   * early, the languages it was indexed in) it folds from these. Fixed by the event's revision, so a
   * replay or a rebuild reads the same; a stream's first event has none (and reads nothing).
   */
  async earlier(event: RecordedEvent): Promise<RecordedEvent[]> {
    if (event.revision === 0) return [];
    if (!this.readStream) throw new Error(`this search batch reads no log: the stream ${event.streamId} cannot be read`);
    return (await this.readStream(event.streamId)).filter((e) => e.revision < event.revision);
  }

  private last(op: SearchOp['op'], tenant: string) {
    const last = this.ops[this.ops.length - 1];
    return last && last.op === op && last.tenant === tenant ? last : null;
  }
  upsert(tenant: string, doc: SearchDocument) {
    const last = this.last('upsert', tenant) as Extract<SearchOp, { op: 'upsert' }> | null;
    if (last) last.docs.push(doc);
    else this.ops.push({ op: 'upsert', tenant, docs: [doc] });
  }
  update(tenant: string, doc: SearchDocument) {
    const last = this.last('update', tenant) as Extract<SearchOp, { op: 'update' }> | null;
    if (last) last.docs.push(doc);
    else this.ops.push({ op: 'update', tenant, docs: [doc] });
  }
  delete(tenant: string, id: string) {
    const last = this.last('delete', tenant) as Extract<SearchOp, { op: 'delete' }> | null;
    if (last) last.ids.push(id);
    else this.ops.push({ op: 'delete', tenant, ids: [id] });
  }
}

export interface SearchProjection {
  kind: 'search';
  name: string;
  collection: SearchCollectionSpec;
  handles: readonly string[];
  apply(event: RecordedEvent, batch: SearchBatch): Promise<void>;
}

/** Reacts to events with background jobs (keyed, so a replay adds nothing twice); keeps a checkpoint. */
export interface Reactor {
  kind: 'reactor';
  name: string;
  handles: readonly string[];
  react(event: RecordedEvent): Promise<void>;
}

export type Projection = DocumentProjection | SearchProjection | Reactor;

/** What reactors use: the job queue they add to, and read models to look up whom an event concerns. */
export interface ReactorDeps {
  jobs: JobQueue;
  documents: DocumentStore;
}

/** The events a projection reads: those of its sets, or the types it names of them. */
type Read<Sets extends readonly EventSet<any>[], Handled extends string> = Recorded<Extract<EventsOf<Sets[number]>, { type: Handled }>>;

/** What every typed projection declares: its name, the feature event sets it reads, and which of their types. */
interface Reading<Sets extends readonly EventSet<any>[], Handled extends EventsOf<Sets[number]>['type']> {
  name: string;
  /** The event sets of the features it reads (`[watchlistEvents]`). */
  events: Sets;
  /** The types of those sets it handles, when not all of them; other events only move its checkpoint. */
  handles?: readonly Handled[];
}

/** The handled type names, and a reader that types a recorded event of one of them (null for any other event). */
function reading<Sets extends readonly EventSet<any>[], Handled extends EventsOf<Sets[number]>['type']>(spec: Reading<Sets, Handled>) {
  const setOf = new Map<string, EventSet<AnyEvent>>();
  for (const set of spec.events) for (const type of set.types) setOf.set(type, set);
  const handles: readonly string[] = spec.handles ?? [...setOf.keys()];
  for (const type of handles)
    if (!setOf.has(type)) throw new Error(`projection ${spec.name} handles ${type}, which none of its event sets holds`);
  const handled = new Set(handles);
  return {
    handles,
    read: (recorded: RecordedEvent) =>
      handled.has(recorded.type) ? (setOf.get(recorded.type)!.read(recorded) as unknown as Read<Sets, Handled>) : null,
  };
}

/** A document projection typed over the event sets it reads: `apply` gets the union of the events it handles. */
export function defineDocumentProjection<
  const Sets extends readonly EventSet<any>[],
  const Handled extends EventsOf<Sets[number]>['type'] = EventsOf<Sets[number]>['type'],
>(
  projection: Reading<Sets, Handled> & {
    collections: CollectionSpec[];
    keepDocuments?: number;
    apply(event: Read<Sets, Handled>, uow: UnitOfWork): Promise<void>;
  },
): DocumentProjection {
  const { handles, read } = reading(projection);
  return {
    kind: 'documents',
    name: projection.name,
    collections: projection.collections,
    ...(projection.keepDocuments ? { keepDocuments: projection.keepDocuments } : {}),
    handles,
    async apply(recorded, uow) {
      const event = read(recorded);
      if (event) await projection.apply(event, uow);
    },
  };
}

/**
 * A search projection typed over the event sets it reads. `earlier()` gives the events it handles of the
 * event's stream before it (SearchBatch.earlier), typed: its only reading, done when an event needs it.
 */
export function defineSearchProjection<
  const Sets extends readonly EventSet<any>[],
  const Handled extends EventsOf<Sets[number]>['type'] = EventsOf<Sets[number]>['type'],
>(
  projection: Reading<Sets, Handled> & {
    collection: SearchCollectionSpec;
    apply(event: Read<Sets, Handled>, batch: SearchBatch, earlier: () => Promise<Array<Read<Sets, Handled>>>): void | Promise<void>;
  },
): SearchProjection {
  const { handles, read } = reading(projection);
  return {
    kind: 'search',
    name: projection.name,
    collection: projection.collection,
    handles,
    async apply(recorded, batch) {
      const event = read(recorded);
      const earlier = async () => (await batch.earlier(recorded)).map(read).filter((e): e is Read<Sets, Handled> => e !== null);
      if (event) await projection.apply(event, batch, earlier);
    },
  };
}

/** A reactor typed over the event sets it reads. */
export function defineReactor<
  const Sets extends readonly EventSet<any>[],
  const Handled extends EventsOf<Sets[number]>['type'] = EventsOf<Sets[number]>['type'],
>(
  reactor: Reading<Sets, Handled> & {
    react(event: Read<Sets, Handled>): Promise<void>;
  },
): Reactor {
  const { handles, read } = reading(reactor);
  return {
    kind: 'reactor',
    name: reactor.name,
    handles,
    async react(recorded) {
      const event = read(recorded);
      if (event) await reactor.react(event);
    },
  };
}
