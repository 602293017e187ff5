/**
 * Contract of the lot search index port (src/ports/search.ts): every adapter (embedded MiniSearch,
 * Typesense) must pass this suite. `makeIndex` returns a fresh, empty index for each test; the suite
 * creates its collection and closes the index afterwards. Documents of different languages have different
 * ids here: one document per id and language is a configuration of the embedded index (its `partitions`
 * option), specified in search.test.ts.
 */
import { expect } from 'chai';
import type { SearchCollectionSpec, SearchDocument, SearchIndex, SearchRequest } from '../../src/ports/search.ts';

export const contractSpec: SearchCollectionSpec = {
  name: 'lots',
  fields: [
    { name: 'Title', type: 'string', searchable: true },
    { name: 'Description', type: 'string', searchable: true },
    { name: 'AuctionId', type: 'int32', facet: true },
    { name: 'CategoryId', type: 'int32', facet: true },
    { name: 'EndTime', type: 'int64' },
    { name: 'LotNumber', type: 'int32' },
    { name: 'Language', type: 'string', facet: true },
  ],
};

const T0 = 1_750_000_000_000;
const TENANT = 'tenant-a';

export function lot(id: string, fields: Partial<SearchDocument> = {}): SearchDocument {
  return {
    id,
    Title: 'Untitled',
    Description: '',
    AuctionId: 1,
    CategoryId: 1,
    EndTime: T0,
    LotNumber: 1,
    Language: 'en',
    ...fields,
  };
}

export function query(q: string, extra: Partial<SearchRequest> = {}): SearchRequest {
  return {
    q,
    queryBy: ['Title', 'Description'],
    page: 1,
    perPage: 20,
    ...extra,
    filter: { Language: 'en', ...(extra.filter ?? {}) },
  };
}

function ids(hits: Array<{ id: string }>): string[] {
  return hits.map((h) => h.id);
}

