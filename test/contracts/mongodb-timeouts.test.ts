/**
 * A MongoDB server that accepts connections and never answers (frozen, its disk hung) holds no call for ever: every
 * operation of the read-model store and the leases ends within its bound (`timeoutMs`, MONGODB_TIMEOUT_MS) with an
 * error the one mapping of src/errors.ts answers 503 with Retry-After. The server is a TCP server that speaks just
 * enough of the wire protocol to be taken for a primary, then stops answering (test/support/hung-mongo.ts).
 */
import net from 'node:net';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { reconcileIndexes, wantedIndexes } from '../../src/adapters/mongodb/indexes.ts';
import { mongoClientOptions, MongoDocumentStore } from '../../src/adapters/mongodb/mongo-documents.ts';
import { MongoLeases } from '../../src/adapters/mongodb/mongo-leases.ts';
import { isEngineUnreachable, unavailableFrom } from '../../src/errors.ts';
import { startHungMongo, type HungMongo } from '../support/hung-mongo.ts';

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

/** What the API answers for an error: 503 with Retry-After. */
function expectAnswered503(error: unknown) {
  expect(isEngineUnreachable(error), String(error)).to.equal(true);
  const answer = unavailableFrom(error);
  expect(answer?.status).to.equal(503);
  expect(answer?.extra.retryAfterSeconds).to.be.greaterThan(0);
}

describe('MongoDB that accepts connections and never answers', function () {
  // No timing is asserted: without a bound the calls below never end, and the spec fails on this time-out.
  this.timeout(30_000);
  let hung: HungMongo;
  beforeEach(async () => (hung = await startHungMongo()));
  afterEach(async () => hung.close());

  it("ends the read-model store's reads within its bound, answered 503", async () => {
    const store = await MongoDocumentStore.connect(hung.url, { timeoutMs: 300 });
    expect(await store.getCheckpoint('p')).to.equal(0);
    hung.hang();
    expectAnswered503(await failure(store.getCheckpoint('p')));
    expectAnswered503(await failure(store.forTenant('a').collection('items').findById('1')));
    await store.close();
  });

  it('ends a lease call within its bound, answered 503', async () => {
    const leases = await MongoLeases.connect(hung.url, { timeoutMs: 300 });
    hung.hang();
    const holder = { id: 'h', host: 'h', pid: 1, role: 'projector', startedAt: new Date().toISOString() };
    expectAnswered503(await failure(leases.acquire('projector', holder, 10_000)));
    await leases.close();
  });

  it('lets an index build take longer than an operation may', async () => {
    const client = new MongoClient(hung.url, mongoClientOptions(300));
    await client.connect();
    hung.slowIndexBuildsMs = 2_000;
    const collection = client.db('bidder').collection('items');
    await reconcileIndexes(collection, wantedIndexes({ name: 'items' }), { deferBroken: false });
    expect(hung.commands.filter((c) => c === 'createIndexes')).to.have.length(1);
    await client.close();
  });

  it('fails a start on a server that never answers even the handshake within the server selection bound, answered 503', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      expectAnswered503(await failure(MongoDocumentStore.connect(`mongodb://127.0.0.1:${port}/bidder?directConnection=true`)));
    } finally {
      silent.close();
    }
  });
});
