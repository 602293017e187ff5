/**
 * A small in-memory stand-in for the MongoDB driver calls the read-model and lease adapters make
 * (src/adapters/mongodb/), with the server's semantics where the adapters rely on them. Queries and updates are
 * evaluated by mingo, a MongoDB-semantics library.
 */
import { aggregate, find, update } from 'mingo';
import { BSON, MongoClient, MongoError, MongoInvalidArgumentError, MongoServerError } from 'mongodb';

type Row = Record<string, unknown>;

/** A session of the fake client: the transaction it runs, if any. */
export interface FakeSession {
  txn: { number: number; started: number; aborted: boolean; saved: Map<string, Record<string, unknown>[] | undefined> } | null;
  withTransaction<T>(fn: () => Promise<T>): Promise<T>;
  endSession(): Promise<void>;
}

/** Options of a command that may belong to a session's transaction. */
interface Sessioned {
  session?: FakeSession;
}

/** The largest document a user may store, and the largest statement the driver sends (BSONObjMaxUserSize, 16 MiB). */
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;

/**
 * The driver refuses a bulkWrite with a statement of 16 MiB or more before sending any of it (`lib/bulk/ordered.js`:
 * "Document is larger than the maximum size"); a replaceOne's statement is `{ q, u, upsert }` (`makeUpdateStatement`,
 * `lib/operations/update.js`).
 */
function checkStatementSizes(writes: Row[]): void {
  for (const write of writes) {
    const { replaceOne } = write as { replaceOne?: { filter: Row; replacement: Row; upsert?: boolean } };
    if (!replaceOne) continue;
    const statement = { q: replaceOne.filter, u: replaceOne.replacement, upsert: replaceOne.upsert ?? false };
    if (BSON.calculateObjectSize(statement) >= MAX_BSON_OBJECT_SIZE)
      throw new MongoInvalidArgumentError(`Document is larger than the maximum size ${MAX_BSON_OBJECT_SIZE}`);
  }
}

/** The server refuses to insert a document over 16 MiB: BSONObjectTooLarge, 10334 (`fixDocumentForInsert`, insert.cpp). */
function checkInsertSize(doc: Row): void {
  const size = BSON.calculateObjectSize(doc);
  if (size > MAX_BSON_OBJECT_SIZE)
    throw serverError(10334, 'BSONObjectTooLarge', `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`);
}

/** The createIndex options the fake reads; the server takes more. */
interface IndexOptions {
  name?: string;
  unique?: boolean;
  partialFilterExpression?: Row;
  expireAfterSeconds?: number;
  hidden?: boolean;
}

/** A MongoServerError as the driver makes one of the server's answer (`lib/error.js`). */
export const serverError = (code: number, codeName: string, message: string) => new MongoServerError({ message, code, codeName });

/**
 * The server's duplicate key error, as `buildDupKeyErrorStatus` words it (src/mongo/db/storage/index_entry_comparison.cpp):
 * code 11000, "E11000 duplicate key error collection: … index: … dup key: { … }".
 */
export const duplicateKey = (collection: string, index: string, key: Row) =>
  serverError(
    11000,
    'DuplicateKey',
    `E11000 duplicate key error collection: bidder.${collection} index: ${index} dup key: ${JSON.stringify(key)}`,
  );

/**
 * An upsert the server retries as an update after its insert met a duplicate key: the filter is equality
 * on the unique index's fields only (MongoDB docs, db.collection.updateOne, "Upsert with Duplicate Values":
 * https://www.mongodb.com/docs/manual/reference/method/db.collection.updateOne/#upsert-with-duplicate-values;
 * SERVER-37124). Here the index is `_id`'s.
 */
const retriedAsUpdate = (filter: Row) =>
  Object.keys(filter).length === 1 && '_id' in filter && (filter._id === null || typeof filter._id !== 'object');

/**
 * A small in-memory stand-in for the driver calls the adapter makes, with MongoDB's semantics where the
 * adapter relies on them: queries and updates evaluated by mingo; an upsert matches, then inserts in a later
 * step (another write may come between, as on the server), and an insert that meets an existing `_id`
 * fails with code 11000, except an upsert on `_id` equality, which the server retries as an update;
 * transactions that are all-or-nothing (serialized, and rolled back on any error); indexes created, listed and
 * dropped by name as the server does (see createIndex).
 */
