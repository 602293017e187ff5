import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer, type TestResponse } from '../support/server.ts';
import { keysOf } from '../support/json.ts';
import { importRecord } from '../../app/features/intake.ts';

/**
 * API.md "Conventions" and "Errors" as they apply to the catalogue operations 4, 5, 14, 15, 16, 17, 18:
 * the paged envelope, page sizes, int32 ids, case-insensitive parameter names, parameters given twice,
 * language negotiation, Content-Language, ETag / If-None-Match, no member data, problem+json.
 */

const PAGED = ['/v1/auctions', '/v1/lots', '/v1/lots/search?q=chair'];
const CATALOGUE_READS = [
  '/v1/auctions',
  '/v1/auctions/1',
  '/v1/categories',
  '/v1/categories/1',
  '/v1/lots',
  '/v1/lots/1',
  '/v1/lots/search?q=chair',
];
const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

function expectValidationProblem(response: TestResponse, fieldPattern: RegExp) {
  const problem = expectProblem(response, 400);
  expect(problem.type).to.be.a('string').and.not.equal('');
  expect(problem.title).to.be.a('string').and.not.equal('');
  expect(problem.detail).to.be.a('string').and.not.equal('');
  expect(problem.errors, 'a validation problem lists the bad fields').to.be.an('array').that.is.not.empty;
  for (const e of problem.errors) {
    expect(e.field).to.be.a('string');
    expect(e.message).to.be.a('string');
  }
  expect(problem.errors.map((e: any) => e.field).join(' ')).to.match(fieldPattern);
  return problem;
}

