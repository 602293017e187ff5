import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { importRecord } from '../../app/features/intake.ts';

/**
 * Operation 17: GET /v1/lots/search — `q`, `AuctionId`, `CategoryId`, `ShowClosedLots`, `page`, `pageSize`,
 * `LanguageCode`; the paged envelope ranked by relevance, plus `Facets` counted over all matches.
 *
 * The same rules hold in every published language, so the language-dependent specifications run once per
 * language of the demo tenant, each with words of that language.
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

const LANGUAGES = [
  // word: an object word (in title and description); typo/prefix of it; material: a second word of some of those titles.
  { code: 'en', word: 'chair', typo: 'chiar', prefix: 'chai', material: 'oak', categoryId: 2, parentCategoryId: 1, foreign: 'Stuhl' },
  { code: 'sv', word: 'spegel', typo: 'spegle', prefix: 'speg', material: 'mahogny', categoryId: 4, parentCategoryId: 1, foreign: 'chair' },
  { code: 'de', word: 'Stuhl', typo: 'Sthul', prefix: 'Stuh', material: 'Eiche', categoryId: 2, parentCategoryId: 1, foreign: 'chair' },
];

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const sum = (facets: Array<{ Value: number; Count: number }>) => facets.reduce((s, f) => s + f.Count, 0);

// Both embedded engines (EMBEDDED_SEARCH) answer the contract alike, MiniSearch in its thread as `npm start` runs it.
for (const [engine, thread] of [
  ['minisearch', 'true'],
  ['fts5', 'false'],
] as const)
  describe(`GET /v1/lots/search (EMBEDDED_SEARCH=${engine}${thread === 'true' ? ', in a thread' : ''})`, () => {
    let server: TestServer;
    let token: string;
    const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token, headers });
    const search = (query: string, headers: Record<string, string> = {}) => get(`/v1/lots/search?${query}`, headers);
    const q = encodeURIComponent;

    before(async () => {
      server = await startTestServer({ env: { EMBEDDED_SEARCH: engine, SEARCH_THREAD: thread } });
      token = await server.anonymousToken('demo');
      // Given two more lots of auction 1 with a word found nowhere else: in the title of one (9002), only in
      // the description of the other (9001). Every language carries the same word.
      const endTime = new Date(server.seededAt.getTime() + 10 * 86400_000).toISOString();
      const lot = (lotId: number, lotNumber: number, texts: Record<string, { title: string; description: string }>) => ({
        kind: 'lot' as const,
        tenant: 'demo',
        lotId,
        auctionId: 1,
        lotNumber,
        categoryId: 4,
        texts,
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
      await importRecord(
        server.runtime.services.log,
        lot(9001, 901, {
          en: { title: 'Tea caddy', description: 'Veneered in zebrawood, London.' },
          sv: { title: 'Teburk', description: 'Fanerad med zebrawood, London.' },
          de: { title: 'Teedose', description: 'Furniert mit zebrawood, London.' },
        }),
      );
      await importRecord(
        server.runtime.services.log,
        lot(9002, 902, {
          en: { title: 'Zebrawood tea caddy', description: 'Veneered, London.' },
          sv: { title: 'Zebrawood teburk', description: 'Fanerad, London.' },
          de: { title: 'Zebrawood Teedose', description: 'Furniert, London.' },
        }),
      );
      // And a third lot with its own word, whose bidding then ended early (LotClosed).
      await importRecord(
        server.runtime.services.log,
        lot(9003, 903, {
          en: { title: 'Quagga print', description: 'Engraving, London.' },
          sv: { title: 'Quagga grafiskt blad', description: 'Gravyr, London.' },
          de: { title: 'Quagga Druckgrafik', description: 'Kupferstich, London.' },
        }),
      );
      await importRecord(server.runtime.services.log, {
        kind: 'lotClosed',
        tenant: 'demo',
        lotId: 9003,
        closedAt: new Date(Date.now() - 60_000).toISOString(),
      });
      // And a fourth, closed early, whose catalogue record then came again (changed, without its Swedish text).
      const okapi = {
        en: { title: 'Okapi print', description: 'Engraving, London.' },
        sv: { title: 'Okapi grafiskt blad', description: 'Gravyr, London.' },
        de: { title: 'Okapi Druckgrafik', description: 'Kupferstich, London.' },
      };
      await importRecord(server.runtime.services.log, lot(9004, 904, okapi));
      await importRecord(server.runtime.services.log, {
        kind: 'lotClosed',
        tenant: 'demo',
        lotId: 9004,
        closedAt: new Date(Date.now() - 60_000).toISOString(),
      });
      await importRecord(
        server.runtime.services.log,
        lot(9004, 904, { en: { ...okapi.en, description: 'Engraving, Paris.' }, de: okapi.de }),
      );
      await server.runtime.services.projector.catchUp();
    });
    after(async () => server?.close());

    it('leaves out, in every language, a lot whose bidding ended early, unless ShowClosedLots=true', async () => {
      for (const code of ['en', 'sv', 'de']) {
        const open = await search(`q=quagga&LanguageCode=${code}`);
        expect(open.status).to.equal(200);
        expect(open.body.TotalCount, code).to.equal(0);
        const withClosed = await search(`q=quagga&LanguageCode=${code}&ShowClosedLots=true`);
        expect(
          withClosed.body.Items.map((l: any) => [l.Id, l.IsClosed]),
          code,
        ).to.deep.equal([[9003, true]]);
      }
    });

    it('still leaves out a lot closed early whose catalogue record came again, and finds it only in the languages of that record', async () => {
      for (const code of ['en', 'de']) {
        expect((await search(`q=okapi&LanguageCode=${code}`)).body.TotalCount, code).to.equal(0);
        const withClosed = await search(`q=okapi&LanguageCode=${code}&ShowClosedLots=true`);
        expect(
          withClosed.body.Items.map((l: any) => [l.Id, l.IsClosed]),
          code,
        ).to.deep.equal([[9004, true]]);
      }
      expect((await search('q=okapi&LanguageCode=sv&ShowClosedLots=true')).body.TotalCount).to.equal(0);
    });

    describe('input', () => {
      it('without q is a 400 naming q', async () => {
        const problem = expectProblem(await get('/v1/lots/search'), 400);
        expect(problem.errors.map((e: any) => e.field)).to.include('query.q');
      });

      it('an empty or blank q is a 400 naming q', async () => {
        for (const blank of ['', '%20%20', '%09']) {
          const problem = expectProblem(await search(`q=${blank}`), 400);
          expect(problem.errors.map((e: any) => e.field)).to.include('query.q');
        }
      });

      it('a q longer than 200 characters is a 400', async () => {
        expectProblem(await search(`q=${'a'.repeat(201)}`), 400);
      });

      it('q given twice is a 400', async () => {
        expectProblem(await search('q=chair&Q=table'), 400);
      });

      it('bad paging and filter values are a 400 naming the parameter, never a 500', async () => {
        for (const [query, field] of [
          ['q=chair&page=0', 'query.page'],
          ['q=chair&pageSize=101', 'query.pageSize'],
          ['q=chair&pageSize=0', 'query.pageSize'],
          ['q=chair&page=abc', 'query.page'],
          ['q=chair&AuctionId=abc', 'query.AuctionId'],
          ['q=chair&AuctionId=99999999999', 'query.AuctionId'],
          ['q=chair&CategoryId=0', 'query.CategoryId'],
          ['q=chair&ShowClosedLots=maybe', 'query.ShowClosedLots'],
        ]) {
          const problem = expectProblem(await search(query), 400);
          expect(
            problem.errors.map((e: any) => e.field),
            query,
          ).to.include(field);
        }
      });

      it('a q of punctuation only answers an empty result, not an error', async () => {
        const r = await search(`q=${q(',;!?')}`);
        expect(r.status).to.equal(200);
        expect(r.body).to.include({ TotalCount: 0, TotalPages: 0 });
        expect(r.body.Items).to.deep.equal([]);
        expect(r.body.Facets).to.deep.equal({ CategoryId: [], AuctionId: [] });
      });

      it('parameter names are case-insensitive', async () => {
        const a = await search('q=zebrawood&LanguageCode=de&pageSize=1');
        const b = await search('Q=zebrawood&languagecode=de&PAGESIZE=1');
        expect(b.status).to.equal(200);
        expect(b.body).to.deep.equal(a.body);
      });

      it('an unknown LanguageCode falls back to the tenant default language', async () => {
        const r = await search('q=chair&LanguageCode=fr');
        expect(r.status).to.equal(200);
        expect(r.headers.get('content-language')).to.equal('en');
      });
    });

    for (const L of LANGUAGES) {
      describe(`in ${L.code}`, () => {
        const inLanguage = (query: string, headers: Record<string, string> = {}) => search(`${query}&LanguageCode=${L.code}`, headers);
        /** The lots whose texts in this language contain the words (GET /v1/lots SearchTerms), as a count. */
        const listed = async (words: string, extra = '') =>
          (await get(`/v1/lots?SearchTerms=${q(words)}&LanguageCode=${L.code}&pageSize=1${extra}`)).body.TotalCount as number;

        it(`finds the lots whose ${L.code} texts carry the word, as the paged envelope plus Facets`, async () => {
          const r = await inLanguage(`q=${q(L.word)}`);
          expect(r.status).to.equal(200);
          expect(r.headers.get('content-language')).to.equal(L.code);
          expect(r.body).to.have.all.keys('Items', 'TotalCount', 'Page', 'PageSize', 'TotalPages', 'Facets');
          expect(r.body.Facets).to.have.all.keys('CategoryId', 'AuctionId');
          expect(r.body).to.include({ Page: 1, PageSize: 20 });
          expect(r.body.TotalCount).to.be.greaterThan(20);
          expect(r.body.TotalCount).to.equal(await listed(L.word));
          expect(r.body.TotalPages).to.equal(Math.ceil(r.body.TotalCount / 20));
          expect(r.body.Items).to.have.length(20);
          for (const lot of r.body.Items) {
            expect(lot).to.include.all.keys(LOT_FIELDS);
            expect(fold(lot.Title), `lot ${lot.Id}`).to.include(fold(L.word));
            expect(lot.IsClosed).to.equal(false);
          }
        });

        it('answers each lot as GET /v1/lots/{id} does in that language', async () => {
          const r = await inLanguage(`q=${q(L.word)}&pageSize=3`);
          for (const lot of r.body.Items) {
            const one = await get(`/v1/lots/${lot.Id}?lang=${L.code}`);
            expect(lot).to.deep.equal(one.body);
          }
        });

        it('Accept-Language selects the language as LanguageCode does, and LanguageCode wins over it', async () => {
          const byParam = await inLanguage(`q=${q(L.word)}&pageSize=5`);
          const byHeader = await search(`q=${q(L.word)}&pageSize=5`, { 'Accept-Language': `${L.code};q=0.9, xx;q=1` });
          expect(byHeader.headers.get('content-language')).to.equal(L.code);
          expect(byHeader.body).to.deep.equal(byParam.body);
          const other = L.code === 'de' ? 'sv' : 'de';
          const overridden = await inLanguage(`q=${q(L.word)}&pageSize=5`, { 'Accept-Language': other });
          expect(overridden.body).to.deep.equal(byParam.body);
        });

        it('a word of another language finds nothing', async () => {
          const r = await inLanguage(`q=${q(L.foreign)}`);
          expect(r.status).to.equal(200);
          expect(r.body.TotalCount).to.equal(0);
          expect(r.body.Items).to.deep.equal([]);
        });

        it(`tolerates a typo: "${L.typo}" finds the ${L.word} lots`, async () => {
          const exact = await inLanguage(`q=${q(L.word)}&pageSize=100`);
          const typo = await inLanguage(`q=${q(L.typo)}&pageSize=100`);
          expect(typo.status).to.equal(200);
          expect(typo.body.TotalCount).to.equal(exact.body.TotalCount);
          for (const lot of typo.body.Items) expect(fold(lot.Title)).to.include(fold(L.word));
        });

        it(`matches a prefix: "${L.prefix}" finds the ${L.word} lots`, async () => {
          const exact = await inLanguage(`q=${q(L.word)}&pageSize=1`);
          const prefix = await inLanguage(`q=${q(L.prefix)}&pageSize=100`);
          expect(prefix.body.TotalCount).to.equal(exact.body.TotalCount);
          for (const lot of prefix.body.Items) expect(fold(lot.Title)).to.include(fold(L.word));
        });

        it('every word of q must match', async () => {
          const both = `${L.word} ${L.material}`;
          const r = await inLanguage(`q=${q(both)}&pageSize=100`);
          expect(r.body.TotalCount).to.be.greaterThan(0);
          expect(r.body.TotalCount).to.equal(await listed(both));
          for (const lot of r.body.Items) {
            expect(fold(lot.Title)).to.include(fold(L.word));
            expect(fold(lot.Title)).to.include(fold(L.material));
          }
          const one = await inLanguage(`q=${q(L.word)}&pageSize=1`);
          expect(r.body.TotalCount).to.be.lessThan(one.body.TotalCount);
        });

        it('ranks a lot with the word in its title before a lot with the word only in its description', async () => {
          const r = await inLanguage('q=zebrawood');
          expect(r.status).to.equal(200);
          expect(r.body.TotalCount).to.equal(2);
          expect(r.body.Items.map((l: any) => l.Id)).to.deep.equal([9002, 9001]);
        });

        it('AuctionId narrows to one auction, with the count its facet gave', async () => {
          const everything = await inLanguage(`q=${q(L.word)}&pageSize=1`);
          const facet = everything.body.Facets.AuctionId.find((f: any) => f.Value === 1);
          expect(facet, 'auction 1 has matches').to.not.equal(undefined);
          const r = await inLanguage(`q=${q(L.word)}&AuctionId=1&pageSize=100`);
          expect(r.body.TotalCount).to.equal(facet.Count);
          for (const lot of r.body.Items) expect(lot.AuctionId).to.equal(1);
          expect(r.body.Facets.AuctionId).to.deep.equal([{ Value: 1, Count: facet.Count }]);
        });

        it('CategoryId narrows to a category, and a parent category includes its sub-categories', async () => {
          const leaf = await inLanguage(`q=${q(L.word)}&CategoryId=${L.categoryId}&pageSize=100`);
          expect(leaf.body.TotalCount).to.be.greaterThan(0);
          for (const lot of leaf.body.Items) expect(lot.CategoryId).to.equal(L.categoryId);
          const parent = await inLanguage(`q=${q(L.word)}&CategoryId=${L.parentCategoryId}&pageSize=1`);
          expect(parent.body.TotalCount).to.equal(leaf.body.TotalCount);
          const elsewhere = await inLanguage(`q=${q(L.word)}&CategoryId=13`);
          expect(elsewhere.body.TotalCount).to.equal(0);
        });

        it('leaves closed lots out unless ShowClosedLots=true', async () => {
          const open = await inLanguage(`q=${q(L.word)}&pageSize=100`);
          expect(open.body.TotalCount).to.equal(await listed(L.word));
          for (const lot of open.body.Items) expect(lot.IsClosed).to.equal(false);
          expect(open.body.Facets.AuctionId.map((f: any) => f.Value)).to.not.include(4);
          const withClosed = await inLanguage(`q=${q(L.word)}&ShowClosedLots=true&pageSize=100`);
          expect(withClosed.body.TotalCount).to.equal(await listed(L.word, '&ShowClosedLots=true'));
          expect(withClosed.body.TotalCount).to.be.greaterThan(open.body.TotalCount);
          const closed = withClosed.body.Items.filter((l: any) => l.IsClosed);
          expect(closed.length).to.equal(withClosed.body.TotalCount - open.body.TotalCount);
          for (const lot of closed) expect(lot.AuctionId).to.equal(4);
          expect(withClosed.body.Facets.AuctionId.map((f: any) => f.Value)).to.include(4);
        });

        it('Facets count every match, not only the page', async () => {
          const r = await inLanguage(`q=${q(L.word)}&pageSize=1`);
          expect(r.body.Items).to.have.length(1);
          expect(sum(r.body.Facets.AuctionId)).to.equal(r.body.TotalCount);
          expect(sum(r.body.Facets.CategoryId)).to.equal(r.body.TotalCount);
          for (const f of r.body.Facets.AuctionId) {
            expect(Number.isInteger(f.Value) && Number.isInteger(f.Count)).to.equal(true);
            expect(f.Count, `auction ${f.Value}`).to.equal(await listed(L.word, `&AuctionId=${f.Value}`));
          }
          const page2 = await inLanguage(`q=${q(L.word)}&pageSize=1&page=2`);
          expect(page2.body.Facets).to.deep.equal(r.body.Facets);
        });

        it('pages through the ranked matches without repeating or skipping, and a page past the end is empty', async () => {
          const ten = await inLanguage(`q=${q(L.word)}&pageSize=10`);
          const first = await inLanguage(`q=${q(L.word)}&pageSize=5&page=1`);
          const second = await inLanguage(`q=${q(L.word)}&pageSize=5&page=2`);
          expect([...first.body.Items, ...second.body.Items].map((l: any) => l.Id)).to.deep.equal(ten.body.Items.map((l: any) => l.Id));
          expect(second.body.Page).to.equal(2);
          const all: number[] = [];
          for (let page = 1; page <= ten.body.TotalPages; page++)
            all.push(...(await inLanguage(`q=${q(L.word)}&pageSize=10&page=${page}`)).body.Items.map((l: any) => l.Id));
          expect(all).to.have.length(ten.body.TotalCount);
          expect(new Set(all).size).to.equal(ten.body.TotalCount);
          const past = await inLanguage(`q=${q(L.word)}&pageSize=10&page=${ten.body.TotalPages + 1}`);
          expect(past.status).to.equal(200);
          expect(past.body.Items).to.deep.equal([]);
          expect(past.body.TotalCount).to.equal(ten.body.TotalCount);
        });
      });
    }
  });