export interface FakeIndex {
  name: string;
  keys: Array<[string, number]>;
  unique: boolean;
  partialFilterExpression?: Row;
  /** Options that do not tell one index from another (expireAfterSeconds, hidden). */
  other?: Row;
}

/** JSON with object keys sorted (the server compares filters normalized, `MatchExpression::equivalent`). */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/**
 * What tells two indexes apart, their "signature": key pattern, unique, sparse, partial filter (and collation,
 * unused here). jstests/core/index_signature.js builds indexes on one key pattern that differ by each of these.
 */
const signature = (index: FakeIndex) => canonical([index.keys, index.unique, index.partialFilterExpression]);

/** An index as listIndexes shows it (`key` a document in the index's order). */
const listed = (index: FakeIndex): Row => ({
  v: 2,
  key: Object.fromEntries(index.keys),
  name: index.name,
  ...(index.unique ? { unique: true } : {}),
  ...(index.partialFilterExpression ? { partialFilterExpression: index.partialFilterExpression } : {}),
  ...index.other,
});

/** A document's value at a dotted path; a missing field is null, as an index key holds it. */
function keyValue(row: Row, path: string): unknown {
  let value: unknown = row;
  for (const segment of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Row)[segment] : undefined;
  return value ?? null;
}

/** A document's key in an index, named by the index's fields (as the duplicate key error shows it). */
const indexKey = (index: FakeIndex, row: Row): Row => Object.fromEntries(index.keys.map(([path]) => [path, keyValue(row, path)]));

/** Whether an index holds a document: every document, or those its partial filter matches. */
const indexed = (index: FakeIndex, row: Row) =>
  !index.partialFilterExpression || find([row], index.partialFilterExpression).all().length === 1;

export class FakeServer {
  collections = new Map<string, Row[]>();
  indexes = new Map<string, FakeIndex[]>();
  replicaSet = true;
  /** Makes bulkWrite on this collection fail, to show a transaction is all-or-nothing. */
  failBulkWriteOn: string | null = null;
  /** Called before each bulkWrite (after the driver's checks): a spec may throw from it, to fail one part way. */
  beforeBulkWrite: ((collection: string, documents: number) => void) | null = null;
  /** The server's `transactionLifetimeLimitSeconds` (60 by default), in ms. */
  transactionLifetimeMs = 60_000;
  /** Time each document written takes on this server (ms), on the fake's clock: the specs of time limits set it. */
  writeCostMs = 0;
  /** Documents written, each write of bulkWrite one (the specs count the round trips' sizes by it). */
  bulkWrites: Array<{ collection: string; documents: number; inTransaction: boolean }> = [];
  private spent = 0;
  private txnNumber = 0;
  private lock: Promise<void> = Promise.resolve();

  /** The server's clock: the real one, plus the time documents written have taken (writeCostMs) and advance() added. */
  now(): number {
    return Date.now() + this.spent;
  }

  /** Moves the server's clock, as a client that takes its time between two commands. */
  advance(ms: number): void {
    this.spent += ms;
  }

  client(): MongoClient {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the fake client's functions read their server
    const server = this;
    const db = (name: string) => ({
      databaseName: name,
      command: async () => (server.replicaSet ? { isWritablePrimary: true, setName: 'rs0' } : { isWritablePrimary: true }),
      collection: (collection: string) => server.collection(collection),
      createCollection: async (collection: string) => {
        if (server.collections.has(collection)) throw Object.assign(new Error('NamespaceExists'), { code: 48 });
        server.collections.set(collection, []);
      },
      dropCollection: async (collection: string) => {
        server.indexes.delete(collection);
        return server.collections.delete(collection);
      },
    });
    return {
      db,
      startSession: () => {
        const session: FakeSession = {
          txn: null,
          withTransaction: async <T>(fn: () => Promise<T>) => server.withTransaction(session, fn),
          endSession: async () => {},
        };
        return session;
      },
      close: async () => {},
    } as unknown as MongoClient;
  }

