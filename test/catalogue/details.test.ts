import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer, type TestResponse } from '../support/server.ts';
import { keysOf } from '../support/json.ts';
import { importRecord } from '../../app/features/intake.ts';
import { DEMO_AUCTIONS, DEMO_CONDITION_REPORT_LOTS } from '../../app/seed/demo.ts';
import { interfaceDictionary } from '../../app/seed/interface-dictionary.ts';
import { materials } from '../../app/seed/vocabulary.ts';

/**
 * API.md "Details of the catalogue operations" for the operations
 *   8  GET /v1/auctions/{id}/translations      9  GET /v1/auctions/{id}/lot-numbers
 *   10 GET /v1/auctions/{id}/categories       20 GET /v1/bids/latest
 *   57 GET /v1/lots/{id}/bids                  21 GET /v1/lots/{id}/attributes
 *   22 GET /v1/attribute-values                23 GET /v1/lots/{id}/links
 *   29 GET /v1/live                            30 GET /v1/auctions/{id}/live
 *   55 GET /v1/languages                       56 GET /v1/translations
 * and the "Conventions", "Credentials" and "Errors" as they apply to them.
 *
 * Demo tenant `demo` (en default, sv, de; EUR): auction 1 lots 1..400, auction 2 (live, type 2, current lot 412)
 * lots 401..600, 3 (upcoming) 601..850, 4 (closed) 851..1100, 5 (upcoming) 1101..1220; CombiId 1 = lots 201..203;
 * bids on lots of the started auctions 1, 2 and 4; condition reports for lots 1, 2, 3, 12, 401, 402, 851.
 * Tenant `demo2` (en, SEK): auction 1 with lots 1..60, not live.
 */

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const LANGUAGES = ['en', 'sv', 'de'] as const;
const BID_TYPES = ['online', 'absentee', 'floor', 'phone'];
const LATEST_BID_FIELDS = ['LotId', 'AuctionId', 'LotNumber', 'LotTitle', 'Amount', 'Currency', 'PlacedAt', 'BidType'];
const HISTORY_FIELDS = ['Amount', 'Currency', 'PlacedAt', 'BidType', 'Pseudonym'];
const IDENTITY = /owner|email|member|password|phone|bidder|consign|user|name/i;

/** A few paths of every operation of this file, all answering 200 to a demo token. */
const READS = [
  '/v1/auctions/1/translations',
  '/v1/auctions/1/lot-numbers',
  '/v1/auctions/1/categories',
  '/v1/bids/latest',
  '/v1/lots/1/bids',
  '/v1/lots/1/attributes',
  '/v1/attribute-values',
  '/v1/lots/1/links',
  '/v1/live',
  '/v1/auctions/2/live',
  '/v1/languages',
  '/v1/translations',
];

/** Operations with an id in the path, as templates. */
const ID_PATHS = [
  '/v1/auctions/{id}/translations',
  '/v1/auctions/{id}/lot-numbers',
  '/v1/auctions/{id}/categories',
  '/v1/auctions/{id}/live',
  '/v1/lots/{id}/bids',
  '/v1/lots/{id}/attributes',
  '/v1/lots/{id}/links',
];
const AUCTION_ID_PATHS = ID_PATHS.filter((p) => p.startsWith('/v1/auctions'));
const LOT_ID_PATHS = ID_PATHS.filter((p) => p.startsWith('/v1/lots'));
const at = (template: string, id: number | string) => template.replace('{id}', String(id));

interface CategoryNode {
  Id: number;
  ParentId: number | null;
  Name: string;
  SortOrder: number;
  LotCount: number;
  Children: CategoryNode[];
}
const flatten = (nodes: CategoryNode[]): CategoryNode[] => nodes.flatMap((n) => [n, ...flatten(n.Children)]);

function fieldsOf(response: TestResponse, status = 400): string[] {
  const problem = expectProblem(response, status);
  expect(problem.errors, `a ${status} lists the bad fields: ${response.text}`).to.be.an('array').that.is.not.empty;
  return problem.errors.map((e: any) => e.field);
}

function expectDescending(times: string[], label: string) {
  for (let i = 1; i < times.length; i++)
    expect(times[i - 1] >= times[i], `${label}: ${times[i - 1]} then ${times[i]} at ${i}`).to.equal(true);
}

