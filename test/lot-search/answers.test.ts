import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { MiniSearchThread } from '../../src/adapters/embedded/minisearch/thread.ts';
import { SqliteSearchIndex } from '../../src/adapters/embedded/sqlite-search/index.ts';
import type { SearchDocument, SearchIndex, SearchRequest, SearchResult } from '../../src/ports/search.ts';
import { adjectives, conditions, materials, objects, periods, places, type Tri } from '../../app/seed/vocabulary.ts';
import { LOT_SEARCH_PARTITION } from '../../projections/lot-search/index.ts';
import { lotSearchProjection } from '../../projections/lot-search/projection.ts';

// Issue 18 changed the embedded lot index (typed postings) and added an FTS5 engine: the fixed queries below, on
// a generated catalogue, must find what the index found before (answers-before.json, recorded at fea2136).
const LANGS = ['en', 'sv', 'de'] as const;
const NOW = 1_780_000_000_000;

function catalogue(count: number): SearchDocument[] {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const docs: SearchDocument[] = [];
  for (let i = 1; i <= count; i++) {
    const words: Tri[] = [pick(adjectives), pick(materials), pick(objects)];
    const more: Tri[] = [pick(periods), pick(places), pick(materials)];
    const attrs: Tri[] = [pick(conditions), pick(places)];
    const auction = 1 + (i % 7);
    const category = 1 + Math.floor(rand() * 9);
    const endTime = NOW + (i % 5 === 0 ? -3_600_000 : 86_400_000 * (1 + (i % 3)));
    for (const lang of LANGS) {
      docs.push({
        id: String(i),
        Language: lang,
        Title: words.map((w) => w[lang]).join(' '),
        Description: `${more.map((w) => w[lang]).join(', ')}. ${words[2][lang]} ${i % 11 === 0 ? words[1][lang] : ''}`,
        AttributeText: attrs.map((w) => w[lang]).join(' '),
        AuctionId: auction,
        CategoryId: category,
        LotNumber: i,
        EndTime: endTime,
      });
    }
  }
  return docs;
}

export const QUERIES: Array<[lang: string, q: string, filter?: SearchRequest['filter'], closed?: boolean, page?: number]> = [
  ['en', 'chair'],
  ['en', 'oak chair'],
  ['en', 'walnut table'],
  ['en', 'chiar'],
  ['en', 'wlanut'],
  ['en', 'oak cha'],
  ['en', 'mirr'],
  ['en', 'gilded mirror'],
  ['en', 'gilded mirror', {}, true],
  ['en', 'clock', { CategoryId: 3 }],
  ['en', 'vase', { AuctionId: { in: [1, 2, 3] } }],
  ['en', 'lamp', {}, false, 2],
  ['en', 'painting 19th'],
  ['en', 'Painting, 19th-century!'],
  ['en', 'sofa sweden'],
  ['en', 'silver'],
  ['en', 'silvr bowl'],
  ['en', 'ta'],
  ['en', 'xyzzy'],
  ['sv', 'stol'],
  ['sv', 'ek bord'],
  ['sv', 'spegl'],
  ['sv', 'valnöt'],
  ['sv', 'valnot'],
  ['sv', 'må'],
  ['de', 'Stuhl'],
  ['de', 'Eiche Tisch'],
  ['de', 'Nußbaum'],
  ['de', 'Gemälde'],
  ['de', 'gemalde'],
  ['de', 'Spiegle'],
];

function request(lang: string, q: string, filter: SearchRequest['filter'] = {}, closed = false, page = 1): SearchRequest {
  return {
    q,
    queryBy: ['Title', 'AttributeText', 'Description'],
    filter: { Language: lang, ...(closed ? {} : { EndTime: { gt: NOW } }), ...filter },
    facetBy: ['CategoryId', 'AuctionId'],
    page,
    perPage: 20,
  };
}

interface Recorded {
  query: [string, string, SearchRequest['filter'] | null, boolean | null, number | null];
  found: number;
  facets: Record<string, string>;
  top: string;
}

