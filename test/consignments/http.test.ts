import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { keysOf } from '../support/json.ts';

/**
 * Operations 27 (GET /v1/me/consignments) and 28 (GET /v1/me/consignments/auctions), API.md "Details of the
 * catalogue operations", and the consigner privacy rule of API.md "Lots": `OwnerId` on GET /v1/lots is
 * honoured only with a member token naming the caller themself, and no catalogue answer says who consigned
 * a lot.
 *
 * Demo data: member 1 (`bidder@example.com`) consigned every 40th lot of tenant `demo` (lots 40, 80, ...,
 * 1200: 30 lots, open and closed) and every 10th lot of `demo2` (6 lots). Demo auctions: 1 = lots 1..400,
 * 2 = 401..600, 3 = 601..850, 4 (closed) = 851..1100, 5 = 1101..1220.
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
const AUCTION_FIELDS = [
  'Id',
  'Title',
  'Description',
  'Status',
  'StartTime',
  'EndTime',
  'Currency',
  'RequiresTermsAcceptance',
  'IsLive',
  'LotCount',
];
const ENVELOPE = ['Items', 'TotalCount', 'Page', 'PageSize', 'TotalPages'];
/** Lots of `demo` consigned by member 1, by auction. */
const CONSIGNED_BY_AUCTION: Record<number, number[]> = {
  1: [40, 80, 120, 160, 200, 240, 280, 320, 360, 400],
  2: [440, 480, 520, 560, 600],
  3: [640, 680, 720, 760, 800, 840],
  4: [880, 920, 960, 1000, 1040, 1080],
  5: [1120, 1160, 1200],
};
const CONSIGNED = Object.values(CONSIGNED_BY_AUCTION).flat();
/** Property names that would say who consigned a lot. */
const CONSIGNER_KEYS = /^(ownerid|owner|consigner|consignerid|consignor|consignorid|memberid|email)$/i;

function expectNoConsigner(body: unknown, label: string) {
  const found = [...keysOf(body)].filter((k) => CONSIGNER_KEYS.test(k));
  expect(found, `${label} names a consigner`).to.deep.equal([]);
}

function expectLotShape(lot: any) {
  expect(lot).to.include.all.keys(LOT_FIELDS);
  for (const f of ['Id', 'AuctionId', 'LotNumber', 'StartingPrice', 'BidCount'])
    expect(Number.isInteger(lot[f]), `${f} = ${lot[f]}`).to.equal(true);
  expect(lot.Title).to.be.a('string').and.not.equal('');
  for (const f of ['HotLot', 'VatFree', 'IsClosed']) expect(lot[f]).to.be.a('boolean');
  expect(lot.Images).to.be.an('array');
  expect(lot.Attributes).to.be.an('array');
  expect(lot.Currency).to.match(/^[A-Z]{3}$/);
}

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

