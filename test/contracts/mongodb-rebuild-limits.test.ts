/**
 * What MongoDB refuses a read-model store, and how the adapter stays within it. The server aborts a transaction
 * that has lived past `transactionLifetimeLimitSeconds` (60 s), and no document may pass 16 MiB; the driver fake
 * (test/support/fake-mongodb.ts) refuses both as the server's and the driver's sources say. A rebuild writes its
 * copies in bounded batches outside any transaction (nobody reads them before the swap), the swap being its one
 * atomic step; a document too large is refused before anything of its batch is written, and set aside like any
 * event that cannot be applied.
 */
import { expect } from 'chai';
import { MongoDocumentStore, type MongoDocumentStoreOptions } from '../../src/adapters/mongodb/mongo-documents.ts';
import { isParkable } from '../../src/projector/parking.ts';
import type { WriteOp } from '../../src/ports/read-models.ts';
import { rebuildCheckpoint } from '../../src/read-models/rebuild.ts';
import { FakeServer, MAX_BSON_OBJECT_SIZE } from '../support/fake-mongodb.ts';

const open = (server: FakeServer, options: MongoDocumentStoreOptions = {}) =>
  MongoDocumentStore.open(server.client(), 'bidder', { aliasRefreshMs: 0, dropGraceMs: 0, ...options });

const put = (_id: string, fields: object = {}): WriteOp => ({ op: 'put', collection: 'items', tenant: 'a', doc: { _id, ...fields } });
const puts = (n: number) => Array.from({ length: n }, (_, i) => put(String(i).padStart(6, '0'), { Number: i }));
const spec = { name: 'items', indexes: [{ fields: ['Number'] }] };
/** A document just past what the server stores. */
const hugeDoc = (_id: string) => ({ _id, Text: 'x'.repeat(MAX_BSON_OBJECT_SIZE) });
const huge = (id: string): WriteOp => ({ op: 'put', collection: 'items', tenant: 'a', doc: hugeDoc(id) });

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}
const codeOf = (error: unknown) => (error as { code?: unknown }).code;