describe('catalogue details: translations, lot numbers, auction categories, bids, attributes, links, live, languages', () => {
  let server: TestServer;
  let token: string;
  let demo2: string;
  const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token, headers });
  const get2 = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token: demo2, headers });
  const ok = async (path: string, headers: Record<string, string> = {}) => {
    const r = await get(path, headers);
    expect(r.status, `${path}: ${r.text.slice(0, 300)}`).to.equal(200);
    return r.body;
  };
  /** A GET as a plain HTTP client (fetch adds `Cache-Control: no-cache` to conditional requests). */
  const rawGet = (path: string, headers: Record<string, string> = {}) => server.rawGet(path, { token, headers });
  /** Every lot of a /v1/lots query, page by page. */
  const allLots = async (query: string, headers: Record<string, string> = {}) => {
    const items: any[] = [];
    for (let page = 1; ; page++) {
      const r = await get(`/v1/lots?${query}${query ? '&' : ''}pageSize=100&page=${page}`, headers);
      expect(r.status, r.text).to.equal(200);
      items.push(...r.body.Items);
      if (page >= r.body.TotalPages) return items;
    }
  };
  const lotCount = async (query: string) => {
    const r = await get(`/v1/lots?${query}&pageSize=1`);
    expect(r.status, `${query}: ${r.text}`).to.equal(200);
    return r.body.TotalCount as number;
  };
  /** Every latest bid of a query, through Skip and Take. */
  const allLatest = async (query: string) => {
    const items: any[] = [];
    for (let skip = 0; ; skip += 100) {
      const r = await get(`/v1/bids/latest?${query}${query ? '&' : ''}Take=100&Skip=${skip}`);
      expect(r.status, r.text).to.equal(200);
      items.push(...r.body);
      if (r.body.length < 100) return items;
      if (skip > 20_000) throw new Error('latest bids never end');
    }
  };

  before(async function () {
    this.timeout(60000);
    server = await startTestServer();
    token = await server.anonymousToken('demo');
    demo2 = await server.anonymousToken('demo2');
  });
  after(async () => server?.close());

  describe('auction translations (8)', () => {
    it("answers the auction's title and description once for every published language", async () => {
      const r = await get('/v1/auctions/1/translations');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys('AuctionId', 'Translations');
      expect(r.body.AuctionId).to.equal(1);
      expect(r.body.Translations.map((t: any) => t.Language)).to.have.members([...LANGUAGES]);
      expect(r.body.Translations).to.have.length(3);
      for (const t of r.body.Translations) {
        expect(t).to.have.all.keys('Language', 'Title', 'Description');
        expect(t.Title).to.equal(DEMO_AUCTIONS[0].title[t.Language as 'en' | 'sv' | 'de']);
        expect(t.Description).to.be.a('string').and.not.equal('');
      }
      const sv = r.body.Translations.find((t: any) => t.Language === 'sv');
      expect(sv).to.include({ Title: 'Vårens designauktion' });
      expect(sv.Description).to.include('föremål');
    });

    it('agrees with GET /v1/auctions/{id} read in each language', async () => {
      for (const id of [1, 2, 3, 4, 5]) {
        const translations = (await ok(`/v1/auctions/${id}/translations`)).Translations;
        for (const language of LANGUAGES) {
          const auction = await ok(`/v1/auctions/${id}?lang=${language}`);
          const t = translations.find((x: any) => x.Language === language);
          expect({ Title: t.Title, Description: t.Description }, `auction ${id} in ${language}`).to.deep.equal({
            Title: auction.Title,
            Description: auction.Description,
          });
        }
      }
    });

    it('answers every language whatever language is asked for', async () => {
      const en = await get('/v1/auctions/2/translations');
      const sv = await get('/v1/auctions/2/translations', { 'Accept-Language': 'sv' });
      const de = await get('/v1/auctions/2/translations?lang=de');
      expect(sv.body).to.deep.equal(en.body);
      expect(de.body).to.deep.equal(en.body);
      expect(sv.headers.get('content-language')).to.equal('sv');
    });

    it("answers demo2's own auction in demo2's only language", async () => {
      const r = await get2('/v1/auctions/1/translations');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({
        AuctionId: 1,
        Translations: [{ Language: 'en', Title: 'Nordic Modern', Description: r.body.Translations[0].Description }],
      });
      expect(r.text).to.not.include('Spring Design Sale');
    });
  });

  describe('lot numbers (9)', () => {
    it('answers a JSON array of every lot number of the auction, ascending', async () => {
      const r = await get('/v1/auctions/1/lot-numbers');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^application\/json/);
      expect(r.body).to.deep.equal(Array.from({ length: 400 }, (_, i) => i + 1));
    });

    it('equals the lot numbers seen through /v1/lots?AuctionId=&ShowClosedLots=true, for every auction', async () => {
      for (const auction of DEMO_AUCTIONS) {
        const numbers = await ok(`/v1/auctions/${auction.id}/lot-numbers`);
        const lots = await allLots(`AuctionId=${auction.id}&ShowClosedLots=true`);
        const expected = lots.map((l) => l.LotNumber).sort((a, b) => a - b);
        expect(numbers, `auction ${auction.id}`).to.deep.equal(expected);
        expect(numbers).to.have.length(auction.lots);
      }
    });

    it('includes the numbers of closed lots (auction 4 has closed)', async () => {
      const numbers = await ok('/v1/auctions/4/lot-numbers');
      expect(numbers).to.deep.equal(Array.from({ length: 250 }, (_, i) => i + 1));
      expect(await lotCount('AuctionId=4')).to.equal(0);
    });

    it("answers demo2's own auction 1 with its 60 lot numbers", async () => {
      const r = await get2('/v1/auctions/1/lot-numbers');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal(Array.from({ length: 60 }, (_, i) => i + 1));
    });
  });

  describe('auction categories (10)', () => {
    const expectNode = (node: any, parentId: number | null) => {
      expect(node).to.include.all.keys('Id', 'ParentId', 'Name', 'SortOrder', 'LotCount', 'Children');
      expect(Number.isInteger(node.Id)).to.equal(true);
      expect(node.ParentId).to.equal(parentId);
      expect(node.Name).to.be.a('string').and.not.equal('');
      expect(Number.isInteger(node.SortOrder)).to.equal(true);
      expect(Number.isInteger(node.LotCount)).to.equal(true);
      expect(node.Children).to.be.an('array');
      for (const child of node.Children) expectNode(child, node.Id);
    };

    it('answers the category tree in the shape of GET /v1/categories, cut to categories holding lots of the auction', async () => {
      const tree: CategoryNode[] = await ok('/v1/auctions/1/categories');
      expect(tree).to.be.an('array').that.is.not.empty;
      for (const root of tree) expectNode(root, null);
      for (const n of flatten(tree)) expect(n.LotCount, `category ${n.Id}`).to.be.greaterThan(0);
      expect(flatten(tree).map((n) => n.Id)).to.not.include(14);
      // The same nodes (ids, parents, names, sort order) as the tenant's tree.
      const all = flatten(await ok('/v1/categories?showAll=true'));
      for (const n of flatten(tree)) {
        const same = all.find((x) => x.Id === n.Id)!;
        expect(same, `category ${n.Id}`).to.not.equal(undefined);
        expect({ ParentId: n.ParentId, Name: n.Name, SortOrder: n.SortOrder }).to.deep.equal({
          ParentId: same.ParentId,
          Name: same.Name,
          SortOrder: same.SortOrder,
        });
      }
    });

    it('each LotCount equals the TotalCount of /v1/lots?AuctionId=&CategoryId=&ShowClosedLots=true', async () => {
      for (const id of [1, 2, 4]) {
        const tree: CategoryNode[] = await ok(`/v1/auctions/${id}/categories`);
        for (const n of flatten(tree))
          expect(n.LotCount, `auction ${id}, category ${n.Id} (${n.Name})`).to.equal(
            await lotCount(`AuctionId=${id}&CategoryId=${n.Id}&ShowClosedLots=true`),
          );
      }
    });

    it('leaves out exactly the categories without lots of the auction', async () => {
      const tree: CategoryNode[] = await ok('/v1/auctions/2/categories');
      const present = new Set(flatten(tree).map((n) => n.Id));
      for (const n of flatten(await ok('/v1/categories?showAll=true'))) {
        const count = await lotCount(`AuctionId=2&CategoryId=${n.Id}&ShowClosedLots=true`);
        expect(present.has(n.Id), `category ${n.Id} with ${count} lots of auction 2`).to.equal(count > 0);
      }
    });

    it("the root counts add up to the auction's lots (every demo lot has a category), closed auctions included", async () => {
      for (const auction of DEMO_AUCTIONS) {
        const tree: CategoryNode[] = await ok(`/v1/auctions/${auction.id}/categories`);
        expect(
          tree.reduce((s, n) => s + n.LotCount, 0),
          `auction ${auction.id}`,
        ).to.equal(auction.lots);
        for (const n of flatten(tree)) expect(n.LotCount).to.be.at.least(n.Children.reduce((s, c) => s + c.LotCount, 0));
      }
    });

    it('names the categories in the negotiated language', async () => {
      const sv: CategoryNode[] = await ok('/v1/auctions/1/categories', { 'Accept-Language': 'sv' });
      expect(sv.find((n) => n.Id === 1)?.Name).to.equal('Möbler');
      const de = await get('/v1/auctions/1/categories?lang=de', { 'Accept-Language': 'sv' });
      expect(de.headers.get('content-language')).to.equal('de');
      expect(de.body.find((n: CategoryNode) => n.Id === 1)?.Name).to.equal('Möbel');
      const strip = (nodes: CategoryNode[]): unknown => nodes.map((n) => ({ ...n, Name: undefined, Children: strip(n.Children) }));
      expect(strip(sv)).to.deep.equal(strip(await ok('/v1/auctions/1/categories')));
    });

    it("answers demo2's own auction with demo2's counts (60 lots)", async () => {
      const r = await get2('/v1/auctions/1/categories');
      expect(r.status).to.equal(200);
      expect(r.body.reduce((s: number, n: CategoryNode) => s + n.LotCount, 0)).to.equal(60);
    });
  });

  describe('latest bids (20)', () => {
    it('answers 20 bids by default, each {LotId, AuctionId, LotNumber, LotTitle, Amount, Currency, PlacedAt, BidType}', async () => {
      const r = await get('/v1/bids/latest');
      expect(r.status).to.equal(200);
      expect(r.body).to.be.an('array').with.length(20);
      for (const b of r.body) {
        expect(b).to.have.all.keys(LATEST_BID_FIELDS);
        for (const f of ['LotId', 'AuctionId', 'LotNumber', 'Amount']) expect(Number.isInteger(b[f]), `${f} = ${b[f]}`).to.equal(true);
        expect(b.Amount).to.be.greaterThan(0);
        expect(b.Currency).to.equal('EUR');
        expect(b.PlacedAt).to.match(RFC3339_UTC);
        expect(b.LotTitle).to.be.a('string').and.not.equal('');
        expect(BID_TYPES).to.include(b.BidType);
      }
    });

    it('answers the newest first, across all pages', async () => {
      const all = await allLatest('');
      expect(all.length).to.be.greaterThan(100);
      expectDescending(
        all.map((b) => b.PlacedAt),
        'latest bids',
      );
      expect(all[0].PlacedAt <= new Date().toISOString()).to.equal(true);
    });

    it('answers every bid of the tenant once: as many as the BidCounts of all lots add up to', async () => {
      const all = await allLatest('');
      const lots = await allLots('ShowClosedLots=true');
      expect(all.length).to.equal(lots.reduce((s, l) => s + l.BidCount, 0));
      const perLot = new Map<number, number>();
      for (const b of all) perLot.set(b.LotId, (perLot.get(b.LotId) ?? 0) + 1);
      for (const l of lots) expect(perLot.get(l.Id) ?? 0, `lot ${l.Id}`).to.equal(l.BidCount);
      // Bids exist only on lots of started auctions.
      expect([...new Set(all.map((b) => b.AuctionId))].sort()).to.deep.equal([1, 2, 4]);
    });

    it('Take sets how many (1 to 100) and Skip how many to leave out first; pages join up', async () => {
      const twenty = await ok('/v1/bids/latest?Take=20');
      expect(await ok('/v1/bids/latest?Take=1')).to.have.length(1);
      expect(await ok('/v1/bids/latest?Take=100')).to.have.length(100);
      const first = await ok('/v1/bids/latest?Take=10');
      const second = await ok('/v1/bids/latest?Skip=10&Take=10');
      expect([...first, ...second]).to.deep.equal(twenty);
      expect(await ok('/v1/bids/latest?Skip=0')).to.deep.equal(twenty);
      expect(await ok('/v1/bids/latest?Skip=5&Take=3')).to.deep.equal(twenty.slice(5, 8));
    });

    it('a Skip past the end answers an empty array', async () => {
      const r = await get('/v1/bids/latest?Skip=1000000');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal([]);
    });

    it("each bid names its lot's id, auction and number as the lot has them, and the amount is in the lot's bid history", async () => {
      const latest = await ok('/v1/bids/latest?Take=100');
      for (const b of latest.slice(0, 40)) {
        const lot = await ok(`/v1/lots/${b.LotId}`);
        expect({ AuctionId: b.AuctionId, LotNumber: b.LotNumber, Currency: b.Currency }, `lot ${b.LotId}`).to.deep.equal({
          AuctionId: lot.AuctionId,
          LotNumber: lot.LotNumber,
          Currency: lot.Currency,
        });
        const history = await ok(`/v1/lots/${b.LotId}/bids`);
        expect(
          history.Items.some((h: any) => h.Amount === b.Amount && h.PlacedAt === b.PlacedAt && h.BidType === b.BidType),
          `lot ${b.LotId}`,
        ).to.equal(true);
      }
    });

    it("LotTitle is the lot's Title in the language asked (LanguageCode over Accept-Language)", async () => {
      for (const [query, headers, language] of [
        ['', {}, 'en'],
        ['', { 'Accept-Language': 'sv' }, 'sv'],
        ['&LanguageCode=de', { 'Accept-Language': 'sv' }, 'de'],
        ['&languagecode=sv', {}, 'sv'],
        ['&lang=de', {}, 'de'],
      ] as Array<[string, Record<string, string>, string]>) {
        const r = await get(`/v1/bids/latest?Take=15${query}`, headers);
        expect(r.status).to.equal(200);
        expect(r.headers.get('content-language'), query).to.equal(language);
        for (const b of r.body) {
          const lot = await ok(`/v1/lots/${b.LotId}?lang=${language}`);
          expect(b.LotTitle, `lot ${b.LotId} in ${language}`).to.equal(lot.Title);
        }
      }
      const en = await ok('/v1/bids/latest?Take=15');
      const de = await ok('/v1/bids/latest?Take=15&LanguageCode=de');
      expect(de.map((b: any) => b.LotTitle)).to.not.deep.equal(en.map((b: any) => b.LotTitle));
      // Only the titles depend on the language.
      expect(de.map((b: any) => ({ ...b, LotTitle: undefined }))).to.deep.equal(en.map((b: any) => ({ ...b, LotTitle: undefined })));
    });

    it('a LanguageCode the tenant does not publish falls back to English', async () => {
      const r = await get('/v1/bids/latest?Take=5&LanguageCode=fr');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-language')).to.equal('en');
      expect(r.body).to.deep.equal(await ok('/v1/bids/latest?Take=5'));
    });

    it('OnlyOpenLots=true answers only bids on lots that are open (IsClosed false)', async () => {
      const open = await allLatest('OnlyOpenLots=true');
      expect(open.length).to.be.greaterThan(0);
      expectDescending(
        open.map((b) => b.PlacedAt),
        'open-lot bids',
      );
      const openLots = new Map((await allLots('')).map((l) => [l.Id, l]));
      for (const b of open) expect(openLots.has(b.LotId), `lot ${b.LotId} of auction ${b.AuctionId} is open`).to.equal(true);
      for (const b of open.slice(0, 20)) expect((await ok(`/v1/lots/${b.LotId}`)).IsClosed, `lot ${b.LotId}`).to.equal(false);
      expect(open.length).to.equal([...openLots.values()].reduce((s, l) => s + l.BidCount, 0));
      // Without it, bids on the closed auction 4 are there too.
      const all = await allLatest('');
      expect(all.some((b) => b.AuctionId === 4)).to.equal(true);
      expect(open.some((b) => b.AuctionId === 4)).to.equal(false);
      expect(await ok('/v1/bids/latest?OnlyOpenLots=false&Take=50')).to.deep.equal(await ok('/v1/bids/latest?Take=50'));
    });

    it('BidType answers only bids of that kind; a kind without bids answers an empty array', async () => {
      const absentee = await allLatest('BidType=absentee');
      const online = await allLatest('BidType=online');
      expect(absentee.length).to.be.greaterThan(0);
      expect(online.length).to.be.greaterThan(0);
      for (const b of absentee) expect(b.BidType).to.equal('absentee');
      for (const b of online) expect(b.BidType).to.equal('online');
      expectDescending(
        absentee.map((b) => b.PlacedAt),
        'absentee bids',
      );
      // The demo's bids are online or absentee.
      const all = await allLatest('');
      expect(absentee.length + online.length).to.equal(all.length);
      for (const kind of ['floor', 'phone']) {
        const r = await get(`/v1/bids/latest?BidType=${kind}`);
        expect(r.status, kind).to.equal(200);
        expect(r.body, kind).to.deep.equal([]);
      }
    });

    it('AuctionType answers only bids on lots of auctions of that type (the AuctionTypeId of /v1/lots)', async () => {
      const live = await allLatest('AuctionType=2');
      expect(live.length).to.be.greaterThan(0);
      for (const b of live) expect(b.AuctionId).to.equal(2);
      expect(live.length).to.equal((await allLots('AuctionTypeId=2&ShowClosedLots=true')).reduce((s, l) => s + l.BidCount, 0));
      const timed = await allLatest('AuctionType=1');
      expect([...new Set(timed.map((b) => b.AuctionId))].sort()).to.deep.equal([1, 4]);
      expect(timed.length + live.length).to.equal((await allLatest('')).length);
      expect(await ok('/v1/bids/latest?AuctionType=99')).to.deep.equal([]);
    });

    it('filters combine', async () => {
      const r = await allLatest('AuctionType=1&BidType=absentee&OnlyOpenLots=true');
      expect(r.length).to.be.greaterThan(0);
      for (const b of r) expect(b).to.include({ AuctionId: 1, BidType: 'absentee' });
    });

    it('parameter names are matched case-insensitively', async () => {
      expect(await ok('/v1/bids/latest?take=3&skip=2&bidtype=absentee')).to.deep.equal(
        await ok('/v1/bids/latest?Take=3&Skip=2&BidType=absentee'),
      );
      expect(await ok('/v1/bids/latest?TAKE=4&onlyopenlots=true&auctiontype=2')).to.deep.equal(
        await ok('/v1/bids/latest?Take=4&OnlyOpenLots=true&AuctionType=2'),
      );
    });

    it('carries no bidder identity', async () => {
      const member = await server.memberToken('demo');
      for (const t of [token, member]) {
        const r = await server.request('GET', '/v1/bids/latest?Take=100', { token: t });
        expect(r.status).to.equal(200);
        for (const b of r.body) expect(Object.keys(b)).to.have.members(LATEST_BID_FIELDS);
        expect([...keysOf(r.body)].filter((k) => k !== 'LotTitle' && IDENTITY.test(k))).to.deep.equal([]);
        expect(r.text).to.not.include(server.credentials.memberEmail);
      }
    });

    it("answers demo2's bids only, in SEK", async () => {
      const all: any[] = [];
      for (let skip = 0; ; skip += 100) {
        const r = await get2(`/v1/bids/latest?Take=100&Skip=${skip}`);
        expect(r.status).to.equal(200);
        all.push(...r.body);
        if (r.body.length < 100) break;
      }
      expect(all.length).to.be.greaterThan(0);
      for (const b of all) {
        expect(b.Currency).to.equal('SEK');
        expect(b.AuctionId).to.equal(1);
        expect(b.LotId).to.be.within(1, 60);
      }
    });

    describe('bad input', () => {
      it('Take 0 or 101 (or not a number) is a 400 naming query.Take', async () => {
        for (const take of ['0', '101', '-1', 'ten', '1.5', '2147483648', '']) {
          expect(fieldsOf(await get(`/v1/bids/latest?Take=${take}`)), `Take=${take}`).to.include('query.Take');
        }
      });

      it('Skip below 0 (or not a number) is a 400 naming query.Skip', async () => {
        for (const skip of ['-1', 'x', '99999999999', '']) {
          expect(fieldsOf(await get(`/v1/bids/latest?Skip=${skip}`)), `Skip=${skip}`).to.include('query.Skip');
        }
      });

      it('an unknown BidType is a 400 naming query.BidType', async () => {
        for (const kind of ['auction', 'ONLINE-ish', '', 'proxy']) {
          expect(fieldsOf(await get(`/v1/bids/latest?BidType=${kind}`)), `BidType=${kind}`).to.include('query.BidType');
        }
      });

      it('an AuctionType that is not an integer is a 400 naming query.AuctionType', async () => {
        for (const type of ['x', '1.5', '2147483648']) {
          expect(fieldsOf(await get(`/v1/bids/latest?AuctionType=${type}`)), `AuctionType=${type}`).to.include('query.AuctionType');
        }
      });

      it('OnlyOpenLots that is not a boolean is a 400 naming query.OnlyOpenLots', async () => {
        expect(fieldsOf(await get('/v1/bids/latest?OnlyOpenLots=yes'))).to.include('query.OnlyOpenLots');
      });

      it('a parameter given twice, in any case, is a 400', async () => {
        for (const query of [
          'Take=1&Take=2',
          'take=1&Take=2',
          'Take=1&Take=1',
          'Skip=1&SKIP=2',
          'BidType=online&bidtype=absentee',
          'OnlyOpenLots=true&OnlyOpenLots=false',
          'LanguageCode=sv&languagecode=de',
          'AuctionType=1&AuctionType=2',
        ]) {
          expectProblem(await get(`/v1/bids/latest?${query}`), 400);
        }
      });

      it('the bracket form is a 400', async () => {
        for (const query of ['Take[]=1', 'Take[x]=1', 'BidType[]=online', 'Skip[0]=1']) {
          expectProblem(await get(`/v1/bids/latest?${query}`), 400);
        }
      });

      it('bad values together are one 400 naming each bad field', async () => {
        const fields = fieldsOf(await get('/v1/bids/latest?Take=0&Skip=-1&BidType=nope&AuctionType=x'));
        expect(fields).to.include.members(['query.Take', 'query.Skip', 'query.BidType', 'query.AuctionType']);
      });
    });
  });

  describe('bid history (57)', () => {
    it('answers {LotId, Items: [{Amount, Currency, PlacedAt, BidType}]}, newest first', async () => {
      const r = await get('/v1/lots/1/bids');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys('LotId', 'Items');
      expect(r.body.LotId).to.equal(1);
      for (const item of r.body.Items) {
        expect(item).to.have.all.keys(HISTORY_FIELDS);
        expect(Number.isInteger(item.Amount) && item.Amount > 0).to.equal(true);
        expect(item.Currency).to.equal('EUR');
        expect(item.PlacedAt).to.match(RFC3339_UTC);
        expect(BID_TYPES).to.include(item.BidType);
      }
      expectDescending(
        r.body.Items.map((i: any) => i.PlacedAt),
        'lot 1',
      );
    });

    it("is complete: as many items as the lot's BidCount, the first one's Amount its CurrentBid, in every started auction", async () => {
      const lots = [
        ...(await ok('/v1/lots?AuctionId=1&pageSize=40')).Items,
        ...(await ok('/v1/lots?AuctionId=2&pageSize=40')).Items,
        ...(await ok('/v1/lots?AuctionId=4&ShowClosedLots=true&pageSize=40')).Items,
      ];
      let withBids = 0;
      for (const lot of lots) {
        const history = await ok(`/v1/lots/${lot.Id}/bids`);
        expect(history.LotId).to.equal(lot.Id);
        expect(history.Items, `lot ${lot.Id}`).to.have.length(lot.BidCount);
        expectDescending(
          history.Items.map((i: any) => i.PlacedAt),
          `lot ${lot.Id}`,
        );
        if (lot.BidCount > 0) {
          withBids++;
          expect(history.Items[0].Amount, `lot ${lot.Id}`).to.equal(lot.CurrentBid);
          for (const item of history.Items) {
            expect(item.Currency).to.equal(lot.Currency);
            expect(item.Amount).to.be.at.most(lot.CurrentBid);
            expect(item.Amount).to.be.at.least(lot.StartingPrice);
          }
        } else expect(lot.CurrentBid).to.equal(null);
      }
      expect(withBids, 'some of these lots have bids').to.be.greaterThan(20);
    });

    it('answers an empty history for a lot without bids (an upcoming auction)', async () => {
      const lot = await ok('/v1/lots/601');
      expect(lot.BidCount).to.equal(0);
      expect(await ok('/v1/lots/601/bids')).to.deep.equal({ LotId: 601, Items: [] });
    });

    it('answers the bids of a closed lot', async () => {
      const closed = (await ok('/v1/lots?AuctionId=4&ShowClosedLots=true&pageSize=100')).Items.find((l: any) => l.BidCount > 0);
      expect(closed.IsClosed).to.equal(true);
      const history = await ok(`/v1/lots/${closed.Id}/bids`);
      expect(history.Items).to.have.length(closed.BidCount);
    });

    it('is the same in every language and carries no bidder identity', async () => {
      const en = await get('/v1/lots/2/bids');
      const sv = await get('/v1/lots/2/bids', { 'Accept-Language': 'sv' });
      expect(sv.body).to.deep.equal(en.body);
      expect(sv.headers.get('content-language')).to.equal('sv');
      const member = await server.request('GET', '/v1/lots/2/bids', { token: await server.memberToken('demo') });
      expect([...keysOf(member.body)].filter((k) => IDENTITY.test(k))).to.deep.equal([]);
      expect(member.text).to.not.include(server.credentials.memberEmail);
    });

    it("answers demo2's own lot 1 in SEK", async () => {
      const lot = (await get2('/v1/lots/1')).body;
      const r = await get2('/v1/lots/1/bids');
      expect(r.status).to.equal(200);
      expect(r.body.Items).to.have.length(lot.BidCount);
      for (const item of r.body.Items) expect(item.Currency).to.equal('SEK');
      expect(r.body).to.not.deep.equal((await get('/v1/lots/1/bids')).body);
    });
  });

  describe('lot attributes (21)', () => {
    it("answers [{Name, Label, Value}]: the lot's attributes as GET /v1/lots/{id} has them", async () => {
      for (const id of [1, 201, 412, 851, 1220]) {
        const r = await get(`/v1/lots/${id}/attributes`);
        expect(r.status).to.equal(200);
        expect(r.body).to.be.an('array').that.is.not.empty;
        for (const a of r.body) {
          expect(a).to.have.all.keys('Name', 'Label', 'Value');
          for (const f of ['Name', 'Label', 'Value']) expect(a[f]).to.be.a('string').and.not.equal('');
        }
        expect(r.body.map((a: any) => a.Name)).to.have.members(['Material', 'Period', 'Condition']);
        expect(r.body).to.deep.equal((await ok(`/v1/lots/${id}`)).Attributes);
      }
    });

    it('answers labels and values in the negotiated language; names do not change', async () => {
      const en = await ok('/v1/lots/3/attributes');
      const material = materials.find((m) => m.en === en.find((a: any) => a.Name === 'Material').Value)!;
      expect(material, 'an English demo material').to.not.equal(undefined);
      const sv = await get('/v1/lots/3/attributes', { 'Accept-Language': 'sv-SE' });
      expect(sv.headers.get('content-language')).to.equal('sv');
      expect(sv.body.map((a: any) => a.Name)).to.deep.equal(en.map((a: any) => a.Name));
      expect(sv.body.find((a: any) => a.Name === 'Material').Value).to.equal(material.sv);
      expect(sv.body.find((a: any) => a.Name === 'Condition').Label).to.equal('Skick');
      const de = await get('/v1/lots/3/attributes?lang=de', { 'Accept-Language': 'sv' });
      expect(de.headers.get('content-language')).to.equal('de');
      expect(de.body.find((a: any) => a.Name === 'Material').Value).to.equal(material.de);
      expect(de.body.find((a: any) => a.Name === 'Period').Label).to.equal('Epoche');
      for (const language of LANGUAGES)
        expect(await ok(`/v1/lots/3/attributes?lang=${language}`), language).to.deep.equal(
          (await ok(`/v1/lots/3?lang=${language}`)).Attributes,
        );
    });

    it('an unpublished language falls back to English', async () => {
      const r = await get('/v1/lots/3/attributes', { 'Accept-Language': 'fr' });
      expect(r.headers.get('content-language')).to.equal('en');
      expect(r.body).to.deep.equal(await ok('/v1/lots/3/attributes'));
    });
  });

  describe('attribute values (22)', () => {
    const countOf = async (name: string, value: string, filters: string) =>
      lotCount(`ShowClosedLots=true&MetaDataProperties[${name}]=${encodeURIComponent(value)}${filters ? `&${filters}` : ''}`);

    /** The attribute-values query, and the /v1/lots filters that select the same lots. */
    const FILTERS: Array<[string, string]> = [
      ['', ''],
      ['auctionId=1', 'AuctionId=1'],
      ['auctionId=4', 'AuctionId=4'],
      ['categoryId=1', 'CategoryId=1'],
      ['categoryId=6', 'CategoryId=6'],
      ['type=2', 'AuctionTypeId=2'],
      ['vatFree=true', 'vatFree=true'],
      ['vatFree=false', 'vatFree=false'],
      ['auctionId=1&categoryId=1&vatFree=false', 'AuctionId=1&CategoryId=1&vatFree=false'],
      ['type=1&categoryId=8', 'AuctionTypeId=1&CategoryId=8'],
    ];

    it('answers [{Name, Label, Value, Count}] with a positive integer Count', async () => {
      const r = await get('/v1/attribute-values');
      expect(r.status).to.equal(200);
      expect(r.body).to.be.an('array').that.is.not.empty;
      for (const v of r.body) {
        expect(v).to.have.all.keys('Name', 'Label', 'Value', 'Count');
        expect(Number.isInteger(v.Count) && v.Count > 0, JSON.stringify(v)).to.equal(true);
      }
      expect([...new Set(r.body.map((v: any) => v.Name))]).to.have.members(['Material', 'Period', 'Condition']);
      const values = r.body.filter((v: any) => v.Name === 'Material').map((v: any) => v.Value);
      expect(values).to.have.length(new Set(values).size, 'each value once');
      expect(values).to.include('oak');
    });

    it('every attribute counts every lot of the tenant once (each demo lot has one value of each)', async () => {
      const values = await ok('/v1/attribute-values');
      for (const name of ['Material', 'Period', 'Condition'])
        expect(
          values.filter((v: any) => v.Name === name).reduce((s: number, v: any) => s + v.Count, 0),
          name,
        ).to.equal(1280);
    });

    it('each Count equals the TotalCount of /v1/lots?ShowClosedLots=true&MetaDataProperties[Name]=Value with the same filters', async () => {
      for (const [query, lotsQuery] of FILTERS) {
        const values = await ok(`/v1/attribute-values${query ? `?${query}` : ''}`);
        expect(values.length, query).to.be.greaterThan(0);
        // Several values of every attribute.
        const checked = ['Material', 'Period', 'Condition'].flatMap((name) => values.filter((v: any) => v.Name === name).slice(0, 3));
        for (const v of checked) expect(v.Count, `${query}: ${v.Name}=${v.Value}`).to.equal(await countOf(v.Name, v.Value, lotsQuery));
        // And the counts of one attribute add up to the lots the filters select.
        const total = await lotCount(`ShowClosedLots=true${lotsQuery ? `&${lotsQuery}` : ''}`);
        expect(
          values.filter((v: any) => v.Name === 'Condition').reduce((s: number, v: any) => s + v.Count, 0),
          query,
        ).to.equal(total);
      }
    });

    it('answers values and labels in Swedish with language=sv, and the counts match /v1/lots in Swedish', async () => {
      const r = await get('/v1/attribute-values?language=sv', { 'Accept-Language': 'de' });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-language')).to.equal('sv');
      const materialValues = r.body.filter((v: any) => v.Name === 'Material').map((v: any) => v.Value);
      expect(materialValues).to.include('ek');
      expect(materialValues).to.include('valnöt');
      expect(materialValues).to.not.include('oak');
      expect(r.body.find((v: any) => v.Name === 'Condition').Label).to.equal('Skick');
      for (const [query, lotsQuery] of FILTERS.slice(0, 5)) {
        const values = await ok(`/v1/attribute-values?language=sv${query ? `&${query}` : ''}`);
        for (const v of values.filter((x: any) => x.Name === 'Material').slice(0, 4))
          expect(v.Count, `sv ${query}: ${v.Value}`).to.equal(
            await countOf(v.Name, v.Value, `LanguageCode=sv${lotsQuery ? `&${lotsQuery}` : ''}`),
          );
      }
      const valnot = r.body.find((v: any) => v.Name === 'Material' && v.Value === 'valnöt');
      const walnut = (await ok('/v1/attribute-values?name=Material')).find((v: any) => v.Value === 'walnut');
      expect(valnot.Count).to.equal(walnut.Count);
    });

    it('language=de answers German values and labels; Accept-Language is used without it', async () => {
      const de = await ok('/v1/attribute-values?language=de');
      expect(de.find((v: any) => v.Name === 'Period').Label).to.equal('Epoche');
      expect(de.filter((v: any) => v.Name === 'Material').map((v: any) => v.Value)).to.include('Eiche');
      const sv = await get('/v1/attribute-values', { 'Accept-Language': 'sv' });
      expect(sv.headers.get('content-language')).to.equal('sv');
      expect(sv.body).to.deep.equal(await ok('/v1/attribute-values?language=sv'));
      const fr = await get('/v1/attribute-values?language=fr');
      expect(fr.headers.get('content-language')).to.equal('en');
      expect(fr.body).to.deep.equal(await ok('/v1/attribute-values'));
    });

    it('name narrows to one attribute, matched case-insensitively', async () => {
      const all = await ok('/v1/attribute-values');
      const material = await ok('/v1/attribute-values?name=Material');
      expect(material).to.not.be.empty;
      for (const v of material) expect(v.Name).to.equal('Material');
      expect(material).to.have.deep.members(all.filter((v: any) => v.Name === 'Material'));
      expect(await ok('/v1/attribute-values?name=material')).to.deep.equal(material);
      expect(await ok('/v1/attribute-values?name=Colour')).to.deep.equal([]);
    });

    it('filters that select no lots answer an empty array', async () => {
      expect(await ok('/v1/attribute-values?auctionId=99')).to.deep.equal([]);
      expect(await ok('/v1/attribute-values?categoryId=14')).to.deep.equal([]);
      expect(await ok('/v1/attribute-values?type=7')).to.deep.equal([]);
    });

    it('parameter names are matched case-insensitively', async () => {
      expect(await ok('/v1/attribute-values?AuctionId=2&NAME=period')).to.deep.equal(
        await ok('/v1/attribute-values?auctionId=2&name=period'),
      );
      expect(await ok('/v1/attribute-values?VatFree=true&Type=1')).to.deep.equal(await ok('/v1/attribute-values?vatFree=true&type=1'));
    });

    it("answers demo2's own values, counting demo2's 60 lots", async () => {
      const r = await get2('/v1/attribute-values?name=Condition');
      expect(r.status).to.equal(200);
      expect(r.body.reduce((s: number, v: any) => s + v.Count, 0)).to.equal(60);
      const sv = await get2('/v1/attribute-values?language=sv&name=Material');
      expect(sv.headers.get('content-language')).to.equal('en');
      expect(sv.body.map((v: any) => v.Value)).to.not.include('ek');
    });

    describe('bad input', () => {
      it('ids that are not int32 are a 400 naming them', async () => {
        for (const [query, field] of [
          ['auctionId=abc', 'query.auctionId'],
          ['auctionId=0', 'query.auctionId'],
          ['auctionId=2147483648', 'query.auctionId'],
          ['categoryId=-1', 'query.categoryId'],
          ['categoryId=1.5', 'query.categoryId'],
          ['type=x', 'query.type'],
          ['type=99999999999', 'query.type'],
        ]) {
          expect(fieldsOf(await get(`/v1/attribute-values?${query}`)), query).to.include(field);
        }
      });

      it('vatFree that is not a boolean and a name that is not an attribute name are a 400 naming them', async () => {
        expect(fieldsOf(await get('/v1/attribute-values?vatFree=maybe'))).to.include('query.vatFree');
        expect(fieldsOf(await get('/v1/attribute-values?name=' + encodeURIComponent('1 bad;')))).to.include('query.name');
        expect(fieldsOf(await get('/v1/attribute-values?name=' + 'a'.repeat(200)))).to.include('query.name');
      });

      it('a parameter given twice or in bracket form is a 400', async () => {
        for (const query of [
          'auctionId=1&auctionId=2',
          'auctionId=1&AuctionId=1',
          'name=Material&NAME=Period',
          'language=sv&Language=de',
          'auctionId[]=1',
          'name[x]=Material',
          'vatFree[]=true',
        ]) {
          expectProblem(await get(`/v1/attribute-values?${query}`), 400);
        }
      });
    });
  });

  describe('lot links (23)', () => {
    it('answers [{Rel, Href, Title}] with Rel one of auction, combination, document, image', async () => {
      const r = await get('/v1/lots/1/links');
      expect(r.status).to.equal(200);
      expect(r.body).to.be.an('array').that.is.not.empty;
      for (const link of r.body) {
        expect(link).to.have.all.keys('Rel', 'Href', 'Title');
        expect(['auction', 'combination', 'document', 'image']).to.include(link.Rel);
        expect(link.Href).to.be.a('string').and.not.equal('');
        expect(link.Title).to.be.a('string').and.not.equal('');
      }
    });

    it("links the lot's auction, with its title", async () => {
      for (const [lotId, auctionId] of [
        [1, 1],
        [412, 2],
        [700, 3],
        [851, 4],
        [1220, 5],
      ]) {
        const links = await ok(`/v1/lots/${lotId}/links`);
        const auction = links.filter((l: any) => l.Rel === 'auction');
        expect(auction, `lot ${lotId}`).to.have.length(1);
        expect(auction[0].Href).to.equal(`/v1/auctions/${auctionId}`);
        expect(auction[0].Title).to.equal((await ok(`/v1/auctions/${auctionId}`)).Title);
      }
    });

    it('links the other lots of the combination (201, 202, 203), never the lot itself', async () => {
      for (const id of [201, 202, 203]) {
        const links = await ok(`/v1/lots/${id}/links`);
        const combination = links.filter((l: any) => l.Rel === 'combination');
        const others = [201, 202, 203].filter((x) => x !== id);
        expect(
          combination.map((l: any) => l.Href),
          `lot ${id}`,
        ).to.have.members(others.map((x) => `/v1/lots/${x}`));
        expect(links.map((l: any) => l.Href)).to.not.include(`/v1/lots/${id}`);
        for (const link of combination) expect(link.Title).to.equal((await ok(link.Href)).Title);
      }
      const combi = await allLots('CombiId=1&ShowClosedLots=true');
      expect(combi.map((l) => l.Id).sort()).to.deep.equal([201, 202, 203]);
    });

    it('a lot without a combination has no combination links', async () => {
      for (const id of [1, 200, 204, 851]) {
        const links = await ok(`/v1/lots/${id}/links`);
        expect(
          links.filter((l: any) => l.Rel === 'combination'),
          `lot ${id}`,
        ).to.deep.equal([]);
      }
    });

    it('links the factsheet of every lot, and the condition report of the lots that have one (1, 2, 3, 12, 401, 402, 851)', async () => {
      for (const id of [1, 2, 3, 4, 12, 13, 201, 401, 402, 403, 851, 852, 1101]) {
        const links = await ok(`/v1/lots/${id}/links`);
        const documents = links.filter((l: any) => l.Rel === 'document').map((l: any) => l.Href);
        const expected = [`/v1/lots/${id}/documents/factsheet`];
        if (DEMO_CONDITION_REPORT_LOTS.includes(id)) expected.push(`/v1/lots/${id}/documents/condition-report`);
        expect(documents, `lot ${id}`).to.have.members(expected);
      }
    });

    it('the document links it gives answer 200, and a condition report it does not give is 404', async () => {
      for (const id of [1, 851]) {
        for (const link of (await ok(`/v1/lots/${id}/links`)).filter((l: any) => l.Rel === 'document')) {
          const r = await get(link.Href);
          expect(r.status, link.Href).to.equal(200);
        }
      }
      expectProblem(await get('/v1/lots/4/documents/condition-report'), 404);
    });

    it("links the lot's images, as the lot lists them", async () => {
      for (const id of [1, 412, 1100]) {
        const lot = await ok(`/v1/lots/${id}`);
        const images = (await ok(`/v1/lots/${id}/links`)).filter((l: any) => l.Rel === 'image');
        expect(
          images.map((l: any) => l.Href),
          `lot ${id}`,
        ).to.deep.equal(lot.Images);
        expect(images).to.have.length(2);
      }
    });

    it('titles come in the negotiated language', async () => {
      const en = await ok('/v1/lots/201/links');
      const sv = await get('/v1/lots/201/links', { 'Accept-Language': 'sv' });
      expect(sv.headers.get('content-language')).to.equal('sv');
      expect(sv.body.find((l: any) => l.Rel === 'auction').Title).to.equal('Vårens designauktion');
      for (const link of sv.body.filter((l: any) => l.Rel === 'combination'))
        expect(link.Title).to.equal((await ok(`${link.Href}?lang=sv`)).Title);
      expect(sv.body.map((l: any) => [l.Rel, l.Href])).to.deep.equal(en.map((l: any) => [l.Rel, l.Href]));
      const de = await ok('/v1/lots/201/links?lang=de');
      expect(de.find((l: any) => l.Rel === 'auction').Title).to.equal('Frühjahrs-Designauktion');
    });

    it("demo2's lot 1 links its own auction and images, never demo's", async () => {
      const r = await get2('/v1/lots/1/links');
      expect(r.status).to.equal(200);
      const auction = r.body.find((l: any) => l.Rel === 'auction');
      expect(auction).to.deep.equal({ Rel: 'auction', Href: '/v1/auctions/1', Title: 'Nordic Modern' });
      expect(r.text).to.not.include('Spring Design Sale');
      expect(r.text).to.not.include('/demo/');
      expect(r.body.filter((l: any) => l.Rel === 'document').map((l: any) => l.Href)).to.deep.equal(['/v1/lots/1/documents/factsheet']);
      for (const image of r.body.filter((l: any) => l.Rel === 'image')) expect(image.Href).to.include('/demo2/');
    });
  });

  describe('live status (29, 30)', () => {
    it('GET /v1/live answers {IsLive, AuctionId, CurrentLotId} of the live auction 2 and its current lot 412', async () => {
      const r = await get('/v1/live');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ IsLive: true, AuctionId: 2, CurrentLotId: 412 });
      expect((await ok('/v1/auctions/2')).IsLive).to.equal(true);
      expect((await ok('/v1/lots/412')).AuctionId).to.equal(2);
    });

    it('GET /v1/auctions/{id}/live answers {IsLive, CurrentLotId, StartsAt} of the live auction', async () => {
      const r = await get('/v1/auctions/2/live');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys('IsLive', 'CurrentLotId', 'StartsAt');
      expect(r.body).to.include({ IsLive: true, CurrentLotId: 412 });
      expect(r.body.StartsAt).to.match(RFC3339_UTC);
      expect(Date.parse(r.body.StartsAt)).to.equal(Date.parse((await ok('/v1/auctions/2')).StartTime));
    });

    it('auctions that are not live answer IsLive false and CurrentLotId null, with a StartsAt', async () => {
      for (const id of [1, 3, 4, 5]) {
        const r = await get(`/v1/auctions/${id}/live`);
        expect(r.status).to.equal(200);
        expect(r.body).to.have.all.keys('IsLive', 'CurrentLotId', 'StartsAt');
        expect(r.body, `auction ${id}`).to.include({ IsLive: false, CurrentLotId: null });
        expect(r.body.StartsAt).to.match(RFC3339_UTC);
        expect((await ok(`/v1/auctions/${id}`)).IsLive).to.equal(false);
      }
    });

    it('a tenant with no live sale answers nulls', async () => {
      const r = await get2('/v1/live');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ IsLive: false, AuctionId: null, CurrentLotId: null });
      const one = await get2('/v1/auctions/1/live');
      expect(one.status).to.equal(200);
      expect(one.body).to.include({ IsLive: false, CurrentLotId: null });
    });
  });

  describe('languages (55)', () => {
    it('answers [{Code, Name, IsDefault}], each named in its own language, exactly one default', async () => {
      const r = await get('/v1/languages');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.deep.members([
        { Code: 'en', Name: 'English', IsDefault: true },
        { Code: 'sv', Name: 'Svenska', IsDefault: false },
        { Code: 'de', Name: 'Deutsch', IsDefault: false },
      ]);
      expect(r.body.filter((l: any) => l.IsDefault)).to.have.length(1);
    });

    it('names each language in itself whatever language is asked for', async () => {
      const en = await ok('/v1/languages');
      for (const language of ['sv', 'de', 'fr']) {
        const r = await get('/v1/languages', { 'Accept-Language': language });
        expect(r.body, language).to.deep.equal(en);
      }
    });

    it("answers demo2's one language", async () => {
      const r = await get2('/v1/languages');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal([{ Code: 'en', Name: 'English', IsDefault: true }]);
    });
  });

  describe('interface translations (56)', () => {
    it('answers {Language, Entries} with at least 50 non-empty texts', async () => {
      const r = await get('/v1/translations');
      expect(r.status).to.equal(200);
      expect(r.body).to.have.all.keys('Language', 'Entries');
      expect(r.body.Language).to.equal('en');
      const entries = Object.entries(r.body.Entries);
      expect(entries.length).to.be.at.least(50);
      for (const [key, text] of entries) expect(text, key).to.be.a('string').and.not.equal('');
      expect(r.body.Entries['button.placeBid']).to.equal('Place bid');
    });

    it('every published language answers the same keys, with its own texts', async () => {
      const en = await ok('/v1/translations?lang=en');
      const keys = Object.keys(en.Entries).sort();
      expect(keys).to.include.members(Object.keys(interfaceDictionary.en));
      for (const language of ['sv', 'de']) {
        const r = await get('/v1/translations', { 'Accept-Language': language });
        expect(r.headers.get('content-language')).to.equal(language);
        expect(r.body.Language).to.equal(language);
        expect(Object.keys(r.body.Entries).sort(), language).to.deep.equal(keys);
        const differing = keys.filter((k) => r.body.Entries[k] !== en.Entries[k]);
        expect(differing.length, `${language} texts that differ from English`).to.be.greaterThan(keys.length / 2);
        expect(r.body.Entries['button.placeBid']).to.equal(interfaceDictionary[language as 'sv' | 'de']['button.placeBid']);
        expect(r.body.Entries['button.placeBid']).to.not.equal('Place bid');
      }
    });

    it('an unpublished Accept-Language falls back to English; lang overrides the header', async () => {
      const en = await ok('/v1/translations');
      for (const language of ['fr', 'nl-NL', '*']) {
        const r = await get('/v1/translations', { 'Accept-Language': language });
        expect(r.headers.get('content-language'), language).to.equal('en');
        expect(r.body, language).to.deep.equal(en);
      }
      const de = await get('/v1/translations?lang=de', { 'Accept-Language': 'sv' });
      expect(de.headers.get('content-language')).to.equal('de');
      expect(de.body.Language).to.equal('de');
      const svSE = await get('/v1/translations', { 'Accept-Language': 'sv-SE, en;q=0.5' });
      expect(svSE.body.Language).to.equal('sv');
    });

    it("answers demo2's dictionary in its one language, whatever is asked", async () => {
      const r = await get2('/v1/translations', { 'Accept-Language': 'sv' });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-language')).to.equal('en');
      expect(r.body.Language).to.equal('en');
      expect(Object.keys(r.body.Entries).length).to.be.at.least(50);
    });
  });

  describe('conventions', () => {
    it('every operation answers 200 to any token of the tenant: anonymous, application and member', async () => {
      const member = await server.memberToken('demo');
      const issued = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
      });
      expect(issued.status, issued.text).to.equal(200);
      const application = issued.body.Token;
      for (const path of READS) {
        const anonymous = await get(path);
        expect(anonymous.status, path).to.equal(200);
        expect((await server.request('GET', path, { token: member })).body, `${path} as a member`).to.deep.equal(anonymous.body);
        expect((await server.request('GET', path, { token: application })).body, `${path} as an application`).to.deep.equal(anonymous.body);
      }
    });

    it('lang, accepted on every operation, given twice in any case is a 400', async () => {
      for (const path of ['/v1/translations', '/v1/languages', '/v1/lots/1/attributes', '/v1/auctions/1/translations', '/v1/live']) {
        for (const query of ['lang=sv&lang=de', 'lang=sv&LANG=de', 'Lang=sv&lang=sv', 'lang[]=sv']) {
          const r = await get(`${path}?${query}`);
          expect(r.status, `${path}?${query}: ${r.status} ${r.text.slice(0, 120)}`).to.equal(400);
          expectProblem(r, 400);
        }
      }
    });

    it('every operation needs a token: none or a bad one is a 401 problem', async () => {
      for (const path of READS) {
        expectProblem(await server.request('GET', path), 401);
        expectProblem(await server.request('GET', path, { token: 'not.a.token' }), 401);
      }
    });

    it('every operation needs an Api-Key: a missing or unknown one is a 401 problem', async () => {
      for (const path of READS) {
        expectProblem(await server.request('GET', path, { token, apiKey: null }), 401);
        expectProblem(await server.request('GET', path, { token, apiKey: 'unknown-key-0123456789' }), 401);
      }
    });

    it('every answer carries Content-Language in the negotiated language', async () => {
      for (const path of READS) {
        for (const language of LANGUAGES) {
          const r = await get(path, { 'Accept-Language': language });
          expect(r.headers.get('content-language'), `${path} in ${language}`).to.equal(language);
        }
        expect((await get(path, { 'Accept-Language': 'fr' })).headers.get('content-language'), `${path} in fr`).to.equal('en');
      }
    });

    it('every answer carries an ETag and answers 304 to a matching If-None-Match', async () => {
      for (const path of READS) {
        const first = await rawGet(path);
        expect(first.status, path).to.equal(200);
        expect(first.headers.etag, path)
          .to.be.a('string')
          .and.match(/^(W\/)?"[^"]+"$/);
        const again = await rawGet(path, { 'If-None-Match': String(first.headers.etag) });
        expect(again.status, path).to.equal(304);
        expect(again.body, path).to.equal('');
        const other = await rawGet(path, { 'If-None-Match': 'W/"not-the-etag"' });
        expect(other.status, path).to.equal(200);
      }
    });

    it('the ETag differs between languages where the text does', async () => {
      for (const path of ['/v1/translations', '/v1/lots/1/attributes', '/v1/auctions/1/categories', '/v1/bids/latest']) {
        const en = await rawGet(path, { 'Accept-Language': 'en' });
        const sv = await rawGet(path, { 'Accept-Language': 'sv', 'If-None-Match': String(en.headers.etag) });
        expect(sv.status, path).to.equal(200);
        expect(sv.headers.etag, path).to.not.equal(en.headers.etag);
      }
    });

    it('an id that is not an int32 is a 400 naming path.id, never a 500', async () => {
      for (const template of ID_PATHS) {
        for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999', '1e2', '0x10', '%20']) {
          const path = at(template, id);
          expect(fieldsOf(await get(path)), path).to.include('path.id');
        }
      }
    });

    it('an auction or lot that does not exist is a 404 problem', async () => {
      for (const template of AUCTION_ID_PATHS) for (const id of [6, 99, 2147483647]) expectProblem(await get(at(template, id)), 404);
      for (const template of LOT_ID_PATHS)
        for (const id of [1221, 2061, 99999, 2147483647]) expectProblem(await get(at(template, id)), 404);
    });

    it("another tenant's auction or lot is a 404, as one that does not exist", async () => {
      // demo has auctions 1..5 and lots 1..1220; demo2 only auction 1 and lots 1..60.
      for (const template of AUCTION_ID_PATHS) for (const id of [2, 4, 5]) expectProblem(await get2(at(template, id)), 404);
      for (const template of LOT_ID_PATHS) for (const id of [61, 201, 412, 1220]) expectProblem(await get2(at(template, id)), 404);
    });

    it('carries no member data, even to a member', async () => {
      const member = await server.memberToken('demo');
      for (const path of READS) {
        const r = await server.request('GET', path, { token: member });
        const keys = [...keysOf(r.body)].filter((k) => !['Name', 'LotTitle'].includes(k) && !k.includes('.'));
        expect(
          keys.filter((k) => IDENTITY.test(k)),
          path,
        ).to.deep.equal([]);
        expect(r.text, path).to.not.include(server.credentials.memberEmail);
      }
    });

    it('bad inputs are a 4xx problem, never a 500', async () => {
      const bad = [
        '/v1/bids/latest?LanguageCode=' + 'x'.repeat(50),
        '/v1/bids/latest?Take=%00',
        '/v1/bids/latest?BidType=%F0%9F%98%80',
        '/v1/bids/latest?Skip=1%201',
        '/v1/attribute-values?language=' + 'x'.repeat(50),
        '/v1/attribute-values?name=%00',
        '/v1/attribute-values?categoryId=%FF',
        '/v1/lots/1;2/links',
        '/v1/lots/%E0%A4%A/bids',
        '/v1/auctions/1%201/lot-numbers',
        '/v1/auctions/%FF/categories',
        '/v1/translations?lang[]=sv',
        '/v1/languages?lang=sv&lang=de',
      ];
      for (const path of bad) {
        const r = await get(path);
        expect(r.status, `${path}: ${r.text.slice(0, 300)}`).to.be.within(400, 499);
        expectProblem(r, r.status);
      }
    });
  });

  // These change the data of the shared server, so they run last and put the live status back.
  describe('after a change', () => {
    it('GET /v1/live and GET /v1/auctions/{id}/live follow the live status the house sends', async () => {
      const log = server.runtime.services.log;
      const before = await rawGet('/v1/live');
      const startsAt = (await ok('/v1/auctions/2/live')).StartsAt;
      try {
        // The lot moves on.
        await importRecord(log, {
          kind: 'live',
          tenant: 'demo',
          auctionId: 2,
          isLive: true,
          currentLotId: 413,
          at: new Date().toISOString(),
        });
        await server.runtime.services.projector.catchUp();
        expect(await ok('/v1/live')).to.deep.equal({ IsLive: true, AuctionId: 2, CurrentLotId: 413 });
        expect(await ok('/v1/auctions/2/live')).to.deep.equal({ IsLive: true, CurrentLotId: 413, StartsAt: startsAt });
        expect(
          (await rawGet('/v1/live', { 'If-None-Match': String(before.headers.etag) })).status,
          'a stale ETag is not revalidated',
        ).to.equal(200);

        // The sale stops: nothing is live.
        await importRecord(log, {
          kind: 'live',
          tenant: 'demo',
          auctionId: 2,
          isLive: false,
          currentLotId: null,
          at: new Date().toISOString(),
        });
        await server.runtime.services.projector.catchUp();
        expect(await ok('/v1/live')).to.deep.equal({ IsLive: false, AuctionId: null, CurrentLotId: null });
        const stopped = await ok('/v1/auctions/2/live');
        expect(stopped).to.include({ IsLive: false, CurrentLotId: null });
        expect((await ok('/v1/auctions/2')).IsLive).to.equal(false);

        // A live sale announced for an upcoming auction.
        const announced = new Date(Date.now() + 8 * 86400_000).toISOString();
        await importRecord(log, {
          kind: 'live',
          tenant: 'demo',
          auctionId: 3,
          isLive: false,
          currentLotId: null,
          at: new Date().toISOString(),
          startsAt: announced,
        });
        await server.runtime.services.projector.catchUp();
        const three = await ok('/v1/auctions/3/live');
        expect(three).to.include({ IsLive: false, CurrentLotId: null });
        expect(Date.parse(three.StartsAt)).to.equal(Date.parse(announced));
        expect(three.StartsAt).to.match(RFC3339_UTC);

        // Another auction goes live.
        await importRecord(log, {
          kind: 'live',
          tenant: 'demo',
          auctionId: 1,
          isLive: true,
          currentLotId: 7,
          at: new Date().toISOString(),
        });
        await server.runtime.services.projector.catchUp();
        expect(await ok('/v1/live')).to.deep.equal({ IsLive: true, AuctionId: 1, CurrentLotId: 7 });
        expect(await ok('/v1/auctions/1/live')).to.include({ IsLive: true, CurrentLotId: 7 });
        // Not in demo2.
        expect((await get2('/v1/live')).body).to.deep.equal({ IsLive: false, AuctionId: null, CurrentLotId: null });
      } finally {
        await importRecord(log, {
          kind: 'live',
          tenant: 'demo',
          auctionId: 1,
          isLive: false,
          currentLotId: null,
          at: new Date().toISOString(),
        });
        await importRecord(log, {
          kind: 'live',
          tenant: 'demo',
          auctionId: 2,
          isLive: true,
          currentLotId: 412,
          at: new Date().toISOString(),
          startsAt,
        });
        await server.runtime.services.projector.catchUp();
      }
      expect(await ok('/v1/live')).to.deep.equal({ IsLive: true, AuctionId: 2, CurrentLotId: 412 });
    });

    it('a new bid is first among the latest bids, first in its lot history, and counted in BidCount and CurrentBid', async () => {
      const lot = await ok('/v1/lots/10');
      const history = await rawGet('/v1/lots/10/bids');
      const amount = (lot.CurrentBid ?? lot.StartingPrice) + 5_000;
      const placedAt = new Date().toISOString();
      await importRecord(server.runtime.services.log, {
        kind: 'bid',
        tenant: 'demo',
        lotId: 10,
        bidId: 'catalogue-details-1',
        amount,
        bidType: 'phone',
        placedAt,
      });
      await server.runtime.services.projector.catchUp();

      const after = await ok('/v1/lots/10');
      expect(after).to.include({ BidCount: lot.BidCount + 1, CurrentBid: amount });
      const newHistory = await ok('/v1/lots/10/bids');
      expect(newHistory.Items).to.have.length(lot.BidCount + 1);
      expect(newHistory.Items[0]).to.deep.equal({ Amount: amount, Currency: 'EUR', PlacedAt: placedAt, BidType: 'phone', Pseudonym: null });
      expect((await rawGet('/v1/lots/10/bids', { 'If-None-Match': String(history.headers.etag) })).status).to.equal(200);

      const latest = await ok('/v1/bids/latest?Take=1&LanguageCode=sv');
      expect(latest).to.deep.equal([
        {
          LotId: 10,
          AuctionId: 1,
          LotNumber: 10,
          LotTitle: (await ok('/v1/lots/10?lang=sv')).Title,
          Amount: amount,
          Currency: 'EUR',
          PlacedAt: placedAt,
          BidType: 'phone',
        },
      ]);
      expect((await ok('/v1/bids/latest?BidType=phone')).map((b: any) => b.LotId)).to.deep.equal([10]);
      expect((await ok('/v1/bids/latest?OnlyOpenLots=true&Take=1'))[0]).to.include({ LotId: 10, Amount: amount });
    });

    it('a lot closed early leaves OnlyOpenLots, keeps its number and its bids, and still counts in the categories', async () => {
      const lot = await ok('/v1/lots/11');
      expect(lot.BidCount, 'lot 11 has bids').to.be.greaterThan(0);
      const categoriesBefore = await ok('/v1/auctions/1/categories');
      await importRecord(server.runtime.services.log, {
        kind: 'lotClosed',
        tenant: 'demo',
        lotId: 11,
        closedAt: new Date(Date.now() - 60_000).toISOString(),
      });
      await server.runtime.services.projector.catchUp();

      expect((await ok('/v1/lots/11')).IsClosed).to.equal(true);
      const open = await allLatest('OnlyOpenLots=true');
      expect(open.map((b) => b.LotId)).to.not.include(11);
      expect((await allLatest('')).filter((b) => b.LotId === 11)).to.have.length(lot.BidCount);
      expect((await ok('/v1/lots/11/bids')).Items).to.have.length(lot.BidCount);
      expect(await ok('/v1/auctions/1/lot-numbers'))
        .to.include(11)
        .and.have.length(400);
      expect(await ok('/v1/auctions/1/categories')).to.deep.equal(categoriesBefore);
    });

    it('a new lot with a new attribute value shows in lot numbers, categories, attribute values and links', async () => {
      const endTime = new Date(Date.now() + 9 * 86400_000).toISOString();
      await importRecord(server.runtime.services.log, {
        kind: 'lot',
        tenant: 'demo',
        lotId: 9101,
        auctionId: 1,
        lotNumber: 401,
        categoryId: 12,
        texts: {
          en: { title: 'Jade teapot', description: 'A teapot.' },
          sv: { title: 'Tekanna av jade', description: 'En tekanna.' },
          de: { title: 'Teekanne aus Jade', description: 'Eine Teekanne.' },
        },
        attributes: [
          { name: 'Material', labels: { en: 'Material', sv: 'Material', de: 'Material' }, values: { en: 'Jade', sv: 'Jadé', de: 'Jade' } },
        ],
        images: [],
        hotLot: false,
        vatFree: false,
        currency: 'EUR',
        startingPrice: 1000,
        estimateLow: 2000,
        estimateHigh: 4000,
        endTime,
        combiId: 1,
        ownerId: null,
      });
      await server.runtime.services.projector.catchUp();

      const numbers = await ok('/v1/auctions/1/lot-numbers');
      expect(numbers).to.have.length(401);
      expect(numbers[400]).to.equal(401);
      const silver = (await ok('/v1/auctions/1/categories')).find((n: CategoryNode) => n.Id === 12);
      expect(silver.LotCount).to.equal(await lotCount('AuctionId=1&CategoryId=12&ShowClosedLots=true'));

      const jade = (await ok('/v1/attribute-values?name=Material')).find((v: any) => v.Value === 'Jade');
      expect(jade).to.deep.equal({ Name: 'Material', Label: 'Material', Value: 'Jade', Count: 1 });
      const jadeSv = (await ok('/v1/attribute-values?name=Material&language=sv')).find((v: any) => v.Value === 'Jadé');
      expect(jadeSv).to.include({ Count: 1 });
      expect(await lotCount('ShowClosedLots=true&LanguageCode=sv&MetaDataProperties[Material]=' + encodeURIComponent('Jadé'))).to.equal(1);
      expect(await ok('/v1/lots/9101/attributes?lang=sv')).to.deep.equal([{ Name: 'Material', Label: 'Material', Value: 'Jadé' }]);

      // It joins combination 1: the other three link to it, and it links them.
      const links = await ok('/v1/lots/9101/links');
      expect(links.filter((l: any) => l.Rel === 'combination').map((l: any) => l.Href)).to.have.members([
        '/v1/lots/201',
        '/v1/lots/202',
        '/v1/lots/203',
      ]);
      expect(links.filter((l: any) => l.Rel === 'image')).to.deep.equal([]);
      const of201 = (await ok('/v1/lots/201/links')).filter((l: any) => l.Rel === 'combination').map((l: any) => l.Href);
      expect(of201).to.have.members(['/v1/lots/202', '/v1/lots/203', '/v1/lots/9101']);
      expect(await ok('/v1/lots/9101/bids')).to.deep.equal({ LotId: 9101, Items: [] });
    });

    describe("when the house changes an auction's type", () => {
      before(async () => {
        // The house re-catalogues the closed auction 4 (with bids) and the upcoming auction 5 as type 3.
        for (const auctionId of [4, 5]) {
          const event = (await server.runtime.services.log.readStream(`auction-demo-${auctionId}`))
            .filter((e) => e.type === 'AuctionCatalogued')
            .pop()!;
          await importRecord(server.runtime.services.log, {
            ...(event.data as object),
            kind: 'auction',
            auctionType: 3,
          } as unknown as Parameters<typeof importRecord>[1]);
        }
        await server.runtime.services.projector.catchUp();
        expect((await ok('/v1/auctions/4')).AuctionTypeId).to.equal(3);
        expect((await ok('/v1/auctions/5')).AuctionTypeId).to.equal(3);
      });

      it('latest bids with AuctionType answer the bids on lots of the auctions now of that type', async () => {
        const bidsOfAuction4 = (await allLots('AuctionId=4&ShowClosedLots=true')).reduce((s, l) => s + l.BidCount, 0);
        expect(bidsOfAuction4).to.be.greaterThan(0);
        const typeThree = await allLatest('AuctionType=3');
        expect(typeThree.length, 'the bids of auction 4, now of type 3').to.equal(bidsOfAuction4);
        for (const b of typeThree) expect(b.AuctionId).to.equal(4);
        expect(
          (await allLatest('AuctionType=1')).some((b) => b.AuctionId === 4),
          'auction 4 is no longer of type 1',
        ).to.equal(false);
      });

      it('attribute values with type count the lots of the auctions now of that type', async () => {
        const conditions = await ok('/v1/attribute-values?type=3&name=Condition');
        expect(
          conditions.reduce((s: number, v: any) => s + v.Count, 0),
          'the lots of auctions 4 and 5',
        ).to.equal(250 + 120);
        // Type 1 is now auctions 1 and 3 only: each value counts what /v1/lots selects with AuctionTypeId=1.
        const one = await ok('/v1/attribute-values?type=1&name=Condition');
        expect(one).to.have.length.greaterThan(0);
        for (const v of one)
          expect(v.Count, v.Value).to.equal(
            await lotCount(`ShowClosedLots=true&AuctionTypeId=1&MetaDataProperties[Condition]=${encodeURIComponent(v.Value)}`),
          );
        const demoLotsWithCondition = 400 + 250 + 60;
        expect(
          one.reduce((s: number, v: any) => s + v.Count, 0),
          'the demo lots of auctions 1, 3 and 10',
        ).to.equal(demoLotsWithCondition);
      });
    });

    it('links every other lot of a combination, however many there are', async () => {
      const endTime = new Date(Date.now() + 20 * 86400_000).toISOString();
      const ids = Array.from({ length: 105 }, (_, i) => 9201 + i);
      for (const [i, lotId] of ids.entries()) {
        await importRecord(server.runtime.services.log, {
          kind: 'lot',
          tenant: 'demo',
          lotId,
          auctionId: 3,
          lotNumber: 1001 + i,
          categoryId: 13,
          texts: { en: { title: `Print ${i + 1} of a set`, description: 'One of a set.' } },
          attributes: [],
          images: [],
          hotLot: false,
          vatFree: false,
          currency: 'EUR',
          startingPrice: 1000,
          estimateLow: 2000,
          estimateHigh: 4000,
          endTime,
          combiId: 2,
          ownerId: null,
        });
      }
      await server.runtime.services.projector.catchUp();
      expect(await lotCount('CombiId=2')).to.equal(105);
      for (const lotId of [9201, 9305]) {
        const combination = (await ok(`/v1/lots/${lotId}/links`)).filter((l: any) => l.Rel === 'combination').map((l: any) => l.Href);
        expect(combination, `lot ${lotId}`).to.have.length(104);
        expect(combination).to.have.members(ids.filter((id) => id !== lotId).map((id) => `/v1/lots/${id}`));
      }
    });
  });
});