describe('consignments (operations 27 and 28) and the consigner privacy rule', () => {
  let server: TestServer;
  let member: string;
  let anonymous: string;
  let application: string;
  /** A confirmed member of `demo` (id 3) who consigned nothing. */
  let stranger: string;
  let demo2Member: string;

  const get = (path: string, token: string | undefined, headers: Record<string, string> = {}) =>
    server.request('GET', path, { token, headers });
  /** Every item of a paged list, page by page. */
  const all = async (path: string, token: string, pageSize = 100) => {
    const items: any[] = [];
    for (let page = 1; ; page++) {
      const r = await get(`${path}${path.includes('?') ? '&' : '?'}pageSize=${pageSize}&page=${page}`, token);
      expect(r.status, r.text).to.equal(200);
      items.push(...r.body.Items);
      if (page >= r.body.TotalPages) return { items, total: r.body.TotalCount as number };
    }
  };

  before(async () => {
    server = await startTestServer();
    const log = server.runtime.services.log;
    await importRecord(log, {
      kind: 'member',
      tenant: 'demo',
      memberId: 3,
      email: 'stranger@example.com',
      passwordHash: 'scrypt$disabled',
      firstName: 'Stranger',
      lastName: 'Member',
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder', 'consigner'],
    });
    await server.runtime.services.projector.catchUp();
    member = await server.memberToken('demo');
    anonymous = await server.anonymousToken('demo');
    const app = await server.request('POST', '/v1/tokens', {
      body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
    });
    expect(app.status, app.text).to.equal(200);
    application = app.body.Token;
    stranger = server.issueMemberToken('demo', 3);
    demo2Member = await server.memberToken('demo2');
  });
  after(async () => server?.close());

  describe('GET /v1/me/consignments', () => {
    it("answers the paged envelope of the caller's consigned lots, in the catalogue lot shape", async () => {
      const r = await get('/v1/me/consignments?pageSize=100', member);
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^application\/json/);
      expect(r.body).to.have.all.keys(ENVELOPE);
      expect(r.body).to.include({ TotalCount: CONSIGNED.length, Page: 1, PageSize: 100, TotalPages: 1 });
      expect(r.body.Items).to.have.length(CONSIGNED.length);
      r.body.Items.forEach(expectLotShape);
      for (const lot of r.body.Items) {
        expect(lot.Id % 40, `lot ${lot.Id} is not one of the caller's`).to.equal(0);
        expect(lot.Currency).to.equal('EUR');
      }
      expect(sorted(r.body.Items.map((l: any) => l.Id))).to.deep.equal(CONSIGNED);
    });

    it('lists open and closed lots alike (the closed auction 4 included)', async () => {
      const { items } = await all('/v1/me/consignments', member);
      const closed = items.filter((l) => l.IsClosed);
      expect(sorted(closed.map((l) => l.Id))).to.deep.equal(CONSIGNED_BY_AUCTION[4]);
      expect(items.filter((l) => !l.IsClosed)).to.have.length(CONSIGNED.length - CONSIGNED_BY_AUCTION[4].length);
    });

    it('has the same TotalCount and lots as GET /v1/lots?OwnerId=1&ShowClosedLots=true with the member token', async () => {
      const lots = await all('/v1/lots?OwnerId=1&ShowClosedLots=true', member);
      const mine = await all('/v1/me/consignments', member);
      expect(mine.total).to.equal(lots.total);
      expect(sorted(mine.items.map((l) => l.Id))).to.deep.equal(sorted(lots.items.map((l) => l.Id)));
      // The same lots in the same shape, field by field.
      const byId = new Map(lots.items.map((l) => [l.Id, l]));
      for (const lot of mine.items) expect(lot, `lot ${lot.Id}`).to.deep.equal(byId.get(lot.Id));
    });

    it('auctionId narrows the list to one auction', async () => {
      for (const [auctionId, ids] of Object.entries(CONSIGNED_BY_AUCTION)) {
        const r = await get(`/v1/me/consignments?auctionId=${auctionId}&pageSize=100`, member);
        expect(r.status, r.text).to.equal(200);
        expect(r.body.TotalCount, `auction ${auctionId}`).to.equal(ids.length);
        expect(sorted(r.body.Items.map((l: any) => l.Id))).to.deep.equal(ids);
        for (const lot of r.body.Items) expect(lot.AuctionId).to.equal(Number(auctionId));
      }
    });

    it('matches AuctionId case-insensitively like every query parameter', async () => {
      const lower = await get('/v1/me/consignments?auctionId=2', member);
      const upper = await get('/v1/me/consignments?AUCTIONID=2', member);
      expect(upper.status).to.equal(200);
      expect(upper.body).to.deep.equal(lower.body);
      expect(upper.body.TotalCount).to.equal(CONSIGNED_BY_AUCTION[2].length);
    });

    it('answers an empty page for an auction the caller consigned nothing to', async () => {
      const r = await get('/v1/me/consignments?auctionId=999', member);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ TotalCount: 0, Page: 1, TotalPages: 0 });
      expect(r.body.Items).to.deep.equal([]);
    });

    it("defaults to page 1 and the tenant's page size (20), and pages through every lot exactly once", async () => {
      const first = await get('/v1/me/consignments', member);
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ Page: 1, PageSize: 20, TotalCount: CONSIGNED.length, TotalPages: 2 });
      expect(first.body.Items).to.have.length(20);

      const pages = [];
      for (let page = 1; page <= 5; page++) {
        const r = await get(`/v1/me/consignments?pageSize=7&page=${page}`, member);
        expect(r.status).to.equal(200);
        expect(r.body).to.include({ Page: page, PageSize: 7, TotalCount: CONSIGNED.length, TotalPages: 5 });
        expect(r.body.Items).to.have.length(page < 5 ? 7 : 2);
        pages.push(...r.body.Items.map((l: any) => l.Id));
      }
      expect(new Set(pages).size, 'no lot on two pages').to.equal(pages.length);
      expect(sorted(pages)).to.deep.equal(CONSIGNED);
      // The order of the pages is the order of the whole list.
      const whole = await get('/v1/me/consignments?pageSize=100', member);
      expect(pages).to.deep.equal(whole.body.Items.map((l: any) => l.Id));
    });

    it('answers a page past the end with 200 and empty Items', async () => {
      const r = await get('/v1/me/consignments?pageSize=20&page=3', member);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ Page: 3, PageSize: 20, TotalCount: CONSIGNED.length, TotalPages: 2 });
      expect(r.body.Items).to.deep.equal([]);
    });

    it('answers another member, who consigned nothing, an empty list', async () => {
      const r = await get('/v1/me/consignments', stranger);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ TotalCount: 0, Page: 1, TotalPages: 0 });
      expect(r.body.Items).to.deep.equal([]);
      const filtered = await get('/v1/me/consignments?auctionId=1', stranger);
      expect(filtered.body.TotalCount).to.equal(0);
    });

    it("answers demo2's member only the lots they consigned in demo2", async () => {
      const r = await get('/v1/me/consignments?pageSize=100', demo2Member);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.TotalCount).to.equal(6);
      expect(sorted(r.body.Items.map((l: any) => l.Id))).to.deep.equal([10, 20, 30, 40, 50, 60]);
      for (const lot of r.body.Items) {
        expectLotShape(lot);
        expect(lot.Currency).to.equal('SEK');
        expect(lot.AuctionId).to.equal(1);
      }
      const lots = await all('/v1/lots?OwnerId=1&ShowClosedLots=true', demo2Member);
      expect(sorted(lots.items.map((l) => l.Id))).to.deep.equal([10, 20, 30, 40, 50, 60]);
      // demo's member 1 is another person than demo2's member 1: none of demo2's lots in demo's answer.
      const demo = await all('/v1/me/consignments', member);
      for (const lot of demo.items) expect(lot.Currency).to.equal('EUR');
    });

    it('answers 401 to an anonymous token, an application token, no token and a bad token', async () => {
      for (const token of [anonymous, application, undefined, 'not-a-token']) {
        expectProblem(await get('/v1/me/consignments', token), 401);
        expectProblem(await get('/v1/me/consignments/auctions', token), 401);
      }
    });

    it('refuses an auctionId, page or pageSize that is not valid with a 400 naming it', async () => {
      const cases: Array<[string, RegExp]> = [
        ['auctionId=abc', /auctionId/],
        ['auctionId=0', /auctionId/],
        ['auctionId=-1', /auctionId/],
        ['auctionId=1.5', /auctionId/],
        ['auctionId=2147483648', /auctionId/],
        ['auctionId=', /auctionId/],
        ['page=0', /page/],
        ['page=abc', /page/],
        ['page=-1', /page/],
        ['pageSize=0', /pageSize/],
        ['pageSize=101', /pageSize/],
        ['pageSize=abc', /pageSize/],
        ['auctionId=1&auctionId=2', /auctionId/],
        ['auctionId[]=1', /auctionId/],
      ];
      for (const [query, field] of cases) {
        const problem = expectProblem(await get(`/v1/me/consignments?${query}`, member), 400);
        expect(problem.errors, query).to.be.an('array').that.is.not.empty;
        expect(problem.errors.map((e: any) => e.field).join(' '), query).to.match(field);
      }
      for (const query of ['page=0', 'pageSize=101', 'page=x']) {
        const problem = expectProblem(await get(`/v1/me/consignments/auctions?${query}`, member), 400);
        expect(problem.errors.map((e: any) => e.field).join(' '), query).to.match(/page/i);
      }
    });
  });

  describe('GET /v1/me/consignments/auctions', () => {
    it('answers the paged envelope of the auctions the caller consigned to, each in the auction shape plus ConsignedLotCount', async () => {
      const r = await get('/v1/me/consignments/auctions', member);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.have.all.keys(ENVELOPE);
      expect(r.body).to.include({ TotalCount: 5, Page: 1, PageSize: 20, TotalPages: 1 });
      expect(sorted(r.body.Items.map((a: any) => a.Id))).to.deep.equal([1, 2, 3, 4, 5]);
      for (const auction of r.body.Items) {
        expect(auction).to.include.all.keys([...AUCTION_FIELDS, 'ConsignedLotCount']);
        expect(auction.ConsignedLotCount, `auction ${auction.Id}`).to.equal(CONSIGNED_BY_AUCTION[auction.Id].length);
        expect(auction.Status).to.be.oneOf(['upcoming', 'current', 'closed']);
        expect(auction.Currency).to.equal('EUR');
      }
      expect(r.body.Items.find((a: any) => a.Id === 4).Status).to.equal('closed');
    });

    it('answers each auction as GET /v1/auctions/{id} does, plus ConsignedLotCount', async () => {
      const r = await get('/v1/me/consignments/auctions', member);
      for (const auction of r.body.Items) {
        const { ConsignedLotCount: _count, ...rest } = auction;
        const one = await get(`/v1/auctions/${auction.Id}`, member);
        expect(one.status).to.equal(200);
        expect(rest, `auction ${auction.Id}`).to.deep.equal(one.body);
      }
    });

    it('has ConsignedLotCounts that sum to the total of GET /v1/me/consignments, auction by auction', async () => {
      const auctions = await all('/v1/me/consignments/auctions', member);
      const lots = await get('/v1/me/consignments?pageSize=1', member);
      const sum = auctions.items.reduce((s, a) => s + a.ConsignedLotCount, 0);
      expect(sum).to.equal(lots.body.TotalCount);
      for (const auction of auctions.items) {
        const one = await get(`/v1/me/consignments?auctionId=${auction.Id}&pageSize=1`, member);
        expect(one.body.TotalCount, `auction ${auction.Id}`).to.equal(auction.ConsignedLotCount);
      }
    });

    it('pages like every paged list', async () => {
      const ids: number[] = [];
      for (let page = 1; page <= 3; page++) {
        const r = await get(`/v1/me/consignments/auctions?pageSize=2&page=${page}`, member);
        expect(r.status).to.equal(200);
        expect(r.body).to.include({ Page: page, PageSize: 2, TotalCount: 5, TotalPages: 3 });
        expect(r.body.Items).to.have.length(page < 3 ? 2 : 1);
        ids.push(...r.body.Items.map((a: any) => a.Id));
      }
      expect(sorted(ids)).to.deep.equal([1, 2, 3, 4, 5]);
      const past = await get('/v1/me/consignments/auctions?pageSize=2&page=4', member);
      expect(past.status).to.equal(200);
      expect(past.body.Items).to.deep.equal([]);
    });

    it('answers another member, who consigned nothing, an empty list', async () => {
      const r = await get('/v1/me/consignments/auctions', stranger);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ TotalCount: 0, TotalPages: 0 });
      expect(r.body.Items).to.deep.equal([]);
    });

    it("answers demo2's member demo2's auction only", async () => {
      const r = await get('/v1/me/consignments/auctions', demo2Member);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.TotalCount).to.equal(1);
      expect(r.body.Items[0]).to.include({ Id: 1, Currency: 'SEK', ConsignedLotCount: 6 });
    });
  });

  describe('OwnerId on GET /v1/lots (consigners are private)', () => {
    it("is honoured with a member token naming the caller's own member id", async () => {
      const r = await get('/v1/lots?OwnerId=1&ShowClosedLots=true&pageSize=100', member);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.TotalCount).to.equal(CONSIGNED.length);
      for (const lot of r.body.Items) expect(lot.Id % 40).to.equal(0);
      // Without ShowClosedLots the closed auction's lots are left out, as on every /v1/lots answer.
      const open = await get('/v1/lots?OwnerId=1&pageSize=100', member);
      expect(open.status).to.equal(200);
      expect(open.body.TotalCount).to.equal(CONSIGNED.length - CONSIGNED_BY_AUCTION[4].length);
    });

    it('is a 403 with an anonymous token or an application token', async () => {
      for (const token of [anonymous, application]) {
        expectProblem(await get('/v1/lots?OwnerId=1', token), 403);
        expectProblem(await get('/v1/lots?OwnerId=1&ShowClosedLots=true', token), 403);
        expectProblem(await get('/v1/lots?ownerid=3', token), 403);
      }
    });

    it("is a 403 with a member token naming another member's id, in any case of the name", async () => {
      expectProblem(await get('/v1/lots?OwnerId=2', member), 403);
      expectProblem(await get('/v1/lots?OwnerId=3', member), 403);
      expectProblem(await get('/v1/lots?ownerId=3&ShowClosedLots=true', member), 403);
      expectProblem(await get('/v1/lots?OwnerId=1', stranger), 403);
      expectProblem(await get('/v1/lots?OWNERID=1', stranger), 403);
    });

    it('is not answered from the shared catalogue cache: the member first, then the same URL anonymously, is a 403', async () => {
      for (const url of ['/v1/lots?OwnerId=1&ShowClosedLots=true', '/v1/lots?OwnerId=1', '/v1/lots?ownerid=1&pageSize=5']) {
        const mine = await get(url, member);
        expect(mine.status, `${url}: ${mine.text}`).to.equal(200);
        expect(mine.body.TotalCount).to.be.greaterThan(0);
        const theirs = await get(url, anonymous);
        expectProblem(theirs, 403);
        expect(theirs.text).to.not.include('"Items"');
        expectProblem(await get(url, application), 403);
        expectProblem(await get(url, stranger), 403);
        // With the member's ETag, an anonymous revalidation is still refused, not a 304.
        const etag = mine.headers.get('etag');
        if (etag) expectProblem(await get(url, anonymous, { 'If-None-Match': etag }), 403);
      }
    });

    it('does not leak the lots of the member through demo2 either: each tenant answers its own member', async () => {
      const r = await get('/v1/lots?OwnerId=1&ShowClosedLots=true&pageSize=100', demo2Member);
      expect(r.status).to.equal(200);
      expect(r.body.TotalCount).to.equal(6);
      for (const lot of r.body.Items) expect(lot.Currency).to.equal('SEK');
    });

    it('no catalogue answer says who consigned a lot', async () => {
      const reads = [
        '/v1/lots/40',
        '/v1/lots/880',
        '/v1/lots?ShowClosedLots=true&pageSize=100&AuctionId=1',
        '/v1/lots?OwnerId=1&ShowClosedLots=true&pageSize=100',
        '/v1/lots/search?q=chair&pageSize=100',
        '/v1/lots/40/attributes',
        '/v1/lots/40/links',
        '/v1/lots/40/bids',
        '/v1/bids/latest?Take=100',
        '/v1/auctions/1',
        '/v1/auctions?pageSize=100',
        '/v1/me/consignments?pageSize=100',
        '/v1/me/consignments/auctions',
      ];
      for (const path of reads) {
        for (const token of path.startsWith('/v1/me') || path.includes('OwnerId') ? [member] : [anonymous, member]) {
          const r = await get(path, token);
          expect(r.status, `${path}: ${r.text.slice(0, 200)}`).to.equal(200);
          expectNoConsigner(r.body, path);
          expect(r.text, path).to.not.include('bidder@example.com');
        }
      }
    });
  });
});