export function searchIndexContract(name: string, makeIndex: () => Promise<SearchIndex>): void {
  describe(`search index contract: ${name}`, function () {
    let index: SearchIndex;

    beforeEach(async function () {
      index = await makeIndex();
      await index.ensureCollection(contractSpec);
    });

    afterEach(async function () {
      await index.close();
    });

    const find = (q: string, extra: Partial<SearchRequest> = {}, tenant = TENANT) => index.search('lots', tenant, query(q, extra));

    describe('matching and ranking', function () {
      it('ranks a document matching in the title above one matching only in the description', async function () {
        await index.upsert('lots', TENANT, [
          lot('desc-only', { Title: 'Dining table', Description: 'Comes with a matching chair and bench' }),
          lot('in-title', { Title: 'Oak chair', Description: 'Sturdy and well kept' }),
          lot('unrelated', { Title: 'Silver spoon', Description: 'Hallmarked' }),
        ]);
        const r = await find('chair');
        expect(r.found).to.equal(2);
        expect(ids(r.hits)).to.deep.equal(['in-title', 'desc-only']);
        expect(r.hits[0].score).to.be.greaterThan(r.hits[1].score);
      });

      it('finds a word typed with a typo', async function () {
        await index.upsert('lots', TENANT, [lot('chair', { Title: 'Oak chair' }), lot('other', { Title: 'Brass lamp' })]);
        expect(ids((await find('chiar')).hits)).to.deep.equal(['chair']);
        expect(ids((await find('chsir')).hits)).to.deep.equal(['chair']);
      });

      it('finds a word from its beginning', async function () {
        await index.upsert('lots', TENANT, [lot('chair', { Title: 'Oak chair' }), lot('other', { Title: 'Brass lamp' })]);
        expect(ids((await find('chai')).hits)).to.deep.equal(['chair']);
        expect(ids((await find('oak ch')).hits)).to.deep.equal(['chair']);
      });

      it('requires every word of the query to match', async function () {
        await index.upsert('lots', TENANT, [
          lot('both', { Title: 'Oak chair' }),
          lot('chair-only', { Title: 'Pine chair' }),
          lot('oak-only', { Title: 'Oak table' }),
        ]);
        const r = await find('oak chair');
        expect(r.found).to.equal(1);
        expect(ids(r.hits)).to.deep.equal(['both']);
      });

      it('ignores case and diacritics', async function () {
        await index.upsert('lots', TENANT, [lot('cafe', { Title: 'Café table from Stockholm' }), lot('eiche', { Title: 'eiche Schrank' })]);
        expect(ids((await find('cafe')).hits)).to.deep.equal(['cafe']);
        expect(ids((await find('CAFÉ')).hits)).to.deep.equal(['cafe']);
        expect(ids((await find('stockholm')).hits)).to.deep.equal(['cafe']);
        expect(ids((await find('Eiche')).hits)).to.deep.equal(['eiche']);
      });

      it('folds letters as the service does (src/text/fold.ts): ß as ss, æ as ae, ø as o', async function () {
        await index.upsert('lots', TENANT, [
          lot('grosse', { Title: 'Größe 42' }),
          lot('aero', { Title: 'Ærø ferry print' }),
          lot('lodz', { Title: 'Łódź poster' }),
        ]);
        const expected = [
          ['grosse', 'grosse'],
          ['GRÖSSE', 'grosse'],
          ['größe', 'grosse'],
          ['aero', 'aero'],
          ['ÆRØ', 'aero'],
          ['lodz', 'lodz'],
        ];
        for (const [q, id] of expected) {
          expect(ids((await find(q)).hits), q).to.deep.equal([id]);
        }
      });

      it('returns nothing for an empty or blank query', async function () {
        await index.upsert('lots', TENANT, [lot('a', { Title: 'Oak chair' })]);
        for (const q of ['', '   ']) {
          const r = await find(q);
          expect(r.found).to.equal(0);
          expect(r.hits).to.deep.equal([]);
        }
      });
    });

    describe('filters, facets and paging', function () {
      beforeEach(async function () {
        await index.upsert('lots', TENANT, [
          lot('c1-early', { Title: 'Gold ring', CategoryId: 1, AuctionId: 10, EndTime: T0 + 1000 }),
          lot('c1-late', { Title: 'Gold ring', CategoryId: 1, AuctionId: 10, EndTime: T0 + 5000 }),
          lot('c2-early', { Title: 'Gold ring', CategoryId: 2, AuctionId: 10, EndTime: T0 + 2000 }),
          lot('c2-late', { Title: 'Gold ring', CategoryId: 2, AuctionId: 11, EndTime: T0 + 6000 }),
          lot('c3', { Title: 'Gold ring', CategoryId: 3, AuctionId: 11, EndTime: T0 + 3000 }),
          lot('silver', { Title: 'Silver ring', CategoryId: 1, AuctionId: 10, EndTime: T0 + 4000 }),
        ]);
      });

      it('filters by equality', async function () {
        const r = await find('gold', { filter: { CategoryId: 2 } });
        expect(r.found).to.equal(2);
        expect(ids(r.hits).sort()).to.deep.equal(['c2-early', 'c2-late']);
      });

      it('filters by a numeric range', async function () {
        const r = await find('gold', { filter: { EndTime: { gte: T0 + 2000, lt: T0 + 5000 } } });
        expect(ids(r.hits).sort()).to.deep.equal(['c2-early', 'c3']);
        const open = await find('gold', { filter: { EndTime: { gt: T0 + 5000 } } });
        expect(ids(open.hits)).to.deep.equal(['c2-late']);
      });

      it('filters by a list of values', async function () {
        const r = await find('gold', { filter: { CategoryId: { in: [1, 3] } } });
        expect(ids(r.hits).sort()).to.deep.equal(['c1-early', 'c1-late', 'c3']);
      });

      it('combines several filter conditions', async function () {
        const r = await find('ring', { filter: { AuctionId: 10, EndTime: { lte: T0 + 4000 } } });
        expect(ids(r.hits).sort()).to.deep.equal(['c1-early', 'c2-early', 'silver']);
      });

      it('counts facets over all filtered hits, not only the returned page', async function () {
        const r = await find('gold', { perPage: 2, facetBy: ['CategoryId', 'AuctionId'] });
        expect(r.found).to.equal(5);
        expect(r.hits).to.have.length(2);
        expect(r.facets.CategoryId).to.deep.equal([
          { value: '1', count: 2 },
          { value: '2', count: 2 },
          { value: '3', count: 1 },
        ]);
        expect(r.facets.AuctionId).to.deep.equal([
          { value: '10', count: 3 },
          { value: '11', count: 2 },
        ]);
        const filtered = await find('ring', { filter: { CategoryId: 1 }, facetBy: ['AuctionId'] });
        expect(filtered.facets.AuctionId).to.deep.equal([{ value: '10', count: 3 }]);
      });

      it('pages through the hits, and a page past the end is empty with the same total', async function () {
        const pages = [];
        for (let page = 1; page <= 4; page++) pages.push(await find('gold', { page, perPage: 2 }));
        expect(pages.map((p) => p.found)).to.deep.equal([5, 5, 5, 5]);
        expect(pages.map((p) => p.hits.length)).to.deep.equal([2, 2, 1, 0]);
        const all = pages.flatMap((p) => ids(p.hits));
        expect(new Set(all).size).to.equal(5);
        const onePage = await find('gold', { perPage: 5 });
        expect(ids(onePage.hits)).to.deep.equal(all);
      });
    });

    describe('writes', function () {
      it('replaces a document upserted again with the same id', async function () {
        await index.upsert('lots', TENANT, [lot('x', { Title: 'Walnut cabinet' })]);
        await index.upsert('lots', TENANT, [lot('x', { Title: 'Pewter jug' })]);
        expect((await find('walnut')).found).to.equal(0);
        expect(ids((await find('pewter')).hits)).to.deep.equal(['x']);
      });

      it('merges the fields of a partial update into the document', async function () {
        await index.upsert('lots', TENANT, [lot('x', { Title: 'Walnut cabinet', CategoryId: 4, EndTime: T0 + 100 })]);
        await index.update('lots', TENANT, [{ id: 'x', CategoryId: 7 }]);
        let r = await find('walnut', { filter: { CategoryId: 7, EndTime: T0 + 100 } });
        expect(ids(r.hits)).to.deep.equal(['x']);
        await index.update('lots', TENANT, [{ id: 'x', Title: 'Walnut bureau' }]);
        expect((await find('cabinet')).found).to.equal(0);
        r = await find('bureau', { filter: { CategoryId: 7 } });
        expect(ids(r.hits)).to.deep.equal(['x']);
      });

      it('ignores updates of unknown ids', async function () {
        await index.update('lots', TENANT, [{ id: 'ghost', Title: 'Ghost ship', Language: 'en' }]);
        expect((await find('ghost')).found).to.equal(0);
      });

      it('deletes documents and ignores unknown ids', async function () {
        await index.upsert('lots', TENANT, [lot('a', { Title: 'Copper kettle' }), lot('b', { Title: 'Copper pan' })]);
        await index.delete('lots', TENANT, ['a', 'never-existed']);
        expect(ids((await find('copper')).hits)).to.deep.equal(['b']);
      });
    });

    describe('isolation', function () {
      it("never shows one tenant's documents to another tenant", async function () {
        await index.upsert('lots', 'tenant-a', [lot('a-1', { Title: 'Mahogany desk' })]);
        await index.upsert('lots', 'tenant-b', [lot('b-1', { Title: 'Mahogany desk' })]);
        expect(ids((await find('mahogany', {}, 'tenant-a')).hits)).to.deep.equal(['a-1']);
        expect(ids((await find('mahogany', {}, 'tenant-b')).hits)).to.deep.equal(['b-1']);
        expect((await find('mahogany', {}, 'tenant-c')).found).to.equal(0);
        await index.delete('lots', 'tenant-b', ['a-1']);
        expect(ids((await find('mahogany', {}, 'tenant-a')).hits)).to.deep.equal(['a-1']);
      });

      it('searches only the language the filter names', async function () {
        await index.upsert('lots', TENANT, [
          lot('en-1', { Title: 'Stockholm chair', Language: 'en' }),
          lot('sv-1', { Title: 'Stockholm stol', Language: 'sv' }),
        ]);
        expect(ids((await find('stockholm', { filter: { Language: 'en' } })).hits)).to.deep.equal(['en-1']);
        expect(ids((await find('stockholm', { filter: { Language: 'sv' } })).hits)).to.deep.equal(['sv-1']);
        expect((await find('stockholm', { filter: { Language: 'de' } })).found).to.equal(0);
      });

      it('refuses an unknown collection', async function () {
        await expectRejection(index.search('nope', TENANT, query('chair')));
        await expectRejection(index.upsert('nope', TENANT, [lot('a')]));
      });
    });

    describe('checkpoints and rebuilds', function () {
      it('starts a checkpoint at 0 and keeps what was set', async function () {
        expect(await index.getCheckpoint('lots-projection')).to.equal(0);
        await index.setCheckpoint('lots-projection', 42);
        await index.setCheckpoint('other-projection', 7);
        expect(await index.getCheckpoint('lots-projection')).to.equal(42);
        expect(await index.getCheckpoint('other-projection')).to.equal(7);
      });

      it('keeps answering from the live index during a rebuild and swaps the rebuilt copy in on finish', async function () {
        await index.upsert('lots', TENANT, [lot('old', { Title: 'Old clock' })]);
        await index.setCheckpoint('lots-projection', 10);
        const rebuild = await index.startRebuild('lots', 'lots-projection');
        await rebuild.upsert(TENANT, [lot('new', { Title: 'New clock' }), lot('gone', { Title: 'Gone clock' })]);
        await rebuild.update(TENANT, [{ id: 'new', CategoryId: 5 }]);
        await rebuild.delete(TENANT, ['gone']);
        expect(ids((await find('clock')).hits)).to.deep.equal(['old']);
        expect(await index.getCheckpoint('lots-projection')).to.equal(10);

        await rebuild.finish(99);
        expect(ids((await find('clock')).hits)).to.deep.equal(['new']);
        expect(ids((await find('clock', { filter: { CategoryId: 5 } })).hits)).to.deep.equal(['new']);
        expect(await index.getCheckpoint('lots-projection')).to.equal(99);
      });

      it('drops the rebuilt copy on abort and leaves the live index as it was', async function () {
        await index.upsert('lots', TENANT, [lot('old', { Title: 'Old clock' })]);
        await index.setCheckpoint('lots-projection', 10);
        const rebuild = await index.startRebuild('lots', 'lots-projection');
        await rebuild.upsert(TENANT, [lot('new', { Title: 'New clock' })]);
        await rebuild.abort();
        expect(ids((await find('clock')).hits)).to.deep.equal(['old']);
        expect(await index.getCheckpoint('lots-projection')).to.equal(10);
      });
    });
  });
  searchTypoContract(name, makeIndex);
  searchRebuildContract(name, makeIndex);
}

