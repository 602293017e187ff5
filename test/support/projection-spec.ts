import { expect } from 'chai';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import {
  SearchBatch,
  UnitOfWork,
  type DocumentProjection,
  type Projection,
  type ReactorDeps,
  type SearchProjection,
} from '../../src/projector/projection.ts';
import { toNewEvent, type AnyEvent, type EventDefinition } from '../../src/events/define.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import type { Doc, WriteTarget } from '../../src/ports/read-models.ts';
import type { SearchDocument, SearchRequest } from '../../src/ports/search.ts';
import type { FeaturePart } from '../../src/feature.ts';
import { service } from '../../app/features/index.ts';

/**
 * Projections as specifications: given events, when projected, then documents.
 *
 *   await givenEvents(watched(1, 5), watched(1, 6), unwatched(1, 5))
 *     .whenProjected(watchlistReadModels)            // projections/watchlist/index.ts, or a DocumentProjection
 *     .thenDocuments('watchlist', 'demo', [{ _id: '1:6', MemberId: 1, LotId: 6, ... }])
 *     .thenDocuments('watchlist', 'demo2', []);     // or thenDocumentsMatching (fields given), thenNoDocuments()
 *
 * The events are recorded as the log records them (each validated against its schema, as an append does; at
 * positions 1, 2, 3...; on the stream its definition names unless the event says `streamId`; `created` from
 * createdAt(position) unless it says otherwise) and handled through the same path as the projector runtime's:
 * a UnitOfWork per batch over an embedded document store (SQLite in memory), committed with the checkpoint.
 * Awaiting the spec then checks, besides the documents it names:
 * - every other collection and tenant is empty (the documents named are all the projection holds);
 * - handling the same events again, in one batch and one by one, changes nothing (the position guard);
 * - cut into batches of one event, the log gives the same documents as in one batch;
 * - tenant isolation (unless `{ tenantScoped: false }`): the projection writes only under the tenants of the
 *   events it read, and a tenant's documents are the same when only that tenant's events are projected.
 * Expected documents are compared without `_pos` (the position guard's bookkeeping), in `_id` order.
 *
 * The lot search index (a search projection) is the same with whenIndexed(): its writes go to a recording
 * fake of the search port (thenSearchDocuments checks what it holds) and to the embedded index (thenSearchFinds
 * runs a search on it).
 */

/** An event as a spec gives it: a feature's event, optionally with the stream and append time it was recorded with. */
export type GivenEvent<E extends AnyEvent = AnyEvent> = E & { streamId?: string; created?: string };

/** When the given event at `position` was appended (its `created`), unless it says otherwise. */
export const createdAt = (position: number) => new Date(Date.UTC(2026, 10, 22, 12, 0, 0) + position * 1000).toISOString();

/** The event, recorded on the given stream (instead of the one its definition names). */
export const onStream = <E extends AnyEvent>(streamId: string, event: E): GivenEvent<E> => ({ ...event, streamId });

const definitions = new Map<string, EventDefinition>(service.events.map((d) => [d.type, d]));

/** The stream an event's definition names (`lot-{tenant}-{lotId}`), filled in from its data. */
function streamOf(definition: EventDefinition, data: Record<string, unknown>) {
  return definition.stream.replace(/\{(\w+)\}/g, (_, field: string) => {
    if (data[field] === undefined)
      throw new Error(`${definition.type}: the stream ${definition.stream} names ${field}, which its data lacks`);
    return String(data[field]);
  });
}

/** The given events as the log records them. */
export function record(events: readonly GivenEvent[]): RecordedEvent[] {
  const revisions = new Map<string, number>();
  return events.map((event, i) => {
    const definition = definitions.get(event.type);
    if (!definition) throw new Error(`${event.type} is no event type of the service`);
    const fresh = toNewEvent(definition, event.data as never);
    const streamId = event.streamId ?? streamOf(definition, fresh.data);
    const revision = revisions.get(streamId) ?? 0;
    revisions.set(streamId, revision + 1);
    const position = i + 1;
    return { ...fresh, streamId, revision, position, created: event.created ?? createdAt(position) };
  });
}

const tenantOf = (event: RecordedEvent) => event.metadata.tenant;
const tenantsOf = (events: readonly RecordedEvent[]) => [...new Set(events.map(tenantOf))].sort();

