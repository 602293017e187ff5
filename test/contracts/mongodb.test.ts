import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { aggregate, find } from 'mingo';
import { MongoClient } from 'mongodb';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import {
  countByPipeline,
  fromCountBy,
  fromStored,
  indexKeys,
  indexOptions,
  PRESENT_TYPES,
  toMongoQuery,
  toMongoSort,
  toStored,
  type StoredDoc,
} from '../../src/adapters/mongodb/filter.ts';
import { databaseFromUrl, MongoDocumentStore, type MongoDocumentStoreOptions } from '../../src/adapters/mongodb/mongo-documents.ts';
import { MongoLeases, type LeaseDoc } from '../../src/adapters/mongodb/mongo-leases.ts';
import type { Doc, Filter, FindOptions } from '../../src/ports/read-models.ts';
import { CheckpointConflictError } from '../../src/ports/read-models.ts';
import { FakeServer } from '../support/fake-mongodb.ts';
import { leaseStoreContract } from './leases.contract.ts';
import { documentStoreContract } from './read-models.contract.ts';

/*
 * The MongoDB read-model adapter, tested three ways:
 * 1. its translation (filters, sorts, countBy) evaluated by mingo, a MongoDB-semantics library, on the same
 *    documents as the embedded SQLite store, and compared with that store's answers;
 * 2. the whole adapter (commit, rebuild, alias swap, sweeps) over a small in-memory fake of the driver calls
 *    it makes (test/support/fake-mongodb.ts), which evaluates queries and updates with mingo, including the shared
 *    contract suite (what the server refuses: mongodb-indexes.test.ts, mongodb-rebuild-limits.test.ts; a server
 *    that stops answering: mongodb-timeouts.test.ts);
 * 3. the contract suite against a real MongoDB, only when MONGODB_URL is set (none can run on this machine).
 */

const sortObject = (sort: Array<[string, 1 | -1]> | undefined) => (sort ? Object.fromEntries(sort) : undefined);

/** What MongoDB would answer for a find, computed by mingo over stored documents. */
function mingoFind(stored: StoredDoc[], tenant: string, filter: Filter, options: FindOptions = {}): Doc[] {
  if (options.limit === 0) return [];
  let cursor = find(stored, toMongoQuery(tenant, filter));
  const sort = sortObject(toMongoSort(options.sort));
  if (sort) cursor = cursor.sort(sort);
  if (options.skip) cursor = cursor.skip(options.skip);
  if (options.limit !== undefined) cursor = cursor.limit(options.limit);
  return (cursor.all() as StoredDoc[]).map((doc) => fromStored(doc));
}