/**
 * Typo variants beside exact matches: a search finds the documents that match its words exactly and those
 * that match them within the typos allowed, however many exact matches there are. Runs inside the contract
 * above, and alone against a fake that searches as the Typesense server does (typesense.test.ts).
 */
export function searchTypoContract(name: string, makeIndex: () => Promise<SearchIndex>): void {
  describe(`search index typo variants: ${name}`, function () {
    let index: SearchIndex;

    beforeEach(async function () {
      index = await makeIndex();
      await index.ensureCollection(contractSpec);
    });

    afterEach(async function () {
      await index.close();
    });

    const find = (q: string) => index.search('lots', TENANT, query(q));

    it('finds an exact match plus a typo variant, the exact match first', async function () {
      await index.upsert('lots', TENANT, [
        lot('exact', { Title: 'Oak chair' }),
        lot('typo', { Title: 'Oak chiar' }),
        lot('other', { Title: 'Brass lamp' }),
      ]);
      expect(ids((await find('chair')).hits)).to.deep.equal(['exact', 'typo']);
      expect(ids((await find('chiar')).hits)).to.deep.equal(['typo', 'exact']);
      expect(ids((await find('oak chair')).hits)).to.deep.equal(['exact', 'typo']);
    });

    it('finds the typo variants however many documents match exactly', async function () {
      const exact = Array.from({ length: 12 }, (_, i) => lot(`exact-${String(i).padStart(2, '0')}`, { Title: `Oak chair ${i}` }));
      await index.upsert('lots', TENANT, [...exact, lot('typo', { Title: 'Pine chiar' })]);
      const r = await find('chair');
      expect(r.found).to.equal(13);
      expect(ids(r.hits)).to.include('typo');
    });
  });
}