describe('MongoDB limits on transactions and documents (driver fake)', function () {
  this.timeout(60_000);

  describe('the fake', () => {
    it('interrupts a command that outlives its transaction (290), and the commit fails with nothing written', async () => {
      const server = new FakeServer();
      server.writeCostMs = 10; // 7,000 documents: 70 s, past the 60 s a transaction may live
      const store = await open(server);
      await store.ensureCollection(spec);
      const error = await failure(store.live().commit(puts(7000), { projection: 'p', expected: 0, position: 1 }));
      expect(codeOf(error)).to.equal(290);
      expect(await store.forTenant('a').collection('items').countDocuments({})).to.equal(0);
      expect(await store.getCheckpoint('p')).to.equal(0);
      await store.close();
    });

    it('aborts a transaction that lived too long between commands: NoSuchTransaction (251, transient) is tried again until 120 s have passed', async () => {
      const server = new FakeServer();
      const items = server.client().db('bidder').collection('items');
      const session = server.client().startSession();
      let tries = 0;
      const error = await failure(
        session.withTransaction(async () => {
          tries += 1;
          await items.findOne({}, { session });
          server.advance(61_000);
          await items.insertOne({ _id: String(tries) } as never, { session });
        }),
      );
      expect(codeOf(error)).to.equal(251);
      expect((error as { errorLabels?: string[] }).errorLabels).to.include('TransientTransactionError');
      expect(tries).to.equal(2);
    });

    it('refuses a statement of 16 MiB or more before sending any of the bulkWrite, and an insert of a document past 16 MiB (10334)', async () => {
      const server = new FakeServer();
      const items = server.client().db('bidder').collection('items');
      const replace = (doc: { _id: string }) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } });
      const error = await failure(items.bulkWrite([replace({ _id: 'small' }), replace(hugeDoc('big'))] as never));
      expect(String(error)).to.match(/Document is larger than the maximum size 16777216/);
      expect(await items.countDocuments({})).to.equal(0);
      expect(codeOf(await failure(items.insertOne(hugeDoc('big') as never)))).to.equal(10334);
    });
  });

  describe('the adapter', () => {
    it('rebuilds a collection whose writes take longer than a transaction may live, in bounded batches outside any transaction', async () => {
      const server = new FakeServer();
      server.writeCostMs = 10;
      const store = await open(server);
      await store.ensureCollection(spec);
      await store.live().commit([put('old')], { projection: 'p', expected: 0, position: 1 });
      const rebuild = await store.startRebuild('p', ['items']);
      // One commit as the projector's rebuild makes them: many documents held in memory, written at once.
      await rebuild.commit(puts(7000), { projection: 'p', expected: 0, position: 7000 });
      expect(await store.getCheckpoint(rebuildCheckpoint('p'))).to.equal(7000);
      expect(await rebuild.finish()).to.equal(true);
      expect(await store.forTenant('a').collection('items').countDocuments({})).to.equal(7000);
      expect(await store.getCheckpoint('p')).to.equal(7000);
      const copies = server.bulkWrites.filter((w) => w.collection === 'items__g2');
      expect(copies.every((w) => !w.inTransaction && w.documents <= 1000)).to.equal(true);
      await store.close();
    });

    it('refuses a rebuild commit whose checkpoint is stale before writing anything', async () => {
      const server = new FakeServer();
      const store = await open(server);
      await store.ensureCollection(spec);
      const rebuild = await store.startRebuild('p', ['items']);
      await rebuild.commit(puts(3), { projection: 'p', expected: 0, position: 3 });
      const written = server.bulkWrites.length;
      await failure(rebuild.commit(puts(5), { projection: 'p', expected: 1, position: 5 }));
      expect(server.bulkWrites.length).to.equal(written);
      expect(await store.getCheckpoint(rebuildCheckpoint('p'))).to.equal(3);
      await rebuild.abort();
      await store.close();
    });

    it('leaves a rebuild whose writes failed part way to start again: the error is never set aside as a poison event', async () => {
      const server = new FakeServer();
      const store = await open(server);
      await store.ensureCollection(spec);
      const rebuild = await store.startRebuild('p', ['items']);
      let batches = 0;
      server.beforeBulkWrite = (collection) => {
        if (collection === 'items__g2' && ++batches === 2) throw new Error('write failed on the second batch');
      };
      const error = await failure(rebuild.commit(puts(2500), { projection: 'p', expected: 0, position: 9 }));
      expect(String(error)).to.match(/start(ed)? again/);
      expect(isParkable(error)).to.equal(false);
      expect(await store.getCheckpoint(rebuildCheckpoint('p'))).to.equal(0);
      await rebuild.abort();
      await store.close();
    });

    for (const where of ['live', 'rebuild'] as const) {
      it(`refuses a document past 16 MiB before writing anything of its batch (${where}), as an event that cannot be applied`, async () => {
        const server = new FakeServer();
        const store = await open(server);
        await store.ensureCollection(spec);
        const target = where === 'live' ? store.live() : await store.startRebuild('p', ['items']);
        const checkpoint = where === 'live' ? 'p' : rebuildCheckpoint('p');
        const error = await failure(target.commit([...puts(1500), huge('big')], { projection: 'p', expected: 0, position: 2 }));
        expect(String(error)).to.match(/items document big is \d+ bytes: MongoDB stores documents of up to 16 MiB/);
        expect(isParkable(error)).to.equal(true);
        expect(server.bulkWrites.filter((w) => w.collection.startsWith('items'))).to.deep.equal([]);
        expect(await store.getCheckpoint(checkpoint)).to.equal(0);
        // The batch without it goes on.
        await target.commit(puts(1500), { projection: 'p', expected: 0, position: 2 });
        expect(await store.getCheckpoint(checkpoint)).to.equal(2);
        await store.close();
      });
    }
  });
});