/** A spec awaited nowhere checks nothing: such a spec fails its test (see the root hook below). */
const unawaited = new Set<{ description: string }>();
if (typeof afterEach === 'function')
  afterEach(() => {
    if (unawaited.size === 0) return;
    const left = [...unawaited].map((s) => s.description);
    unawaited.clear();
    throw new Error(`a projection spec was never awaited, so it checked nothing: ${left.join('; ')}`);
  });

/** A spec run when awaited (once), and registered until then so that one never awaited fails its test. */
abstract class AwaitedSpec implements PromiseLike<void> {
  private run: Promise<void> | null = null;
  private readonly guard: { description: string };

  constructor(name: string, given: readonly GivenEvent[]) {
    this.guard = { description: `${name} given ${given.map((e) => e.type).join(', ') || 'no events'}` };
    unawaited.add(this.guard);
  }

  protected abstract verify(): Promise<void>;

  then<R1 = void, R2 = never>(
    onfulfilled?: ((value: void) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ) {
    unawaited.delete(this.guard);
    this.run ??= this.verify();
    return this.run.then(onfulfilled, onrejected);
  }
}

interface Expectation {
  key: string;
  label: string;
  docs: Array<Record<string, unknown>>;
  exact: boolean;
}

/** Compares what a run holds (without `_pos`) with the expected documents, and requires every other key to be empty. */
function checkExpectations(
  held: Record<string, Array<Record<string, unknown>>>,
  expectations: Expectation[],
  strip: (doc: Record<string, unknown>) => Record<string, unknown>,
) {
  for (const e of expectations) {
    const actual = (held[e.key] ?? []).map(strip);
    if (e.exact) expect(actual, e.label).to.deep.equal(e.docs);
    else {
      expect(actual, `${e.label}: the documents`).to.have.length(e.docs.length);
      e.docs.forEach((doc, i) => expect(actual[i], `${e.label}: document ${i}`).to.deep.include(doc));
    }
  }
  const named = new Set(expectations.map((e) => e.key));
  for (const [key, docs] of Object.entries(held))
    if (!named.has(key)) expect(docs.map(strip), `${key} holds documents the spec does not name`).to.deep.equal([]);
}

/** Only the keys (`collection/tenant`, or `tenant`) of one tenant. */
const ofTenant = <T>(held: Record<string, T>, tenant: string, keyTenant: (key: string) => string) =>
  Object.fromEntries(Object.entries(held).filter(([key]) => keyTenant(key) === tenant));

/* ---------------------------------------------------------------- document projections */

/** One embedded document store a projection writes to, batch by batch, as the runtime does. */
class DocumentRun {
  readonly written = new Set<string>();
  private checkpoint = 0;
  private constructor(
    private readonly projection: DocumentProjection,
    private readonly store: SqliteDocumentStore,
  ) {}

  static async open(projection: DocumentProjection) {
    const store = new SqliteDocumentStore(':memory:');
    for (const c of projection.collections) await store.ensureCollection(c);
    return new DocumentRun(projection, store);
  }

  /** Handles one batch of events (those of the projection's types) in a unit of work, committed with the checkpoint. */
  async batch(events: readonly RecordedEvent[]) {
    if (events.length === 0) return;
    const live = this.store.live();
    const target: WriteTarget = {
      get: (collection, tenant, id) => live.get(collection, tenant, id),
      commit: async (ops, checkpoint) => {
        for (const op of ops) this.written.add(op.tenant);
        await live.commit(ops, checkpoint);
      },
    };
    const uow = new UnitOfWork(target);
    for (const event of events) {
      if (!this.projection.handles.includes(event.type)) continue;
      uow.current = event;
      await this.projection.apply(event, uow);
    }
    // Handled again (a replay below the checkpoint), the checkpoint stays where it is.
    const position = Math.max(this.checkpoint, events[events.length - 1].position);
    await target.commit(uow.ops(), { projection: this.projection.name, expected: this.checkpoint, position });
    this.checkpoint = position;
  }

