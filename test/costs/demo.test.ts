// The demo data's costs (API.md "Demo data", COSTS.md): `demo` publishes COSTS.md's rules, its lots say which VAT
// scheme they are under, and the three worked examples can be asked of real demo lots.
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';
import { DEMO_LOT_COSTS } from '../../app/seed/demo-costs.ts';

describe('the demo data: cost rules and lots under each VAT scheme', () => {
  let server: TestServer;
  let token: string;
  const get = (path: string) => server.request('GET', path, { token });

  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken();
  });
  after(async () => server?.close());

  it('has lots of the live auction 2 and the timed auction 10 under each scheme, and every other lot under its default', async () => {
    const schemes = new Map<number, Set<string>>([
      [2, new Set()],
      [10, new Set()],
    ]);
    for (const [id, costs] of Object.entries(DEMO_LOT_COSTS)) {
      const lot = (await get(`/v1/lots/${id}`)).body;
      expect(lot.VatScheme, `lot ${id}`).to.equal(costs.vatScheme ?? (lot.VatFree ? 'zero' : 'margin'));
      schemes.get(lot.AuctionId)!.add(lot.VatScheme);
    }
    expect(schemes.get(2)).to.have.all.keys('margin', 'normal', 'zero', 'exempt');
    expect(schemes.get(10)).to.have.all.keys('margin', 'normal', 'zero', 'exempt');
    const page = (await get('/v1/lots?AuctionId=1&PageSize=100')).body.Items as Array<{ VatFree: boolean; VatScheme: string }>;
    for (const lot of page) expect(lot.VatScheme).to.equal(lot.VatFree ? 'zero' : 'margin');
  });

  it("answers COSTS.md's example 1 on lot 402 (live auction 2), example 2 on lot 2011 and example 3 on lot 2001 (timed auction 10)", async () => {
    const one = (await get('/v1/lots/402/cost-estimate?amount=123400&country=DE')).body;
    expect(one).to.deep.include({ VatScheme: 'margin', Channel: 'live', Total: 170573, RulesVersion: '2026-12-01' });
    const two = (await get('/v1/lots/2011/cost-estimate?amount=855000&country=BE&vatNumber=BE0403170701')).body;
    expect(two).to.deep.include({
      VatScheme: 'normal',
      Channel: 'timed',
      Total: 1077300,
      TotalRange: [1102300, 1117300],
      TotalIfConditionsUnmet: 1303533,
    });
    const three = (await get('/v1/lots/2001/cost-estimate?amount=12000000&country=US')).body;
    expect(three).to.deep.include({ VatScheme: 'margin', Total: 15520600, TotalIfConditionsUnmet: 17234800 });
    expect(three.NotIncluded).to.include('shipping');
    // Example 1 on the timed auction: no live fee.
    expect((await get('/v1/lots/2005/cost-estimate?amount=123400&country=DE')).body).to.deep.include({
      Channel: 'timed',
      Total: 170573 - 4479,
    });
  });

  it('answers the other schemes as they say: zero-rated outright, exempt without VAT, normal with VAT apart', async () => {
    const zero = (await get('/v1/lots/2006/cost-estimate?amount=100000&country=DE')).body;
    expect(zero.Lines.map((l: { Vat: string }) => l.Vat)).to.deep.equal(['zero', 'zero', 'zero']);
    const exempt = (await get('/v1/lots/2013/cost-estimate?amount=100000&country=DE')).body;
    expect(exempt.Lines.map((l: { Vat: string }) => l.Vat)).to.deep.equal(['none', 'none', 'none']);
    const normal = (await get('/v1/lots/403/cost-estimate?amount=100000&country=NL')).body;
    expect(normal.Lines.map((l: { Code: string }) => l.Code)).to.deep.equal([
      'hammer',
      'vat:hammer',
      'premium',
      'vat:premium',
      'fee:live',
      'vat:fee:live',
      'shipping',
      'vat:shipping',
    ]);
  });

  it("has invoices whose lines of a lot follow that lot's scheme: a margin lot's premium shows no VAT of its own", async () => {
    for (const tenant of ['demo', 'demo2']) {
      const member = await server.memberToken(tenant);
      const anonymous = await server.anonymousToken(tenant);
      const invoices = (await server.request('GET', '/v1/me/invoices', { token: member })).body.Items;
      const lines = invoices
        .flatMap((i: { Lines: Array<Record<string, unknown>> }) => i.Lines)
        .filter((l: { LotId: number | null }) => l.LotId !== null);
      expect(lines, tenant).to.not.have.length(0);
      for (const line of lines) {
        const lot = (await server.request('GET', `/v1/lots/${line.LotId}`, { token: anonymous })).body;
        expect(line.VatScheme, `${tenant} lot ${line.LotId}`).to.equal(lot.VatScheme);
        if (line.VatScheme === 'margin') expect(line).to.include({ VatRate: 0, VatAmount: 0 });
      }
      const premiums = lines.filter((l: { Description: string }) => /premium/.test(l.Description));
      expect(premiums.map((l: { Description: string }) => l.Description).every((d: string) => d.includes('(VAT included)'))).to.equal(true);
    }
  });
});
