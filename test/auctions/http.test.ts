import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

/**
 * Operations 4 (GET /v1/auctions) and 5 (GET /v1/auctions/{id}).
 * Demo tenant `demo`: auction 1 current (400 lots), 2 current + live + terms (200), 3 upcoming (250),
 * 4 closed (250), 5 upcoming + terms (120).
 */

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
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function expectAuction(auction: any) {
  expect(auction).to.include.all.keys(AUCTION_FIELDS);
  expect(Number.isInteger(auction.Id)).to.equal(true);
  expect(auction.Title).to.be.a('string').and.not.equal('');
  expect(auction.Description).to.be.a('string');
  expect(auction.Status).to.be.oneOf(['upcoming', 'current', 'closed']);
  expect(auction.StartTime).to.match(RFC3339_UTC);
  expect(auction.EndTime).to.match(RFC3339_UTC);
  expect(auction.Currency).to.match(/^[A-Z]{3}$/);
  expect(auction.RequiresTermsAcceptance).to.be.a('boolean');
  expect(auction.IsLive).to.be.a('boolean');
  expect(Number.isInteger(auction.LotCount)).to.equal(true);
}

describe('GET /v1/auctions and GET /v1/auctions/{id}', () => {
  let server: TestServer;
  let token: string;
  const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token, headers });

  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken('demo');
  });
  after(async () => server?.close());

  describe('the list', () => {
    it('without status answers every auction of the tenant in the paged envelope', async () => {
      const r = await get('/v1/auctions');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys('Items', 'TotalCount', 'Page', 'PageSize', 'TotalPages');
      expect(r.body.TotalCount).to.equal(6);
      expect(r.body.Page).to.equal(1);
      expect(r.body.PageSize).to.equal(20);
      expect(r.body.TotalPages).to.equal(1);
      expect(r.body.Items.map((a: any) => a.Id).sort()).to.deep.equal([1, 10, 2, 3, 4, 5]);
      r.body.Items.forEach(expectAuction);
    });

    it('carries every field API.md lists, with the demo values', async () => {
      const r = await get('/v1/auctions');
      const byId = new Map<number, any>(r.body.Items.map((a: any) => [a.Id, a]));
      expect(byId.get(1)).to.include({
        Status: 'current',
        Currency: 'EUR',
        RequiresTermsAcceptance: false,
        IsLive: false,
        LotCount: 400,
        Title: 'Spring Design Sale',
      });
      expect(byId.get(2)).to.include({ Status: 'current', RequiresTermsAcceptance: true, IsLive: true, LotCount: 200 });
      expect(byId.get(3)).to.include({ Status: 'upcoming', RequiresTermsAcceptance: false, IsLive: false, LotCount: 250 });
      expect(byId.get(4)).to.include({ Status: 'closed', RequiresTermsAcceptance: false, IsLive: false, LotCount: 250 });
      expect(byId.get(5)).to.include({ Status: 'upcoming', RequiresTermsAcceptance: true, IsLive: false, LotCount: 120 });
      expect(byId.get(10)).to.include({
        Status: 'current',
        RequiresTermsAcceptance: false,
        IsLive: false,
        LotCount: 60,
        BiddingMode: 'timed',
      });
      for (const id of [1, 2, 3, 4, 5]) expect(byId.get(id).BiddingMode).to.equal('external');
    });

    it('status=current answers the auctions running now (1, 2 and the timed 10)', async () => {
      const r = await get('/v1/auctions?status=current');
      expect(r.status).to.equal(200);
      expect(r.body.Items.map((a: any) => a.Id).sort()).to.deep.equal([1, 10, 2]);
      expect(r.body.TotalCount).to.equal(3);
      const now = new Date().toISOString();
      for (const a of r.body.Items) {
        expect(a.Status).to.equal('current');
        expect(a.StartTime <= now && now < a.EndTime, `auction ${a.Id} runs now`).to.equal(true);
      }
    });

    it('status=upcoming answers the auctions that have not started (3 and 5), soonest first', async () => {
      const r = await get('/v1/auctions?status=upcoming');
      expect(r.status).to.equal(200);
      expect(r.body.Items.map((a: any) => a.Id)).to.deep.equal([5, 3]);
      const now = new Date().toISOString();
      for (const a of r.body.Items) {
        expect(a.Status).to.equal('upcoming');
        expect(a.StartTime > now).to.equal(true);
      }
    });

    it('status=closed answers the auctions that have ended (4)', async () => {
      const r = await get('/v1/auctions?status=closed');
      expect(r.status).to.equal(200);
      expect(r.body.Items.map((a: any) => a.Id)).to.deep.equal([4]);
      expect(r.body.Items[0].Status).to.equal('closed');
      expect(r.body.Items[0].EndTime <= new Date().toISOString()).to.equal(true);
    });

    it('the three statuses partition the whole list', async () => {
      const all = (await get('/v1/auctions')).body.TotalCount;
      let sum = 0;
      for (const status of ['current', 'upcoming', 'closed']) sum += (await get(`/v1/auctions?status=${status}`)).body.TotalCount;
      expect(sum).to.equal(all);
    });

    it('an unknown status is a 400 naming the status parameter', async () => {
      for (const bad of ['live', 'foo', '', 'current,closed']) {
        const problem = expectProblem(await get(`/v1/auctions?status=${encodeURIComponent(bad)}`), 400);
        expect(problem.errors, `status=${bad}`).to.be.an('array');
        expect(problem.errors.map((e: any) => e.field).join(' ')).to.match(/status/i);
      }
    });

    it('status given twice is a 400', async () => {
      expectProblem(await get('/v1/auctions?status=current&Status=closed'), 400);
    });

    it('pages with page and pageSize, and a page past the end is 200 with empty Items', async () => {
      const pages = [];
      for (const page of [1, 2, 3]) {
        const r = await get(`/v1/auctions?page=${page}&pageSize=2`);
        expect(r.status).to.equal(200);
        expect(r.body).to.include({ Page: page, PageSize: 2, TotalCount: 6, TotalPages: 3 });
        pages.push(...r.body.Items.map((a: any) => a.Id));
      }
      expect(pages).to.have.length(6);
      expect(new Set(pages).size).to.equal(6);
      const past = await get('/v1/auctions?page=4&pageSize=2');
      expect(past.status).to.equal(200);
      expect(past.body.Items).to.deep.equal([]);
      expect(past.body.TotalCount).to.equal(6);
    });

    it('a bad page or pageSize is a 400, never a 500', async () => {
      for (const query of ['page=0', 'page=-1', 'page=abc', 'pageSize=0', 'pageSize=101', 'pageSize=1.5', 'page=99999999999']) {
        expectProblem(await get(`/v1/auctions?${query}`), 400);
      }
    });

    it('titles and descriptions come in the negotiated language', async () => {
      const sv = await get('/v1/auctions?status=closed', { 'Accept-Language': 'sv' });
      expect(sv.headers.get('content-language')).to.equal('sv');
      expect(sv.body.Items[0].Title).to.equal('Vinterns silver och smycken');
      const de = await get('/v1/auctions?status=closed&lang=de');
      expect(de.headers.get('content-language')).to.equal('de');
      expect(de.body.Items[0].Title).to.equal('Winter: Silber und Schmuck');
    });
  });

  describe('one auction', () => {
    it('answers the auction with the same fields as the list', async () => {
      const list = await get('/v1/auctions');
      for (const item of list.body.Items) {
        const r = await get(`/v1/auctions/${item.Id}`);
        expect(r.status).to.equal(200);
        expectAuction(r.body);
        expect(r.body).to.deep.equal(item);
      }
    });

    it('LotCount is the number of lots of the auction, open or closed', async () => {
      for (const id of [1, 2, 3, 4, 5]) {
        const auction = (await get(`/v1/auctions/${id}`)).body;
        const lots = await get(`/v1/lots?AuctionId=${id}&ShowClosedLots=true&pageSize=1`);
        expect(lots.body.TotalCount, `auction ${id}`).to.equal(auction.LotCount);
      }
    });

    it('the live auction says so, and the terms rule is visible', async () => {
      const r = await get('/v1/auctions/2');
      expect(r.body).to.include({ Id: 2, IsLive: true, RequiresTermsAcceptance: true, Status: 'current' });
    });

    it('answers in the negotiated language', async () => {
      const r = await get('/v1/auctions/1', { 'Accept-Language': 'de-DE, en;q=0.5' });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-language')).to.equal('de');
      expect(r.body.Title).to.equal('Frühjahrs-Designauktion');
    });

    it('an unknown id is a 404 problem', async () => {
      for (const id of [6, 1000, 2147483647]) {
        const problem = expectProblem(await get(`/v1/auctions/${id}`), 404);
        expect(problem.detail).to.be.a('string');
      }
    });

    it('an id that is not an int32 is a 400 naming the id, never a 500', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999', '1e3']) {
        const problem = expectProblem(await get(`/v1/auctions/${id}`), 400);
        expect(problem.errors.map((e: any) => e.field)).to.include('path.id');
      }
    });

    it('needs a token of the tenant', async () => {
      expectProblem(await server.request('GET', '/v1/auctions/1'), 401);
      expectProblem(await server.request('GET', '/v1/auctions'), 401);
    });
  });
});
