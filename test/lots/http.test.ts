import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { materials } from '../../app/seed/vocabulary.ts';

/**
 * Operations 16 (GET /v1/lots) and 18 (GET /v1/lots/{id}), API.md "Lots" and seed §4.4.
 * Demo tenant `demo`: lot ids 1..1220 in auction order; auction 1 lots 1..400, 2: 401..600, 3: 601..850,
 * 4 (closed): 851..1100, 5: 1101..1220; the timed auction 6: 2001..2060. Combination CombiId 1 = lots
 * 201..203. Open lots: 1030.
 */

const LOT_FIELDS = [
  'Id',
  'AuctionId',
  'LotNumber',
  'Title',
  'Description',
  'CategoryId',
  'HotLot',
  'VatFree',
  'IsClosed',
  'EndTime',
  'Currency',
  'StartingPrice',
  'EstimateLow',
  'EstimateHigh',
  'CurrentBid',
  'BidCount',
  'Images',
  'Attributes',
  'CombiId',
];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const OPEN_LOTS = 1030;
const ALL_LOTS = 1280;
/** The last lot the demo catalogue imports (the timed auction's last). */
const LAST_LOT = 2060;

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const isIntOrNull = (v: unknown) => v === null || Number.isInteger(v);

function expectLot(lot: any) {
  expect(lot).to.include.all.keys(LOT_FIELDS);
  for (const f of ['Id', 'AuctionId', 'LotNumber', 'StartingPrice', 'BidCount'])
    expect(Number.isInteger(lot[f]), `${f} = ${lot[f]}`).to.equal(true);
  for (const f of ['EstimateLow', 'EstimateHigh', 'CurrentBid', 'CategoryId', 'CombiId'])
    expect(isIntOrNull(lot[f]), `${f} = ${lot[f]}`).to.equal(true);
  expect(lot.Title).to.be.a('string').and.not.equal('');
  expect(lot.Description).to.be.a('string');
  for (const f of ['HotLot', 'VatFree', 'IsClosed']) expect(lot[f]).to.be.a('boolean');
  expect(lot.EndTime).to.match(RFC3339_UTC);
  expect(lot.Currency).to.match(/^[A-Z]{3}$/);
  expect(lot.Images).to.be.an('array');
  for (const image of lot.Images) expect(image).to.be.a('string');
  expect(lot.Attributes).to.be.an('array');
  for (const a of lot.Attributes) {
    expect(a.Name).to.be.a('string');
    expect(a.Value).to.be.a('string');
  }
  expect(lot).to.not.have.any.keys('OwnerId', 'Owner', 'Email', 'MemberId', 'ConsignerId');
}

const attr = (lot: any, name: string) => lot.Attributes.find((a: any) => a.Name === name)?.Value;

/** Checks that `values` is ordered by `cmp` (non-strictly). */
function expectOrdered<T>(values: T[], cmp: (a: T, b: T) => number, label: string) {
  for (let i = 1; i < values.length; i++) {
    expect(
      cmp(values[i - 1], values[i]) <= 0,
      `${label}: ${JSON.stringify(values[i - 1])} then ${JSON.stringify(values[i])} at ${i}`,
    ).to.equal(true);
  }
}
const asc = (a: any, b: any) => (a < b ? -1 : a > b ? 1 : 0);
const desc = (a: any, b: any) => -asc(a, b);

