import { MongoClient } from 'mongodb';
import type { ClientSession, Collection as MongoCollection, Db, AnyBulkWriteOperation, TransactionOptions } from 'mongodb';
import type {
  Collection,
  CollectionSpec,
  Doc,
  DocumentStore,
  Filter,
  FindOptions,
  ParkedCount,
  ParkedEvent,
  RebuildTarget,
  TenantScope,
  WriteOp,
  WriteTarget,
} from '../../ports/read-models.ts';
import { CheckpointConflictError, IncompleteCopyError } from '../../ports/read-models.ts';
import { checkTenant, countByPipeline, fromCountBy, fromStored, storedId, toMongoQuery, toMongoSort, type StoredDoc } from './filter.ts';
import { reconcileIndexes, wantedIndexes } from './indexes.ts';
import { runSwap, startRebuild, type RebuildCopy, type RebuildEngine } from '../../read-models/rebuild.ts';
import { writesOf } from './mongo-batch-writes.ts';
import { databaseFromUrl, MONGO_TIMEOUT_MS, mongoClientOptions } from './mongo-client-options.ts';
import { countParked, deleteParked, readParked, writeParked, type ParkedDoc } from './mongo-parked-events.ts';
import type { AliasDoc, CheckpointDoc } from './mongo-store-docs.ts';
import { swapStep, type SwapCollections } from './mongo-swap-steps.ts';

/** Re-exported where they were first declared. */
export { databaseFromUrl, MONGO_TIMEOUT_MS, MONGO_WAITS, mongoClientOptions } from './mongo-client-options.ts';

/**
 * The read-model store on MongoDB (driver 7.x).
 *
 *   const store = await MongoDocumentStore.connect(process.env.MONGODB_URL, { dropGraceMs: 60_000 });
 *
 * The URL must name the database (`mongodb://host:27017/bidder?replicaSet=rs0`) unless `dbName` is given.
 * The server must support transactions (a replica set, one node is enough, or a sharded cluster): connect()
 * refuses a standalone server with a clear message instead of running without atomic checkpoints.
 *
 * Layout: each logical collection is reached through an alias (`_aliases`: name → physical collection
 * `<name>__g<generation>`), checkpoints live in `_checkpoints`. Documents are stored with the tenant in `_t`
 * and a `<tenant>\u0000<id>` key (see filter.ts); every index starts with `_t`.
 *
 * A batch's writes and its checkpoint commit in one transaction (snapshot reads, `w: majority`). A rebuild
 * follows src/read-models/rebuild.ts: fresh physical collections, written in bounded batches outside any
 * transaction (commitCopy), then the swap of the aliases and the checkpoint in one transaction (mongo-swap-steps.ts).
 * Other processes re-read the alias map at most every `aliasRefreshMs` (1 s); the replaced copy is dropped
 * only `dropGraceMs` (60 s) later, by whichever process sweeps first, so a reader holding the old alias for
 * that second still reads a complete (if slightly old) copy, never a dropped, empty one.
 */

export interface MongoDocumentStoreOptions {
  /** Database name when the URL does not carry one. */
  dbName?: string;
  /** How long a process trusts its cached alias map before reading it again. */
  aliasRefreshMs?: number;
  /** How long a collection replaced by a rebuild is kept for readers with an older alias map. */
  dropGraceMs?: number;
  /** The clock both intervals are read from (milliseconds); the specs pass one they move by hand. */
  now?: () => number;
  /** How long one operation may take (MONGO_TIMEOUT_MS; 0: no bound): see mongoClientOptions. */
  timeoutMs?: number;
  /** Where a fault the store works around is said (an index left to the next rebuild); the service passes its logger. */
  warn?: (message: string) => void;
}

/** A batch's transaction; `maxCommitTimeMS` bounds its commit on the server as reads are bounded (timeoutMs). */
const transactionOptions = (timeoutMs: number): TransactionOptions => ({
  readConcern: { level: 'snapshot' },
  writeConcern: { w: 'majority' },
  readPreference: 'primary',
  ...(timeoutMs > 0 ? { maxCommitTimeMS: timeoutMs } : {}),
});