describe('MongoDB read-model translation, evaluated by mingo and compared with the embedded store', () => {
  // Ids in string order are inserted in that order, so the embedded store's tie-break (insertion order)
  // and the MongoDB one (`_id`) agree.
  const tenantA: Doc[] = [
    { _id: '01', Auction: 1, Number: 3, Title: 'Oak chair', Open: true, Tags: { en: 'oak' }, Price: 100, Status: 'open' },
    { _id: '02', Auction: 1, Number: 1, Title: 'Birch table', Open: false, Tags: { en: 'birch' }, Price: null, Status: 'sold' },
    { _id: '03', Auction: 2, Number: 2, Title: 'Café chair', Open: true, Tags: { en: 'oak' }, Price: 300 },
    { _id: '04', Auction: 1, Number: 2, Title: 'Silver bowl', Open: true, Tags: { en: 'silver' }, Price: 200, Status: 'open' },
    { _id: '05', Auction: 2, Number: 1, Title: 'Größe vase', Open: false, Tags: {}, Price: 50, Status: 'withdrawn' },
    { _id: '06', Auction: 3, Number: 7, Title: 'oak stool', Tags: { en: 'oak' }, Price: 100, Status: 'open' },
    { _id: '07', Auction: 3, Number: 7, Title: 'Étagère', Open: true, Price: -5, Status: 'sold' },
    { _id: '08', Auction: 1, Number: 10, Title: 'Zebra rug', Open: true, Tags: { en: 'rug' }, Price: 250.5, Status: 'open' },
  ];
  // Other tenants hold documents with the same ids and values that tenant a's filters would match.
  const others: Array<[string, Doc[]]> = [
    ['b', tenantA.map((doc) => ({ ...doc, Title: `b ${String(doc.Title)}` }))],
    [
      'ab',
      [
        { _id: '01', Auction: 1, Number: 3, Open: true, Tags: { en: 'oak' }, Price: 100 },
        { _id: '99', Auction: 1, Number: 1 },
      ],
    ],
  ];
  const storedOf = (tenant: string, docs: Doc[]) => docs.map((doc) => toStored(tenant, doc));
  const storedA = storedOf('a', tenantA);
  const storedOthers = others.flatMap(([tenant, docs]) => storedOf(tenant, docs));
  const everything = [...storedA, ...storedOthers];

  const filters: Filter[] = [
    {},
    { Auction: 1 },
    { Auction: 1, Open: true },
    { Open: false },
    { Open: { $ne: true } },
    { Number: { $gte: 2, $lte: 3 } },
    { Number: { $gt: 1, $lt: 10 } },
    { Price: { $lt: 150 } },
    { Price: { $gte: 0 } },
    { Title: { $gte: 'B', $lt: 'P' } },
    { Title: { $gt: 'Z' } },
    { _id: '03' },
    { Title: { $contains: 'chair' } },
    { Title: { $contains: 'Größe' } },
    { Title: { $contains: 'a.e' } },
    { Title: { $contains: '(' } },
    { Title: { $contains: 'oak' }, Auction: 3 },
    { _id: { $in: ['02', '03', '42'] } },
    { _id: { $gt: '05' } },
    { _id: { $ne: '01' } },
    { Auction: { $ne: 1 } },
    { Auction: { $in: [2, 3] } },
    { Auction: { $in: [] } },
    { Status: { $in: ['open', 'sold'] } },
    { Status: { $ne: 'open' } },
    { Status: { $ne: null } },
    { Status: null },
    { Status: { $eq: null } },
    { Price: { $exists: false } },
    { Price: { $exists: true } },
    { Open: { $exists: false } },
    { 'Tags.en': 'oak' },
    { 'Tags.en': { $exists: false } },
    { 'Tags.en': { $in: ['oak', 'rug'] }, Open: true },
    { Price: { $exists: true, $ne: 100 } },
    { Status: { $exists: false, $eq: null } },
    { $or: [{ Number: 1 }, { Number: 3 }] },
    { $or: [{ Auction: 3 }, { Price: { $gt: 200 } }], Open: true },
    { $or: [{ _id: '01' }, { 'Tags.en': 'silver' }] },
    { $and: [{ Number: { $gte: 2 } }, { Number: { $lte: 7 } }] },
    { $and: [{ $or: [{ Auction: 1 }, { Auction: 2 }] }, { $or: [{ Open: false }, { Price: 300 }] }] },
    { $and: [] },
    { $or: [] },
    { $or: [{}] },
    { Auction: 1, $and: [{ Auction: { $ne: 2 } }], $or: [{ Status: 'open' }, { Status: { $exists: false } }] },
    { Price: {} },
  ];

  const pages: Array<{ filter: Filter; options: FindOptions }> = [
    { filter: { Auction: 1 }, options: { sort: [['Number', -1]], skip: 1, limit: 1 } },
    { filter: {}, options: { sort: [['Auction', 1]] } },
    { filter: {}, options: { sort: [['Auction', -1]] } },
    {
      filter: {},
      options: {
        sort: [
          ['Auction', 1],
          ['Number', -1],
        ],
      },
    },
    {
      filter: {},
      options: {
        sort: [
          ['Number', 1],
          ['Auction', 1],
        ],
        skip: 2,
        limit: 3,
      },
    },
    { filter: {}, options: { sort: [['Price', 1]] } },
    { filter: {}, options: { sort: [['Price', -1]], limit: 4 } },
    { filter: {}, options: { sort: [['Status', 1]] } },
    { filter: {}, options: { sort: [['Tags.en', 1]] } },
    { filter: {}, options: { sort: [['Title', 1]] } },
    { filter: {}, options: { sort: [['_id', -1]], skip: 3 } },
    { filter: { Open: true }, options: { sort: [['Number', 1]], limit: 0 } },
    { filter: { Open: true }, options: { sort: [['Number', 1]], skip: 20 } },
    { filter: { Open: true }, options: { skip: 1, limit: 2 } },
  ];

  let dir: string;
  let sqlite: SqliteDocumentStore;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-mongo-translation-'));
    sqlite = new SqliteDocumentStore(path.join(dir, 'rm.sqlite'));
    await sqlite.ensureCollection({ name: 'items', indexes: [{ fields: ['Auction', 'Number'] }] });
    const ops = [['a', tenantA] as [string, Doc[]], ...others].flatMap(([tenant, docs]) =>
      docs.map((doc) => ({ op: 'put' as const, collection: 'items', tenant, doc })),
    );
    await sqlite.live().commit(ops, { projection: 'p', expected: 0, position: 1 });
  });
  after(async () => {
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers every filter of the table as the embedded store does', async () => {
    const items = sqlite.forTenant('a').collection('items');
    for (const filter of filters) {
      const expected = await items.find(filter, { sort: [['_id', 1]] });
      const actual = mingoFind(everything, 'a', filter, { sort: [['_id', 1]] });
      expect(actual, JSON.stringify(filter)).to.deep.equal(expected);
      expect(find(everything, toMongoQuery('a', filter)).all().length, `count ${JSON.stringify(filter)}`).to.equal(
        await items.countDocuments(filter),
      );
    }
  });

  it('sorts, skips and limits as the embedded store does, ties broken the same way', async () => {
    const items = sqlite.forTenant('a').collection('items');
    for (const { filter, options } of pages) {
      const expected = (await items.find(filter, options)).map((d) => d._id);
      const actual = mingoFind(everything, 'a', filter, options).map((d) => d._id);
      if (options.sort) expect(actual, JSON.stringify(options)).to.deep.equal(expected);
      else expect(actual, JSON.stringify(options)).to.have.length(expected.length); // unsorted order is unspecified
    }
  });

  it('groups with countBy as the embedded store does, null and absent together', async () => {
    const items = sqlite.forTenant('a').collection('items');
    // (Not a boolean field: the embedded store reports true/false as 1/0 there.)
    for (const [filter, field] of [
      [{}, 'Auction'],
      [{}, 'Tags.en'],
      [{}, 'Price'],
      [{}, 'Status'],
      [{ Auction: 1 }, 'Number'],
      [{ Open: true }, '_id'],
      [{ $or: [] }, 'Auction'],
    ] as Array<[Filter, string]>) {
      const rows = aggregate(everything, countByPipeline('a', filter, field));
      expect(fromCountBy('a', field, rows), `${field} ${JSON.stringify(filter)}`).to.deep.equal(await items.countBy(filter, field));
    }
  });

  it("never matches another tenant's documents, whatever the filter", () => {
    for (const filter of [...filters, { _id: { $gt: '' } }, { $or: [{ _id: '01' }, { Title: 'b Oak chair' }] }]) {
      expect(find(storedOthers, toMongoQuery('a', filter)).all(), JSON.stringify(filter)).to.deep.equal([]);
      expect(find(storedA, toMongoQuery('b', filter)).all(), JSON.stringify(filter)).to.deep.equal([]);
      expect(find(storedA, toMongoQuery('ab', filter)).all(), JSON.stringify(filter)).to.deep.equal([]);
    }
  });

  it('puts the tenant first in every query and every index, ends non-unique indexes with _id, and keeps documents without a unique field out of its index', () => {
    expect(Object.keys(toMongoQuery('a', { $or: [{ Auction: 1 }], Number: 2 }))[0]).to.equal('_t');
    expect(toMongoQuery('a', { Number: { $gte: 2, $lte: 3 } })).to.deep.equal({ _t: 'a', Number: { $gte: 2, $lte: 3 } });
    expect(indexKeys({ fields: ['Auction', 'Number'] })).to.deep.equal([
      ['_t', 1],
      ['Auction', 1],
      ['Number', 1],
      ['_id', 1],
    ]);
    expect(indexKeys({ fields: ['Email'], unique: true })).to.deep.equal([
      ['_t', 1],
      ['Email', 1],
    ]);
    expect(indexOptions({ fields: ['Email', 'Tags.en'], unique: true })).to.deep.equal({
      unique: true,
      partialFilterExpression: { Email: { $type: [...PRESENT_TYPES] }, 'Tags.en': { $type: [...PRESENT_TYPES] } },
    });
    expect(indexOptions({ fields: ['Email'] })).to.deep.equal({ unique: false });
    expect(toMongoSort([['Number', -1]])).to.deep.equal([
      ['Number', -1],
      ['_id', -1],
    ]);
  });

  it('stores the tenant beside the document and hands the document back unchanged', () => {
    const doc = { _id: 'x.1', Title: 'Oak', When: new Date('2024-01-02T03:04:05Z'), Gone: undefined, Nested: { a: [1, 2] } };
    const stored = toStored('a', doc as Doc);
    expect(stored).to.deep.equal({ _id: 'a\u0000x.1', _t: 'a', Title: 'Oak', When: '2024-01-02T03:04:05.000Z', Nested: { a: [1, 2] } });
    expect(fromStored(stored)).to.deep.equal({ _id: 'x.1', Title: 'Oak', When: '2024-01-02T03:04:05.000Z', Nested: { a: [1, 2] } });
  });

  it('refuses the reserved tenant field, operators it does not know and paths that are not field paths', () => {
    expect(() => toMongoQuery('a', { _t: 'b' })).to.throw(/reserved/);
    expect(() => toStored('a', { _id: '1', _t: 'b' })).to.throw(/reserved/);
    expect(() => toMongoQuery('a', { Title: { $regex: 'x' } } as never)).to.throw(/unsupported operator/);
    expect(() => toMongoQuery('a', { $where: 'true' } as never)).to.throw(/invalid field path/);
    expect(() => toMongoQuery('a\u0000b', {})).to.throw(/invalid tenant/);
  });

  it('reads the database name from the URL without needing the rest of it', () => {
    expect(databaseFromUrl('mongodb://u:p%2F@h1:27017,h2:27017/bidder?replicaSet=rs0')).to.equal('bidder');
    expect(databaseFromUrl('mongodb+srv://cluster.example.net/bid%2Dder')).to.equal('bid-der');
    expect(databaseFromUrl('mongodb://h:27017/?replicaSet=rs0')).to.equal(undefined);
    expect(databaseFromUrl('mongodb://h:27017')).to.equal(undefined);
  });
});