  /** Every document, by `collection/tenant` (empty ones left out), `_id` order, `_pos` kept. */
  async documents(tenants: readonly string[]) {
    const held: Record<string, Doc[]> = {};
    for (const tenant of new Set([...tenants, ...this.written]))
      for (const { name } of this.projection.collections) {
        const docs = await this.store
          .forTenant(tenant)
          .collection(name)
          .find({}, { sort: [['_id', 1]] });
        if (docs.length) held[`${name}/${tenant}`] = docs;
      }
    return held;
  }

  close() {
    return this.store.close();
  }
}

const withoutPos = ({ _pos, ...doc }: Record<string, unknown>) => doc;

export interface ProjectionOptions {
  /**
   * Whether every document lives under the tenant of the event that wrote it (default true). The access
   * projection keeps every tenant's settings under the operator's tenant: it is not.
   */
  tenantScoped?: boolean;
}

export class DocumentsSpec extends AwaitedSpec {
  private readonly expectations: Expectation[] = [];
  constructor(
    private readonly given: readonly GivenEvent[],
    private readonly projection: DocumentProjection,
    private readonly options: ProjectionOptions,
  ) {
    super(projection.name, given);
  }

  /** The documents of the collection and tenant, exactly (without `_pos`), in `_id` order. */
  thenDocuments<T extends Doc = Doc>(collection: string, tenant: string, docs: Array<NoInfer<Omit<T, '_pos'>>>): this {
    this.expectations.push({ key: `${collection}/${tenant}`, label: `${collection}/${tenant}`, docs, exact: true });
    return this;
  }

  /** The documents of the collection and tenant, in `_id` order, each holding at least the fields given. */
  thenDocumentsMatching<T extends Doc = Doc>(collection: string, tenant: string, docs: Array<NoInfer<Partial<T>>>): this {
    this.expectations.push({ key: `${collection}/${tenant}`, label: `${collection}/${tenant}`, docs, exact: false });
    return this;
  }

  /** No document in any collection, for any tenant. */
  thenNoDocuments(): this {
    return this;
  }

  protected async verify() {
    const events = record(this.given);
    const tenants = tenantsOf(events);
    const runs: DocumentRun[] = [];
    const open = async () => {
      const run = await DocumentRun.open(this.projection);
      runs.push(run);
      return run;
    };
    try {
      const once = await open();
      await once.batch(events);
      const documents = await once.documents(tenants);
      checkExpectations(documents, this.expectations, withoutPos);

      await once.batch(events);
      expect(await once.documents(tenants), 'the documents after handling every event again, in one batch').to.deep.equal(documents);
      for (const event of events) await once.batch([event]);
      expect(await once.documents(tenants), 'the documents after handling every event again, one by one').to.deep.equal(documents);

      const oneByOne = await open();
      for (const event of events) await oneByOne.batch([event]);
      expect(await oneByOne.documents(tenants), 'the documents when every event comes in a batch of its own').to.deep.equal(documents);

      if (this.options.tenantScoped ?? true) {
        const foreign = [...once.written].filter((t) => !tenants.includes(t));
        expect(foreign, `tenants ${this.projection.name} wrote to without reading any event of theirs`).to.deep.equal([]);
        if (tenants.length > 1)
          for (const tenant of tenants) {
            const alone = await open();
            await alone.batch(events.filter((e) => tenantOf(e) === tenant));
            const tenantOfKey = (key: string) => key.slice(key.indexOf('/') + 1);
            expect(
              ofTenant(await alone.documents([tenant]), tenant, tenantOfKey),
              `the documents of ${tenant} when only its events are projected`,
            ).to.deep.equal(ofTenant(documents, tenant, tenantOfKey));
          }
      }
    } finally {
      for (const run of runs) await run.close();
    }
  }
}

/* ---------------------------------------------------------------- the search projection */

/**
 * A recording fake of the search port's writes, holding documents as the port describes them: an upsert
 * replaces the document of its id, an update merges its fields into the document of its id (unknown ids are
 * ignored), a delete removes the id. With a partition field (the embedded index's `partitions` option, as the
 * composition root configures it), an id is one document per value of that field: an upsert reaches its
 * value's document; an update without the field, and a delete, reach every document of the id.
 */
export class RecordingSearchIndex {
  /** tenant -> `id\u0000partition value` -> document. */
  readonly tenants = new Map<string, Map<string, SearchDocument>>();
  /** Every write, in order. */
  readonly writes: Array<{
    op: 'upsert' | 'update' | 'delete';
    collection: string;
    tenant: string;
    docs?: SearchDocument[];
    ids?: string[];
  }> = [];