/**
 * The rebuild protocol of the port (src/read-models/search-rebuild.ts) through what needs no search: runs
 * inside the contract above, and alone against adapters whose searches cannot run here (a client fake).
 */
export function searchRebuildContract(name: string, makeIndex: () => Promise<SearchIndex>): void {
  describe(`search index rebuild protocol: ${name}`, function () {
    let index: SearchIndex;

    beforeEach(async function () {
      index = await makeIndex();
      await index.ensureCollection(contractSpec);
      await index.upsert('lots', TENANT, [lot('old')]);
      await index.setCheckpoint('lots-projection', 10);
    });

    afterEach(async function () {
      await index.close();
    });

    it("moves the checkpoint on finish only, then refuses the rebuild's calls but abort", async function () {
      const rebuild = await index.startRebuild('lots', 'lots-projection');
      await rebuild.upsert(TENANT, [lot('new'), lot('gone')]);
      await rebuild.update(TENANT, [{ id: 'new', CategoryId: 5 }]);
      await rebuild.delete(TENANT, ['gone']);
      expect(await index.getCheckpoint('lots-projection')).to.equal(10);
      await rebuild.finish(99);
      expect(await index.getCheckpoint('lots-projection')).to.equal(99);
      await expectRejection(rebuild.upsert(TENANT, [lot('late')]));
      await expectRejection(rebuild.update(TENANT, [{ id: 'new', CategoryId: 6 }]));
      await expectRejection(rebuild.delete(TENANT, ['new']));
      await expectRejection(rebuild.finish(100));
      await rebuild.abort();
      expect(await index.getCheckpoint('lots-projection')).to.equal(99);
    });

    it("leaves the checkpoint on abort, then refuses the rebuild's calls, and a new rebuild can start", async function () {
      const aborted = await index.startRebuild('lots', 'lots-projection');
      await aborted.upsert(TENANT, [lot('new')]);
      await aborted.abort();
      await aborted.abort();
      expect(await index.getCheckpoint('lots-projection')).to.equal(10);
      await expectRejection(aborted.upsert(TENANT, [lot('late')]));
      await expectRejection(aborted.finish(11));
      expect(await index.getCheckpoint('lots-projection')).to.equal(10);
      const next = await index.startRebuild('lots', 'lots-projection');
      await next.upsert(TENANT, [lot('new')]);
      await next.finish(12);
      expect(await index.getCheckpoint('lots-projection')).to.equal(12);
      const after = await index.startRebuild('lots', 'lots-projection');
      await after.finish(13);
      expect(await index.getCheckpoint('lots-projection')).to.equal(13);
    });

    it("refuses the rebuild's calls once the index is closed", async function () {
      const rebuild = await index.startRebuild('lots', 'lots-projection');
      await index.close();
      await expectRejection(rebuild.upsert(TENANT, [lot('late')]));
      await expectRejection(rebuild.finish(11));
    });
  });
}

async function expectRejection(p: Promise<unknown>): Promise<void> {
  let failed = false;
  try {
    await p;
  } catch (e) {
    failed = true;
    expect(e).to.be.instanceOf(Error);
  }
  expect(failed, 'expected the call to be rejected').to.equal(true);
}