describe('MongoDB read-model adapter over an in-memory fake of the driver', () => {
  const open = (server: FakeServer, options: MongoDocumentStoreOptions = {}) =>
    MongoDocumentStore.open(server.client(), 'bidder', { aliasRefreshMs: 40, dropGraceMs: 0, ...options });

  documentStoreContract('MongoDB adapter over the in-memory fake driver (queries evaluated by mingo)', async () => open(new FakeServer()));
  leaseStoreContract('MongoLeases over the in-memory fake driver', async () =>
    MongoLeases.over(new FakeServer().client().db('bidder').collection<LeaseDoc>('_leases')),
  );

  const docs = (tenant: string, ...ids: string[]) =>
    ids.map((id) => ({ op: 'put' as const, collection: 'items', tenant, doc: { _id: id, Auction: 1, Number: Number(id) } }));
  const spec = { name: 'items', indexes: [{ fields: ['Auction', 'Number'] }, { fields: ['Code'], unique: true }] };

  it('refuses a standalone server with a message that says how to run a replica set', async () => {
    const server = new FakeServer();
    server.replicaSet = false;
    let error: unknown;
    await open(server).catch((e: unknown) => (error = e));
    expect(String(error)).to.match(/standalone.*replica set/s);
  });

  it('creates every index with the tenant first, unique when declared (over the documents that have its fields)', async () => {
    const server = new FakeServer();
    const store = await open(server);
    await store.ensureCollection(spec);
    await store.ensureCollection(spec);
    const indexes = server.indexes.get('items__g1')!;
    expect(indexes.map(({ name: _name, ...index }) => index)).to.deep.equal([
      {
        keys: [
          ['_t', 1],
          ['_id', 1],
        ],
        unique: false,
      },
      {
        keys: [
          ['_t', 1],
          ['Auction', 1],
          ['Number', 1],
          ['_id', 1],
        ],
        unique: false,
      },
      {
        keys: [
          ['_t', 1],
          ['Code', 1],
        ],
        unique: true,
        partialFilterExpression: { Code: { $type: ['string', 'number', 'bool', 'object', 'array'] } },
      },
    ]);
    // Named as the driver would (keys and directions), with a hash of what tells the index apart.
    expect(indexes.map((index) => index.name.replace(/_[0-9a-f]{8}$/, ''))).to.deep.equal([
      '_t_1__id_1',
      '_t_1_Auction_1_Number_1__id_1',
      '_t_1_Code_1',
    ]);
    await store.close();
  });

  it('writes nothing and keeps the checkpoint when a write of the batch fails', async () => {
    const server = new FakeServer();
    const store = await open(server);
    await store.ensureCollection(spec);
    await store.ensureCollection({ name: 'others' });
    await store.live().commit(docs('a', '1'), { projection: 'p', expected: 0, position: 5 });
    server.failBulkWriteOn = 'others__g1';
    const batch = [...docs('a', '2'), { op: 'put' as const, collection: 'others', tenant: 'a', doc: { _id: 'x' } }];
    let error: unknown;
    await store
      .live()
      .commit(batch, { projection: 'p', expected: 5, position: 6 })
      .catch((e: unknown) => (error = e));
    expect(String(error)).to.match(/injected failure/);
    expect(await store.forTenant('a').collection('items').findById('2')).to.equal(null);
    expect(await store.getCheckpoint('p')).to.equal(5);
    await store.close();
  });

  it('reports the actual checkpoint when a first commit finds one already there', async () => {
    const store = await open(new FakeServer());
    await store.ensureCollection(spec);
    await store.live().commit(docs('a', '1'), { projection: 'p', expected: 0, position: 5 });
    let error: unknown;
    await store
      .live()
      .commit(docs('a', '2'), { projection: 'p', expected: 0, position: 6 })
      .catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(CheckpointConflictError);
    expect((error as CheckpointConflictError).actual).to.equal(5);
    await store.close();
  });

  it("lets another process's readers pick up a rebuild's swap within the refresh interval, from a copy not yet dropped", async () => {
    const server = new FakeServer();
    let clock = 1_000_000; // moved by hand, so a slow machine cannot age the reader's alias map between steps
    const options = { dropGraceMs: 150, now: () => clock };
    const reader = await open(server, options);
    await reader.ensureCollection(spec);
    await reader.live().commit(docs('a', '1', '2'), { projection: 'p', expected: 0, position: 10 });
    const items = reader.forTenant('a').collection('items');
    expect(await items.countDocuments({})).to.equal(2);

    const rebuilder = await open(server, options);
    const rebuild = await rebuilder.startRebuild('p', ['items']);
    await rebuild.commit(docs('a', '3'), { projection: 'p', expected: 0, position: 11 });
    await rebuild.finish();
    await rebuilder.close(); // like `npm run rebuild` exiting: another process drops the old copy later

    expect(server.indexes.get('items__g2')).to.have.length(3);
    expect(await items.countDocuments({}), 'stale alias, old copy still there').to.equal(2);
    clock += 60; // past the 40 ms refresh interval
    expect(
      (await items.find({})).map((d) => d._id),
      'alias map re-read',
    ).to.deep.equal(['3']);
    await reader.sweep();
    expect(server.collections.has('items__g1'), 'kept within the grace period').to.equal(true);
    clock += 160;
    await reader.sweep();
    expect(server.collections.has('items__g1'), 'dropped after the grace period').to.equal(false);
    expect(await reader.getCheckpoint('p')).to.equal(11);
    await reader.close();
  });

  it('refuses a live batch computed before a swap, then writes the replay to the new copy', async () => {
    const server = new FakeServer();
    const projector = await open(server, { aliasRefreshMs: 60_000 });
    await projector.ensureCollection(spec);
    await projector.live().commit(docs('a', '1'), { projection: 'p', expected: 0, position: 10 });
    await projector.live().commit([], { projection: 'q', expected: 0, position: 3 });

    const rebuilder = await open(server);
    const rebuild = await rebuilder.startRebuild('p', ['items']);
    await rebuild.commit(docs('a', '2'), { projection: 'p', expected: 0, position: 12 });
    await rebuild.finish();

    // Another projection writing the same collection, its own checkpoint unmoved: refused once (the
    // process still held the old alias), then written to the new copy.
    let error: unknown;
    await projector
      .live()
      .commit(docs('a', '6'), { projection: 'q', expected: 3, position: 4 })
      .catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(CheckpointConflictError);
    await projector.live().commit(docs('a', '6'), { projection: 'q', expected: 3, position: 4 });
    // The projection that owns the collection: its checkpoint moved with the swap.
    error = undefined;
    await projector
      .live()
      .commit(docs('a', '5'), { projection: 'p', expected: 10, position: 13 })
      .catch((e: unknown) => (error = e));
    expect((error as CheckpointConflictError).actual).to.equal(12);
    const ids = (
      await rebuilder
        .forTenant('a')
        .collection('items')
        .find({}, { sort: [['_id', 1]] })
    ).map((d) => d._id);
    expect(ids).to.deep.equal(['2', '6']);
    expect(server.collections.has('items__g1')).to.equal(false);
    await projector.close();
    await rebuilder.close();
  });

  it('drops the fresh copy and its checkpoint when a rebuild is aborted, and never reuses its name', async () => {
    const server = new FakeServer();
    const store = await open(server);
    await store.ensureCollection(spec);
    const first = await store.startRebuild('p', ['items']);
    await first.commit(docs('a', '1'), { projection: 'p', expected: 0, position: 4 });
    await first.abort();
    expect(server.collections.has('items__g2')).to.equal(false);
    expect(await store.getCheckpoint('p#rebuild')).to.equal(0);
    const second = await store.startRebuild('p', ['items']);
    await second.commit(docs('a', '1'), { projection: 'p', expected: 0, position: 4 });
    await second.finish();
    expect([...server.collections.keys()].filter((name) => name.startsWith('items'))).to.deep.equal(['items__g3']);
    await store.close();
  });
});

const url = process.env.MONGODB_URL;
if (url) {
  describe('MongoDB read-model adapter against a real MongoDB (MONGODB_URL)', () => {
    const databases: string[] = [];
    // A database per store: the contract expects each store to start empty.
    documentStoreContract('MongoDB against a real server', async () => {
      const dbName = `bidder_contract_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
      databases.push(dbName);
      return MongoDocumentStore.connect(url, { dbName, dropGraceMs: 0 });
    });
    after(async () => {
      const client = new MongoClient(url);
      await client.connect();
      for (const name of databases) await client.db(name).dropDatabase();
      await client.close();
    });
    // Lease names are unique per test: the URL's own database is shared (its `_leases` collection).
    leaseStoreContract('MongoLeases against a real server', async () => MongoLeases.connect(url));
  });
} else {
  describe('MongoDB adapters against a real MongoDB (MONGODB_URL unset: skipped, no server on this machine)', () => {
    before(function () {
      this.skip();
    });
    it('passes the DocumentStore contract against a real server', () => {});
    it('passes the LeaseStore contract against a real server', () => {});
  });
}
