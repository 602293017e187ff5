/**
 * MongoDB read-model indexes as the server keeps them: an index asked for under a name that exists with other
 * options is refused (IndexKeySpecsConflict 86, IndexOptionsConflict 85), a unique build over documents that break
 * it fails (DuplicateKey 11000). The fake does so (test/support/fake-mongodb.ts, citing the server's sources); the
 * adapter brings a collection's indexes to its spec at start without asking for either, and leaves a unique index
 * the documents break to the next rebuild, which builds it into a fresh copy.
 */
import { expect } from 'chai';
import { MongoDocumentStore, type MongoDocumentStoreOptions } from '../../src/adapters/mongodb/mongo-documents.ts';
import type { CollectionSpec, WriteOp } from '../../src/ports/read-models.ts';
import { FakeServer } from '../support/fake-mongodb.ts';

const open = (server: FakeServer, options: MongoDocumentStoreOptions = {}) =>
  MongoDocumentStore.open(server.client(), 'bidder', { aliasRefreshMs: 0, dropGraceMs: 0, ...options });

const put = (_id: string, fields: object = {}): WriteOp => ({ op: 'put', collection: 'codes', tenant: 'a', doc: { _id, ...fields } });

/** What the server lists for a collection: each index's name and what it holds. */
async function indexes(server: FakeServer, collection: string) {
  return (await server.client().db('bidder').collection(collection).listIndexes().toArray()) as Array<Record<string, unknown>>;
}

