/**
 * A small in-memory stand-in for the MongoDB driver calls the read-model and lease adapters make
 * (src/adapters/mongodb/), with the server's semantics where the adapters rely on them. Queries and updates are
 * evaluated by mingo, a MongoDB-semantics library.
 */
import { aggregate, find, update } from 'mingo';
import { MongoClient, MongoServerError } from 'mongodb';

type Row = Record<string, unknown>;

/** The driver's error for a duplicate key: a MongoServerError with code 11000, as the server answers. */
export const duplicateKey = (what: string) => new MongoServerError({ message: `E11000 duplicate key error: ${what}`, code: 11000 });

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
 * transactions that are all-or-nothing (serialized, and rolled back on any error).
 */
interface FakeIndex {
  keys: Array<[string, number]>;
  unique: boolean;
  partialFilterExpression?: Row;
}

/** A document's value at a dotted path; a missing field is null, as an index key holds it. */
function keyValue(row: Row, path: string): unknown {
  let value: unknown = row;
  for (const segment of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Row)[segment] : undefined;
  return value ?? null;
}

export class FakeServer {
  collections = new Map<string, Row[]>();
  indexes = new Map<string, FakeIndex[]>();
  replicaSet = true;
  /** Makes bulkWrite on this collection fail, to show a transaction is all-or-nothing. */
  failBulkWriteOn: string | null = null;
  private lock: Promise<void> = Promise.resolve();

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
      startSession: () => ({
        withTransaction: async <T>(fn: () => Promise<T>) => server.transaction(fn),
        endSession: async () => {},
      }),
      close: async () => {},
    } as unknown as MongoClient;
  }

  private async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise((resolve) => (release = resolve));
    await previous;
    const snapshot = structuredClone(this.collections);
    try {
      return await fn();
    } catch (error) {
      this.collections = snapshot;
      throw error;
    } finally {
      release();
    }
  }

  /**
   * Refuses a document whose key in a unique index another document of the collection has: a missing field
   * is indexed as null, so two documents without it clash (MongoDB docs, "Unique Indexes", "Missing Document
   * Field in a Unique Single-Field Index": https://www.mongodb.com/docs/manual/core/index-unique/), unless the
   * index is partial and leaves them out ("Partial Indexes" with a unique constraint:
   * https://www.mongodb.com/docs/manual/core/index-partial/).
   */
  private checkUnique(name: string, doc: Row): void {
    const indexed = (index: FakeIndex, row: Row) =>
      !index.partialFilterExpression || find([row], index.partialFilterExpression).all().length === 1;
    for (const index of this.indexes.get(name) ?? []) {
      if (!index.unique || !indexed(index, doc)) continue;
      const key = JSON.stringify(index.keys.map(([path]) => keyValue(doc, path)));
      const clash = this.rows(name).find(
        (row) => row._id !== doc._id && indexed(index, row) && JSON.stringify(index.keys.map(([path]) => keyValue(row, path))) === key,
      );
      if (clash) throw duplicateKey(`index ${JSON.stringify(index.keys)} dup key ${key}`);
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
    if (existing) throw duplicateKey(`_id ${String(doc._id)}`);
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

  private collection(name: string) {
    const copy = <T>(value: T): T => structuredClone(value);
    return {
      find: (query: Row, options: { sort?: Array<[string, 1 | -1]>; skip?: number; limit?: number } = {}) => ({
        toArray: async () => {
          let cursor = find(this.rows(name), query);
          if (options.sort) cursor = cursor.sort(Object.fromEntries(options.sort));
          if (options.skip) cursor = cursor.skip(options.skip);
          if (options.limit) cursor = cursor.limit(options.limit);
          return copy(cursor.all());
        },
      }),
      findOne: async (query: Row) => copy((find(this.rows(name), query).next() as Row | undefined) ?? null),
      countDocuments: async (query: Row) => find(this.rows(name), query).all().length,
      aggregate: (pipeline: Row[]) => ({ toArray: async () => copy(aggregate(this.rows(name), pipeline)) }),
      updateOne: async (filter: Row, modifier: Row, options: { upsert?: boolean } = {}) => {
        const { matchedCount, upsertedCount } = await this.updateOne(name, filter, modifier, options.upsert ?? false);
        return { matchedCount, upsertedCount };
      },
      findOneAndUpdate: async (filter: Row, modifier: Row, options: { upsert?: boolean } = {}) =>
        copy((await this.updateOne(name, filter, modifier, options.upsert ?? false)).doc),
      insertOne: async (doc: Row) => {
        const rows = this.rows(name);
        if (rows.some((row) => row._id === doc._id)) throw duplicateKey(`_id ${String(doc._id)}`);
        this.checkUnique(name, doc);
        rows.push(copy(doc));
        return { acknowledged: true, insertedId: doc._id };
      },
      deleteOne: async (filter: Row) => {
        const rows = this.rows(name);
        const found = find(rows, filter).next();
        if (found) rows.splice(rows.indexOf(found as Row), 1);
        return { deletedCount: found ? 1 : 0 };
      },
      bulkWrite: async (writes: Row[]) => {
        if (this.failBulkWriteOn === name) throw new Error(`injected failure on ${name}`);
        const rows = this.rows(name);
        for (const write of writes) {
          const { replaceOne, deleteOne } = write as { replaceOne?: { replacement: Row }; deleteOne?: { filter: Row } };
          const id = replaceOne ? replaceOne.replacement._id : deleteOne!.filter._id;
          if (replaceOne) this.checkUnique(name, replaceOne.replacement);
          const at = rows.findIndex((row) => row._id === id);
          if (replaceOne && at >= 0) rows[at] = copy(replaceOne.replacement);
          else if (replaceOne) rows.push(copy(replaceOne.replacement));
          else if (at >= 0) rows.splice(at, 1);
        }
      },
      createIndex: async (keys: Array<[string, number]>, options: { unique?: boolean; partialFilterExpression?: Row } = {}) => {
        this.rows(name);
        const list = this.indexes.get(name) ?? [];
        const { partialFilterExpression } = options;
        if (!list.some((index) => JSON.stringify(index.keys) === JSON.stringify(keys)))
          list.push({ keys, unique: options.unique ?? false, ...(partialFilterExpression ? { partialFilterExpression } : {}) });
        this.indexes.set(name, list);
      },
    };
  }
}
