import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import type { LotDoc } from '../../projections/catalogue/index.ts';

describe('catalogue answers kept in memory', () => {
  let server: TestServer;
  let token: string;
  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken('demo');
  });
  after(async () => server?.close());

  /** A bid above the lot's current one, imported as the house's engine would send it, and projected. */
  const bidOn = async (lot: { Id: number; CurrentBid: number | null; StartingPrice: number }, bidId: string) => {
    await importRecord(server.runtime.services.log, {
      kind: 'bid',
      tenant: 'demo',
      lotId: lot.Id,
      bidId,
      amount: (lot.CurrentBid ?? lot.StartingPrice) + 100_000,
      bidType: 'online',
      placedAt: new Date().toISOString(),
    });
    await server.runtime.services.projector.catchUp();
  };

  it('show a catalogue change as soon as the projections have it', async () => {
    const first = await server.request('GET', '/v1/lots/1', { token });
    expect((await server.request('GET', '/v1/lots/1', { token })).text).to.equal(first.text);
    const doc = (await server.runtime.services.documents.forTenant('demo').collection<LotDoc>('lots').findById('1'))!;
    const event = (await server.runtime.services.log.readStream('lot-demo-1')).find((e) => e.type === 'LotCatalogued')!;
    const data = event.data as Record<string, unknown>;
    const texts = {
      ...(data.texts as Record<string, { title: string; description: string }>),
      en: { title: 'Renamed lot', description: doc.Texts.en.Description },
    };
    await importRecord(server.runtime.services.log, { ...data, kind: 'lot', texts } as unknown as Parameters<typeof importRecord>[1]);
    await server.runtime.services.projector.catchUp();
    const after = await server.request('GET', '/v1/lots/1', { token });
    expect(after.body.Title).to.equal('Renamed lot');
    expect(after.headers.get('etag')).to.not.equal(first.headers.get('etag'));
  });

  it('show a new bid in lists and search at once', async () => {
    const before = await server.request('GET', '/v1/lots?AuctionId=1&StartLotNumber=2&EndLotNumber=2', { token });
    const lot = before.body.Items[0];
    await bidOn(lot, 'cache-test-1');
    const after = await server.request('GET', '/v1/lots?AuctionId=1&StartLotNumber=2&EndLotNumber=2', { token });
    expect(after.body.Items[0].BidCount).to.equal(lot.BidCount + 1);
  });

  it('are kept per language and per tenant', async () => {
    const en = await server.request('GET', '/v1/categories', { token });
    const sv = await server.request('GET', '/v1/categories', { token, headers: { 'Accept-Language': 'sv' } });
    const other = await server.request('GET', '/v1/categories', { token: await server.anonymousToken('demo2') });
    expect(en.body[0].Name).to.not.equal(sv.body[0].Name);
    expect(sv.headers.get('content-language')).to.equal('sv');
    expect(other.text).to.not.equal(en.text);
  });

  it('leave a lot out of the open lots from the instant it closes, and search too, though nothing was appended', async () => {
    const services = server.runtime.services;
    const realNow = services.now;
    try {
      const soonest = await server.request('GET', '/v1/lots?AuctionId=1&Sort=EndTime&PageSize=1', { token });
      const lot = soonest.body.Items[0];
      const closes = Date.parse(lot.EndTime);
      const word = lot.Title.split(/\s+/)[0];
      const list = `/v1/lots?AuctionId=1&Sort=EndTime&PageSize=5&q=${Math.random()}`;
      const search = `/v1/lots/search?q=${encodeURIComponent(word)}&AuctionId=1&PageSize=100`;
      services.now = () => new Date(closes - 1);
      const before = await server.request('GET', list, { token });
      const found = await server.request('GET', search, { token });
      expect(before.body.Items.map((l: { Id: number }) => l.Id)).to.include(lot.Id);
      expect(found.body.Items.map((l: { Id: number }) => l.Id)).to.include(lot.Id);
      services.now = () => new Date(closes);
      const after = await server.request('GET', list, { token });
      expect(after.body.Items.map((l: { Id: number }) => l.Id)).to.not.include(lot.Id);
      expect(after.body.TotalCount).to.equal(before.body.TotalCount - 1);
      const foundAfter = await server.request('GET', search, { token });
      expect(foundAfter.body.Items.map((l: { Id: number }) => l.Id)).to.not.include(lot.Id);
      const single = await server.request('GET', `/v1/lots/${lot.Id}`, { token });
      expect(single.body.IsClosed).to.equal(true);
    } finally {
      services.now = realNow;
    }
  });

  it("show a tenant's changed settings at once", async () => {
    const demo2 = await server.anonymousToken('demo2');
    const tenant = {
      kind: 'tenant',
      tenant: 'demo2',
      name: 'Second Demo House',
      languages: ['en'],
      defaultLanguage: 'en',
      currency: 'SEK',
      publicAccess: true,
      contactEmail: 'contact@demo2.example.com',
    };
    await importRecord(server.runtime.services.log, { ...tenant, pageSize: 7 } as unknown as Parameters<typeof importRecord>[1]);
    await server.runtime.services.projector.catchUp();
    expect((await server.request('GET', '/v1/lots', { token: demo2 })).body.PageSize).to.equal(7);
    expect((await server.request('GET', '/v1/lots', { token: demo2 })).body.PageSize).to.equal(7);
    await importRecord(server.runtime.services.log, { ...tenant, pageSize: 9 } as unknown as Parameters<typeof importRecord>[1]);
    await server.runtime.services.projector.catchUp();
    const after = await server.request('GET', '/v1/lots', { token: demo2 });
    expect(after.body.PageSize).to.equal(9);
    expect(after.body.Items).to.have.length(9);
  });

  it('count their look-ups on /metrics: a miss until kept, then hits, and a stale answer after a change', async () => {
    const lookups = async () => {
      const text = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
      const count = (outcome: string) =>
        Number(new RegExp(`bidder_response_cache_lookups_total\\{outcome="${outcome}",role="all"\\} (\\d+)`).exec(text)?.[1] ?? 0);
      return { hit: count('hit'), miss: count('miss'), stale: count('stale') };
    };
    const url = '/v1/lots?AuctionId=1&StartLotNumber=3&EndLotNumber=3';
    const before = await lookups();
    // Kept from its second ask (a doorkeeper of keys asked once): two misses, then hits from the fast path.
    for (let i = 0; i < 4; i++) expect((await server.request('GET', url, { token })).status).to.equal(200);
    const kept = await lookups();
    expect(kept.miss - before.miss).to.equal(2);
    expect(kept.hit - before.hit).to.equal(2);
    const lot = (await server.request('GET', url, { token })).body.Items[0];
    await bidOn(lot, 'cache-count-1');
    expect((await server.request('GET', url, { token })).body.Items[0].BidCount).to.equal(lot.BidCount + 1);
    expect((await lookups()).stale - kept.stale).to.equal(1);
  });

  it('still check credentials on every request', async () => {
    await server.request('GET', '/v1/lots/1', { token });
    expect((await server.request('GET', '/v1/lots/1', { token: null })).status).to.equal(401);
    expect((await server.request('GET', '/v1/lots/1', { token, apiKey: 'unknown-key-0123456789' })).status).to.equal(401);
  });
});
