/**
 * The Typesense lot index (src/adapters/typesense). No Typesense server runs on this machine, so:
 * - the translation layer is always specified here: the collection schema, filter_by, the search
 *   parameters and the result mapping, as literal values checked against what Typesense's documentation
 *   (and, for escaping, its source) specifies; hostile filter values are read back the way Typesense's
 *   filter parser reads them (`readFilter` below, after filter.cpp and string_utils.cpp);
 * - the adapter runs over a fake of the few client calls it makes (`FakeTypesense`): checked imports,
 *   partitions, deletes, checkpoints and the order of a rebuild's alias swap; and over one that searches as
 *   the server's typo loop does (`SearchingFakeTypesense`), for the search contract's typo part;
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
import type { ImportAction, TypesenseApi } from '../../src/adapters/typesense/client.ts';
import { TypesenseStatusError } from '../../src/adapters/typesense/client.ts';
import type { ImportItemResult, TypesenseDocument } from '../../src/adapters/typesense/documents.ts';
import { typesenseId } from '../../src/adapters/typesense/documents.ts';
import { filterBy, literal } from '../../src/adapters/typesense/filter.ts';
import { queryWords, searchParams, type TypesenseSearchParams } from '../../src/adapters/typesense/params.ts';
import { hitScore, toSearchResult, type TypesenseSearchResponse } from '../../src/adapters/typesense/results.ts';
import { checkpointSchema, collectionSchema, key, type TypesenseCollectionSchema } from '../../src/adapters/typesense/schema.ts';
import { TypesenseIndex, TypesenseKeyRefusedError } from '../../src/adapters/typesense/typesense-index.ts';
import { contractSpec, lot, query, searchIndexContract, searchRebuildContract, searchTypoContract } from './search.contract.ts';

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

// ---------------------------------------------------------------------------------------------------------
// Typesense's reading of filter_by, after its source (typesense/typesense, src/filter.cpp: the tokenizer
// splits on `&&` and `||` outside backticks and toggles on every backtick; src/string_utils.cpp:
// split_to_values splits a [list] on commas outside backticks, drops the backticks and trims).

function splitValues(list: string): string[] {
  const out: string[] = [];
  let inTick = false;
  let buffer = '';
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const escapedTick = i > 0 && c === '`' && list[i - 1] === '\\';
    if (c === '`') {
      if (escapedTick) buffer += c;
      else if (inTick && buffer.length > 0) inTick = false;
      else inTick = true;
    } else if (c === ',' && !inTick) {
      out.push(buffer.trim());
      buffer = '';
    } else buffer += c;
  }
  if (buffer.length > 0) out.push(buffer.trim());
  return out;
}

interface Condition {
  field: string;
  op: string;
  values: string[];
}

function readFilter(filter: string): Condition[] {
  const parts: string[] = [];
  let inTick = false;
  let current = '';
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i];
    if (c === '`') inTick = !inTick;
    if (!inTick && ((c === '&' && filter[i + 1] === '&') || (c === '|' && filter[i + 1] === '|'))) {
      if (c === '|') throw new Error('an OR outside a literal');
      parts.push(current.trim());
      current = '';
      i++;
      continue;
    }
    if (!inTick && (c === '(' || c === ')')) throw new Error('a parenthesis outside a literal');
    current += c;
  }
  parts.push(current.trim());
  return parts.map((part) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*):(>=|<=|>|<|=)?\s*([\s\S]*)$/.exec(part);
    if (!m) throw new Error(`unreadable condition ${part}`);
    const raw = m[3].trim();
    const values = raw.startsWith('[') && raw.endsWith(']') ? splitValues(raw.slice(1, -1)) : splitValues(raw);
    return { field: m[1], op: m[2] ?? ':', values };
  });
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

// ---------------------------------------------------------------------------------------------------------
// The adapter over a fake of the client calls it makes (TypesenseApi): collections, aliases and documents
// in memory, filters read with readFilter (exact matches only: what the adapter's exports and deletes use).

function status(code: number, message: string): TypesenseStatusError {
  return new TypesenseStatusError(message, code);
}

type Doc = Record<string, unknown>;

class FakeTypesense implements TypesenseApi {
  readonly collections = new Map<string, { schema: TypesenseCollectionSchema; docs: Map<string, Doc> }>();
  readonly aliases = new Map<string, string>();
  readonly calls: string[] = [];
  readonly searches: Array<{ collection: string; params: TypesenseSearchParams }> = [];
  searchResponse: TypesenseSearchResponse = { found: 0, hits: [], facet_counts: [] };
  /** A failure to report for a document, as Typesense reports one line of an import. */
  failImport: (doc: TypesenseDocument) => ImportItemResult | undefined = () => undefined;

  private resolve(name: string) {
    const c = this.collections.get(this.aliases.get(name) ?? name);
    if (!c) throw status(404, `Collection ${name} not found`);
    return c;
  }

  private matching(name: string, filter: string): Array<Record<string, unknown>> {
    const conditions = readFilter(filter);
    return [...this.resolve(name).docs.values()].filter((doc) =>
      conditions.every((c) => c.op === '=' && c.values.includes(String(doc[c.field]))),
    );
  }

  docs(name: string): Array<Record<string, unknown>> {
    return [...this.resolve(name).docs.values()];
  }

  async createCollection(schema: TypesenseCollectionSchema) {
    this.calls.push(`create ${schema.name}`);
    if (this.collections.has(schema.name)) throw status(409, 'already exists');
    this.collections.set(schema.name, { schema, docs: new Map() });
  }

  async deleteCollection(name: string) {
    this.calls.push(`drop ${name}`);
    if (!this.collections.delete(name)) throw status(404, 'not found');
  }

  async retrieveAlias(alias: string) {
    const target = this.aliases.get(alias);
    if (target === undefined) throw status(404, 'not found');
    return target;
  }

  async upsertAlias(alias: string, collection: string) {
    this.calls.push(`alias ${alias} -> ${collection}`);
    this.aliases.set(alias, collection);
  }

  async importDocuments(collection: string, docs: TypesenseDocument[], action: ImportAction) {
    this.calls.push(`import ${action} ${collection} ${docs.length}`);
    const store = this.resolve(collection).docs;
    return docs.map((doc): ImportItemResult => {
      const failure = this.failImport(doc);
      if (failure) return failure;
      const old = store.get(doc.id);
      if (action === 'update') {
        if (!old) return { success: false, code: 404, error: `Could not find a document with id: ${doc.id}` };
        const merged = { ...old, ...doc };
        for (const [k, v] of Object.entries(doc)) if (v === null) delete merged[k];
        store.set(doc.id, merged);
      } else store.set(doc.id, { ...doc });
      return { success: true };
    });
  }

  async exportDocuments(collection: string, filter: string, fields: string[]) {
    this.calls.push(`export ${collection}`);
    return this.matching(collection, filter).map((d) => Object.fromEntries(fields.map((f) => [f, d[f]])));
  }

  async deleteDocuments(collection: string, filter: string) {
    this.calls.push(`delete ${collection}`);
    const gone = this.matching(collection, filter);
    for (const d of gone) this.resolve(collection).docs.delete(String(d.id));
    return gone.length;
  }

  async retrieveDocument(collection: string, id: string) {
    const doc = this.resolve(collection).docs.get(id);
    if (!doc) throw status(404, 'not found');
    return doc;
  }

  async upsertDocument(collection: string, doc: TypesenseDocument) {
    this.calls.push(`put ${collection} ${doc.id}`);
    this.resolve(collection).docs.set(doc.id, { ...doc });
  }

  async search(collection: string, params: TypesenseSearchParams) {
    this.resolve(collection);
    this.searches.push({ collection, params });
    return this.searchResponse;
  }
}