describe('catalogue conventions', () => {
  let server: TestServer;
  let token: string;
  const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token, headers });

  /** A GET as a plain HTTP client (no fetch): fetch adds `Cache-Control: no-cache` to conditional requests. */
  const rawGet = (path: string, headers: Record<string, string> = {}) => server.rawGet(path, { token, headers });

  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken('demo');
    // Given demo2 is configured with a page size of 7 (before anything reads it).
    await importRecord(server.runtime.services.log, {
      kind: 'tenant',
      tenant: 'demo2',
      name: 'Second Demo House',
      languages: ['en'],
      defaultLanguage: 'en',
      currency: 'SEK',
      pageSize: 7,
      publicAccess: true,
      contactEmail: 'contact@demo2.example.com',
    });
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  describe('paged envelope', () => {
    for (const path of PAGED) {
      it(`${path} answers { Items, TotalCount, Page, PageSize, TotalPages } with integers that agree`, async () => {
        const r = await get(withQuery(path, 'pageSize=3&page=2'));
        expect(r.status).to.equal(200);
        expect(r.body).to.include.all.keys('Items', 'TotalCount', 'Page', 'PageSize', 'TotalPages');
        expect(r.body.Items).to.be.an('array');
        for (const f of ['TotalCount', 'Page', 'PageSize', 'TotalPages']) expect(Number.isInteger(r.body[f]), f).to.equal(true);
        expect(r.body.Page).to.equal(2);
        expect(r.body.PageSize).to.equal(3);
        expect(r.body.TotalPages).to.equal(Math.ceil(r.body.TotalCount / 3));
        expect(r.body.Items.length).to.equal(Math.max(0, Math.min(3, r.body.TotalCount - 3)));
      });

      it(`${path} defaults to page 1 and the tenant's page size (20 for demo)`, async () => {
        const r = await get(path);
        expect(r.body.Page).to.equal(1);
        expect(r.body.PageSize).to.equal(20);
        expect(r.body.Items.length).to.equal(Math.min(20, r.body.TotalCount));
      });

      it(`${path} takes up to 100 items a page and refuses 101`, async () => {
        const r = await get(withQuery(path, 'pageSize=100'));
        expect(r.status).to.equal(200);
        expect(r.body.PageSize).to.equal(100);
        expect(r.body.Items.length).to.equal(Math.min(100, r.body.TotalCount));
        expectValidationProblem(await get(withQuery(path, 'pageSize=101')), /pageSize/i);
      });

      it(`${path} refuses a page or page size out of range with a 400 naming it`, async () => {
        for (const [query, field] of [
          ['page=0', /page/i],
          ['page=-1', /page/i],
          ['page=abc', /page/i],
          ['page=1.5', /page/i],
          ['page=2147483648', /page/i],
          ['pageSize=0', /pageSize/i],
          ['pageSize=-5', /pageSize/i],
          ['pageSize=ten', /pageSize/i],
        ] as const) {
          expectValidationProblem(await get(withQuery(path, query)), field);
        }
      });

      it(`${path} answers a page past the end with 200 and empty Items`, async () => {
        const first = await get(withQuery(path, 'pageSize=10'));
        const past = await get(withQuery(path, `pageSize=10&page=${first.body.TotalPages + 1}`));
        expect(past.status).to.equal(200);
        expect(past.body.Items).to.deep.equal([]);
        expect(past.body.TotalCount).to.equal(first.body.TotalCount);
        const far = await get(withQuery(path, 'pageSize=100&page=2147483647'));
        expect(far.status).to.equal(200);
        expect(far.body.Items).to.deep.equal([]);
      });
    }

    it("the default page size is the tenant's configured one (demo2: 7)", async () => {
      const demo2 = await server.anonymousToken('demo2');
      const lots = await server.request('GET', '/v1/lots', { token: demo2 });
      expect(lots.body.PageSize).to.equal(7);
      expect(lots.body.Items).to.have.length(7);
      const search = await server.request('GET', '/v1/lots/search?q=oak', { token: demo2 });
      expect(search.body.PageSize).to.equal(7);
      const auctions = await server.request('GET', '/v1/auctions', { token: demo2 });
      expect(auctions.body.PageSize).to.equal(7);
      const explicit = await server.request('GET', '/v1/lots?pageSize=100', { token: demo2 });
      expect(explicit.body.PageSize).to.equal(100);
    });
  });

  describe('ids', () => {
    for (const base of ['/v1/lots', '/v1/auctions', '/v1/categories']) {
      it(`${base}/{id} that is not a positive int32 is a 400 naming path.id, never a 500`, async () => {
        for (const id of ['abc', '99999999999', '0', '-1', '2147483648', '1.0', '%20', 'null']) {
          const problem = expectValidationProblem(await get(`${base}/${id}`), /path\.id/);
          expect(problem.status).to.equal(400);
        }
      });

      it(`${base}/{id} at the int32 maximum that does not exist is a 404`, async () => {
        expectProblem(await get(`${base}/2147483647`), 404);
      });
    }

    it('query ids that are not int32 are a 400, never a 500', async () => {
      for (const path of [
        '/v1/lots?AuctionId=99999999999',
        '/v1/lots?CategoryId=abc',
        '/v1/lots/search?q=chair&AuctionId=2147483648',
        '/v1/lots?CombiId=1.5',
      ]) {
        expectValidationProblem(await get(path), /AuctionId|CategoryId|CombiId/);
      }
    });

    it('a path id that is not valid percent-encoding is a 400, never a 500', async () => {
      for (const path of ['/v1/lots/%zz', '/v1/auctions/%E0%A4%A', '/v1/categories/%']) {
        const r = await get(path);
        expect(r.status, `${path}: ${r.text}`).to.equal(400);
        expectProblem(r, 400);
      }
    });
  });

  describe('query parameter names', () => {
    it('are matched case-insensitively: page, Page and PAGE are one parameter', async () => {
      const answers = [];
      for (const name of ['page', 'Page', 'PAGE', 'pAgE']) {
        const r = await get(`/v1/lots?${name}=2&pagesize=5`);
        expect(r.status).to.equal(200);
        expect(r.body.Page, name).to.equal(2);
        expect(r.body.PageSize, name).to.equal(5);
        answers.push(r.body.Items.map((l: any) => l.Id));
      }
      for (const a of answers) expect(a).to.deep.equal(answers[0]);
      const auctions = await get('/v1/auctions?STATUS=closed&PageSize=1');
      expect(auctions.body.Items.map((a: any) => a.Id)).to.deep.equal([4]);
      expect(auctions.body.PageSize).to.equal(1);
      const categories = await get('/v1/categories?SHOWALL=true');
      expect(JSON.stringify(categories.body)).to.include('"Id":14');
    });

    it('a parameter given twice, in any case, is a 400', async () => {
      for (const path of [
        '/v1/lots?page=1&page=2',
        '/v1/lots?page=1&Page=1',
        '/v1/lots?PAGESIZE=5&pageSize=5',
        '/v1/auctions?status=current&STATUS=current',
        '/v1/auctions?page=1&Page=2',
        '/v1/categories?showAll=true&ShowAll=true',
        '/v1/lots/search?q=chair&page=1&PAGE=2',
      ]) {
        const problem = expectProblem(await get(path), 400);
        expect(problem.errors, path).to.be.an('array').that.is.not.empty;
      }
    });

    it('unknown parameters are ignored', async () => {
      const a = await get('/v1/lots?pageSize=3');
      const b = await get('/v1/lots?pageSize=3&utm_source=mail&foo=bar');
      expect(b.status).to.equal(200);
      expect(b.body).to.deep.equal(a.body);
    });
  });

  describe('language', () => {
    const lotTitle = async (path: string, headers: Record<string, string> = {}) => {
      const r = await get(path, headers);
      expect(r.status).to.equal(200);
      return { language: r.headers.get('content-language'), title: r.body.Title as string };
    };
    let titles: Record<string, string>;
    before(async () => {
      titles = {};
      for (const lang of ['en', 'sv', 'de']) titles[lang] = (await lotTitle(`/v1/lots/1?lang=${lang}`)).title;
      expect(new Set(Object.values(titles)).size, 'lot 1 has three different titles').to.equal(3);
    });

    it('Accept-Language with q-values picks the published language of highest weight', async () => {
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': 'de;q=0.9, sv;q=1' })).to.deep.equal({ language: 'sv', title: titles.sv });
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': 'sv;q=0.5, de' })).to.deep.equal({ language: 'de', title: titles.de });
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': 'fr;q=1, de;q=0.2, sv;q=0.1' })).to.deep.equal({
        language: 'de',
        title: titles.de,
      });
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': 'sv;q=0, de;q=0.5' })).to.deep.equal({ language: 'de', title: titles.de });
    });

    it('a regional tag falls back to its language (sv-SE is sv)', async () => {
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': 'sv-SE' })).to.deep.equal({ language: 'sv', title: titles.sv });
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': 'de-AT, en;q=0.5' })).to.deep.equal({ language: 'de', title: titles.de });
    });

    it("an unknown or missing language gets the tenant's default (en)", async () => {
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': 'fr' })).to.deep.equal({ language: 'en', title: titles.en });
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': '*' })).to.deep.equal({ language: 'en', title: titles.en });
      expect(await lotTitle('/v1/lots/1', { 'Accept-Language': ';;;,,q=' })).to.deep.equal({ language: 'en', title: titles.en });
      expect(await lotTitle('/v1/lots/1')).to.deep.equal({ language: 'en', title: titles.en });
      expect(await lotTitle('/v1/lots/1?lang=xx')).to.deep.equal({ language: 'en', title: titles.en });
    });

    it('LanguageCode (/v1/lots, /v1/lots/search) overrides Accept-Language', async () => {
      const list = await get('/v1/lots?pageSize=1&LanguageCode=de', { 'Accept-Language': 'sv' });
      expect(list.headers.get('content-language')).to.equal('de');
      expect(list.body.Items[0].Title).to.equal(titles.de);
      const search = await get('/v1/lots/search?q=Stuhl&LanguageCode=de&pageSize=1', { 'Accept-Language': 'sv' });
      expect(search.headers.get('content-language')).to.equal('de');
      expect(search.body.TotalCount).to.be.greaterThan(0);
    });

    it('lang overrides Accept-Language on every catalogue read', async () => {
      expect(await lotTitle('/v1/lots/1?lang=de', { 'Accept-Language': 'sv' })).to.deep.equal({ language: 'de', title: titles.de });
      for (const path of CATALOGUE_READS) {
        const r = await get(withQuery(path, 'lang=sv'), { 'Accept-Language': 'de' });
        expect(r.headers.get('content-language'), path).to.equal('sv');
      }
    });

    it('an override in a language the tenant does not publish falls back to Accept-Language', async () => {
      expect(await lotTitle('/v1/lots/1?lang=fr', { 'Accept-Language': 'sv' })).to.deep.equal({ language: 'sv', title: titles.sv });
    });

    it('every catalogue answer carries Content-Language', async () => {
      for (const path of CATALOGUE_READS) {
        for (const lang of ['en', 'sv', 'de']) {
          const r = await get(path, { 'Accept-Language': lang });
          expect(r.status, path).to.equal(200);
          expect(r.headers.get('content-language'), `${path} in ${lang}`).to.equal(lang);
        }
      }
    });
  });

  describe('caching', () => {
    it('every catalogue read carries an ETag', async () => {
      for (const path of CATALOGUE_READS) {
        const r = await get(path);
        expect(r.headers.get('etag'), path)
          .to.be.a('string')
          .and.match(/^(W\/)?"[^"]+"$/);
      }
    });

    it('a matching If-None-Match is answered 304 without a body', async () => {
      for (const path of CATALOGUE_READS) {
        const first = await rawGet(path);
        expect(first.status, path).to.equal(200);
        const again = await rawGet(path, { 'If-None-Match': String(first.headers.etag) });
        expect(again.status, path).to.equal(304);
        expect(again.body, path).to.equal('');
        expect(again.headers.etag, path).to.equal(first.headers.etag);
      }
    });

    it('a non-matching If-None-Match is answered 200 with the body', async () => {
      const r = await rawGet('/v1/lots/1', { 'If-None-Match': 'W/"not-the-etag"' });
      expect(r.status).to.equal(200);
      expect(JSON.parse(r.body).Id).to.equal(1);
    });

    it('the ETag differs between languages, so a cached English copy is not revalidated for Swedish', async () => {
      const en = await rawGet('/v1/lots/1', { 'Accept-Language': 'en' });
      const sv = await rawGet('/v1/lots/1', { 'Accept-Language': 'sv', 'If-None-Match': String(en.headers.etag) });
      expect(sv.status).to.equal(200);
      expect(sv.headers.etag).to.not.equal(en.headers.etag);
      expect(String(sv.headers.vary)).to.match(/Accept-Language/i);
    });

    // fetch() adds Cache-Control: no-cache to a request with If-None-Match; RFC 9110 §13.1.2 has the origin
    // evaluate If-None-Match regardless, so such clients get 304 too.
    it('a fetch client (which adds Cache-Control: no-cache) also gets 304 for a matching If-None-Match', async () => {
      const first = await get('/v1/lots/1');
      const again = await get('/v1/lots/1', { 'If-None-Match': first.headers.get('etag')! });
      expect(again.status).to.equal(304);
    });
  });

  describe('no member data', () => {
    it('catalogue answers to a member carry no member fields and no member email', async () => {
      const member = await server.memberToken('demo');
      for (const path of [
        ...CATALOGUE_READS,
        '/v1/lots?OwnerId=1&ShowClosedLots=true&pageSize=100',
        '/v1/lots?ShowClosedLots=true&pageSize=100',
      ]) {
        const r = await server.request('GET', path, { token: member });
        expect(r.status, path).to.equal(200);
        const keys = [...keysOf(r.body)];
        expect(
          keys.filter((k) => /owner|email|member|password|phone|bidder|consign/i.test(k)),
          path,
        ).to.deep.equal([]);
        expect(r.text, path).to.not.include(server.credentials.memberEmail);
      }
    });
  });

  describe('errors', () => {
    it('a validation error is problem+json with type, title, status, detail and errors naming each bad field', async () => {
      const r = await get('/v1/lots?page=0&pageSize=500&Sort=Nope');
      expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const problem = expectValidationProblem(r, /Page/);
      const fields = problem.errors.map((e: any) => e.field);
      expect(fields).to.include.members(['query.Page', 'query.PageSize', 'query.Sort']);
    });

    it('a missing resource is problem+json 404 with type, title, status and detail', async () => {
      const problem = expectProblem(await get('/v1/lots/99999'), 404);
      expect(problem).to.include({ status: 404 });
      expect(problem.type).to.be.a('string');
      expect(problem.detail).to.be.a('string');
    });

    it('no token, a bad token or no Api-Key is a 401 problem', async () => {
      for (const path of CATALOGUE_READS) {
        expectProblem(await server.request('GET', path), 401);
        expectProblem(await server.request('GET', path, { token: 'not.a.token' }), 401);
        expectProblem(await server.request('GET', path, { token, apiKey: null }), 401);
        expectProblem(await server.request('GET', path, { token, apiKey: 'unknown-key-0123456789' }), 401);
      }
    });

    it('bad inputs to every catalogue operation are a 4xx problem, never a 500', async () => {
      const bad = [
        '/v1/auctions?status=%00',
        '/v1/auctions?page=%F0%9F%98%80',
        '/v1/auctions/1%201',
        '/v1/categories?showAll=',
        '/v1/categories/1;2',
        '/v1/lots?SearchTerms=' + '%25'.repeat(300),
        '/v1/lots?MetaDataProperties[' + 'a'.repeat(100) + ']=x',
        '/v1/lots?MetaDataProperties[Material]=' + 'x'.repeat(201),
        '/v1/lots?StartLotNumber=5&EndLotNumber=4',
        '/v1/lots?LanguageCode=' + 'x'.repeat(50),
        '/v1/lots/search?q=' + 'x'.repeat(500),
        '/v1/lots/search?q[]=x',
      ];
      for (const path of bad) {
        const r = await get(path);
        expect(r.status, `${path}: ${r.text.slice(0, 300)}`).to.be.within(400, 499);
        expectProblem(r, r.status);
      }
    });
  });
});