  constructor(private readonly partitionField: string | null) {}

  private docs(tenant: string) {
    let docs = this.tenants.get(tenant);
    if (!docs) this.tenants.set(tenant, (docs = new Map()));
    return docs;
  }
  private value(doc: SearchDocument) {
    return this.partitionField === null ? '' : String(doc[this.partitionField] ?? '');
  }
  private holding(tenant: string, id: string, value: string | null) {
    return [...this.docs(tenant).keys()].filter(
      (key) => key.split('\u0000')[0] === id && (value === null || key.split('\u0000')[1] === value),
    );
  }

  async upsert(collection: string, tenant: string, docs: SearchDocument[]) {
    this.writes.push({ op: 'upsert', collection, tenant, docs: structuredClone(docs) });
    for (const doc of docs) this.docs(tenant).set(`${doc.id}\u0000${this.value(doc)}`, structuredClone(doc));
  }
  async update(collection: string, tenant: string, docs: SearchDocument[]) {
    this.writes.push({ op: 'update', collection, tenant, docs: structuredClone(docs) });
    for (const patch of docs) {
      const named = this.partitionField === null ? '' : patch[this.partitionField];
      for (const key of this.holding(tenant, patch.id, named === undefined || named === null ? null : String(named))) {
        const doc = this.docs(tenant).get(key)!;
        for (const [field, value] of Object.entries(patch))
          if (value !== undefined && field !== this.partitionField) doc[field] = structuredClone(value);
      }
    }
  }
  async delete(collection: string, tenant: string, ids: string[]) {
    this.writes.push({ op: 'delete', collection, tenant, ids: [...ids] });
    for (const id of ids) for (const key of this.holding(tenant, id, null)) this.docs(tenant).delete(key);
  }

  /** Every document, by tenant (empty ones left out), in id then partition order. */
  documents(): Record<string, SearchDocument[]> {
    const held: Record<string, SearchDocument[]> = {};
    for (const [tenant, docs] of this.tenants) {
      const sorted = [...docs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, doc]) => doc);
      if (sorted.length) held[tenant] = structuredClone(sorted);
    }
    return held;
  }
}

/**
 * One run of a search projection: its writes go to the recording fake and to the embedded index; the
 * streams it reads (SearchBatch.earlier) are those of the given events, as the log holds them.
 */
class SearchRun {
  private constructor(
    private readonly projection: SearchProjection,
    readonly recording: RecordingSearchIndex,
    readonly index: MiniSearchIndex,
    private readonly log: readonly RecordedEvent[],
  ) {}

  static async open(projection: SearchProjection, partitionField: string | null, log: readonly RecordedEvent[]) {
    const index = await MiniSearchIndex.open({
      dir: null,
      flushIntervalMs: 0,
      partitions: partitionField === null ? {} : { [projection.collection.name]: partitionField },
    });
    await index.ensureCollection(projection.collection);
    return new SearchRun(projection, new RecordingSearchIndex(partitionField), index, log);
  }

  /** Handles one batch of events and writes it, op by op in order, as the runtime does. */
  async batch(events: readonly RecordedEvent[]) {
    const batch = new SearchBatch(async (streamId) => this.log.filter((e) => e.streamId === streamId));
    for (const event of events) if (this.projection.handles.includes(event.type)) await this.projection.apply(event, batch);
    const collection = this.projection.collection.name;
    for (const op of batch.ops)
      for (const target of [this.recording, this.index]) {
        if (op.op === 'upsert') await target.upsert(collection, op.tenant, op.docs);
        else if (op.op === 'update') await target.update(collection, op.tenant, op.docs);
        else await target.delete(collection, op.tenant, op.ids);
      }
  }

  close() {
    return this.index.close();
  }
}

export interface SearchOptions {
  /** The field the embedded index partitions the collection by (LOT_SEARCH_PARTITION), if any. */
  partitionField?: string;
}

export class SearchSpec extends AwaitedSpec {
  private readonly expectations: Expectation[] = [];
  private readonly searches: Array<{ tenant: string; request: SearchRequest; ids: string[] }> = [];
  constructor(
    private readonly given: readonly GivenEvent[],
    private readonly projection: SearchProjection,
    private readonly options: SearchOptions,
  ) {
    super(projection.name, given);
  }