/** Damerau-Levenshtein distance (optimal string alignment: a transposition of neighbours is one typo). */
function typos(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The fake client, searching its documents the way the server's typo loop does for the parameters the
 * adapter sends (equality filters only). Typesense looks for matches with 0 typos, then 1, then up to
 * `num_typos`, and stops as soon as the documents found so far reach `typo_tokens_threshold` (default 1):
 * docs, https://typesense.org/docs/27.1/api/search.html#typo-tolerance-parameters ("if at least N results
 * are not found for a search term, then Typesense will start looking for typo-corrected variations, until at
 * least N results are found, up to a maximum of num_typo number of corrections ... Default: 1"); source,
 * typesense/typesense src/index.cpp, the typo loop: `if(field_num_results >= typo_tokens_threshold) {
 * // if typo threshold is breached, we are done`. A word of fewer than `min_len_1typo` (`min_len_2typo`)
 * characters gets no typo (a second one); the last word also matches as a prefix when `prefix` is set.
 * Hits rank by fewer typos, then by doc_id (the adapter's sort_by tie-break).
 */
class SearchingFakeTypesense extends FakeTypesense {
  override async search(collection: string, params: TypesenseSearchParams) {
    const conditions = readFilter(params.filter_by);
    if (conditions.some((c) => c.op !== '=')) throw new Error('this fake evaluates equality filters only');
    const words = params.q.split(' ');
    const fields = params.query_by.split(',');
    const threshold = params.typo_tokens_threshold ?? 1; // the server's default when the parameter is absent
    const candidates = this.docs(collection).filter((doc) => conditions.every((c) => c.values.includes(String(doc[c.field]))));
    const found = new Map<string, { doc: Record<string, unknown>; cost: number }>();
    for (let allowed = 0; allowed <= params.num_typos; allowed++) {
      for (const doc of candidates) {
        if (found.has(String(doc.id))) continue;
        const tokens = fields.flatMap((f) => queryWords(String(doc[f] ?? '')));
        let cost = 0;
        const matched = words.every((word, i) => {
          const maxTypos = Math.min(allowed, word.length >= params.min_len_2typo ? 2 : word.length >= params.min_len_1typo ? 1 : 0);
          const last = i === words.length - 1 && params.prefix;
          const best = Math.min(...tokens.map((t) => (last && t.startsWith(word) ? 0 : typos(word, t))));
          cost += best;
          return best <= maxTypos;
        });
        if (matched) found.set(String(doc.id), { doc, cost });
      }
      if (found.size >= threshold) break; // the typo threshold is reached: no more typo variants
    }
    const hits = [...found.values()]
      .sort((a, b) => a.cost - b.cost || String(a.doc.doc_id).localeCompare(String(b.doc.doc_id)))
      .map(({ doc, cost }) => ({ document: { doc_id: doc.doc_id }, text_match: 100 - cost }));
    const start = (params.page - 1) * params.per_page;
    return { found: hits.length, hits: hits.slice(start, start + params.per_page), facet_counts: [] };
  }
}

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
    answers.push([200, '{"name":"lots","collection_name":"lots_0"}']);
    await index.ensureCollection(contractSpec);
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
    expect(error.message).to.equal('typesense search of nope: 404 Not found.');
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