/** An answer in the fixture's shape: facets as "value:count ...", the hits' ids space-separated. */
function recordedShape(r: SearchResult): Omit<Recorded, 'query'> {
  return {
    found: r.found,
    facets: Object.fromEntries(Object.entries(r.facets).map(([f, xs]) => [f, xs.map((x) => `${x.value}:${x.count}`).join(' ')])),
    top: r.hits.map((h) => h.id).join(' '),
  };
}

/**
 * Queries whose page FTS5 orders otherwise (docs/performance.md, issue 18): a two-letter half word has many
 * completions; MiniSearch weighs a shorter completion more, FTS5's BM25 weighs them all as words.
 */
const FTS_ORDER_DIFFERS = new Set([JSON.stringify(['sv', 'må', null, null, null])]);

const recorded = (JSON.parse(readFileSync(new URL('./answers-before.json', import.meta.url), 'utf8')) as { answers: Recorded[] }).answers;

describe('lot search answers before and after issue 18: fixed queries on a generated catalogue', function () {
  const engines: Array<[string, () => Promise<SearchIndex>]> = [
    ['embedded MiniSearch on typed postings (the default)', () => MiniSearchIndex.open({ dir: null, partitions: LOT_SEARCH_PARTITION })],
    ['embedded SQLite FTS5 (EMBEDDED_SEARCH=fts5)', () => SqliteSearchIndex.open({ file: null, partitions: LOT_SEARCH_PARTITION })],
    ['the default in a thread of its own (SEARCH_THREAD)', () => MiniSearchThread.open({ dir: null, partitions: LOT_SEARCH_PARTITION })],
  ];
  const answers = new Map<string, Array<Omit<Recorded, 'query'>>>();

  before(async function () {
    const docs = catalogue(1500);
    for (const [name, open] of engines) {
      const index = await open();
      await index.ensureCollection(lotSearchProjection.collection);
      await index.upsert('lots', 'demo', docs);
      const out = [];
      for (const { query } of recorded) {
        const [lang, q, filter, closed, page] = query;
        out.push(recordedShape(await index.search('lots', 'demo', request(lang, q, filter ?? {}, closed ?? false, page ?? 1))));
      }
      answers.set(name, out);
      await index.close();
    }
  });

  it('asks the queries the fixture recorded', function () {
    expect(recorded.map((r) => JSON.stringify(r.query))).to.deep.equal(
      QUERIES.map(([lang, q, filter, closed, page]) => JSON.stringify([lang, q, filter ?? null, closed ?? null, page ?? null])),
    );
  });

  it('the default engine gives every recorded answer: the same total, facets and hits in the same order', function () {
    const now = answers.get(engines[0][0])!;
    recorded.forEach((r, i) => expect(now[i], JSON.stringify(r.query)).to.deep.equal({ found: r.found, facets: r.facets, top: r.top }));
  });

  it('the default engine in its thread gives every recorded answer as well', function () {
    const now = answers.get(engines[2][0])!;
    recorded.forEach((r, i) => expect(now[i], JSON.stringify(r.query)).to.deep.equal({ found: r.found, facets: r.facets, top: r.top }));
  });

  it('FTS5 finds the same lots with the same facets; its order differs only as docs/performance.md lists', function () {
    const now = answers.get(engines[1][0])!;
    recorded.forEach((r, i) => {
      const name = JSON.stringify(r.query);
      expect(now[i].found, name).to.equal(r.found);
      expect(now[i].facets, name).to.deep.equal(r.facets);
      const before = r.top.split(' ').filter(Boolean);
      const after = now[i].top.split(' ').filter(Boolean);
      // The same page of lots, or, where BM25's variants rank a page's edge differently, most of it; a half
      // word of two letters orders its many completions otherwise (FTS_ORDER_DIFFERS).
      const shared = after.filter((id) => before.includes(id)).length;
      if (process.env.SHOW_ANSWERS)
        console.log(name, shared, before.length, before.join(' ') === after.join(' ') ? 'same order' : `\n  ${r.top}\n  ${now[i].top}`);
      if (!FTS_ORDER_DIFFERS.has(name)) expect(shared, `${name}: ${r.top} | ${now[i].top}`).to.be.at.least(Math.ceil(before.length * 0.7));
      // On a first page, the best hit before is still on it.
      if (before.length > 0 && (r.query[4] ?? 1) === 1) expect(after, name).to.include(before[0]);
    });
  });
});
