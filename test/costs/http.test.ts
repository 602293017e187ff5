// COSTS.md operation 64, GET /v1/lots/{id}/cost-estimate: the three worked examples to the cent on lots a back office
// sends with the rules, the caching of an anonymous answer, a member's country and VAT check, and every bad input.
import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { COSTS_MD_RULES } from './demo-rules.ts';

describe('the cost estimate of a lot (operation 64)', () => {
  let server: TestServer;
  let anonymous: string;
  const { tenant: _tenant, ...rules } = COSTS_MD_RULES;
  const lot = (lotId: number, auctionId: number, costs: Record<string, unknown>) => ({
    kind: 'lot',
    tenant: 'demo',
    lotId,
    auctionId,
    lotNumber: lotId,
    categoryId: null,
    texts: { en: { title: `Lot ${lotId}`, description: '' } },
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: 'EUR',
    startingPrice: 50000,
    estimateLow: null,
    estimateHigh: null,
    endTime: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    combiId: null,
    ownerId: null,
    ...costs,
  });
  const estimate = (lotId: number, query: string, token: string | null = anonymous, headers: Record<string, string> = {}) =>
    server.request('GET', `/v1/lots/${lotId}/cost-estimate${query}`, { token, headers });

  before(async () => {
    server = await startTestServer();
    anonymous = await server.anonymousToken();
    // Through the back office's HTTP intake: the rules, then lots of the live auction 2 and the timed auction 10.
    const body = [
      { kind: 'costRules', tenant: 'demo', ...rules },
      lot(9001, 2, { shippingClass: 'parcel-m' }),
      lot(9002, 10, { vatScheme: 'normal', shippingClass: 'furniture' }),
      lot(9003, 10, { import: 'temporary-admission', importClass: 'art', resaleRight: true, shippingClass: 'parcel-m' }),
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const intake = await server.request('POST', '/backoffice/v1/intake', {
      apiKey: null,
      rawBody: body,
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys.demo}`, 'Content-Type': 'application/x-ndjson' },
    });
    expect(intake.body.Errors, intake.text).to.deep.equal([]);
  });
  after(async () => server?.close());

  it('answers example 1 to the cent: a private buyer in DE, a margin lot of a live auction, hammer 123,400', async () => {
    const answer = await estimate(9001, '?amount=123400&country=DE');
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({
      LotId: 9001,
      Currency: 'EUR',
      Amount: 123400,
      Country: 'DE',
      Buyer: 'private',
      VatScheme: 'margin',
      Channel: 'live',
      Lines: [
        { Code: 'hammer', Label: 'Hammer price', Amount: 123400, Vat: 'none', Estimate: false },
        {
          Code: 'premium',
          Label: "Buyer's premium 26 % (VAT included)",
          Base: 123400,
          RatePpm: 260000,
          Bands: [{ From: 0, RatePpm: 260000, Portion: 123400 }],
          Net: 32084,
          VatRatePpm: 210000,
          Amount: 38822,
          Vat: 'included',
          Estimate: false,
        },
        {
          Code: 'fee:live',
          Label: 'Live bidding fee 3 % (VAT included)',
          Base: 123400,
          RatePpm: 30000,
          Net: 3702,
          VatRatePpm: 210000,
          Amount: 4479,
          Vat: 'included',
          Estimate: false,
        },
        {
          Code: 'shipping',
          Label: 'Shipping, parcel M, EU',
          Net: 3200,
          VatRatePpm: 210000,
          Amount: 3872,
          Vat: 'included',
          Estimate: false,
        },
      ],
      Total: 170573,
      TotalRange: null,
      TotalIfConditionsUnmet: null,
      Assumptions: ['margin-scheme'],
      NotIncluded: ['payment-surcharges', 'storage'],
      RulesVersion: '2026-12-01',
      Display: null,
      Disclaimer: 'An estimate under the conditions of sale: the invoice decides. Payment surcharges and storage are not included.',
    });
    // A VAT number changes nothing of margin goods but who the buyer is taken to be, which the answer says.
    const business = await estimate(9001, '?amount=123400&country=DE&vatNumber=DE 136 695 976');
    expect(business.body).to.deep.include({ Buyer: 'business', Total: 170573, Lines: answer.body.Lines });
    expect(business.body.Assumptions).to.deep.equal(['margin-scheme', 'vat-number-not-verified']);
  });

  it('answers example 2 to the cent: a business in BE, a normal lot of a timed auction, hammer 855,000, shipping a range', async () => {
    const answer = await estimate(9002, '?amount=855000&country=be&vatNumber=BE0403170701');
    expect(answer.status, answer.text).to.equal(200);
    const { Lines, ...rest } = answer.body;
    expect(rest).to.deep.include({
      Country: 'BE',
      Buyer: 'business',
      VatScheme: 'normal',
      Channel: 'timed',
      Total: 1077300,
      TotalRange: [1102300, 1117300],
      TotalIfConditionsUnmet: 1303533,
      Assumptions: ['vat-number-not-verified'],
      NotIncluded: ['payment-surcharges', 'storage'],
    });
    const condition = 'dispatched-to:BE';
    expect(Lines).to.deep.equal([
      {
        Code: 'hammer',
        Label: 'Hammer price',
        Amount: 855000,
        Vat: 'zero',
        Estimate: false,
        Net: 855000,
        VatRatePpm: 210000,
        Condition: condition,
        AmountIfUnmet: 1034550,
      },
      {
        Code: 'premium',
        Label: "Buyer's premium 26 %",
        Amount: 222300,
        Vat: 'zero',
        Estimate: false,
        Base: 855000,
        RatePpm: 260000,
        Bands: [{ From: 0, RatePpm: 260000, Portion: 855000 }],
        Net: 222300,
        VatRatePpm: 210000,
        Condition: condition,
        AmountIfUnmet: 268983,
      },
      {
        Code: 'shipping',
        Label: 'Shipping, furniture, EU',
        Amount: null,
        Vat: 'zero',
        Estimate: true,
        VatRatePpm: 210000,
        Range: [25000, 40000],
        Condition: condition,
        AmountIfUnmet: null,
      },
    ]);
    // Without a VAT number the same lot charges VAT separately, each as a line of its own.
    const privately = await estimate(9002, '?amount=855000&country=BE');
    expect(privately.body.Lines.map((l: { Code: string; Amount: number | null }) => [l.Code, l.Amount])).to.deep.equal([
      ['hammer', 855000],
      ['vat:hammer', 179550],
      ['premium', 222300],
      ['vat:premium', 46683],
      ['shipping', null],
      ['vat:shipping', null],
    ]);
    expect(privately.body).to.deep.include({
      Total: 1303533,
      TotalIfConditionsUnmet: null,
      TotalRange: [1303533 + 25000 + 5250, 1303533 + 40000 + 8400],
    });
  });

  it('answers example 3 to the cent: a buyer in the US, a margin lot under temporary admission with the resale right, hammer 12,000,000', async () => {
    const answer = await estimate(9003, '?amount=12000000&country=US');
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.include({
      Buyer: 'private',
      VatScheme: 'margin',
      Total: 15520600,
      TotalRange: null,
      TotalIfConditionsUnmet: 17234800,
      Assumptions: ['margin-scheme'],
      NotIncluded: ['payment-surcharges', 'storage', 'shipping'],
    });
    const line = (code: string) => answer.body.Lines.find((l: { Code: string }) => l.Code === code);
    expect(line('premium')).to.deep.include({
      Amount: 3020000,
      Net: 3020000,
      RatePpm: null,
      Bands: [
        { From: 0, RatePpm: 260000, Portion: 10000000 },
        { From: 10000000, RatePpm: 210000, Portion: 2000000 },
      ],
      Vat: 'zero',
      Condition: 'exported',
      AmountIfUnmet: 3654200,
    });
    expect(line('import-vat')).to.deep.include({ Amount: 0, RatePpm: 90000, Vat: 'zero', Condition: 'exported', AmountIfUnmet: 1080000 });
    expect(line('resale-right')).to.deep.include({ Base: 15020000, Amount: 500600, Vat: 'none' });
    expect(answer.body.Lines.map((l: { Code: string }) => l.Code)).to.deep.equal(['hammer', 'premium', 'import-vat', 'resale-right']);
  });

  it("estimates the lot's minimum next bid by default, in the request's language, with the total for display at the house's rate", async () => {
    const answer = await estimate(9001, '?country=DE&displayCurrency=usd', anonymous, { 'Accept-Language': 'sv' });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.Amount).to.equal(50000);
    expect(answer.headers.get('content-language')).to.equal('sv');
    expect(answer.body.Lines.map((l: { Label: string }) => l.Label)).to.deep.equal([
      'Klubbat pris',
      'Köparprovision 26 % (inkl. moms)',
      'Avgift för livebudgivning 3 % (inkl. moms)',
      'Frakt, parcel M, EU',
    ]);
    const total = answer.body.Total as number;
    expect(answer.body.Display).to.deep.equal({
      Currency: 'USD',
      Total: Number((BigInt(total) * 10834n + 5000n) / 10000n),
      Rate: '1.0834',
      RatesAt: '2026-12-01T15:00:00Z',
      Source: 'ECB reference',
    });
  });

  it('lets a caller without a member token keep the answer a minute, and revalidate it by its ETag', async () => {
    const answer = await estimate(9001, '?amount=123400&country=DE');
    expect(answer.headers.get('cache-control')).to.equal('max-age=60');
    const etag = answer.headers.get('etag');
    expect(etag).to.match(/^W\/"/);
    const again = await server.rawGet('/v1/lots/9001/cost-estimate?amount=123400&country=DE', {
      token: anonymous,
      headers: { 'If-None-Match': etag! },
    });
    expect(again.status).to.equal(304);
    // A problem is never kept.
    expect((await estimate(9001, '?amount=0&country=DE')).headers.get('cache-control')).to.equal('no-store');
  });

  it("fills a member's country and VAT status from the profile, and keeps the member's answer to the member", async () => {
    const token = await server.memberToken();
    const home = await estimate(9002, '?amount=855000', token);
    expect(home.status, home.text).to.equal(200);
    // Shipped within the Netherlands: furniture 9,500 and its VAT 1,995 beside example 2's private total.
    expect(home.body).to.deep.include({ Country: 'NL', Buyer: 'private', Total: 1303533 + 9500 + 1995 });
    expect(home.headers.get('cache-control')).to.equal('no-store');
    // The member moves to Belgium with a company's VAT number; the background VAT check passes it.
    const me = (await server.request('GET', '/v1/me', { token })).body;
    const moved = await server.request('PUT', '/v1/me', {
      token,
      body: { ...me, Country: 'BE', IsCompany: true, CompanyName: 'Atelier Bruxelles', VATNumber: 'BE0403170701' },
    });
    expect(moved.status, moved.text).to.equal(200);
    await until(async () => (await server.request('GET', '/v1/me', { token })).body.VatFree === true, 'the VAT check');
    const business = await estimate(9002, '?amount=855000', token);
    expect(business.body).to.deep.include({ Country: 'BE', Buyer: 'business', Total: 1077300, Assumptions: [] });
    // A country the member asks for wins over the profile's.
    expect((await estimate(9002, '?amount=855000&country=US', token)).body).to.deep.include({ Country: 'US', Total: 1077300 });
  });

  it('answers every bad input with a 400 problem naming the field and its code, an unknown lot 404, a house without rules 409', async () => {
    const cases: Array<[string, string, string]> = [
      ['?amount=0&country=DE', 'amount-invalid', 'query.amount'],
      ['?amount=12.5&country=DE', 'amount-invalid', 'query.amount'],
      ['?amount=-3&country=DE', 'amount-invalid', 'query.amount'],
      ['?amount=10000000000001&country=DE', 'amount-invalid', 'query.amount'],
      ['?amount=1e5&country=DE', 'amount-invalid', 'query.amount'],
      ['?country=XX', 'country-unknown', 'query.country'],
      ['?country=Germany', 'country-unknown', 'query.country'],
      ['?amount=1000', 'country-required', 'query.country'],
      ['?country=DE&channel=phone', 'channel-unknown', 'query.channel'],
      ['?country=DE&displayCurrency=EURO', 'currency-unknown', 'query.displayCurrency'],
      ['?country=DE&displayCurrency=JPY', 'currency-unknown', 'query.displayCurrency'],
      ['?country=DE&vatNumber=!!', 'vat-number-invalid', 'query.vatNumber'],
      ['?country=DE&country=FR', 'validation-failed', 'query.country'],
    ];
    for (const [query, code, field] of cases) {
      const body = expectProblem(await estimate(9001, query), 400, code as never);
      expect(
        body.errors.map((e: { field: string }) => e.field),
        query,
      ).to.include(field);
    }
    // Several at once: each named, the code of the first.
    const several = expectProblem(await estimate(9001, '?amount=0&country=XX&channel=boat'), 400, 'amount-invalid');
    expect(several.errors.map((e: { field: string }) => e.field)).to.deep.equal(['query.amount', 'query.country', 'query.channel']);
    expectProblem(await estimate(99999, '?country=DE'), 404, 'not-found');
    expectProblem(await estimate(0, '?country=DE'), 400, 'validation-failed');
    expectProblem(await estimate(9001, '?country=DE', null), 401);
    // demo2 publishes no rules; demo's lot 9001 is no lot of demo2.
    const demo2 = await server.anonymousToken('demo2');
    expectProblem(await estimate(1, '?country=SE', demo2), 409, 'cost-rules-missing');
    expectProblem(await estimate(9001, '?country=SE', demo2), 404, 'not-found');
  });
});
