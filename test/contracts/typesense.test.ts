/**
 * The Typesense lot index (src/adapters/typesense). No Typesense server runs on this machine, so:
 * - the translation layer is always specified here: the collection schema, filter_by, the search
 *   parameters and the result mapping, as literal values checked against what Typesense's documentation
 *   (and, for escaping, its source) specifies; hostile filter values are read back the way Typesense's
 *   filter parser reads them (`readFilter`, typesense-fake.ts, after filter.cpp and string_utils.cpp);
 * - the adapter runs over a fake of the few client calls it makes (`FakeTypesense`, typesense-fake.ts, which
 *   answers as the server's source does): checked imports, partitions, deletes, checkpoints, the order of a
 *   rebuild's alias swap, a changed spec brought to the server, and a server that hangs or is away; and over
 *   one that searches as the server's typo loop does (`SearchingFakeTypesense`), for the search contract's
 *   typo part;
 * - those client calls (client.ts) are checked over HTTP against a recording stub: the endpoints, methods
 *   and parameters the API reference names, and how a 404 and a failed multi-search come back;
 * - the port's contract suite runs against a real Typesense only when TYPESENSE_URL (and
 *   TYPESENSE_API_KEY) are set; otherwise it is listed as skipped, with the reason.
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'typesense';
import type { SearchDocument, SearchIndex, SearchRequest } from '../../src/ports/search.ts';
import { SearchIndexUnavailableError } from '../../src/ports/search.ts';
import { typesenseId } from '../../src/adapters/typesense/documents.ts';
import { filterBy, literal } from '../../src/adapters/typesense/filter.ts';
import { queryWords, searchParams, type TypesenseSearchParams } from '../../src/adapters/typesense/params.ts';
import { hitScore, toSearchResult, type TypesenseSearchResponse } from '../../src/adapters/typesense/results.ts';
import { checkpointSchema, collectionSchema, key } from '../../src/adapters/typesense/schema.ts';
import { TypesenseIndex, TypesenseKeyRefusedError } from '../../src/adapters/typesense/typesense-index.ts';
import { TypesenseAwayError, TypesenseTimeoutError } from '../../src/adapters/typesense/availability.ts';
import { isEngineUnreachable, isTransientFault } from '../../src/errors.ts';
import { until } from '../support/until.ts';
import { contractSpec, lot, query, searchIndexContract, searchRebuildContract, searchTypoContract } from './search.contract.ts';
import { FakeTypesense, readFilter, SearchingFakeTypesense } from './typesense-fake.ts';

const TENANT = 'tenant-a';
const T0 = 1_750_000_000_000;
/** As the service configures the lot index (projections/lot-search: LOT_SEARCH_PARTITION). */
const PARTITIONS = { lots: 'Language' };
/** ASCII punctuation (Unicode category P), one character each, as Typesense takes token_separators. */
const SEPARATORS = [...'!"#%&\'()*,-./:;?@[\\]_{}'];

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(Error);
    return e as Error;
  }
  throw new Error('expected the call to be rejected');
}

