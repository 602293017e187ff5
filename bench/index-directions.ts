/**
 * The two directions for the lot index, measured on the same distinct queries (docs/performance.md "The two
 * directions, measured before choosing"): (1) MiniSearch as the service runs it, (2) the same matching on compact
 * structures (a probe: each partition's postings copied into typed arrays in bulk, a radix tree of the
 * vocabulary only, the runner of ../src/adapters/embedded/minisearch/match.ts on them), (3) SQLite FTS5
 * (src/adapters/embedded/sqlite-search, the whole search). Needs a DATA_DIR where both engines' indexes were
 * built (`EMBEDDED_SEARCH=minisearch npm run rebuild -- lot-search`, then `npm run rebuild -- lot-search`).
 * Prints one JSON line: per engine the match time (ms per query), the heap or off-heap bytes it holds, and
 * for the probe whether its matches equal MiniSearch's.
 *
 *   node --expose-gc --import tsx bench/index-directions.ts DATA_DIR [--queries 1000] [--mix distinct|typos]
 */
import path from 'node:path';
import SearchableMap from 'minisearch/SearchableMap';
import { DISTINCT_MIX, distinctQueries, indexRequest, TYPOS_MIX } from './distinct-queries.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import type { Engine } from '../src/adapters/embedded/minisearch/engine.ts';
import { matchAll, type FieldBoost } from '../src/adapters/embedded/minisearch/match.ts';
import type { PartitionSet } from '../src/adapters/embedded/minisearch/partitions.ts';
import { queryTerms, tokenizeQuery, type QueryTerm } from '../src/adapters/embedded/minisearch/terms.ts';
import { SqliteSearchIndex } from '../src/adapters/embedded/sqlite-search/index.ts';
import { LOT_SEARCH, LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';

const dataDir = process.argv[2];
if (!dataDir)
  throw new Error('usage: node --expose-gc --import tsx bench/index-directions.ts DATA_DIR [--queries 1000] [--mix distinct|typos]');
const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const count = Number(option('queries', '1000'));
const mix = option('mix', 'distinct') === 'typos' ? TYPOS_MIX : DISTINCT_MIX;
const gc = () => (global.gc ? global.gc() : undefined);
const heap = () => (gc(), process.memoryUsage().heapUsed);

/** One partition's postings in typed arrays: term t, field f -> docs[offsets[t*F+f] .. offsets[t*F+f+1]). */
interface Compact {
  vocabulary: SearchableMap<number>;
  fields: number;
  offsets: Uint32Array;
  docs: Int32Array;
  tfs: Uint16Array;
  bytes: number;
}

function compact(engine: Engine): Compact {
  const vocabulary = new SearchableMap<number>();
  const F = engine.fieldNames.length;
  let total = 0;
  let terms = 0;
  for (const [, data] of engine.termIndex) {
    for (const m of data.values()) total += m.size;
    terms++;
  }
  const offsets = new Uint32Array(terms * F + 1);
  const docs = new Int32Array(total);
  const tfs = new Uint16Array(total);
  let t = 0;
  let at = 0;
  for (const [term, data] of engine.termIndex) {
    vocabulary.set(term, t);
    for (let f = 0; f < F; f++) {
      offsets[t * F + f] = at;
      const m = data.get(f);
      if (!m) continue;
      const ids = [...m.keys()].sort((a, b) => a - b);
      for (const s of ids) {
        docs[at] = s;
        tfs[at] = m.get(s)!;
        at++;
      }
    }
    t++;
  }
  offsets[terms * F] = at;
  return { vocabulary, fields: F, offsets, docs, tfs, bytes: offsets.byteLength + docs.byteLength + tfs.byteLength };
}

// The runner of match.ts on the compact postings (the same BM25, weights, expansion and AND).
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;
let scores = new Float64Array(1 << 20);
let marks = new Uint32Array(1 << 20);
let cands = new Int32Array(1 << 20);
let stamp = 1;

function expand(c: Compact, q: QueryTerm): Array<{ t: number; weight: number; df: number }> {
  const found = new Map<string, { t: number; weight: number; df: number }>();
  const df = (t: number) => c.offsets[t * c.fields + c.fields] - c.offsets[t * c.fields];
  const len = q.term.length;
  if (q.prefix) {
    for (const [term, t] of c.vocabulary.atPrefix(q.term)) {
      const distance = term.length - len;
      if (distance !== 0) found.set(term, { t, weight: (0.375 * term.length) / (term.length + 0.3 * distance), df: df(t) });
    }
  }
  if (q.fuzzy > 0) {
    for (const [term, [t, distance]] of c.vocabulary.fuzzyGet(q.term, q.fuzzy)) {
      if (distance !== 0 && !found.has(term)) found.set(term, { t, weight: (0.45 * term.length) / (term.length + distance), df: df(t) });
    }
    for (let i = 0; i + 1 < len; i++) {
      if (q.term[i] === q.term[i + 1]) continue;
      const x = q.term.slice(0, i) + q.term[i + 1] + q.term[i] + q.term.slice(i + 2);
      const t = c.vocabulary.get(x);
      if (x !== q.term && !found.has(x) && t !== undefined) found.set(x, { t, weight: (0.45 * x.length) / (x.length + 1), df: df(t) });
    }
  }
  let out = [...found.values()];
  if (out.length > 50) out = out.sort((a, b) => b.df - a.df).slice(0, 50);
  const exact = c.vocabulary.get(q.term);
  if (exact !== undefined) out.unshift({ t: exact, weight: 1, df: df(exact) });
  return out;
}

function find(docs: Int32Array, lo: number, hi: number, s: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function compactMatch(engine: Engine, c: Compact, terms: QueryTerm[], boosts: FieldBoost[]): number {
  if (scores.length <= engine.nextShortId) {
    scores = new Float64Array(engine.nextShortId * 2);
    marks = new Uint32Array(engine.nextShortId * 2);
    cands = new Int32Array(engine.nextShortId * 2);
  }
  const F = c.fields;
  const expanded = terms.map((q) => {
    const derived = expand(c, q);
    let cost = 0;
    for (const d of derived) for (const b of boosts) cost += c.offsets[d.t * F + b.fieldId + 1] - c.offsets[d.t * F + b.fieldId];
    return { derived, cost };
  });
  if (expanded.some((e) => e.cost === 0)) return 0;
  expanded.sort((a, b) => a.cost - b.cost);
  const total = engine.documentCount;
  const byShort = engine.byShort;
  const base = stamp;
  stamp += expanded.length;
  let n = 0;
  for (let i = 0; i < expanded.length; i++) {
    const { derived, cost } = expanded[i];
    const cur = base + i;
    const prev = cur - 1;
    const lookups = n * derived.length * boosts.length;
    for (const d of derived) {
      for (const b of boosts) {
        const from = c.offsets[d.t * F + b.fieldId];
        const to = c.offsets[d.t * F + b.fieldId + 1];
        const df = to - from;
        if (df === 0) continue;
        const w = d.weight * b.boost * Math.log(1 + (total - df + 0.5) / (df + 0.5));
        const c1 = BM25_K * (1 - BM25_B);
        const c2 = (BM25_K * BM25_B) / (engine.avgFieldLength[b.fieldId] || 1);
        const lens = engine.lengths[b.fieldId];
        const score = (s: number, tf: number) => w * (BM25_D + (tf * (BM25_K + 1)) / (tf + c1 + c2 * lens[s]));
        if (i === 0) {
          for (let k = from; k < to; k++) {
            const s = c.docs[k];
            if (byShort[s] === undefined) continue;
            if (marks[s] !== cur) {
              marks[s] = cur;
              scores[s] = 0;
              cands[n++] = s;
            }
            scores[s] += score(s, c.tfs[k]);
          }
        } else if (lookups < cost) {
          for (let k = 0; k < n; k++) {
            const s = cands[k];
            const j = find(c.docs, from, to, s);
            if (j >= to || c.docs[j] !== s) continue;
            marks[s] = cur;
            scores[s] += score(s, c.tfs[j]);
          }
        } else {
          for (let k = from; k < to; k++) {
            const s = c.docs[k];
            const m = marks[s];
            if (m !== prev && m !== cur) continue;
            marks[s] = cur;
            scores[s] += score(s, c.tfs[k]);
          }
        }
      }
    }
    if (i > 0) {
      let m = 0;
      for (let k = 0; k < n; k++) if (marks[cands[k]] === cur) cands[m++] = cands[k];
      n = m;
    }
    if (n === 0) return 0;
  }
  return n;
}

// ---- load both, measure
const heap0 = heap();
const mini = await MiniSearchIndex.open({ dir: path.join(dataDir, 'search'), readOnly: true, partitions: LOT_SEARCH_PARTITION });
const miniHeap = heap() - heap0;
const live = (mini as unknown as { collections: Map<string, { live: PartitionSet }> }).collections.get(LOT_SEARCH)!.live;
const engines = new Map<string, Engine>();
for (const p of live.all()) if (p.tenant === 'demo') engines.set(p.value, p.engine);
const compactStarted = performance.now();
const compacts = new Map([...engines].map(([lang, e]) => [lang, compact(e)]));
const compactMs = performance.now() - compactStarted;
const compactBytes = [...compacts.values()].reduce((s, c) => s + c.bytes, 0);
let vocabularyHeap: number;
{
  const before = heap();
  const copies = [...engines.values()].map((e) => {
    const v = new SearchableMap<number>();
    let t = 0;
    for (const [term] of e.termIndex) v.set(term, t++);
    return v;
  });
  vocabularyHeap = heap() - before;
  copies.length = 0;
}
const fts = await SqliteSearchIndex.open({ file: path.join(dataDir, 'search.sqlite'), readOnly: true, partitions: LOT_SEARCH_PARTITION });

const boosts = (e: Engine): FieldBoost[] =>
  ['Title', 'AttributeText', 'Description'].map((f, i) => ({ fieldId: e.fieldId(f), boost: 1 + (2 * (2 - i)) / 2 }));
const queries = distinctQueries(count + 200, 23, mix);
const now = Date.now();
const timings = { miniSearch: [] as number[], compact: [] as number[], fts5: [] as number[], miniSearchWhole: [] as number[] };
let equal = 0;
for (const [k, q] of queries.entries()) {
  const e = engines.get(q.lang)!;
  const terms = queryTerms(tokenizeQuery(q.q));
  let t = performance.now();
  const a = matchAll(e, terms, boosts(e));
  const aIds = Array.from(a.cands.subarray(0, a.count)).sort((x, y) => x - y);
  const aScores = aIds.map((s) => a.scores[s]);
  const t1 = performance.now() - t;
  t = performance.now();
  const n = compactMatch(e, compacts.get(q.lang)!, terms, boosts(e));
  const t2 = performance.now() - t;
  const bIds = Array.from(cands.subarray(0, n)).sort((x, y) => x - y);
  const request = indexRequest(q, now);

  t = performance.now();
  fts.searchSync(LOT_SEARCH, 'demo', request);
  const t3 = performance.now() - t;
  t = performance.now();
  mini.searchSync(LOT_SEARCH, 'demo', request);
  const t4 = performance.now() - t;
  if (k < 200) continue; // warm-up
  timings.miniSearch.push(t1);
  timings.compact.push(t2);
  timings.fts5.push(t3);
  timings.miniSearchWhole.push(t4);
  const same = aIds.length === bIds.length && aIds.every((s, i) => s === bIds[i] && Math.abs(scores[s] - aScores[i]) < 1e-9);
  if (same) equal++;
}
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { mean: s.reduce((a, b) => a + b, 0) / s.length, p50: s[Math.floor(s.length / 2)], p99: s[Math.floor(s.length * 0.99)] };
};
process.stdout.write(
  JSON.stringify({
    queries: count,
    mix: mix === TYPOS_MIX ? 'typos' : 'distinct',
    miniSearch: { heapMb: miniHeap / 1e6, match: stat(timings.miniSearch), whole: stat(timings.miniSearchWhole) },
    compact: {
      buildMs: compactMs,
      offHeapMb: compactBytes / 1e6,
      vocabularyHeapMb: vocabularyHeap / 1e6,
      match: stat(timings.compact),
      sameMatchesAndScores: equal / count,
    },
    fts5: { whole: stat(timings.fts5) },
  }) + '\n',
);
await mini.close();
await fts.close();
