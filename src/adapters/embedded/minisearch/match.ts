/**
 * The query runner: which documents of a partition match every query term, and their scores.
 *
 * MiniSearch's own `search()` builds an object per matching document, calls the `filter` callback on each
 * and sorts them all: far too slow for a common word that most documents contain. This runner reads
 * MiniSearch's index itself, with MiniSearch's BM25 formula and term weights and AND semantics: scores
 * accumulate in typed arrays shared by all partitions (a search runs synchronously, start to end), the
 * rarest term goes first, and later terms look candidates up when that is cheaper than scanning their
 * postings. A term expands to itself and its prefix and typo candidates (terms.ts expansions).
 */
import type { Engine, FieldTermData } from './engine.ts';
import { expansions, type QueryTerm } from './terms.ts';

// Scoring constants, the MiniSearch defaults.
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;
/**
 * What looking a candidate up in a posting list (a binary search) costs, counted in postings read in order: a
 * later term scans its lists instead unless the candidates are this many times fewer (docs/performance.md).
 */
const LOOKUP_COST = 4;

export interface FieldBoost {
  fieldId: number;
  boost: number;
}

/**
 * The matches of one query: shortIds in `cands[0..count)`, the score of shortId s in `scores[s]`. Both
 * arrays are shared scratch space, valid until the next call of matchAll.
 */
export interface Matches {
  count: number;
  cands: Int32Array;
  scores: Float64Array;
}

interface Derived {
  data: FieldTermData;
  weight: number;
  /** Postings over all fields (document frequency, roughly). */
  df: number;
}

let scoreBuf = new Float64Array(1024);
let markBuf = new Uint32Array(1024);
let candBuf = new Int32Array(1024);
let stamp = 1;

function ensureScratch(size: number): void {
  if (scoreBuf.length < size) {
    const n = Math.max(size, scoreBuf.length * 2);
    scoreBuf = new Float64Array(n);
    candBuf = new Int32Array(n);
    const marks = new Uint32Array(n);
    marks.set(markBuf);
    markBuf = marks;
  }
}

function takeStamps(count: number): number {
  if (stamp + count >= 0xfffffff0) {
    markBuf.fill(0);
    stamp = 1;
  }
  const base = stamp;
  stamp += count;
  return base;
}

/**
 * Runs an AND query. Scores are MiniSearch's: the sum over query terms and matched index terms of term
 * weight x field boost x BM25(k=1.2, b=0.7, d=0.5).
 */
export function matchAll(engine: Engine, terms: QueryTerm[], boosts: FieldBoost[]): Matches {
  return { count: run(engine, terms, boosts), cands: candBuf, scores: scoreBuf };
}

/** Expands a query term into the index terms it matches: the term itself, then its candidates. */
function derive(engine: Engine, q: QueryTerm): Derived[] {
  const index = engine.termIndex;
  const df = (data: FieldTermData) => {
    let n = 0;
    for (const m of data.values()) n += m.size;
    return n;
  };
  const derived: Derived[] = expansions(index, q, df).map((e) => ({ data: e.value, weight: e.weight, df: e.df }));
  const exact = index.get(q.term);
  if (exact) derived.unshift({ data: exact, weight: 1, df: df(exact) });
  return derived;
}

/** Leaves the matching shortIds in candBuf[0..n) and their scores in scoreBuf[shortId]; returns n. */
function run(engine: Engine, terms: QueryTerm[], boosts: FieldBoost[]): number {
  if (terms.length === 0 || engine.documentCount === 0) return 0;
  const expanded: Array<{ derived: Derived[]; cost: number }> = [];
  for (const t of terms) {
    const derived = derive(engine, t);
    let cost = 0;
    for (const d of derived) for (const b of boosts) cost += d.data.get(b.fieldId)?.size ?? 0;
    if (cost === 0) return 0; // AND: one term matches nothing
    expanded.push({ derived, cost });
  }
  expanded.sort((a, b) => a.cost - b.cost); // rarest first: the candidate set only shrinks

  ensureScratch(engine.nextShortId + 1);
  const scores = scoreBuf;
  const marks = markBuf;
  const cands = candBuf;
  const byShort = engine.byShort;
  const avgFieldLength = engine.avgFieldLength;
  const total = engine.documentCount;
  const base = takeStamps(expanded.length);
  let n = 0;

  for (let i = 0; i < expanded.length; i++) {
    const { derived, cost } = expanded[i];
    const cur = base + i;
    const prev = cur - 1;
    const lookups = n * derived.length * boosts.length * LOOKUP_COST;
    for (const d of derived) {
      for (const b of boosts) {
        const freqs = d.data.get(b.fieldId);
        if (!freqs || freqs.size === 0) continue;
        const df = freqs.size;
        const w = d.weight * b.boost * Math.log(1 + (total - df + 0.5) / (df + 0.5));
        const c1 = BM25_K * (1 - BM25_B);
        const c2 = (BM25_K * BM25_B) / (avgFieldLength[b.fieldId] || 1);
        const lens = engine.lengths[b.fieldId];
        // The postings' pairs read in place (shortId, frequency), in shortId order.
        const pairs = freqs.pairs;
        const end = 2 * freqs.size;
        if (i === 0) {
          for (let j = 0; j < end; j += 2) {
            const s = pairs[j];
            if (byShort[s] === undefined) continue;
            const tf = pairs[j + 1];
            if (marks[s] !== cur) {
              marks[s] = cur;
              scores[s] = 0;
              cands[n++] = s;
            }
            scores[s] += w * (BM25_D + (tf * (BM25_K + 1)) / (tf + c1 + c2 * lens[s]));
          }
        } else if (lookups < cost) {
          for (let k = 0; k < n; k++) {
            const s = cands[k];
            const tf = freqs.get(s);
            if (tf === undefined) continue;
            marks[s] = cur;
            scores[s] += w * (BM25_D + (tf * (BM25_K + 1)) / (tf + c1 + c2 * lens[s]));
          }
        } else {
          for (let j = 0; j < end; j += 2) {
            const s = pairs[j];
            const m = marks[s];
            if (m !== prev && m !== cur) continue;
            const tf = pairs[j + 1];
            marks[s] = cur;
            scores[s] += w * (BM25_D + (tf * (BM25_K + 1)) / (tf + c1 + c2 * lens[s]));
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