const COLLECTION_NAME = /^[a-z][a-z0-9_]*$/;
/** Writes of a rebuild sent in one bulkWrite (outside any transaction: see commitCopy). */
const REBUILD_WRITE_BATCH = 1000;
const DUPLICATE_KEY = 11000;
const NAMESPACE_EXISTS = 48;

function hasCode(error: unknown, code: number): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

export class MongoDocumentStore implements DocumentStore {
  private readonly aliases: MongoCollection<AliasDoc>;
  private readonly checkpoints: MongoCollection<CheckpointDoc>;
  private readonly parked: MongoCollection<ParkedDoc>;
  /** The store's own collections, for the swap's steps. */
  private readonly own: SwapCollections;
  private cache = new Map<string, AliasDoc>();
  private cacheLoadedAt = -Infinity;
  private cacheLoading: Promise<void> | null = null;
  private readonly refreshMs: number;
  private readonly graceMs: number;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  /** `maxTimeMS` of the reads a request makes. */
  private readonly bounded: { maxTimeMS?: number };
  private readonly transaction: TransactionOptions;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  /** Use connect(); this is for a client the caller already holds (the tests pass a fake one). */
  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    options: MongoDocumentStoreOptions = {},
  ) {
    this.aliases = db.collection<AliasDoc>('_aliases');
    this.checkpoints = db.collection<CheckpointDoc>('_checkpoints');
    this.parked = db.collection<ParkedDoc>('_parked');
    this.own = { aliases: this.aliases, checkpoints: this.checkpoints, parked: this.parked };
    this.refreshMs = options.aliasRefreshMs ?? 1000;
    this.graceMs = options.dropGraceMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.warn = options.warn ?? ((message) => process.emitWarning(message));
    const timeoutMs = options.timeoutMs ?? MONGO_TIMEOUT_MS;
    this.bounded = timeoutMs > 0 ? { maxTimeMS: timeoutMs } : {};
    this.transaction = transactionOptions(timeoutMs);
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), Math.max(this.graceMs, 1000)).unref();
  }

  static async connect(url: string, options: MongoDocumentStoreOptions = {}): Promise<MongoDocumentStore> {
    const dbName = options.dbName ?? databaseFromUrl(url);
    if (!dbName) throw new Error('MONGODB_URL must name the database, e.g. mongodb://mongo:27017/bidder?replicaSet=rs0');
    const client = new MongoClient(url, mongoClientOptions(options.timeoutMs));
    await client.connect();
    try {
      return await MongoDocumentStore.open(client, dbName, options);
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** Checks that the server can run transactions, then prepares the store's own collections. */
  static async open(client: MongoClient, dbName: string, options: MongoDocumentStoreOptions = {}): Promise<MongoDocumentStore> {
    const hello = await client.db('admin').command({ hello: 1 });
    if (!hello.setName && hello.msg !== 'isdbgrid') {
      throw new Error(
        'MongoDB is a standalone server: the read-model store needs transactions (a batch and its checkpoint ' +
          'commit together). Run it as a replica set (one node is enough: mongod --replSet rs0, then rs.initiate()) ' +
          'and add ?replicaSet=rs0 to MONGODB_URL.',
      );
    }
    const db = client.db(dbName);
    const store = new MongoDocumentStore(client, db, options);
    // Collections used inside transactions are created beforehand (implicit creation there is not always allowed).
    await store.createCollection('_aliases');
    await store.createCollection('_checkpoints');
    await store.createCollection('_parked');
    await store.sweep();
    return store;
  }

  private async createCollection(name: string): Promise<void> {
    try {
      await this.db.createCollection(name);
    } catch (error) {
      if (!hasCode(error, NAMESPACE_EXISTS)) throw error;
    }
  }

  private physicalCollection(physical: string): MongoCollection<StoredDoc> {
    return this.db.collection<StoredDoc>(physical);
  }

  /**
   * A live copy's indexes brought to its spec (indexes.ts): a changed one is built beside the old one, which is
   * dropped after. A unique index the documents there already break is left to the next rebuild, and said.
   */
  private async ensureIndexes(name: string, physical: string, spec: CollectionSpec): Promise<void> {
    const deferred = await reconcileIndexes(this.physicalCollection(physical), wantedIndexes(spec), { deferBroken: true });
    for (const { name: index, error } of deferred)
      this.warn(
        `read-model collection ${name}: its unique index ${index} cannot be built over the documents it holds (${error}); ` +
          `the index it replaces is kept until its projection is rebuilt (npm run rebuild), which builds it into a fresh copy`,
      );
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    if (!COLLECTION_NAME.test(spec.name)) throw new Error(`invalid collection name ${spec.name}`);
    const alias = await this.aliases.findOneAndUpdate(
      { _id: spec.name },
      { $set: { spec }, $setOnInsert: { physical: `${spec.name}__g1`, allocated: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    await this.createCollection(alias!.physical);
    await this.ensureIndexes(spec.name, alias!.physical, spec);
    this.cacheLoadedAt = -Infinity;
  }

  async collectionSpec(name: string): Promise<CollectionSpec | null> {
    return ((await this.aliases.findOne({ _id: name }))?.spec as CollectionSpec | undefined) ?? null;
  }

  private async loadAliases(): Promise<void> {
    this.cacheLoading ??= (async () => {
      try {
        const started = this.now();
        const docs = await this.aliases.find({}, this.bounded).toArray();
        this.cache = new Map(docs.map((doc) => [doc._id, doc]));
        this.cacheLoadedAt = started;
      } finally {
        this.cacheLoading = null;
      }
    })();
    return this.cacheLoading;
  }

  /** The physical collection behind a name, from an alias map at most `aliasRefreshMs` old. */
  private async resolve(name: string): Promise<string> {
    if (this.now() - this.cacheLoadedAt > this.refreshMs || !this.cache.has(name)) await this.loadAliases();
    const alias = this.cache.get(name);
    if (!alias) throw new Error(`unknown collection ${name}`);
    return alias.physical;
  }

  forTenant(tenant: string): TenantScope {
    checkTenant(tenant);
    return { tenant, collection: <T extends Doc>(name: string) => this.collection<T>(name, tenant) };
  }

  private collection<T extends Doc>(name: string, tenant: string): Collection<T> {
    const physical = async () => this.physicalCollection(await this.resolve(name));
    return {
      findById: async (id) => {
        const stored = await (await physical()).findOne({ _id: storedId(tenant, id) }, this.bounded);
        return stored ? fromStored<T>(stored) : null;
      },
      findOne: async (filter) => {
        const stored = await (await physical()).findOne(toMongoQuery(tenant, filter), this.bounded);
        return stored ? fromStored<T>(stored) : null;
      },
      find: async (filter: Filter, options: FindOptions = {}) => {
        // MongoDB reads limit 0 as "no limit"; the port means an empty page.
        if (options.limit === 0) return [];
        const stored = await (
          await physical()
        )
          .find(toMongoQuery(tenant, filter), {
            sort: toMongoSort(options.sort),
            skip: options.skip,
            limit: options.limit,
            ...this.bounded,
          })
          .toArray();
        return stored.map((doc) => fromStored<T>(doc));
      },
      countDocuments: async (filter) => (await physical()).countDocuments(toMongoQuery(tenant, filter), this.bounded),
      countBy: async (filter, field) =>
        fromCountBy(tenant, field, await (await physical()).aggregate(countByPipeline(tenant, filter, field), this.bounded).toArray()),
    };
  }

  async getCheckpoint(projection: string): Promise<number> {
    return (await this.checkpoints.findOne({ _id: projection }, this.bounded))?.position ?? 0;
  }

  /** One round trip for all (followers in `api` processes read them before requests). */
  async getCheckpoints(projections: readonly string[]): Promise<number[]> {
    const stored = new Map(
      (await this.checkpoints.find({ _id: { $in: [...projections] } }, this.bounded).toArray()).map((c) => [c._id, c.position]),
    );
    return projections.map((name) => stored.get(name) ?? 0);
  }

  private async inTransaction<T>(fn: (session: ClientSession) => Promise<T>): Promise<T> {
    const session = this.client.startSession();
    try {
      return await session.withTransaction(() => fn(session), this.transaction);
    } finally {
      await session.endSession();
    }
  }

  /**
   * Runs `write` in one transaction with the move of checkpoint `name` from `expected` to `position`. The
   * checkpoint is moved first: a concurrent committer of the same projection then fails on a write conflict
   * (retried by withTransaction) and finds the moved checkpoint on its retry. On a stale `expected` nothing is
   * written and CheckpointConflictError is thrown, with the actual position read after the abort (a failed
   * write ends a MongoDB transaction, so nothing more can be read inside it).
   */
  private async commitWith(
    name: string,
    checkpoint: { projection: string; expected: number; position: number; parked?: readonly ParkedEvent[] },
    write: (session: ClientSession) => Promise<void>,
  ): Promise<void> {
    const { projection, expected, position } = checkpoint;
    try {
      await this.inTransaction(async (session) => {
        let matched = false;
        try {
          const result = await this.checkpoints.updateOne(
            { _id: name, position: expected },
            { $set: { position, updated: new Date() } },
            // From 0 the checkpoint may not exist yet; if it exists at another position the upsert hits its key.
            { session, upsert: expected === 0 },
          );
          matched = result.matchedCount + result.upsertedCount > 0;
        } catch (error) {
          if (!hasCode(error, DUPLICATE_KEY)) throw error;
        }
        if (!matched) throw new CheckpointConflictError(projection, expected, NaN);
        await writeParked(this.parked, name, checkpoint.parked ?? [], session);
        await write(session);
      });
    } catch (error) {
      if (error instanceof CheckpointConflictError && Number.isNaN(error.actual)) {
        const actual = (await this.checkpoints.findOne({ _id: name }))?.position ?? 0;
        throw new CheckpointConflictError(projection, expected, actual);
      }
      throw error;
    }
  }

  /** One ordered bulkWrite per physical collection and `batch` writes: the order of writes to one document is kept. */
  private async sendWrites(
    byCollection: Map<string, AnyBulkWriteOperation<StoredDoc>[]>,
    session: ClientSession | undefined,
    batch = Infinity,
  ): Promise<void> {
    for (const [physical, writes] of byCollection)
      for (let i = 0; i < writes.length; i += batch)
        await this.physicalCollection(physical).bulkWrite(writes.slice(i, i + batch), { session, ordered: true });
  }

  /**
   * A rebuild's commit. Its copies are read by nobody until the swap, so their writes need no transaction, and one
   * would not do: MongoDB aborts a transaction that lives past `transactionLifetimeLimitSeconds` (60 s), which a
   * commit of many documents can, and its writes are held in the cache until it commits. The checkpoint is checked
   * first (a stale one writes nothing), the documents go in bounded batches, then the checkpoint moves with what
   * was set aside in a small transaction. A failure between leaves the copies ahead of their checkpoint: the
   * rebuild must start again (IncompleteCopyError).
   */
  private async commitCopy(
    name: string,
    checkpoint: { projection: string; expected: number; position: number; parked?: readonly ParkedEvent[] },
    ops: WriteOp[],
    physicalOf: (name: string) => string,
  ): Promise<void> {
    const actual = (await this.checkpoints.findOne({ _id: name }))?.position ?? 0;
    if (actual !== checkpoint.expected) throw new CheckpointConflictError(checkpoint.projection, checkpoint.expected, actual);
    const writes = writesOf(ops, physicalOf);
    try {
      await this.sendWrites(writes, undefined, REBUILD_WRITE_BATCH);
      await this.commitWith(name, checkpoint, async () => {});
    } catch (error) {
      throw new IncompleteCopyError(checkpoint.projection, { cause: error });
    }
  }

  private liveTarget: WriteTarget | null = null;

  live(): WriteTarget {
    this.liveTarget ??= {
      get: async (collection, tenant, id) => {
        const stored = await this.physicalCollection(await this.resolve(collection)).findOne({ _id: storedId(tenant, id) });
        return stored ? fromStored(stored) : null;
      },
      commit: async (ops, checkpoint) => {
        const names = [...new Set(ops.map((op) => op.collection))];
        for (const name of names) await this.resolve(name);
        try {
          await this.commitWith(checkpoint.projection, checkpoint, async (session) => {
            // The aliases are read in the transaction's snapshot: if a rebuild swapped a collection since this
            // process last looked, the batch (computed from reads of the old copy) is refused and replayed,
            // never written to a copy that is about to be dropped.
            const current = await this.aliases.find({ _id: { $in: names } }, { session }).toArray();
            const physical = new Map(current.map((alias) => [alias._id, alias.physical]));
            if (names.some((name) => physical.get(name) !== this.cache.get(name)?.physical)) {
              throw new CheckpointConflictError(checkpoint.projection, checkpoint.expected, checkpoint.expected);
            }
            await this.sendWrites(
              writesOf(ops, (name) => physical.get(name)!),
              session,
            );
          });
        } catch (error) {
          // Whatever moved the checkpoint may have swapped collections too: read the aliases before the replay.
          if (error instanceof CheckpointConflictError) this.cacheLoadedAt = -Infinity;
          throw error;
        }
      },
    };
    return this.liveTarget;
  }

  async startRebuild(projection: string, collections: string[]): Promise<RebuildTarget> {
    return startRebuild(this.rebuildEngine, projection, collections);
  }

  /** The MongoDB steps of the rebuild protocol (src/read-models/rebuild.ts): copies are collections `<name>__g<n>`. */
  private readonly rebuildEngine: RebuildEngine<RebuildCopy & { spec: CollectionSpec }> = {
    createCopy: async (name) => {
      const alias = await this.aliases.findOneAndUpdate({ _id: name }, { $inc: { allocated: 1 } }, { returnDocument: 'after' });
      if (!alias) throw new Error(`unknown collection ${name}`);
      const physical = `${name}__g${alias.allocated}`;
      await this.db.dropCollection(physical);
      await this.createCollection(physical);
      return { name, physical, spec: alias.spec };
    },
    // Into a fresh copy: a unique index its documents break fails the rebuild (DuplicateKey).
    indexCopy: async ({ physical, spec }) => {
      await reconcileIndexes(this.physicalCollection(physical), wantedIndexes(spec), { deferBroken: false });
    },
    dropCopy: async ({ physical }) => {
      await this.db.dropCollection(physical);
    },
    deleteCheckpoint: async (checkpoint) => {
      await this.checkpoints.deleteOne({ _id: checkpoint });
      await deleteParked(this.parked, checkpoint, () => true);
    },
    target: (physicalOf, checkpoint) => ({
      get: async (collection, tenant, id) => {
        const stored = await this.physicalCollection(physicalOf(collection)).findOne({ _id: storedId(tenant, id) });
        return stored ? fromStored(stored) : null;
      },
      commit: (ops, cp) => this.commitCopy(checkpoint, cp, ops, physicalOf),
    }),
    // A live commit landing after the steps read the checkpoints conflicts with their checkpoint write, and
    // withTransaction runs the steps again.
    swap: async (steps) => {
      const dropAfter = new Date(this.now() + this.graceMs);
      return this.inTransaction((session) => runSwap(steps(), (step) => swapStep(this.own, step, session, dropAfter)));
    },
    swapped: async () => {
      this.cacheLoadedAt = -Infinity;
      if (this.graceMs <= 0) await this.sweep();
      else this.later(this.graceMs, () => this.sweep());
    },
  };

  async parkedEvents(projection: string, session?: ClientSession): Promise<ParkedEvent[]> {
    return readParked(this.parked, projection, session);
  }

  async parkedCounts(): Promise<ParkedCount[]> {
    return countParked(this.parked);
  }

  async park(projection: string, events: readonly ParkedEvent[]): Promise<void> {
    await writeParked(this.parked, projection, events);
  }

  async unpark(projection: string, positions: readonly number[]): Promise<void> {
    const wanted = new Set(positions);
    await deleteParked(this.parked, projection, (doc) => wanted.has(doc.position));
  }

  private later(ms: number, fn: () => Promise<void>) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void fn().catch(() => {});
    }, ms).unref();
    this.timers.add(timer);
  }

  /**
   * Drops the copies replaced by rebuilds once their grace period is over. Any process may do it (the one
   * that ran the rebuild may have exited): dropping twice is harmless.
   */
  async sweep(): Promise<void> {
    if (this.closed) return;
    const now = new Date(this.now());
    const due = await this.aliases.find({ 'retired.dropAfter': { $lte: now } }).toArray();
    for (const alias of due) {
      for (const { physical, dropAfter } of alias.retired ?? []) {
        if (dropAfter > now || physical === alias.physical) continue;
        await this.db.dropCollection(physical);
        await this.aliases.updateOne({ _id: alias._id }, { $pull: { retired: { physical } } });
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.client.close();
  }
}