  /**
   * ClientSession.withTransaction as the driver runs it (`lib/sessions.js`): the callback, then the commit; an error
   * labelled TransientTransactionError runs both again, until 120 s have passed since the first try.
   */
  private async withTransaction<T>(session: FakeSession, fn: () => Promise<T>): Promise<T> {
    const deadline = this.now() + 120_000;
    for (;;) {
      try {
        return await this.transaction(session, fn);
      } catch (error) {
        const transient = error instanceof MongoError && error.hasErrorLabel('TransientTransactionError');
        if (!transient || this.now() >= deadline) throw error;
      }
    }
  }

  /** One try: serialized with the others, all or nothing (rolled back on any error), its lifetime bounded. */
  private async transaction<T>(session: FakeSession, fn: () => Promise<T>): Promise<T> {
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise((resolve) => (release = resolve));
    await previous;
    const txn = { number: ++this.txnNumber, started: this.now(), aborted: false, saved: new Map<string, Row[] | undefined>() };
    session.txn = txn;
    try {
      const result = await fn();
      this.inTransaction(session); // commitTransaction
      return result;
    } catch (error) {
      // What the transaction wrote is undone; writes outside it (a rebuild's copies) stay.
      for (const [name, rows] of txn.saved) {
        if (rows) this.collections.set(name, rows);
        else this.collections.delete(name);
      }
      throw error;
    } finally {
      session.txn = null;
      release();
    }
  }

  /**
   * A command of a session's transaction, refused once the transaction has lived past transactionLifetimeLimitSeconds:
   * the server aborts it (`killAllExpiredTransactions`, src/mongo/db/kill_sessions_local.cpp), and every later command
   * of it, the commit too, fails with NoSuchTransaction (251), labelled TransientTransactionError
   * (`isTransientTransactionError`, src/mongo/db/error_labels.cpp).
   */
  private inTransaction(session: FakeSession | undefined, writes?: string): void {
    const txn = session?.txn;
    if (!txn) return;
    if (writes && !txn.saved.has(writes)) txn.saved.set(writes, structuredClone(this.collections.get(writes)));
    if (!txn.aborted && this.now() - txn.started <= this.transactionLifetimeMs) return;
    txn.aborted = true;
    throw new MongoServerError({
      message: `Transaction with { txnNumber: ${txn.number} } has been aborted.`,
      code: 251,
      codeName: 'NoSuchTransaction',
      errorLabels: ['TransientTransactionError'],
    });
  }

  /**
   * A document written: the clock moves by writeCostMs, and a command that outlives its transaction is interrupted
   * by the same abort with TransactionExceededLifetimeLimitSeconds (290), which no label calls transient.
   */
  private spend(session: FakeSession | undefined): void {
    this.spent += this.writeCostMs;
    const txn = session?.txn;
    if (!txn || this.now() - txn.started <= this.transactionLifetimeMs) return;
    txn.aborted = true;
    throw serverError(
      290,
      'TransactionExceededLifetimeLimitSeconds',
      "Aborting transaction because it has been running for longer than 'transactionLifetimeLimitSeconds'",
    );
  }

  /**
   * Refuses a document whose key in a unique index another document of the collection has: a missing field
   * is indexed as null, so two documents without it clash (MongoDB docs, "Unique Indexes", "Missing Document
   * Field in a Unique Single-Field Index": https://www.mongodb.com/docs/manual/core/index-unique/), unless the
   * index is partial and leaves them out ("Partial Indexes" with a unique constraint:
   * https://www.mongodb.com/docs/manual/core/index-partial/).
   */
  private checkUnique(name: string, doc: Row): void {
    for (const index of this.indexes.get(name) ?? []) {
      if (!index.unique || !indexed(index, doc)) continue;
      const key = indexKey(index, doc);
      const clash = this.rows(name).find(
        (row) => row._id !== doc._id && indexed(index, row) && canonical(indexKey(index, row)) === canonical(key),
      );
      if (clash) throw duplicateKey(name, index.name, key);
    }
  }

  private rows(name: string): Row[] {
    let rows = this.collections.get(name);
    if (!rows) this.collections.set(name, (rows = [])); // MongoDB creates a collection on first write
    return rows;
  }