describe('Typesense translation layer', function () {
  describe('collection schema (docs: API > Collections, field parameters)', function () {
    it('declares the port fields with their types and facet flags, numbers sortable, plus the tenant and id fields', function () {
      expect(collectionSchema(contractSpec, 'lots_0')).to.deep.equal({
        name: 'lots_0',
        fields: [
          { name: 'tenant_key', type: 'string', facet: false, optional: false },
          { name: 'doc_key', type: 'string', facet: false, optional: false },
          { name: 'doc_id', type: 'string', facet: false, optional: false, sort: true },
          { name: 'Title', type: 'string', facet: false, optional: true },
          { name: 'Description', type: 'string', facet: false, optional: true },
          { name: 'AuctionId', type: 'int32', facet: true, optional: true, sort: true },
          { name: 'CategoryId', type: 'int32', facet: true, optional: true, sort: true },
          { name: 'EndTime', type: 'int64', facet: false, optional: true, sort: true },
          { name: 'LotNumber', type: 'int32', facet: false, optional: true, sort: true },
          { name: 'Language', type: 'string', facet: true, optional: true },
        ],
        token_separators: SEPARATORS,
      });
    });

    it('splits words on the ASCII punctuation the query side splits on', function () {
      expect(queryWords('oak-chair (walnut) "tennis ball" -tesla * 3.5 e_mail')).to.deep.equal([
        'oak',
        'chair',
        'walnut',
        'tennis',
        'ball',
        'tesla',
        '3',
        '5',
        'e',
        'mail',
      ]);
    });

    it('keeps checkpoints in a collection of their own', function () {
      expect(checkpointSchema('_checkpoints')).to.deep.equal({
        name: '_checkpoints',
        fields: [{ name: 'position', type: 'int64', facet: false, optional: false }],
      });
    });

    it('refuses field names that are reserved, not plain names, or declared twice', function () {
      const withField = (name: string) => ({ name: 'lots', fields: [{ name, type: 'string' as const }] });
      for (const name of ['tenant_key', 'doc_key', 'doc_id', 'id', 'score_.*', 'a b', 'x&&y', '']) {
        expect(() => collectionSchema(withField(name), 'lots_0'), name).to.throw(Error);
      }
      const twice = {
        name: 'lots',
        fields: [
          { name: 'A', type: 'int32' as const },
          { name: 'A', type: 'string' as const },
        ],
      };
      expect(() => collectionSchema(twice, 'lots_0')).to.throw(/twice/);
    });

    it('keys tenants and ids as one token of 32 hex digits, distinct where Typesense would fold raw strings together', function () {
      const keys = ['tenant-a', 'Tenant-A', 'tenanta', 'tenant_a', 'Café', 'cafe'].map(key);
      for (const k of keys) expect(k).to.match(/^[0-9a-f]{32}$/);
      expect(new Set(keys).size).to.equal(keys.length);
    });
  });

  describe('filter_by (docs: API > Search > filter_by)', function () {
    const tenant = `tenant_key:=\`${key(TENANT)}\``;

    it('always starts with the tenant, ANDed to the conditions in their order', function () {
      expect(filterBy(TENANT)).to.equal(tenant);
      expect(filterBy(TENANT, { Language: 'en', CategoryId: 2, Open: true })).to.equal(
        `${tenant} && Language:=\`en\` && CategoryId:=2 && Open:=true`,
      );
    });

    it('renders ranges with comparison operators and lists as [a,b]', function () {
      expect(filterBy(TENANT, { EndTime: { gte: T0 + 2000, lt: T0 + 5000 } })).to.equal(
        `${tenant} && EndTime:>=1750000002000 && EndTime:<1750000005000`,
      );
      expect(filterBy(TENANT, { EndTime: { gt: 5, lte: 9 } })).to.equal(`${tenant} && EndTime:>5 && EndTime:<=9`);
      expect(filterBy(TENANT, { CategoryId: { in: [1, 3] } })).to.equal(`${tenant} && CategoryId:[1,3]`);
      expect(filterBy(TENANT, { Language: { in: ['en', 'sv'] } })).to.equal(`${tenant} && Language:=[\`en\`,\`sv\`]`);
    });

    it('matches nothing on an empty list, without a request', function () {
      expect(filterBy(TENANT, { CategoryId: { in: [] } })).to.equal(null);
    });

    it('keeps commas, &&, || and parentheses inside one literal, as Typesense reads it back', function () {
      const hostile = 'a, b && Language:=x || (c) [d]';
      const read = readFilter(filterBy(TENANT, { Maker: hostile, Language: { in: ['en, sv', 'x && y', 'z || w'] } })!);
      expect(read).to.deep.equal([
        { field: 'tenant_key', op: '=', values: [key(TENANT)] },
        { field: 'Maker', op: '=', values: [hostile] },
        { field: 'Language', op: '=', values: ['en, sv', 'x && y', 'z || w'] },
      ]);
    });

    it('refuses values Typesense would read as something else: backticks, a trailing backslash, * and quoted phrases', function () {
      for (const v of ['a`b', '`', 'x` || tenant_key:=`y', 'ends\\', 'pre*', '"phrase"', '']) {
        expect(() => literal(v), JSON.stringify(v)).to.throw(Error);
        expect(() => filterBy(TENANT, { Language: v }), JSON.stringify(v)).to.throw(Error);
        expect(() => filterBy(TENANT, { Language: { in: ['en', v] } }), JSON.stringify(v)).to.throw(Error);
      }
      expect(literal('back\\slash inside')).to.equal('`back\\slash inside`');
    });

    it('keys a hostile tenant, so nothing of it reaches the filter syntax', function () {
      const hostile = 'x` || tenant_key:=`other';
      expect(readFilter(filterBy(hostile)!)).to.deep.equal([{ field: 'tenant_key', op: '=', values: [key(hostile)] }]);
    });

    it('refuses non-integer numbers, reserved or malformed field names and unknown operators', function () {
      expect(() => filterBy(TENANT, { EndTime: 1.5 })).to.throw(/integer/);
      expect(() => filterBy(TENANT, { EndTime: { gt: Number.NaN } })).to.throw(/integer/);
      expect(() => filterBy(TENANT, { tenant_key: 'x' })).to.throw(Error);
      expect(() => filterBy(TENANT, { doc_id: 'x' })).to.throw(Error);
      expect(() => filterBy(TENANT, { 'A:=1 || B': 1 })).to.throw(Error);
      expect(() => filterBy(TENANT, { EndTime: { ne: 1 } as never })).to.throw(/unknown operators ne/);
    });
  });

  describe('search parameters (docs: API > Search > search parameters)', function () {
    const request: SearchRequest = {
      q: 'Oak CHAIR',
      queryBy: ['Title', 'AttributeText', 'Description'],
      filter: { Language: 'en', CategoryId: { in: [1, 3] }, EndTime: { gt: T0 } },
      facetBy: ['CategoryId', 'AuctionId'],
      page: 2,
      perPage: 20,
    };

    it('asks for every word, the last as a prefix, typos from 4 and 8 letters however many exact matches, weights in field order, ties by id', function () {
      const expected: TypesenseSearchParams = {
        q: 'oak chair',
        query_by: 'Title,AttributeText,Description',
        query_by_weights: '15,14,13',
        prefix: true,
        num_typos: 2,
        typo_tokens_threshold: 2 ** 31 - 1,
        min_len_1typo: 4,
        min_len_2typo: 8,
        drop_tokens_threshold: 0,
        max_candidates: 50,
        split_join_tokens: 'off',
        filter_by: `tenant_key:=\`${key(TENANT)}\` && Language:=\`en\` && CategoryId:[1,3] && EndTime:>1750000000000`,
        sort_by: '_text_match:desc,doc_id:asc',
        facet_by: 'CategoryId,AuctionId',
        max_facet_values: 10_000,
        page: 2,
        per_page: 20,
        include_fields: 'doc_id',
        highlight_fields: 'none',
        enable_highlight_v1: false,
      };
      expect(searchParams(TENANT, request, { partitionField: 'Language' })).to.deep.equal(expected);
    });

    it('folds the query with the service rule and drops Typesense operators from it', function () {
      const q = (text: string) => searchParams(TENANT, { ...request, q: text })?.q;
      expect(q('Größe ÆRØ Łódź')).to.equal('grosse aero lodz');
      expect(q('"tennis ball" -tesla')).to.equal('tennis ball tesla');
      expect(q('*')).to.equal(undefined);
    });

    it('sends no request for a blank query or a query without letters or digits', function () {
      for (const text of ['', '   ', '*', '-', '"" --']) {
        expect(searchParams(TENANT, { ...request, q: text }), text).to.equal(null);
      }
    });

    it('does not treat a last word of one letter as a prefix, as the embedded index does not', function () {
      expect(searchParams(TENANT, { ...request, q: 'oak c' })?.prefix).to.equal(false);
      expect(searchParams(TENANT, { ...request, q: 'oak ch' })?.prefix).to.equal(true);
    });

    it('leaves facet parameters out when no facet is asked for, and caps the facet values by option', function () {
      const plain = searchParams(TENANT, { ...request, facetBy: [] })!;
      expect(plain).to.not.have.property('facet_by');
      expect(plain).to.not.have.property('max_facet_values');
      expect(searchParams(TENANT, request, { maxFacetValues: 50 })?.max_facet_values).to.equal(50);
    });

    it('refuses a partitioned search without an equality on the partition field', function () {
      const { Language: _, ...rest } = request.filter!;
      const partitioned = (filter: SearchRequest['filter']) => () =>
        searchParams(TENANT, { ...request, filter }, { partitionField: 'Language' });
      expect(partitioned(rest)).to.throw(/Language/);
      expect(partitioned({ ...rest, Language: { in: ['en', 'sv'] } })).to.throw(/Language/);
      expect(searchParams(TENANT, { ...request, filter: rest })).to.not.equal(null);
    });

    it('refuses pages Typesense cannot serve and fields it must not see', function () {
      expect(() => searchParams(TENANT, { ...request, perPage: 251 })).to.throw(/250/);
      expect(() => searchParams(TENANT, { ...request, page: 0 })).to.throw(/page/);
      expect(() => searchParams(TENANT, { ...request, queryBy: [] })).to.throw(/queryBy/);
      expect(() => searchParams(TENANT, { ...request, queryBy: ['doc_id'] })).to.throw(Error);
      expect(() => searchParams(TENANT, { ...request, facetBy: ['Title,tenant_key'] })).to.throw(Error);
    });
  });

  describe('results (docs: API > Search, sample response)', function () {
    const info = (weight: number, fields = 1) => ({
      score: '0',
      best_field_score: '1108091338752',
      best_field_weight: weight,
      fields_matched: fields,
      tokens_matched: 1,
    });

    it('maps hits to the port id and keeps the field weight in the score, where text_match as a JSON number loses it', function () {
      // 1 << 59 | best_field_score << 11 | weight << 3 | fields: above 2^53, the low bits do not survive.
      const raw = (w: number) => (1n << 59n) | (1108091338752n << 11n) | (BigInt(w) << 3n) | 1n;
      expect(Number(raw(15))).to.equal(Number(raw(14)));
      const title = hitScore({ document: {}, text_match: Number(raw(15)), text_match_info: info(15) });
      const description = hitScore({ document: {}, text_match: Number(raw(14)), text_match_info: info(14) });
      expect(title).to.be.greaterThan(description);
      expect(Number.isSafeInteger(title)).to.equal(true);
      expect(hitScore({ document: {}, text_match: 42 })).to.equal(42);
    });

    it('returns the total, the hits in order and every asked facet sorted by count, then value', function () {
      const response: TypesenseSearchResponse = {
        found: 5,
        hits: [
          { document: { doc_id: 'b' }, text_match_info: info(15) },
          { document: { doc_id: 'a' }, text_match_info: info(14) },
        ],
        facet_counts: [
          {
            field_name: 'CategoryId',
            counts: [
              { value: '10', count: 2 },
              { value: '3', count: 1 },
              { value: '2', count: 2 },
            ],
          },
        ],
      };
      const result = toSearchResult(response, ['CategoryId', 'AuctionId']);
      expect(result.found).to.equal(5);
      expect(result.hits.map((h) => h.id)).to.deep.equal(['b', 'a']);
      expect(result.facets).to.deep.equal({
        CategoryId: [
          { value: '2', count: 2 },
          { value: '10', count: 2 },
          { value: '3', count: 1 },
        ],
        AuctionId: [],
      });
    });
  });
});

