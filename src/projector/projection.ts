import type { RecordedEvent } from '../ports/event-log.ts';
import type { CollectionSpec, Doc, DocumentStore, WriteOp, WriteTarget } from '../ports/read-models.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { SearchCollectionSpec, SearchDocument } from '../ports/search.ts';

/**
 * A unit of work over one batch of events for document projections. `update` is guarded by the global
 * position: a document remembers (in `_pos`) the last event applied to it, and an event at or below that
 * position is skipped, so handling an event twice changes nothing.
 */
export class UnitOfWork {
  private readonly cache = new Map<string, Doc | null>();
  private readonly dirty = new Map<string, WriteOp>();
  current!: RecordedEvent;

  constructor(private readonly target: WriteTarget) {}

  private key(collection: string, tenant: string, id: string) {
    return `${collection}\u0000${tenant}\u0000${id}`;
  }

  async get<T extends Doc>(collection: string, tenant: string, id: string): Promise<T | null> {
    const key = this.key(collection, tenant, id);
    if (!this.cache.has(key)) this.cache.set(key, await this.target.get(collection, tenant, id));
    return this.cache.get(key) as T | null;
  }

  /** Replaces the document with fn(current); returning null deletes it. */
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
    const doc = { ...next, _id: id, _pos: position } as Doc;
    this.cache.set(key, doc);
    this.dirty.set(key, { op: 'put', collection, tenant, doc });
  }

  ops(): WriteOp[] {
    return [...this.dirty.values()];
  }
}

export interface DocumentProjection {
  kind: 'documents';
  name: string;
  collections: CollectionSpec[];
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
  apply(event: RecordedEvent, batch: SearchBatch): void;
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