  private upsert(name: string, filter: Row, modifier: Row): { doc: Row; inserted: boolean } {
    const rows = this.rows(name);
    const doc: Row = Object.fromEntries(
      Object.entries(filter).filter(([k, v]) => !k.startsWith('$') && (v === null || typeof v !== 'object')),
    );
    const existing = rows.find((row) => row._id === doc._id);
    if (existing && retriedAsUpdate(filter)) {
      const { $setOnInsert: _ignored, ...rest } = modifier;
      update(existing, rest);
      return { doc: existing, inserted: false };
    }
    if (existing) throw duplicateKey(name, '_id_', { _id: doc._id });
    const { $setOnInsert, ...rest } = modifier;
    Object.assign(doc, $setOnInsert);
    update(doc, rest);
    this.checkUnique(name, doc);
    rows.push(doc);
    return { doc, inserted: true };
  }

  private async updateOne(name: string, filter: Row, modifier: Row, upsert: boolean) {
    const found = find(this.rows(name), filter).next() as Row | undefined;
    if (found) {
      const { $setOnInsert: _ignored, ...rest } = modifier;
      const changed = structuredClone(found);
      update(changed, rest);
      this.checkUnique(name, changed);
      update(found, rest);
      return { matchedCount: 1, upsertedCount: 0, doc: found };
    }
    if (!upsert) return { matchedCount: 0, upsertedCount: 0, doc: null };
    await Promise.resolve(); // the match and the insert are two steps on the server
    const { doc, inserted } = this.upsert(name, filter, modifier);
    return inserted ? { matchedCount: 0, upsertedCount: 1, doc } : { matchedCount: 1, upsertedCount: 0, doc };
  }

  /**
   * createIndexes as the server answers it (`_doesSpecConflictWithExisting`, src/mongo/db/catalog/index_catalog_impl.cpp):
   * the name is the driver's default unless given (keys and directions joined by `_`, `lib/operations/indexes.js`);
   * an index of that name with another signature is IndexKeySpecsConflict (86), with the same signature but other
   * options IndexOptionsConflict (85), an identical one nothing to do; an index of the same signature under another
   * name is IndexOptionsConflict (85). A unique index is built over the documents already there, and one key held
   * twice fails the build with DuplicateKey (11000: `_handleDuplicateKey`, src/mongo/db/index/index_access_method.cpp).
   */
  private createIndex(collection: string, keys: Array<[string, number]>, options: IndexOptions): string {
    this.rows(collection); // createIndexes creates a missing collection
    const { name = keys.flat().join('_'), unique = false, partialFilterExpression, expireAfterSeconds, hidden } = options;
    const other = Object.fromEntries(Object.entries({ expireAfterSeconds, hidden }).filter(([, v]) => v !== undefined));
    const candidate: FakeIndex = {
      name,
      keys,
      unique,
      ...(partialFilterExpression ? { partialFilterExpression } : {}),
      ...(Object.keys(other).length ? { other } : {}),
    };
    const list = this.indexes.get(collection) ?? [];
    const spec = (index: FakeIndex) => JSON.stringify(listed(index));
    const named = list.find((index) => index.name === name);
    if (named && signature(named) !== signature(candidate))
      throw serverError(
        86,
        'IndexKeySpecsConflict',
        `An existing index has the same name as the requested index. Requested index: ${spec(candidate)}, existing index: ${spec(named)}`,
      );
    if (named && canonical(named.other) !== canonical(candidate.other))
      throw serverError(
        85,
        'IndexOptionsConflict',
        `An equivalent index already exists with the same name but different options. Requested index: ${spec(candidate)}, existing index: ${spec(named)}`,
      );
    if (named) return name;
    const equivalent = list.find((index) => signature(index) === signature(candidate));
    if (equivalent) throw serverError(85, 'IndexOptionsConflict', `Index already exists with a different name: ${equivalent.name}`);
    if (unique) {
      const seen = new Set<string>();
      for (const row of this.rows(collection).filter((r) => indexed(candidate, r))) {
        const key = canonical(indexKey(candidate, row));
        if (seen.has(key)) throw duplicateKey(collection, name, indexKey(candidate, row));
        seen.add(key);
      }
    }
    this.indexes.set(collection, [...list, candidate]);
    return name;
  }

  /** dropIndexes by name (src/mongo/db/catalog/drop_indexes.cpp): `_id_` cannot go, an unknown name is IndexNotFound (27). */
  private dropIndex(collection: string, index: string): Row {
    if (!this.collections.has(collection)) throw serverError(26, 'NamespaceNotFound', `ns not found bidder.${collection}`);
    if (index === '_id_') throw serverError(72, 'InvalidOptions', 'cannot drop _id index');
    const list = this.indexes.get(collection) ?? [];
    if (!list.some((i) => i.name === index)) throw serverError(27, 'IndexNotFound', `index not found with name [${index}]`);
    this.indexes.set(
      collection,
      list.filter((i) => i.name !== index),
    );
    return { nIndexesWas: list.length + 1, ok: 1 };
  }

