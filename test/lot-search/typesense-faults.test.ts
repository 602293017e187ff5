// The service on Typesense (TYPESENSE_URL) when Typesense fails: a search engine away or behind degrades search only.
// Searches answer 503 `search-unavailable` with Retry-After; /readyz stays 200 (`degraded`, its reason naming search);
// every other operation answers. No Typesense server runs here: an emulator answers over HTTP from the fake that
// follows the server's source (test/support/typesense-emulator.ts), and fails as a server does: closed, or holding
// imports unanswered.
import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { TypesenseEmulator } from '../support/typesense-emulator.ts';
import { until } from '../support/until.ts';
import { importRecord } from '../../app/features/intake.ts';

const KEY = 'typesense-emulator-key-0123456789';

describe('the service on Typesense, when Typesense fails', () => {
  let typesense: TypesenseEmulator;
  let server: TestServer;
  let token: string;
  const search = () => server.request('GET', '/v1/lots/search?q=chair', { token });
  const readyz = () => server.request('GET', '/readyz', { apiKey: null, token: server.operatorToken });

  before(async function () {
    // The lot index follows the seed's appends batch by batch over HTTP: a slower start than the embedded one.
    this.timeout(180_000);
    typesense = await TypesenseEmulator.start(KEY);
    // A bound of 1 s: the lot index is behind as soon as its imports are held.
    server = await startTestServer({ env: { TYPESENSE_URL: typesense.url, TYPESENSE_API_KEY: KEY, READY_MAX_LAG_SECONDS: '1' } });
    token = await server.anonymousToken('demo');
  });

  after(async () => {
    typesense.hangImports = false;
    await server?.close();
    await typesense?.close();
  });

  it('searches and is ready while Typesense answers', async () => {
    expect((await search()).status).to.equal(200);
    expect(typesense.fake.searches.length).to.be.greaterThan(0);
    const ready = await readyz();
    expect(ready.status).to.equal(200);
    expect(ready.body.projections['lot-search']).to.include({ search: true, caughtUp: true });
  });

  it('with Typesense away: searches answer 503 search-unavailable, /readyz 200 degraded, every other operation answers', async () => {
    await typesense.stop();
    try {
      const refused = await search();
      expectProblem(refused, 503, 'search-unavailable');
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      const ready = await readyz();
      expect(ready.status).to.equal(200);
      expect(ready.body).to.include({ status: 'degraded', reason: 'search-unavailable', engines: 'reachable' });
      expect(ready.body.projections['lot-search']).to.include({ error: 'unreachable' });
      const anonymous = await server.request('GET', '/readyz', { apiKey: null });
      expect(anonymous.body).to.deep.equal({ status: 'degraded', reason: 'search-unavailable' });
      expect((await server.request('GET', '/v1/auctions', { token })).status).to.equal(200);
    } finally {
      await typesense.restart();
    }
    await until(async () => (await search()).status === 200, 'search back once Typesense answers');
    await until(async () => (await readyz()).body.status === 'ready', 'ready again');
  });

  it('with imports held unanswered: the lot index falls behind, searches answer 503 until it catches up, the rest answers', async () => {
    typesense.hangImports = true;
    const endTime = new Date(Date.now() + 10 * 86400_000).toISOString();
    await importRecord(server.runtime.services.log, {
      kind: 'lot',
      tenant: 'demo',
      lotId: 9901,
      auctionId: 1,
      lotNumber: 9901,
      categoryId: 4,
      texts: { en: { title: 'Held chair', description: 'Oak.' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'EUR',
      startingPrice: 1000,
      estimateLow: 2000,
      estimateHigh: 4000,
      endTime,
      combiId: null,
      ownerId: null,
    });
    const behind = await until(async () => {
      const ready = await readyz();
      return ready.body.reason === 'search-behind' && ready;
    }, 'the lot index behind');
    expect(behind.status).to.equal(200);
    expect(behind.body.status).to.equal('degraded');
    expectProblem(await search(), 503, 'search-unavailable');
    const lot = await server.request('GET', '/v1/lots/9901', { token });
    expect(lot.status, lot.text).to.equal(200);
    typesense.hangImports = false;
    await until(async () => (await readyz()).body.status === 'ready', 'the lot index caught up');
    await until(async () => (await search()).status === 200, 'search back');
  });
});
