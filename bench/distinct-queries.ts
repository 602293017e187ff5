/**
 * Search queries that are all different (after folding), for the bench's uncached search loads: no answer
 * kept by the response cache can serve one of them. Made from the words the generated catalogue is written
 * in (app/seed/vocabulary.ts), so they find lots as a visitor's words would: an object with zero to three of
 * its adjective, material, period, place or condition, in en, sv or de (about 1 query in 12 one term, 1 in 3
 * two terms, 1 in 3 three, 1 in 4 four; a term can be two words, as "18th century"). Two mixes:
 *
 *   DISTINCT_MIX  (the `distinct` load) a fifth drawn for one typo (two letters swapped, or one replaced, in a
 *                 word of 5 letters or more: a query without one stays as it is, so about 17 % carry one), a
 *                 fifth ending in a prefix of 3–5 letters;
 *   TYPOS_MIX     (the `distinct-typos` load) a third carry one typo (a query without a word to mistype is
 *                 drawn again, so the third is exact), a fifth end in a prefix of 3–5 letters (half a word),
 *                 the rest as typed; the terms as above, so a third are two-term queries ("chiar oak",
 *                 "stol mäss").
 *
 * Deterministic for a seed. Pools of different seeds can share queries (short ones above all: there are only
 * 4,680 plain two-term queries): the load keeps one set of the queries asked (bench/loads.ts
 * distinctSearchRequests), so no query is asked twice in a run whichever pool it comes from.
 */
import type { SearchRequest } from '../src/ports/search.ts';
import { adjectives, conditions, materials, objects, periods, places, type Tri } from '../app/seed/vocabulary.ts';
import { prng } from '../app/seed/generator.ts';
import { foldText } from '../src/text/fold.ts';

/** A query as GET /v1/lots/search asks the lot index (queries/lot-search): open lots, facets, page 1 of 20. */
export function indexRequest(q: { lang: string; q: string }, now: number): SearchRequest {
  return {
    q: q.q,
    queryBy: ['Title', 'AttributeText', 'Description'],
    filter: { Language: q.lang, EndTime: { gt: now } },
    facetBy: ['CategoryId', 'AuctionId'],
    page: 1,
    perPage: 20,
  };
}

export interface DistinctQuery {
  lang: 'en' | 'sv' | 'de';
  q: string;
  /** What was done to the words (for the mix's composition; not sent). */
  kind: 'plain' | 'typo' | 'prefix';
  /** The language and the folded words: equal keys are the same query to the service. */
  key: string;
}

export interface DistinctMix {
  /** Share of the queries with a typo. */
  typo: number;
  /** Share of the queries ending in a prefix (the two never meet). */
  prefix: number;
  /**
   * false: each draw's variant is drawn with it, and a typo or prefix that cannot be made leaves the query
   * plain (DISTINCT_MIX). true: each query's variant is drawn first and its words are drawn again until they
   * make a new query of that variant, so the shares hold exactly whatever repeats are skipped.
   */
  exact: boolean;
}

export const DISTINCT_MIX: DistinctMix = { typo: 0.2, prefix: 0.2, exact: false };
export const TYPOS_MIX: DistinctMix = { typo: 1 / 3, prefix: 1 / 5, exact: true };

const LANGS = ['en', 'sv', 'de'] as const;
const EXTRAS: Tri[][] = [adjectives, materials, periods, places, conditions];

/** `count` distinct queries (fewer only if the vocabulary runs out, which it does not below ~500k). */
export function distinctQueries(count: number, seed = 7, mix: DistinctMix = DISTINCT_MIX): DistinctQuery[] {
  const seen = new Set<string>();
  const random = prng(seed).next;
  // The exact mix's variants come from a generator of their own, so they never shift `random`'s draws of the words.
  const variants = prng(seed ^ 0x5bd1e995).next;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const kindOf = (x: number): DistinctQuery['kind'] => (x < mix.typo ? 'typo' : x < mix.typo + mix.prefix ? 'prefix' : 'plain');
  const out: DistinctQuery[] = [];
  let wanted: DistinctQuery['kind'] | null = null;
  let attempts = 0;
  while (out.length < count && attempts++ < count * 50) {
    if (mix.exact) wanted ??= kindOf(variants());
    const lang = pick(LANGS);
    const words: string[] = [pick(objects)[lang]];
    const extras = 1 + Math.floor(random() * 3) - (random() < 0.25 ? 1 : 0);
    const groups = [...EXTRAS].sort(() => random() - 0.5).slice(0, extras);
    for (const group of groups) words.push(pick(group)[lang]);
    words.sort(() => random() - 0.5);
    const plain = words.join(' ');
    const kind: DistinctQuery['kind'] = wanted ?? kindOf(random());
    const q: string = kind === 'typo' ? typo(plain, random) : kind === 'prefix' ? prefixed(plain, random) : plain;
    const made: DistinctQuery['kind'] = q === plain ? 'plain' : kind;
    if (wanted && made !== wanted) continue;
    const key = `${lang}\n${foldText(q).replace(/\s+/g, ' ').trim()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ lang, q, kind: made, key });
    wanted = null;
  }
  return out;
}

/** What a pool holds: shares of typos, prefixes and plain queries, and of 1, 2, 3 and 4+ words. */
export function mixComposition(pool: DistinctQuery[]) {
  const n = Math.max(1, pool.length);
  const share = (f: (q: DistinctQuery) => boolean) => pool.filter(f).length / n;
  const words = (q: DistinctQuery) => q.q.split(' ').length;
  return {
    queries: pool.length,
    typo: share((q) => q.kind === 'typo'),
    prefix: share((q) => q.kind === 'prefix'),
    plain: share((q) => q.kind === 'plain'),
    words: {
      one: share((q) => words(q) === 1),
      two: share((q) => words(q) === 2),
      three: share((q) => words(q) === 3),
      fourOrMore: share((q) => words(q) >= 4),
    },
  };
}
export type MixComposition = ReturnType<typeof mixComposition>;

/** "typo 17 %, half word 19 %; 1/2/3/4+ words 8/31/33/28 %" */
export function showComposition(c: MixComposition): string {
  const pct = (x: number) => Math.round(x * 100);
  return `typo ${pct(c.typo)} %, half word ${pct(c.prefix)} %; 1/2/3/4+ words ${pct(c.words.one)}/${pct(c.words.two)}/${pct(c.words.three)}/${pct(c.words.fourOrMore)} %`;
}

/** One typo in one word of 5 letters or more (letters only): two neighbours swapped, or one letter replaced. */
function typo(q: string, random: () => number): string {
  const words = q.split(' ');
  const long = words.map((w, i) => [w, i] as const).filter(([w]) => w.length >= 5 && /^\p{L}+$/u.test(w));
  if (long.length === 0) return q;
  const [word, index] = long[Math.floor(random() * long.length)];
  const at = 1 + Math.floor(random() * (word.length - 2));
  const chars = [...word];
  if (random() < 0.5) [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]];
  else chars[at] = 'aeiourstln'[Math.floor(random() * 10)];
  words[index] = chars.join('');
  return words.join(' ');
}

/** The last word cut to 3–5 letters (as typed so far). */
function prefixed(q: string, random: () => number): string {
  const words = q.split(' ');
  const last = words[words.length - 1];
  if (last.length <= 3) return q;
  words[words.length - 1] = last.slice(0, Math.min(last.length - 1, 3 + Math.floor(random() * 3)));
  return words.join(' ');
}