  private collection(name: string) {
    const copy = <T>(value: T): T => structuredClone(value);
    return {
      find: (query: Row, options: { sort?: Array<[string, 1 | -1]>; skip?: number; limit?: number; session?: FakeSession } = {}) => ({
        toArray: async () => {
          this.inTransaction(options.session);
          let cursor = find(this.rows(name), query);
          if (options.sort) cursor = cursor.sort(Object.fromEntries(options.sort));
          if (options.skip) cursor = cursor.skip(options.skip);
          if (options.limit) cursor = cursor.limit(options.limit);
          return copy(cursor.all());
        },
      }),
      findOne: async (query: Row, options: Sessioned = {}) => {
        this.inTransaction(options.session);
        return copy((find(this.rows(name), query).next() as Row | undefined) ?? null);
      },
      countDocuments: async (query: Row) => find(this.rows(name), query).all().length,
      aggregate: (pipeline: Row[]) => ({ toArray: async () => copy(aggregate(this.rows(name), pipeline)) }),
      updateOne: async (filter: Row, modifier: Row, options: { upsert?: boolean } & Sessioned = {}) => {
        this.inTransaction(options.session, name);
        const { matchedCount, upsertedCount } = await this.updateOne(name, filter, modifier, options.upsert ?? false);
        return { matchedCount, upsertedCount };
      },
      findOneAndUpdate: async (filter: Row, modifier: Row, options: { upsert?: boolean } & Sessioned = {}) => {
        this.inTransaction(options.session, name);
        return copy((await this.updateOne(name, filter, modifier, options.upsert ?? false)).doc);
      },
      insertOne: async (doc: Row) => {
        checkInsertSize(doc);
        const rows = this.rows(name);
        if (rows.some((row) => row._id === doc._id)) throw duplicateKey(name, '_id_', { _id: doc._id });
        this.checkUnique(name, doc);
        rows.push(copy(doc));
        return { acknowledged: true, insertedId: doc._id };
      },
      deleteOne: async (filter: Row, options: Sessioned = {}) => {
        this.inTransaction(options.session, name);
        const rows = this.rows(name);
        const found = find(rows, filter).next();
        if (found) rows.splice(rows.indexOf(found as Row), 1);
        return { deletedCount: found ? 1 : 0 };
      },
      bulkWrite: async (writes: Row[], options: Sessioned = {}) => {
        this.inTransaction(options.session, name);
        if (this.failBulkWriteOn === name) throw new Error(`injected failure on ${name}`);
        checkStatementSizes(writes);
        this.beforeBulkWrite?.(name, writes.length);
        this.bulkWrites.push({ collection: name, documents: writes.length, inTransaction: Boolean(options.session?.txn) });
        const rows = this.rows(name);
        for (const write of writes) {
          const { replaceOne, deleteOne } = write as { replaceOne?: { replacement: Row }; deleteOne?: { filter: Row } };
          this.spend(options.session);
          const id = replaceOne ? replaceOne.replacement._id : deleteOne!.filter._id;
          if (replaceOne) this.checkUnique(name, replaceOne.replacement);
          const at = rows.findIndex((row) => row._id === id);
          if (replaceOne && at >= 0) rows[at] = copy(replaceOne.replacement);
          else if (replaceOne) rows.push(copy(replaceOne.replacement));
          else if (at >= 0) rows.splice(at, 1);
        }
      },
      createIndex: async (keys: Array<[string, number]>, options: IndexOptions = {}) => this.createIndex(name, keys, options),
      listIndexes: () => ({
        toArray: async () => {
          if (!this.collections.has(name)) throw serverError(26, 'NamespaceNotFound', `ns does not exist: bidder.${name}`);
          return [{ v: 2, key: { _id: 1 }, name: '_id_' }, ...(this.indexes.get(name) ?? []).map(listed)];
        },
      }),
      dropIndex: async (index: string) => this.dropIndex(name, index),
    };
  }
}