describe('Typesense index over a fake client', function () {
  let clock = 0;
  searchTypoContract(
    "Typesense over a fake client that searches as the server's typo loop does",
    async () => new TypesenseIndex(new SearchingFakeTypesense(), { partitions: PARTITIONS }),
  );
  searchRebuildContract(
    'Typesense over the fake client',
    async () => new TypesenseIndex(new FakeTypesense(), { partitions: PARTITIONS, now: () => ++clock }),
  );

  let fake: FakeTypesense;
  let index: TypesenseIndex;
  const byId = (collection: string) => new Map(fake.docs(collection).map((d) => [d.id as string, d]));

  beforeEach(async function () {
    fake = new FakeTypesense();
    index = new TypesenseIndex(fake, { partitions: PARTITIONS, prefix: 'p_', now: () => 1234 });
    await index.ensureCollection(contractSpec);
  });

  describe('collections', function () {
    it('creates the first physical collection and points the alias at it, once', async function () {
      expect(fake.calls).to.deep.equal(['create p_lots_0', 'alias p_lots -> p_lots_0']);
      expect(fake.collections.get('p_lots_0')!.schema).to.deep.equal(collectionSchema(contractSpec, 'p_lots_0'));
      await index.ensureCollection(contractSpec);
      const again = new TypesenseIndex(fake, { partitions: PARTITIONS, prefix: 'p_' });
      await again.ensureCollection(contractSpec);
      expect(fake.calls).to.have.length(2);
    });

    it('takes over a collection another process created before it set the alias', async function () {
      fake.aliases.clear();
      await index.ensureCollection(contractSpec);
      expect(fake.calls.slice(2)).to.deep.equal(['create p_lots_0', 'alias p_lots -> p_lots_0']);
    });

    it('refuses a partition field the collection does not have, and writes to a collection it was not given', async function () {
      const other = new TypesenseIndex(fake, { partitions: { lots: 'Country' } });
      await rejection(other.ensureCollection(contractSpec));
      await rejection(new TypesenseIndex(fake).upsert('lots', TENANT, [lot('a')]));
    });
  });

  describe('writes', function () {
    it('upserts one document per id and language, keyed by tenant, with the searchable text folded', async function () {
      await index.upsert('lots', TENANT, [lot('1', { Title: 'Größe Oak chair' }), lot('1', { Title: 'Ekstol', Language: 'sv' })]);
      const docs = byId('p_lots');
      expect([...docs.keys()]).to.deep.equal(['tenant-a:1:en', 'tenant-a:1:sv']);
      expect(docs.get('tenant-a:1:en')).to.deep.include({
        tenant_key: key(TENANT),
        doc_key: key('1'),
        doc_id: '1',
        Title: 'grosse oak chair',
        Language: 'en',
        CategoryId: 1,
      });
      expect(typesenseId('a:b', 'c', null)).to.equal('a%3Ab:c');
      expect(typesenseId('a', 'b:c', null)).to.not.equal(typesenseId('a:b', 'c', null));
    });

    it('fails an import when any line fails, naming the first failures, and refuses documents it cannot place', async function () {
      fake.failImport = (doc) =>
        doc.doc_id === 'bad' ? { success: false, code: 400, error: 'Field `CategoryId` must be an int32.' } : undefined;
      const error = await rejection(index.upsert('lots', TENANT, [lot('ok'), lot('bad')]));
      expect(error.message).to.equal(
        'typesense upsert into p_lots: 1 of 2 documents failed ' + '(tenant-a:bad:en: 400 Field `CategoryId` must be an int32.)',
      );
      await rejection(index.upsert('lots', TENANT, [{ id: 'x', Title: 'No language' }]));
      await rejection(index.upsert('lots', TENANT, [lot('x', { tenant_key: 'other' })]));
    });

    it('ignores updates of unknown ids, and fails on any other failed line of an update', async function () {
      await index.update('lots', TENANT, [{ id: 'ghost', Language: 'en', Title: 'Ghost ship' }]);
      await index.upsert('lots', TENANT, [lot('1')]);
      fake.failImport = (doc) => (doc.CategoryId === 7 ? { success: false, code: 400, error: 'bad type' } : undefined);
      await rejection(index.update('lots', TENANT, [{ id: '1', Language: 'en', CategoryId: 7 }]));
    });

    it('applies an update without the language to every language of the id, one with it to that language only, in order', async function () {
      await index.upsert('lots', TENANT, [lot('1', { Title: 'Oak chair' }), lot('1', { Language: 'sv' })]);
      await index.upsert('lots', 'tenant-b', [lot('1', { Title: 'Other tenant' })]);
      fake.calls.length = 0;
      await index.update('lots', TENANT, [
        { id: '1', EndTime: T0 + 500, Title: 'Pine CHAIR' },
        { id: '1', Language: 'sv', EndTime: T0 + 600 },
        { id: 'ghost', EndTime: 1 },
      ]);
      expect(fake.calls).to.deep.equal(['export p_lots', 'import update p_lots 3']);
      const docs = byId('p_lots');
      expect(docs.get('tenant-a:1:en')).to.deep.include({ EndTime: T0 + 500, Title: 'pine chair', Language: 'en' });
      expect(docs.get('tenant-a:1:sv')).to.deep.include({ EndTime: T0 + 600, Title: 'pine chair', Language: 'sv' });
      expect(docs.get('tenant-b:1:en')).to.deep.include({ EndTime: T0, Title: 'other tenant' });
    });

    it('deletes an id from every language of the tenant only, ignores unknown ids, 50 ids per request', async function () {
      await index.upsert('lots', TENANT, [lot('1'), lot('1', { Language: 'sv' }), lot('2')]);
      await index.upsert('lots', 'tenant-b', [lot('1')]);
      fake.calls.length = 0;
      const many = Array.from({ length: 120 }, (_, i) => `ghost-${i}`);
      await index.delete('lots', TENANT, ['1', ...many, '1']);
      expect(fake.calls).to.deep.equal(['delete p_lots', 'delete p_lots', 'delete p_lots']);
      expect([...byId('p_lots').keys()].sort()).to.deep.equal(['tenant-a:2:en', 'tenant-b:1:en']);
    });

    it('refuses an unknown collection', async function () {
      await rejection(index.search('nope', TENANT, query('chair')));
    });
  });

  describe('searches', function () {
    it('searches the alias with the tenant filter and maps the hits back to port ids', async function () {
      fake.searchResponse = {
        found: 1,
        hits: [{ document: { doc_id: '7' }, text_match: 5 }],
        facet_counts: [{ field_name: 'CategoryId', counts: [{ value: '4', count: 1 }] }],
      };
      const result = await index.search('lots', TENANT, query('Chair', { facetBy: ['CategoryId'] }));
      expect(result).to.deep.equal({
        found: 1,
        hits: [{ id: '7', score: 5 }],
        facets: { CategoryId: [{ value: '4', count: 1 }] },
      });
      expect(fake.searches).to.have.length(1);
      expect(fake.searches[0].collection).to.equal('p_lots');
      expect(fake.searches[0].params.filter_by).to.equal(`tenant_key:=\`${key(TENANT)}\` && Language:=\`en\``);
    });

    it('answers a blank query without a request, and refuses one without the language', async function () {
      expect(await index.search('lots', TENANT, query('  ', { facetBy: ['AuctionId'] }))).to.deep.equal({
        found: 0,
        hits: [],
        facets: { AuctionId: [] },
      });
      await rejection(index.search('lots', TENANT, { q: 'chair', queryBy: ['Title'], page: 1, perPage: 10 }));
      expect(fake.searches).to.have.length(0);
    });
  });

  describe('checkpoints', function () {
    it('reads 0 before any checkpoint and keeps each projection in the checkpoints collection, created once', async function () {
      expect(await index.getCheckpoint('lot-search')).to.equal(0);
      await index.setCheckpoint('lot-search', 42);
      await index.setCheckpoint('other', 7);
      expect(await index.getCheckpoint('lot-search')).to.equal(42);
      expect(await index.getCheckpoint('other')).to.equal(7);
      expect(fake.calls.filter((c) => c.startsWith('create p__checkpoints'))).to.have.length(1);
      await rejection(index.setCheckpoint('lot-search', -1));
    });
  });

  describe('rebuilds', function () {
    it('writes into a new collection, then swaps the alias, moves the checkpoint and drops the old one, in that order', async function () {
      await index.upsert('lots', TENANT, [lot('old')]);
      await index.setCheckpoint('lot-search', 10);
      fake.calls.length = 0;
      const rebuild = await index.startRebuild('lots', 'lot-search');
      await rebuild.upsert(TENANT, [lot('new'), lot('gone')]);
      await rebuild.update(TENANT, [{ id: 'new', CategoryId: 5 }]);
      await rebuild.delete(TENANT, ['gone']);
      expect([...byId('p_lots').keys()]).to.deep.equal(['tenant-a:old:en']);
      expect(await index.getCheckpoint('lot-search')).to.equal(10);

      await rebuild.finish(99);
      expect(fake.calls).to.deep.equal([
        'create p_lots_1234',
        'import upsert p_lots_1234 2',
        'export p_lots_1234',
        'import update p_lots_1234 1',
        'delete p_lots_1234',
        'alias p_lots -> p_lots_1234',
        'put p__checkpoints lot-search',
        'drop p_lots_0',
      ]);
      expect([...byId('p_lots').keys()]).to.deep.equal(['tenant-a:new:en']);
      expect(byId('p_lots').get('tenant-a:new:en')).to.deep.include({ CategoryId: 5 });
      expect(await index.getCheckpoint('lot-search')).to.equal(99);
      await rejection(rebuild.upsert(TENANT, [lot('late')]));
    });

    it('drops the new collection on abort and leaves the alias and checkpoint alone', async function () {
      await index.setCheckpoint('lot-search', 10);
      const rebuild = await index.startRebuild('lots', 'lot-search');
      await rebuild.upsert(TENANT, [lot('new')]);
      await rebuild.abort();
      expect(fake.aliases.get('p_lots')).to.equal('p_lots_0');
      expect(fake.collections.has('p_lots_1234')).to.equal(false);
      expect(await index.getCheckpoint('lot-search')).to.equal(10);
    });

    it('needs the spec from ensureCollection to build the new collection', async function () {
      await rejection(new TypesenseIndex(fake, { prefix: 'p_' }).startRebuild('lots', 'lot-search'));
    });
  });

  describe('a changed spec (as the embedded engines re-index theirs)', function () {
    /** The spec with a new facet, as a new version of the service declares it. */
    const withMaker = { ...contractSpec, fields: [...contractSpec.fields, { name: 'Maker', type: 'string' as const, facet: true }] };
    const fresh = (options: { schemaOwner?: boolean; now?: () => number } = {}) =>
      new TypesenseIndex(fake, { partitions: PARTITIONS, prefix: 'p_', probeSeconds: 0.02, ...options });

    it('adds a field the spec gained to the live collection, so a search faceting on it answers instead of a 404', async function () {
      await index.upsert('lots', TENANT, [lot('1', { Maker: 'Thonet' })]);
      // Before the change reaches the server, Typesense refuses the facet inside multi_search.
      const older = await rejection(fake.search('p_lots', searchParams(TENANT, query('chair', { facetBy: ['Maker'] }))!));
      expect(older.message).to.contain('404 Could not find a facet field named `Maker` in the schema.');
      fake.calls.length = 0;
      const newer = fresh();
      await newer.ensureCollection(withMaker);
      expect(fake.calls).to.deep.equal(['alter p_lots_0 +Maker']);
      expect(fake.collections.get('p_lots_0')!.schema.fields).to.deep.equal(collectionSchema(withMaker, 'p_lots_0').fields);
      expect((await newer.search('lots', TENANT, query('chair', { facetBy: ['Maker'] }))).facets).to.have.property('Maker');
      await fresh().ensureCollection(withMaker);
      expect(fake.calls).to.have.length(1);
    });

    it('drops a field the spec lost, and drops and adds in one change a field whose kind changed', async function () {
      const changed = {
        ...contractSpec,
        fields: contractSpec.fields.filter((f) => f.name !== 'LotNumber').map((f) => (f.name === 'Language' ? { ...f, facet: false } : f)),
      };
      fake.calls.length = 0;
      await fresh().ensureCollection(changed);
      expect(fake.calls).to.deep.equal(['alter p_lots_0 -LotNumber -Language +Language']);
      expect(
        fake.collections
          .get('p_lots_0')!
          .schema.fields.map((f) => f.name)
          .sort(),
      ).to.deep.equal(
        collectionSchema(changed, 'p_lots_0')
          .fields.map((f) => f.name)
          .sort(),
      );
    });

    it('leaves the server alone in a process that does not own the index, whose searches of the new field are unavailable until then', async function () {
      const api = fresh({ schemaOwner: false });
      fake.calls.length = 0;
      await api.ensureCollection(withMaker);
      expect(fake.calls).to.deep.equal([]);
      const refused = await rejection(api.search('lots', TENANT, query('chair', { facetBy: ['Maker'] })));
      expect(refused).to.be.instanceOf(SearchIndexUnavailableError);
      expect(refused.message).to.contain('Could not find a facet field named `Maker`');
      await fresh().ensureCollection(withMaker);
      expect((await api.search('lots', TENANT, query('chair', { facetBy: ['Maker'] }))).found).to.equal(0);
    });

    it('waits out an alteration another process has under way (422), and finds the collection altered', async function () {
      let release!: () => void;
      fake.alterHold = new Promise((resolve) => (release = resolve));
      const first = fresh().ensureCollection(withMaker);
      await until(() => fake.calls.includes('alter p_lots_0 +Maker'), 'the first alteration');
      fake.calls.length = 0;
      const second = fresh().ensureCollection(withMaker);
      await until(() => fake.calls.length > 0, 'the second alteration');
      release();
      await Promise.all([first, second]);
      expect(fake.calls).to.deep.equal(['alter p_lots_0 +Maker']); // answered 422, then found done
      expect(fake.collections.get('p_lots_0')!.schema.fields.map((f) => f.name)).to.include('Maker');
    });

    it('builds a new collection behind the alias for what no alteration changes (token separators), from the documents held', async function () {
      await index.upsert('lots', TENANT, [lot('1'), lot('2', { Language: 'sv' })]);
      const live = fake.collections.get('p_lots_0')!;
      live.schema = { ...live.schema, token_separators: ['-'] };
      fake.calls.length = 0;
      const newer = fresh({ now: () => 5678 });
      await newer.ensureCollection(contractSpec);
      expect(fake.calls).to.deep.equal([
        'create p_lots_5678',
        'export all p_lots_0',
        'import upsert p_lots_5678 2',
        'alias p_lots -> p_lots_5678',
        'drop p_lots_0',
      ]);
      expect(fake.collections.get('p_lots_5678')!.schema).to.deep.equal(collectionSchema(contractSpec, 'p_lots_5678'));
      expect([...byId('p_lots').keys()].sort()).to.deep.equal(['tenant-a:1:en', 'tenant-a:2:sv']);
    });

    it('builds a new collection when the server refuses the alteration for the documents it holds, leaving out values that no longer fit', async function () {
      const older = {
        ...contractSpec,
        fields: contractSpec.fields.map((f) => (f.name === 'LotNumber' ? { ...f, type: 'string' as const } : f)),
      };
      const store = new FakeTypesense();
      const before = new TypesenseIndex(store, { partitions: PARTITIONS, prefix: 'p_' });
      await before.ensureCollection(older);
      await before.upsert('lots', TENANT, [lot('1', { LotNumber: '12a' })]);
      const newer = new TypesenseIndex(store, { partitions: PARTITIONS, prefix: 'p_', now: () => 9 });
      await newer.ensureCollection(contractSpec);
      expect(store.aliases.get('p_lots')).to.equal('p_lots_9');
      expect(store.collections.has('p_lots_0')).to.equal(false);
      const [doc] = store.docs('p_lots');
      expect(doc).to.include({ doc_id: '1', Title: 'untitled' });
      expect(doc).to.not.have.property('LotNumber');
    });
  });

  describe('a server that hangs or is away', function () {
    it('bounds an import the server never answers (the client sets no time-out on one): the batch fails as an engine away', async function () {
      const bounded = new TypesenseIndex(fake, { partitions: PARTITIONS, prefix: 'p_', importTimeoutSeconds: 0.05 });
      await bounded.ensureCollection(contractSpec);
      fake.hangImports = true;
      const error = await rejection(bounded.upsert('lots', TENANT, [lot('1')]));
      expect(error).to.be.instanceOf(TypesenseTimeoutError);
      expect(error.message).to.match(/an import of 1 documents into p_lots got no answer in 0.05 s/);
      // Tried again by the projector (a transient fault), never parked as the batch's own failure.
      expect(isTransientFault(error)).to.equal(true);
      await bounded.close();
    });

    it('sends at most importChunk documents per import request, in order', async function () {
      const small = new TypesenseIndex(fake, { partitions: PARTITIONS, prefix: 'p_', importChunk: 2 });
      await small.ensureCollection(contractSpec);
      fake.calls.length = 0;
      await small.upsert(
        'lots',
        TENANT,
        ['1', '2', '3', '4', '5'].map((id) => lot(id)),
      );
      expect(fake.calls).to.deep.equal(['import upsert p_lots 2', 'import upsert p_lots 2', 'import upsert p_lots 1']);
    });

    it('fails the calls after one that found the server away at once, without a request, until a probe gets an answer', async function () {
      const probed = new TypesenseIndex(fake, { partitions: PARTITIONS, prefix: 'p_', probeSeconds: 0.02 });
      await probed.ensureCollection(contractSpec);
      await probed.setCheckpoint('lot-search', 7);
      fake.away = 'hung';
      const first = await rejection(probed.getCheckpoint('lot-search'));
      expect((first as Error & { code?: string }).code).to.equal('ECONNABORTED');
      const asked = fake.requests;
      const search = await rejection(probed.search('lots', TENANT, query('chair')));
      expect(search).to.be.instanceOf(SearchIndexUnavailableError);
      const checkpoint = await rejection(probed.getCheckpoint('lot-search'));
      expect(checkpoint).to.be.instanceOf(TypesenseAwayError);
      expect(isEngineUnreachable(checkpoint)).to.equal(true);
      await rejection(probed.upsert('lots', TENANT, [lot('1')]));
      expect(fake.requests - asked).to.be.at.most(1); // at most a probe
      fake.away = null;
      await until(async () => (await probed.getCheckpoint('lot-search').catch(() => null)) === 7, 'the server back');
      await probed.close();
    });
  });

  it('refuses every call once closed', async function () {
    await index.close();
    await rejection(index.search('lots', TENANT, query('chair')));
    await rejection(index.getCheckpoint('lot-search'));
  });
});