  /** The search documents of the tenant, exactly, in id (then partition value) order. */
  thenSearchDocuments(tenant: string, docs: SearchDocument[]): this {
    this.expectations.push({ key: tenant, label: `search documents of ${tenant}`, docs, exact: true });
    return this;
  }

  /** A search of the tenant on the embedded index finds these ids, in this order. */
  thenSearchFinds(tenant: string, request: Omit<SearchRequest, 'page' | 'perPage'> & Partial<SearchRequest>, ids: string[]): this {
    this.searches.push({ tenant, request: { page: 1, perPage: 100, ...request }, ids });
    return this;
  }

  protected async verify() {
    const events = record(this.given);
    const tenants = tenantsOf(events);
    const partitionField = this.options.partitionField ?? null;
    const runs: SearchRun[] = [];
    const open = async () => {
      const run = await SearchRun.open(this.projection, partitionField, events);
      runs.push(run);
      return run;
    };
    try {
      const once = await open();
      await once.batch(events);
      const documents = once.recording.documents();
      checkExpectations(documents, this.expectations, (doc) => doc);
      const collection = this.projection.collection.name;
      for (const s of this.searches) {
        const found = await once.index.search(collection, s.tenant, s.request);
        expect(
          found.hits.map((h) => h.id),
          `a search of ${s.tenant} for ${JSON.stringify(s.request)}`,
        ).to.deep.equal(s.ids);
      }

      await once.batch(events);
      expect(once.recording.documents(), 'the search documents after indexing every event again').to.deep.equal(documents);
      for (const s of this.searches)
        expect(
          (await once.index.search(collection, s.tenant, s.request)).hits.map((h) => h.id),
          'the same search after indexing every event again',
        ).to.deep.equal(s.ids);

      const oneByOne = await open();
      for (const event of events) await oneByOne.batch([event]);
      expect(oneByOne.recording.documents(), 'the search documents when every event comes in a batch of its own').to.deep.equal(documents);

      const foreign = [...once.recording.tenants.keys()].filter((t) => !tenants.includes(t));
      expect(foreign, `tenants ${this.projection.name} wrote to without reading any event of theirs`).to.deep.equal([]);
      if (tenants.length > 1)
        for (const tenant of tenants) {
          const alone = await open();
          await alone.batch(events.filter((e) => tenantOf(e) === tenant));
          expect(
            ofTenant(alone.recording.documents(), tenant, (key) => key),
            `the search documents of ${tenant} when only its events are indexed`,
          ).to.deep.equal(ofTenant(documents, tenant, (key) => key));
        }
    } finally {
      for (const run of runs) await run.close();
    }
  }
}

/**
 * The one projection of kind `kind` a feature's read models register (`projections/<feature>/index.ts` exports
 * them as a FeaturePart), as the service registers it; reactors get `deps` (none by default: not to be run).
 */
export function registered<K extends Projection['kind']>(
  part: FeaturePart,
  kind: K,
  deps: ReactorDeps = {} as ReactorDeps,
): Extract<Projection, { kind: K }> {
  const found = (part.projections?.(deps) ?? []).filter((p) => p.kind === kind);
  if (found.length !== 1) throw new Error(`the read models register ${found.length} ${kind} projections, not one`);
  return found[0] as Extract<Projection, { kind: K }>;
}

/** Given these events (a feature's, typed by the spec: `givenEvents<WatchlistEvent>(...)`)... */
export function givenEvents<E extends AnyEvent>(...events: Array<GivenEvent<E>>) {
  return {
    /** ...handled by a document projection (or the one a feature's read models register)... */
    whenProjected: (projection: DocumentProjection | FeaturePart, options: ProjectionOptions = {}) =>
      new DocumentsSpec(events, 'kind' in projection ? projection : registered(projection, 'documents'), options),
    /** ...handled by a search projection (or the one a feature's read models register)... */
    whenIndexed: (projection: SearchProjection | FeaturePart, options: SearchOptions = {}) =>
      new SearchSpec(events, 'kind' in projection ? projection : registered(projection, 'search'), options),
  };
}