const codeOf = (error: unknown) => (error as { code?: unknown }).code;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('MongoDB indexes as the server keeps them (driver fake)', () => {
  describe('the fake', () => {
    const coll = () => {
      const server = new FakeServer();
      return { server, codes: server.client().db('bidder').collection<{ _id: string; Code?: string }>('codes') };
    };

    it('refuses a name that exists with another key, unique or partial filter (86), and a signature that exists under another name (85)', async () => {
      const { codes } = coll();
      expect(await codes.createIndex([['Code', 1]], { unique: true })).to.equal('Code_1');
      expect(await codes.createIndex([['Code', 1]], { unique: true }), 'identical: nothing to do').to.equal('Code_1');
      expect(codeOf(await failure(codes.createIndex([['Code', 1]])))).to.equal(86);
      expect(
        codeOf(await failure(codes.createIndex([['Code', 1]], { unique: true, partialFilterExpression: { Code: { $exists: true } } }))),
      ).to.equal(86);
      expect(codeOf(await failure(codes.createIndex([['Other', 1]], { name: 'Code_1' })))).to.equal(86);
      expect(codeOf(await failure(codes.createIndex([['Code', 1]], { unique: true, name: 'again' })))).to.equal(85);
      expect(codeOf(await failure(codes.createIndex([['Code', 1]], { unique: true, expireAfterSeconds: 5 })))).to.equal(85);
      // Another partial filter is another index: both may exist.
      await codes.createIndex([['Code', 1]], { unique: true, name: 'partial', partialFilterExpression: { Code: { $type: 'string' } } });
      expect(codeOf(await failure(codes.dropIndex('none')))).to.equal(27);
      await codes.dropIndex('Code_1');
    });

    it('fails a unique build over documents that hold a key twice (11000), and leaves the collection without it', async () => {
      const { server, codes } = coll();
      await codes.insertOne({ _id: '1', Code: 'x' });
      await codes.insertOne({ _id: '2', Code: 'x' });
      await codes.insertOne({ _id: '3' });
      await codes.insertOne({ _id: '4' });
      const error = await failure(codes.createIndex([['Code', 1]], { unique: true }));
      expect(codeOf(error)).to.equal(11000);
      expect(String(error)).to.match(/E11000 duplicate key error collection: bidder\.codes index: Code_1 dup key: \{"Code":"x"\}/);
      expect(server.indexes.get('codes') ?? []).to.deep.equal([]);
      // Over the documents that have the field only, it builds.
      expect(codeOf(await failure(codes.createIndex([['Other', 1]], { unique: true })))).to.equal(11000);
      await codes.createIndex([['Other', 1]], { unique: true, partialFilterExpression: { Other: { $exists: true } } });
    });
  });

  describe('the adapter', () => {
    const spec: CollectionSpec = { name: 'codes', indexes: [{ fields: ['Code'], unique: true }, { fields: ['Auction'] }] };

    it('replaces an index whose options changed (an earlier unique index over every document): the new one is built beside it, then the old one dropped', async () => {
      const server = new FakeServer();
      const store = await open(server);
      await store.ensureCollection({ name: 'codes' });
      // What an earlier version declared under the driver's default name: unique over documents without the field too.
      await server
        .client()
        .db('bidder')
        .collection('codes__g1')
        .createIndex(
          [
            ['_t', 1],
            ['Code', 1],
          ],
          { unique: true },
        );
      await store.ensureCollection(spec);
      const names = (await indexes(server, 'codes__g1')).map((i) => i.name);
      expect(names).to.not.include('_t_1_Code_1');
      expect((await indexes(server, 'codes__g1')).find((i) => String(i.name).startsWith('_t_1_Code_1_'))).to.include({ unique: true });
      // Documents without a code, and a code held twice refused.
      await store.live().commit([put('1'), put('2'), put('3', { Code: 'x' })], { projection: 'p', expected: 0, position: 1 });
      const error = await failure(store.live().commit([put('4', { Code: 'x' })], { projection: 'p', expected: 1, position: 2 }));
      expect(codeOf(error)).to.equal(11000);
      // Started again with the same spec: nothing built, nothing dropped.
      const before = await indexes(server, 'codes__g1');
      await store.ensureCollection(spec);
      expect(await indexes(server, 'codes__g1')).to.deep.equal(before);
      await store.close();
    });

    it('replaces the unique index of an earlier version (`$exists: true`, which counts an explicit null) by one over values only', async () => {
      const server = new FakeServer();
      const store = await open(server);
      await store.ensureCollection({ name: 'codes' });
      await server
        .client()
        .db('bidder')
        .collection('codes__g1')
        .createIndex(
          [
            ['_t', 1],
            ['Code', 1],
          ],
          { unique: true, partialFilterExpression: { Code: { $exists: true } } },
        );
      await store.ensureCollection(spec);
      await store
        .live()
        .commit([put('1', { Code: null }), put('2', { Code: null }), put('3')], { projection: 'p', expected: 0, position: 1 });
      expect(
        await store
          .forTenant('a')
          .collection('codes')
          .countDocuments({ Code: { $exists: false } }),
      ).to.equal(3);
      expect((await indexes(server, 'codes__g1')).map((i) => i.name)).to.not.include('_t_1_Code_1');
      await store.close();
    });

    it('drops an index no longer declared, and leaves alone one that is not its own (it does not start with the tenant)', async () => {
      const server = new FakeServer();
      const store = await open(server);
      await store.ensureCollection(spec);
      await server
        .client()
        .db('bidder')
        .collection('codes__g1')
        .createIndex([['Title', 1]]);
      await store.ensureCollection({ name: 'codes', indexes: [{ fields: ['Code'], unique: true }] });
      const names = (await indexes(server, 'codes__g1')).map((i) => String(i.name).replace(/_[0-9a-f]{8}$/, ''));
      expect(names).to.deep.equal(['_id_', '_t_1__id_1', '_t_1_Code_1', 'Title_1']);
      await store.close();
    });

    it('leaves a unique index the documents already break to the next rebuild: the start says so and keeps the old one; the rebuild builds it', async () => {
      const server = new FakeServer();
      const warnings: string[] = [];
      const store = await open(server, { warn: (message) => warnings.push(message) });
      await store.ensureCollection({ name: 'codes', indexes: [{ fields: ['Code'] }] });
      await store.live().commit([put('1', { Code: 'x' }), put('2', { Code: 'x' })], { projection: 'p', expected: 0, position: 2 });
      const before = await indexes(server, 'codes__g1');
      await store.ensureCollection({ name: 'codes', indexes: [{ fields: ['Code'], unique: true }] });
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.match(/codes: its unique index _t_1_Code_1_[0-9a-f]{8} cannot be built .*E11000.*rebuild/);
      expect(await indexes(server, 'codes__g1')).to.deep.equal(before);
      expect(await store.forTenant('a').collection('codes').countDocuments({})).to.equal(2);
      // The projection, fixed, rebuilt: its fresh copy has the unique index.
      const rebuild = await store.startRebuild('p', ['codes']);
      await rebuild.commit([put('1', { Code: 'x' }), put('2', { Code: 'y' })], { projection: 'p', expected: 0, position: 2 });
      expect(await rebuild.finish()).to.equal(true);
      const rebuilt = await indexes(server, 'codes__g2');
      expect(rebuilt.find((i) => String(i.name).startsWith('_t_1_Code_1_'))).to.include({ unique: true });
      await store.close();
    });

    it('fails a rebuild whose documents break a unique index, and leaves the live copy as it was', async () => {
      const server = new FakeServer();
      const store = await open(server);
      await store.ensureCollection(spec);
      await store.live().commit([put('1', { Code: 'x' })], { projection: 'p', expected: 0, position: 1 });
      const rebuild = await store.startRebuild('p', ['codes']);
      await rebuild.commit([put('1', { Code: 'x' }), put('2', { Code: 'x' })], { projection: 'p', expected: 0, position: 2 });
      expect(codeOf(await failure(rebuild.finish()))).to.equal(11000);
      await rebuild.abort();
      expect((await store.forTenant('a').collection('codes').find({})).map((d) => d._id)).to.deep.equal(['1']);
      expect(await store.getCheckpoint('p')).to.equal(1);
      await store.close();
    });
  });
});