// ---------------------------------------------------------------------------------------------------------
// The typesense-js calls of client.ts, against an HTTP stub that records requests and answers as the API
// reference shows (not a search engine: its answers are canned).

interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  body: string;
  apiKey: string | undefined;
}

describe('Typesense client calls over HTTP (a recording stub, not a server)', function () {
  let server: Server;
  let url: string;
  let recorded: Recorded[];
  let answers: Array<[status: number, body: string, type?: string]>;
  // Import and export answer JSON lines as text/plain, as the server does (core_api.cpp).
  const lines = 'text/plain; charset=utf-8';

  before(async function () {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const u = new globalThis.URL(req.url ?? '/', 'http://stub');
        recorded.push({
          method: req.method ?? '',
          path: u.pathname,
          query: Object.fromEntries(u.searchParams),
          body,
          apiKey: req.headers['x-typesense-api-key'] as string | undefined,
        });
        const [code, answer, type] = answers.shift() ?? [500, '{"message":"no answer scripted"}'];
        res.writeHead(code, { 'content-type': type ?? 'application/json; charset=utf-8' });
        res.end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async function () {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(function () {
    recorded = [];
    answers = [];
  });

  const calls = () => recorded.map((r) => `${r.method} ${r.path}`);
  /** An index past its start check (answered 404: no such checkpoint), with the recording cleared. */
  const connect = async () => {
    answers.push([404, '{"message":"Not Found"}']);
    const index = await TypesenseIndex.connect(url, 'stub-key', { partitions: PARTITIONS, numRetries: 0 });
    recorded = [];
    return index;
  };

  it('checks the server and the key at connect: a 404 of its probe passes, a refused key or no server stops it', async function () {
    await connect();
    answers.push([404, '{"message":"Not Found"}']);
    await TypesenseIndex.connect(url, 'stub-key', { numRetries: 0 });
    expect(calls()).to.deep.equal(['GET /collections/_checkpoints/documents/_access_check']);
    expect(recorded[0].apiKey).to.equal('stub-key');

    // Typesense's answer to a wrong key (or one without documents:get on the checkpoints).
    answers.push([401, '{"message":"Forbidden - a valid `x-typesense-api-key` header must be sent."}']);
    const refused = await rejection(TypesenseIndex.connect(url, 'wrong-key', { numRetries: 0 }));
    expect(refused).to.be.instanceOf(TypesenseKeyRefusedError);
    expect(refused.message).to.match(/^Typesense at http:\/\/127\.0\.0\.1:\d+ refused the API key \(401/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await rejection(TypesenseIndex.connect(gone, 'stub-key', { numRetries: 0 }));
    expect(unreachable).to.not.be.instanceOf(TypesenseKeyRefusedError);
    expect(unreachable.message).to.match(/^Typesense at http:\/\/127\.0\.0\.1:\d+ cannot be reached/);
  });

  it('with a search-only key (readOnly) declares collections without a request and searches, and refuses writes', async function () {
    answers.push([404, '{"message":"Not Found"}']);
    const index = await TypesenseIndex.connect(url, 'search-key', { partitions: PARTITIONS, numRetries: 0, readOnly: true });
    await index.ensureCollection(contractSpec);
    expect(calls()).to.deep.equal(['GET /collections/_checkpoints/documents/_access_check']);
    answers.push([200, JSON.stringify({ results: [{ found: 0, hits: [] }] })], [404, '{"message":"Not Found"}']);
    expect((await index.search('lots', TENANT, query('chair'))).found).to.equal(0);
    expect(await index.getCheckpoint('lot-search')).to.equal(0);
    expect(recorded.every((r) => r.apiKey === 'search-key')).to.equal(true);
    await rejection(index.upsert('lots', TENANT, [lot('a')]));
    await rejection(index.setCheckpoint('lot-search', 5));
    await rejection(index.startRebuild('lots', 'lot-search'));
    expect(recorded).to.have.length(3);
  });

  it('creates the collection and alias, imports with action=upsert and reads every line back', async function () {
    const index = await connect();
    answers.push([404, '{"message":"Not Found"}'], [201, '{}'], [200, '{"name":"lots","collection_name":"lots_0"}']);
    await index.ensureCollection(contractSpec);
    expect(calls()).to.deep.equal(['GET /aliases/lots', 'POST /collections', 'PUT /aliases/lots']);
    expect(JSON.parse(recorded[1].body)).to.deep.equal(collectionSchema(contractSpec, 'lots_0'));
    expect(JSON.parse(recorded[2].body)).to.deep.equal({ collection_name: 'lots_0' });
    expect(recorded.every((r) => r.apiKey === 'stub-key')).to.equal(true);

    recorded = [];
    answers.push([200, '{"success":true}\n{"success":false,"error":"Bad field","code":400}', lines]);
    const error = await rejection(index.upsert('lots', TENANT, [lot('a'), lot('b')]));
    expect(error.message).to.match(/1 of 2 documents failed \(tenant-a:b:en: 400 Bad field\)/);
    expect(calls()).to.deep.equal(['POST /collections/lots/documents/import']);
    expect(recorded[0].query).to.include({ action: 'upsert' });
    const ids = recorded[0].body.split('\n').map((line) => JSON.parse(line).id);
    expect(ids).to.deep.equal(['tenant-a:a:en', 'tenant-a:b:en']);
  });

  it('exports the holders of an id before an update, and deletes by filter_by', async function () {
    const index = await connect();
    answers.push([200, '{"name":"lots","collection_name":"lots_0"}'], [200, JSON.stringify(collectionSchema(contractSpec, 'lots_0'))]);
    await index.ensureCollection(contractSpec);
    expect(calls()).to.deep.equal(['GET /aliases/lots', 'GET /collections/lots']);
    recorded = [];
    answers.push(
      [200, '{"id":"tenant-a:1:en","doc_id":"1"}\n{"id":"tenant-a:1:sv","doc_id":"1"}', lines],
      [200, '{"success":true}\n{"success":false,"error":"Could not find a document","code":404}', lines],
      [200, '{"num_deleted":2}'],
    );
    await index.update('lots', TENANT, [{ id: '1', EndTime: T0 }]);
    await index.delete('lots', TENANT, ['1']);
    const filter = `tenant_key:=\`${key(TENANT)}\` && doc_key:=[\`${key('1')}\`]`;
    expect(calls()).to.deep.equal([
      'GET /collections/lots/documents/export',
      'POST /collections/lots/documents/import',
      'DELETE /collections/lots/documents',
    ]);
    expect(recorded[0].query).to.include({ filter_by: filter, include_fields: 'id,doc_id' });
    expect(recorded[1].query).to.include({ action: 'update' });
    expect(recorded[1].body.split('\n').map((line) => JSON.parse(line))).to.deep.equal([
      { id: 'tenant-a:1:en', EndTime: T0 },
      { id: 'tenant-a:1:sv', EndTime: T0 },
    ]);
    expect(recorded[2].query).to.include({ filter_by: filter });
  });

  it('searches through POST /multi_search and throws the error of a failed search', async function () {
    const index = await connect();
    const hit = { document: { doc_id: '9' }, text_match: 3 };
    answers.push([200, JSON.stringify({ results: [{ found: 1, hits: [hit] }] })]);
    const result = await index.search('lots', TENANT, query('chair'));
    expect(result.hits).to.deep.equal([{ id: '9', score: 3 }]);
    expect(calls()).to.deep.equal(['POST /multi_search']);
    const sent = JSON.parse(recorded[0].body).searches[0];
    const params = searchParams(TENANT, query('chair'), { partitionField: 'Language' });
    expect(sent).to.deep.equal({ collection: 'lots', ...params });

    answers.push([200, JSON.stringify({ results: [{ code: 404, error: 'Not found.' }] })]);
    const error = await rejection(index.search('nope', TENANT, query('chair')));
    expect(error).to.be.instanceOf(SearchIndexUnavailableError);
    expect(error.message).to.equal('typesense cannot search nope now: typesense search of nope: 404 Not found.');
  });

  it('reads a missing checkpoint as 0 and upserts checkpoints as documents', async function () {
    const index = await connect();
    answers.push([404, '{"message":"Not Found"}'], [201, '{}'], [201, '{"id":"lot-search","position":5}']);
    expect(await index.getCheckpoint('lot-search')).to.equal(0);
    await index.setCheckpoint('lot-search', 5);
    expect(calls()).to.deep.equal([
      'GET /collections/_checkpoints/documents/lot-search',
      'POST /collections',
      'POST /collections/_checkpoints/documents',
    ]);
    expect(recorded[2].query).to.include({ action: 'upsert' });
    expect(JSON.parse(recorded[2].body)).to.deep.equal({ id: 'lot-search', position: 5 });
  });

  it('brings a collection whose fields differ to the spec: PATCH /collections/<physical> with the fields to add, then looks again', async function () {
    const index = await connect();
    const full = collectionSchema(contractSpec, 'lots_0');
    const lacking = { ...full, fields: full.fields.filter((f) => f.name !== 'Language') };
    answers.push(
      [200, '{"name":"lots","collection_name":"lots_0"}'],
      [200, JSON.stringify(lacking)],
      [200, JSON.stringify({ fields: [full.fields.find((f) => f.name === 'Language')] })],
      [200, JSON.stringify(full)],
    );
    await index.ensureCollection(contractSpec);
    expect(calls()).to.deep.equal(['GET /aliases/lots', 'GET /collections/lots', 'PATCH /collections/lots_0', 'GET /collections/lots']);
    expect(JSON.parse(recorded[2].body)).to.deep.equal({ fields: [{ name: 'Language', type: 'string', facet: true, optional: true }] });
  });

  it('sends an import as JSON lines with its action as the one parameter', async function () {
    const index = await connect();
    answers.push([200, '{"name":"lots","collection_name":"lots_0"}'], [200, JSON.stringify(collectionSchema(contractSpec, 'lots_0'))]);
    await index.ensureCollection(contractSpec);
    recorded = [];
    answers.push([200, '{"success":true}', lines]);
    await index.upsert('lots', TENANT, [lot('a')]);
    expect(calls()).to.deep.equal(['POST /collections/lots/documents/import']);
    expect(recorded[0].query).to.deep.equal({ action: 'upsert' });
    expect(JSON.parse(recorded[0].body)).to.include({ id: 'tenant-a:a:en', doc_id: 'a' });
  });
});

describe('Typesense cluster: the first node serves every request while it answers (read your writes)', function () {
  // Two recording nodes; a follower applies the leader's writes after it, so reads spread over nodes could show a
  // checkpoint from one node and the documents from another, older one.
  const nodes: Array<{ server: Server; url: string; seen: string[] }> = [];

  before(async function () {
    for (let i = 0; i < 2; i++) {
      const seen: string[] = [];
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          seen.push(`${req.method} ${new globalThis.URL(req.url ?? '/', 'http://node').pathname}`);
          const search = req.url?.startsWith('/multi_search');
          res.writeHead(search ? 200 : 404, { 'content-type': 'application/json; charset=utf-8' });
          res.end(search ? JSON.stringify({ results: [{ found: 0, hits: [] }] }) : '{"message":"Not Found"}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      nodes.push({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen });
    }
  });

  after(async function () {
    for (const node of nodes) await new Promise((resolve) => node.server.close(resolve));
  });

  it('reads checkpoints and searches from the first node configured, not round robin', async function () {
    const index = await TypesenseIndex.connect(`${nodes[0].url}, ${nodes[1].url}`, 'stub-key', { partitions: PARTITIONS });
    for (let i = 0; i < 3; i++) {
      expect(await index.getCheckpoint('lot-search')).to.equal(0);
      await index.search('lots', TENANT, query('chair'));
    }
    expect(nodes[0].seen).to.have.length(7);
    expect(nodes[1].seen).to.deep.equal([]);
    await index.close();
  });
});

// ---------------------------------------------------------------------------------------------------------
// Against a real Typesense, when one is configured.

const URL = process.env.TYPESENSE_URL;
const API_KEY = process.env.TYPESENSE_API_KEY ?? '';

if (!URL || !API_KEY) {
  const why = URL ? 'TYPESENSE_API_KEY unset' : 'TYPESENSE_URL unset';
  describe(`search index contract: Typesense against a real server (${why}: skipped)`, function () {
    before(function () {
      this.skip();
    });
    it('runs the search index contract and the language partition specs against a real Typesense', function () {});
  });
} else {
  describe('Typesense at TYPESENSE_URL (a real server)', realServer);
}

function realServer(this: Mocha.Suite): void {
  const url = URL!;
  const run = `ct${process.pid}_${Date.now()}`;
  let n = 0;
  const open = async (): Promise<SearchIndex> => TypesenseIndex.connect(url, API_KEY, { partitions: PARTITIONS, prefix: `${run}_${n++}_` });

  after(async function () {
    // Drop what this run created: its aliases, then its collections.
    const client = new Client({ nodes: [{ url: url.split(',')[0].trim() }], apiKey: API_KEY });
    for (const a of (await client.aliases().retrieve()).aliases) {
      if (a.name.startsWith(run)) await client.aliases(a.name).delete();
    }
    for (const c of await client.collections().retrieve()) {
      if (c.name.startsWith(run)) await client.collections(c.name).delete();
    }
  });

  searchIndexContract('Typesense, partitioned by Language as the service runs it', open);

  describe('one document per id and language', function () {
    let index: SearchIndex;
    const find = (q: string, filter = {}) => index.search('lots', TENANT, query(q, { filter }));
    const ids = async (q: string, filter = {}) => (await find(q, filter)).hits.map((h) => h.id);
    const docs = (...d: SearchDocument[]) => index.upsert('lots', TENANT, d);

    beforeEach(async function () {
      index = await open();
      await index.ensureCollection(contractSpec);
    });
    afterEach(async () => index.close());

    it('keeps one document per id and language', async function () {
      await docs(lot('1', { Title: 'Oak chair', Language: 'en' }), lot('1', { Title: 'Ekstol', Language: 'sv' }));
      expect(await ids('chair')).to.deep.equal(['1']);
      expect(await ids('ekstol', { Language: 'sv' })).to.deep.equal(['1']);
      await docs(lot('1', { Title: 'Pine chair', Language: 'en' }));
      expect(await ids('pine')).to.deep.equal(['1']);
      expect(await ids('ekstol', { Language: 'sv' })).to.deep.equal(['1']);
    });

    it('applies an update without the language to every language, one with it to that language only', async function () {
      await docs(lot('1', { Title: 'Oak chair' }), lot('1', { Title: 'Ekstol', Language: 'sv' }));
      await index.update('lots', TENANT, [{ id: '1', EndTime: T0 + 500 }]);
      expect((await find('chair', { EndTime: T0 + 500 })).found).to.equal(1);
      expect((await find('ekstol', { Language: 'sv', EndTime: T0 + 500 })).found).to.equal(1);
      await index.update('lots', TENANT, [{ id: '1', Language: 'sv', CategoryId: 9 }]);
      expect((await find('ekstol', { Language: 'sv', CategoryId: 9 })).found).to.equal(1);
      expect((await find('chair', { CategoryId: 9 })).found).to.equal(0);
    });

    it('deletes an id from every language', async function () {
      await docs(lot('1', { Title: 'Oak chair' }), lot('1', { Title: 'Ekstol', Language: 'sv' }));
      await index.delete('lots', TENANT, ['1']);
      expect((await find('chair')).found).to.equal(0);
      expect((await find('ekstol', { Language: 'sv' })).found).to.equal(0);
    });

    it('matches hostile filter values literally and keeps tenants apart whose names fold alike', async function () {
      await index.upsert('lots', 'Shop-1', [lot('a', { Title: 'Mahogany desk' })]);
      await index.upsert('lots', 'shop1', [lot('b', { Title: 'Mahogany desk' })]);
      expect((await index.search('lots', 'Shop-1', query('mahogany'))).hits.map((h) => h.id)).to.deep.equal(['a']);
      expect((await index.search('lots', 'shop1', query('mahogany'))).hits.map((h) => h.id)).to.deep.equal(['b']);
      expect((await find('mahogany', { Language: 'en && tenant_key:=x || (y)' })).found).to.equal(0);
    });
  });
}