describe('GET /v1/lots and GET /v1/lots/{id}', () => {
  let server: TestServer;
  let token: string;
  const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token, headers });
  /** Every item of a list, page by page (pageSize 100). */
  const all = async (query: string) => {
    const items: any[] = [];
    for (let page = 1; ; page++) {
      const r = await get(`/v1/lots?${query}${query ? '&' : ''}pageSize=100&page=${page}`);
      expect(r.status, r.text).to.equal(200);
      items.push(...r.body.Items);
      if (page >= r.body.TotalPages) return { items, total: r.body.TotalCount as number };
    }
  };

  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken('demo');
  });
  after(async () => server?.close());

  describe('one lot', () => {
    it('answers the lot with every field API.md lists, money as integers in minor units', async () => {
      const r = await get('/v1/lots/1');
      expect(r.status).to.equal(200);
      expectLot(r.body);
      expect(r.body).to.include({ Id: 1, AuctionId: 1, LotNumber: 1, Currency: 'EUR', IsClosed: false });
      expect(r.body.Images.length).to.be.greaterThan(0);
      expect(r.body.Attributes.map((a: any) => a.Name)).to.have.members(['Material', 'Period', 'Condition']);
      expect(r.body.EstimateHigh).to.be.at.least(r.body.EstimateLow);
    });

    it('answers a closed lot by id, marked IsClosed', async () => {
      const r = await get('/v1/lots/851');
      expect(r.status).to.equal(200);
      expectLot(r.body);
      expect(r.body).to.include({ AuctionId: 4, IsClosed: true });
      expect(r.body.EndTime <= new Date().toISOString()).to.equal(true);
    });

    it('answers a lot of a combination with its CombiId', async () => {
      for (const id of [201, 202, 203]) expect((await get(`/v1/lots/${id}`)).body.CombiId).to.equal(1);
      expect((await get('/v1/lots/204')).body.CombiId).to.equal(null);
    });

    it('answers title, description and attributes in the negotiated language', async () => {
      const en = (await get('/v1/lots/3')).body;
      const material = materials.find((m) => m.en === attr(en, 'Material'))!;
      expect(material, 'the English material is a demo word').to.not.equal(undefined);
      const sv = await get('/v1/lots/3', { 'Accept-Language': 'sv' });
      expect(sv.headers.get('content-language')).to.equal('sv');
      expect(attr(sv.body, 'Material')).to.equal(material.sv);
      expect(sv.body.Title).to.not.equal(en.Title);
      expect(fold(sv.body.Title)).to.include(fold(material.sv));
      expect(sv.body.Attributes.find((a: any) => a.Name === 'Condition').Label).to.equal('Skick');
      const de = await get('/v1/lots/3?lang=de', { 'Accept-Language': 'sv' });
      expect(de.headers.get('content-language')).to.equal('de');
      expect(attr(de.body, 'Material')).to.equal(material.de);
      expect(de.body.Attributes.find((a: any) => a.Name === 'Period').Label).to.equal('Epoche');
      // Numbers do not depend on the language.
      const { Title: _a, Description: _b, Attributes: _c, ...enRest } = en;
      const { Title: _d, Description: _e, Attributes: _f, ...deRest } = de.body;
      expect(deRest).to.deep.equal(enRest);
    });

    it('an unknown id is a 404 problem', async () => {
      for (const id of [1221, 5000, 2147483647]) expectProblem(await get(`/v1/lots/${id}`), 404, 'not-found');
    });

    it('an id that is not an int32 is a 400 naming the id, never a 500', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999', '1e2', '0x10']) {
        const problem = expectProblem(await get(`/v1/lots/${id}`), 400);
        expect(
          problem.errors.map((e: any) => e.field),
          id,
        ).to.include('path.id');
      }
    });
  });

  describe('the list', () => {
    it('answers the paged envelope of lots, each with every field API.md lists', async () => {
      const r = await get('/v1/lots');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys('Items', 'TotalCount', 'Page', 'PageSize', 'TotalPages');
      expect(r.body).to.include({ Page: 1, PageSize: 20, TotalCount: OPEN_LOTS, TotalPages: Math.ceil(OPEN_LOTS / 20) });
      expect(r.body.Items).to.have.length(20);
      r.body.Items.forEach(expectLot);
    });

    it('leaves closed lots out by default', async () => {
      const { items, total } = await all('');
      expect(total).to.equal(OPEN_LOTS);
      expect(items).to.have.length(OPEN_LOTS);
      expect(items.filter((l) => l.IsClosed)).to.deep.equal([]);
      expect(items.filter((l) => l.AuctionId === 4)).to.deep.equal([]);
      const now = new Date().toISOString();
      for (const l of items) expect(l.EndTime > now, `lot ${l.Id}`).to.equal(true);
    });

    it('includes the lots of upcoming auctions (they are not closed)', async () => {
      const r = await get('/v1/lots?AuctionId=3&pageSize=1');
      expect(r.body.TotalCount).to.equal(250);
      const r5 = await get('/v1/lots?AuctionId=5&pageSize=1');
      expect(r5.body.TotalCount).to.equal(120);
    });

    it('includes closed lots with ShowClosedLots=true', async () => {
      const r = await get('/v1/lots?ShowClosedLots=true&pageSize=1');
      expect(r.body.TotalCount).to.equal(ALL_LOTS);
      const closed = await get('/v1/lots?AuctionId=4&ShowClosedLots=true&pageSize=100');
      expect(closed.body.TotalCount).to.equal(250);
      for (const l of closed.body.Items) expect(l).to.include({ AuctionId: 4, IsClosed: true });
      const hidden = await get('/v1/lots?AuctionId=4');
      expect(hidden.status).to.equal(200);
      expect(hidden.body).to.include({ TotalCount: 0, TotalPages: 0 });
      expect(hidden.body.Items).to.deep.equal([]);
      const explicit = await get('/v1/lots?AuctionId=4&ShowClosedLots=false');
      expect(explicit.body.TotalCount).to.equal(0);
    });

    it('AuctionId narrows to one auction', async () => {
      const { items, total } = await all('AuctionId=2');
      expect(total).to.equal(200);
      for (const l of items) expect(l.AuctionId).to.equal(2);
      expect(items.map((l) => l.Id).sort((a, b) => a - b)[0]).to.equal(401);
    });

    it('AuctionId of an auction the tenant does not have answers an empty list', async () => {
      const r = await get('/v1/lots?AuctionId=99');
      expect(r.status).to.equal(200);
      expect(r.body.Items).to.deep.equal([]);
    });

    it('StartLotNumber and EndLotNumber bound the lot number, both inclusive', async () => {
      const r = await get('/v1/lots?AuctionId=1&StartLotNumber=10&EndLotNumber=12');
      expect(r.status).to.equal(200);
      expect(r.body.Items.map((l: any) => l.LotNumber)).to.deep.equal([10, 11, 12]);
      expect(r.body.TotalCount).to.equal(3);
      const one = await get('/v1/lots?AuctionId=1&StartLotNumber=7&EndLotNumber=7');
      expect(one.body.Items.map((l: any) => l.LotNumber)).to.deep.equal([7]);
    });

    it('StartLotNumber alone is a lower bound and EndLotNumber alone an upper bound', async () => {
      const from = await get('/v1/lots?AuctionId=1&StartLotNumber=396');
      expect(from.body.Items.map((l: any) => l.LotNumber)).to.deep.equal([396, 397, 398, 399, 400]);
      const to = await get('/v1/lots?AuctionId=1&EndLotNumber=3');
      expect(to.body.Items.map((l: any) => l.LotNumber)).to.deep.equal([1, 2, 3]);
      const { items } = await all('StartLotNumber=199&EndLotNumber=201');
      for (const l of items) expect(l.LotNumber).to.be.within(199, 201);
      // 199..201 in auctions 1 and 3, 199..200 in auction 2 (200 lots); auction 5 has 120 lots, auction 4 is closed
      expect(items).to.have.length(8);
    });

    it('StartLotNumber above EndLotNumber is a 400 naming the range', async () => {
      const problem = expectProblem(await get('/v1/lots?StartLotNumber=12&EndLotNumber=10'), 400);
      expect(problem.errors.map((e: any) => e.field).join(' ')).to.match(/LotNumber/);
    });

    it('a negative or non-integer lot number bound is a 400', async () => {
      for (const q of ['StartLotNumber=-1', 'EndLotNumber=abc', 'StartLotNumber=1.5', 'EndLotNumber=99999999999']) {
        expectProblem(await get(`/v1/lots?${q}`), 400);
      }
    });

    describe('order', () => {
      it('is by LotNumber by default, ascending', async () => {
        const r = await get('/v1/lots?AuctionId=1&pageSize=100');
        expect(r.body.Items.map((l: any) => l.LotNumber)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
        const { items } = await all('');
        expectOrdered(
          items.map((l) => l.LotNumber),
          asc,
          'LotNumber over all auctions',
        );
      });

      it('Sort=LotNumber is the default and Descending=true reverses it', async () => {
        const byDefault = await get('/v1/lots?AuctionId=1&pageSize=50');
        const explicit = await get('/v1/lots?AuctionId=1&pageSize=50&Sort=LotNumber');
        expect(explicit.body.Items).to.deep.equal(byDefault.body.Items);
        const reversed = await get('/v1/lots?AuctionId=1&pageSize=5&Sort=LotNumber&Descending=true');
        expect(reversed.body.Items.map((l: any) => l.LotNumber)).to.deep.equal([400, 399, 398, 397, 396]);
        const descendingOnly = await get('/v1/lots?AuctionId=1&pageSize=5&Descending=true');
        expect(descendingOnly.body.Items).to.deep.equal(reversed.body.Items);
      });

      for (const [sort, value] of [
        ['EndTime', (l: any) => l.EndTime],
        ['EstimateLow', (l: any) => l.EstimateLow],
        ['Title', (l: any) => fold(l.Title)],
      ] as const) {
        it(`Sort=${sort} orders by ${sort}, and Descending=true reverses it`, async () => {
          const up = await all(`ShowClosedLots=true&Sort=${sort}`);
          expect(up.items).to.have.length(ALL_LOTS);
          expectOrdered(up.items.map(value), asc, `${sort} ascending`);
          const down = await all(`ShowClosedLots=true&Sort=${sort}&Descending=true`);
          expectOrdered(down.items.map(value), desc, `${sort} descending`);
          expect(new Set(down.items.map((l) => l.Id)).size).to.equal(ALL_LOTS);
        });
      }

      it('Sort=CurrentBid orders by the current bid (lots without bids together at one end), Descending reverses it', async () => {
        for (const descending of [false, true]) {
          const { items } = await all(`AuctionId=1&Sort=CurrentBid&Descending=${descending}`);
          const bids = items.map((l) => l.CurrentBid);
          expectOrdered(
            bids.filter((b) => b !== null),
            descending ? desc : asc,
            `CurrentBid descending=${descending}`,
          );
          const firstNull = bids.indexOf(null);
          const lastNull = bids.lastIndexOf(null);
          expect(firstNull, 'some lots have no bid').to.be.at.least(0);
          expect(
            bids.slice(firstNull, lastNull + 1).every((b) => b === null),
            'lots without bids are together',
          ).to.equal(true);
          expect(firstNull === 0 || lastNull === bids.length - 1, 'lots without bids are at one end').to.equal(true);
        }
        const top = await get('/v1/lots?AuctionId=1&Sort=CurrentBid&Descending=true&pageSize=1');
        const { items } = await all('AuctionId=1');
        expect(top.body.Items[0].CurrentBid).to.equal(Math.max(...items.map((l) => l.CurrentBid ?? 0)));
      });

      it('Sort=Created orders by when the lot was catalogued, and Descending=true reverses it', async () => {
        const up = await all('ShowClosedLots=true&Sort=Created');
        expectOrdered(
          up.items.map((l) => l.Created),
          asc,
          'Created ascending',
        );
        const down = await all('ShowClosedLots=true&Sort=Created&Descending=true');
        expectOrdered(
          down.items.map((l) => l.Created),
          desc,
          'Created descending',
        );
        // The demo catalogue is imported in lot id order.
        expect(down.items[0].Id).to.equal(LAST_LOT);
      });

      it('Sort=Title sorts by the title in the negotiated language', async () => {
        const sv = await all('AuctionId=1&Sort=Title&LanguageCode=sv');
        expectOrdered(
          sv.items.map((l) => fold(l.Title)),
          asc,
          'Swedish titles',
        );
        const en = await all('AuctionId=1&Sort=Title');
        expect(sv.items.map((l) => l.Id)).to.not.deep.equal(en.items.map((l) => l.Id));
      });

      it('an unknown Sort is a 400 naming Sort', async () => {
        for (const bad of ['Price', 'lotnumber desc', '', 'Id']) {
          const problem = expectProblem(await get(`/v1/lots?Sort=${encodeURIComponent(bad)}`), 400);
          expect(
            problem.errors.map((e: any) => e.field),
            bad,
          ).to.include('query.Sort');
        }
      });

      it('Descending that is not a boolean is a 400', async () => {
        expectProblem(await get('/v1/lots?Descending=yes'), 400);
      });

      it('pages of a sorted list neither repeat nor skip a lot', async () => {
        const { items } = await all('');
        expect(new Set(items.map((l) => l.Id)).size).to.equal(OPEN_LOTS);
        const sorted = await all('ShowClosedLots=true&Sort=EstimateLow&Descending=true');
        expect(new Set(sorted.items.map((l) => l.Id)).size).to.equal(ALL_LOTS);
      });
    });

    describe('filters', () => {
      it('MetaDataProperties[Material]=oak keeps the lots whose Material is oak', async () => {
        const { items, total } = await all('MetaDataProperties[Material]=oak');
        expect(total).to.be.greaterThan(0);
        for (const l of items) expect(attr(l, 'Material'), `lot ${l.Id}`).to.equal('oak');
        const everything = await all('');
        expect(total).to.equal(everything.items.filter((l) => attr(l, 'Material') === 'oak').length);
      });

      it('MetaDataProperties matches the value in the negotiated language: ek in Swedish is oak', async () => {
        const oak = await all('MetaDataProperties[Material]=oak');
        const ek = await all('MetaDataProperties[Material]=ek&LanguageCode=sv');
        expect(ek.total).to.equal(oak.total);
        expect(ek.items.map((l) => l.Id)).to.deep.equal(oak.items.map((l) => l.Id));
        for (const l of ek.items) expect(attr(l, 'Material')).to.equal('ek');
        const eiche = await get('/v1/lots?MetaDataProperties[Material]=Eiche&pageSize=1', { 'Accept-Language': 'de' });
        expect(eiche.body.TotalCount).to.equal(oak.total);
      });

      it('MetaDataProperties matches name and value case- and accent-insensitively', async () => {
        const oak = await get('/v1/lots?MetaDataProperties[Material]=oak&pageSize=1');
        const upper = await get('/v1/lots?metadataproperties[material]=OAK&pageSize=1');
        expect(upper.body.TotalCount).to.equal(oak.body.TotalCount);
        const brass = await get('/v1/lots?MetaDataProperties[Material]=m%C3%A4ssing&LanguageCode=sv&pageSize=1');
        const folded = await get('/v1/lots?MetaDataProperties[Material]=massing&LanguageCode=sv&pageSize=1');
        expect(brass.body.TotalCount).to.be.greaterThan(0);
        expect(folded.body.TotalCount).to.equal(brass.body.TotalCount);
      });

      it('several MetaDataProperties must all hold', async () => {
        const { items, total } = await all('MetaDataProperties[Material]=oak&MetaDataProperties[Condition]=good');
        expect(total).to.be.greaterThan(0);
        for (const l of items) expect([attr(l, 'Material'), attr(l, 'Condition')]).to.deep.equal(['oak', 'good']);
        const oak = await get('/v1/lots?MetaDataProperties[Material]=oak&pageSize=1');
        expect(total).to.be.lessThan(oak.body.TotalCount);
      });

      it('MetaDataProperties with a malformed attribute name, or given twice, or without a name is a 400', async () => {
        for (const q of [
          'MetaDataProperties[Mat-x]=oak',
          'MetaDataProperties[]=oak',
          'MetaDataProperties[Material]=oak&MetaDataProperties[Material]=ek',
          'MetaDataProperties[Material]=oak&MetaDataProperties[material]=ek',
          'MetaDataProperties=oak',
        ]) {
          const problem = expectProblem(await get(`/v1/lots?${q}`), 400);
          expect(problem.errors.map((e: any) => e.field).join(' '), q).to.match(/MetaDataProperties/);
        }
      });

      it('SearchTerms narrows by words in the title and description: every word must occur', async () => {
        const { items, total } = await all('SearchTerms=chair%20oak');
        expect(total).to.be.greaterThan(0);
        for (const l of items) {
          const text = fold(`${l.Title} ${l.Description}`);
          expect(text, `lot ${l.Id}`).to.include('chair');
          expect(text, `lot ${l.Id}`).to.include('oak');
        }
        const chairs = await get('/v1/lots?SearchTerms=chair&pageSize=1');
        expect(total).to.be.lessThan(chairs.body.TotalCount);
      });

      it('SearchTerms finds words of the description that are not in the title', async () => {
        const { items, total } = await all('SearchTerms=Stockholm');
        expect(total).to.be.greaterThan(0);
        for (const l of items) expect(l.Description).to.include('Stockholm');
      });

      it('SearchTerms matches case-insensitively', async () => {
        const lower = await get('/v1/lots?SearchTerms=chair&pageSize=1');
        const upper = await get('/v1/lots?SearchTerms=CHAIR&pageSize=1');
        expect(lower.body.TotalCount).to.be.greaterThan(0);
        expect(upper.body.TotalCount).to.equal(lower.body.TotalCount);
      });

      it('SearchTerms searches the texts of the negotiated language', async () => {
        const sv = await all('SearchTerms=stol&LanguageCode=sv');
        expect(sv.total).to.be.greaterThan(0);
        for (const l of sv.items) expect(fold(`${l.Title} ${l.Description}`)).to.include('stol');
        const en = await get('/v1/lots?SearchTerms=stol');
        expect(en.body.TotalCount).to.equal(0);
        const chairs = await get('/v1/lots?SearchTerms=chair&pageSize=1');
        expect(sv.total).to.equal(chairs.body.TotalCount);
        const header = await get('/v1/lots?SearchTerms=Stuhl&pageSize=1', { 'Accept-Language': 'de' });
        expect(header.body.TotalCount).to.equal(chairs.body.TotalCount);
      });

      it('SearchTerms longer than 200 characters is a 400', async () => {
        expectProblem(await get(`/v1/lots?SearchTerms=${'a'.repeat(201)}`), 400);
      });

      it('CategoryId keeps the lots of that category', async () => {
        const { items, total } = await all('CategoryId=2');
        expect(total).to.be.greaterThan(0);
        for (const l of items) expect(l.CategoryId).to.equal(2);
      });

      it('CategoryId of a parent category includes the lots of its sub-categories', async () => {
        const { items, total } = await all('CategoryId=1');
        expect(total).to.be.greaterThan(0);
        for (const l of items) expect(l.CategoryId).to.be.oneOf([1, 2, 3, 4]);
        let sum = 0;
        for (const child of [2, 3, 4]) sum += (await get(`/v1/lots?CategoryId=${child}&pageSize=1`)).body.TotalCount;
        expect(total).to.equal(sum);
      });

      it('CombiId keeps the lots of one combination', async () => {
        const r = await get('/v1/lots?CombiId=1');
        expect(r.status).to.equal(200);
        expect(r.body.Items.map((l: any) => l.Id)).to.deep.equal([201, 202, 203]);
        for (const l of r.body.Items) expect(l.CombiId).to.equal(1);
        expect((await get('/v1/lots?CombiId=2')).body.TotalCount).to.equal(0);
      });

      it('HotLot=true and HotLot=false split the list', async () => {
        const hot = await all('HotLot=true');
        const cold = await get('/v1/lots?HotLot=false&pageSize=1');
        expect(hot.total).to.be.greaterThan(0);
        for (const l of hot.items) expect(l.HotLot).to.equal(true);
        expect(hot.total + cold.body.TotalCount).to.equal(OPEN_LOTS);
      });

      it('vatFree=true and vatFree=false split the list', async () => {
        const free = await all('vatFree=true');
        const taxed = await all('vatFree=false');
        expect(free.total).to.be.greaterThan(0);
        for (const l of free.items) expect(l.VatFree).to.equal(true);
        for (const l of taxed.items) expect(l.VatFree).to.equal(false);
        expect(free.total + taxed.total).to.equal(OPEN_LOTS);
      });

      it('AuctionTypeId keeps the lots of auctions of that type (2 = the live sale)', async () => {
        const { items, total } = await all('AuctionTypeId=2');
        expect(total).to.equal(200);
        for (const l of items) expect(l.AuctionId).to.equal(2);
      });

      it("OwnerId, with the consigner's own member token, keeps their lots, and no lot names its owner", async () => {
        const member = await server.memberToken('demo');
        const r = await server.request('GET', '/v1/lots?OwnerId=1&ShowClosedLots=true&pageSize=100', { token: member });
        expect(r.status, r.text).to.equal(200);
        expect(r.body.TotalCount).to.be.greaterThan(0);
        expect(r.body.TotalCount).to.be.lessThan(ALL_LOTS);
        r.body.Items.forEach(expectLot);
        expectProblem(await get('/v1/lots?OwnerId=1'), 403);
      });

      it('filters combine: every one must hold', async () => {
        const { items, total } = await all('AuctionId=1&CategoryId=2&vatFree=true&StartLotNumber=1&EndLotNumber=300');
        expect(total).to.be.greaterThan(0);
        for (const l of items) {
          expect(l).to.include({ AuctionId: 1, CategoryId: 2, VatFree: true });
          expect(l.LotNumber).to.be.within(1, 300);
        }
      });

      it('a bad boolean or id filter is a 400 naming the parameter, never a 500', async () => {
        for (const [q, field] of [
          ['HotLot=maybe', 'query.HotLot'],
          ['vatFree=2', 'query.vatFree'],
          ['ShowClosedLots=yes', 'query.ShowClosedLots'],
          ['AuctionId=abc', 'query.AuctionId'],
          ['AuctionId=0', 'query.AuctionId'],
          ['CategoryId=99999999999', 'query.CategoryId'],
          ['CombiId=-1', 'query.CombiId'],
          ['AuctionTypeId=-1', 'query.AuctionTypeId'],
          ['LanguageCode=' + 'x'.repeat(21), 'query.LanguageCode'],
        ]) {
          const problem = expectProblem(await get(`/v1/lots?${q}`), 400);
          expect(
            problem.errors.map((e: any) => e.field),
            q,
          ).to.include(field);
        }
      });

      it('a filter given twice is a 400', async () => {
        for (const q of ['AuctionId=1&AuctionId=2', 'auctionid=1&AuctionId=1', 'Sort=Title&sort=EndTime', 'SearchTerms=a&searchterms=b']) {
          expectProblem(await get(`/v1/lots?${q}`), 400);
        }
      });
    });

    it('items come in the negotiated language, with LanguageCode over Accept-Language', async () => {
      const r = await get('/v1/lots?AuctionId=1&pageSize=3&LanguageCode=de', { 'Accept-Language': 'sv' });
      expect(r.headers.get('content-language')).to.equal('de');
      const one = await get(`/v1/lots/${r.body.Items[0].Id}`, { 'Accept-Language': 'de' });
      expect(r.body.Items[0]).to.deep.equal(one.body);
    });

    it('every amount of every lot is an integer beside a Currency', async () => {
      const { items } = await all('ShowClosedLots=true');
      for (const l of items) {
        expect(l.Currency).to.equal('EUR');
        for (const f of ['StartingPrice', 'EstimateLow', 'EstimateHigh', 'CurrentBid'])
          expect(isIntOrNull(l[f]), `lot ${l.Id} ${f}`).to.equal(true);
      }
    });
  });
});
