/**
 * From text to terms: how documents and queries are split into words and folded, and which index terms a
 * query word may match (itself, as a prefix when it is the last word, with typos when it is long enough).
 */
import type SearchableMap from 'minisearch/SearchableMap';
import { foldText } from '../../../text/fold.ts';

/** MiniSearch's default tokenizer (documents are split by MiniSearch, or Engine.insertAll, with foldText per token). */
export const TOKEN_SPLIT = /[\n\r\p{Z}\p{P}]+/u;

/** A prefix match needs at least this many characters. */
const MIN_PREFIX_LENGTH = 2;
/** Typos: edit distance round(FUZZY_RATIO x length), capped to 1..MAX_FUZZY, for words of MIN_FUZZY_LENGTH+. */
const FUZZY_RATIO = 0.2;
const MIN_FUZZY_LENGTH = 4;
const MAX_FUZZY = 2;
/** Weights of a prefix and a typo candidate against the word itself (MiniSearch's defaults). */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
/** Prefix and typo candidates considered per query term (Typesense: max_candidates). */
const MAX_EXPANSIONS = 50;

export interface QueryTerm {
  term: string;
  prefix: boolean;
  /** Largest edit distance a matching index term may have (0: exact only). */
  fuzzy: number;
}

/** The folded words of a query, in order; empty for a blank or punctuation-only query. */
export function tokenizeQuery(q: string): string[] {
  return q
    .split(TOKEN_SPLIT)
    .map(foldText)
    .filter((t) => t.length > 0);
}

/** Dedupes query words; the last word is also a prefix; words of >= 4 characters tolerate typos. */
export function queryTerms(terms: string[]): QueryTerm[] {
  const out = new Map<string, QueryTerm>();
  terms.forEach((term, i) => {
    const prefix = i === terms.length - 1 && term.length >= MIN_PREFIX_LENGTH;
    const fuzzy = term.length >= MIN_FUZZY_LENGTH ? Math.min(MAX_FUZZY, Math.max(1, Math.round(term.length * FUZZY_RATIO))) : 0;
    const seen = out.get(term);
    if (seen) seen.prefix ||= prefix;
    else out.set(term, { term, prefix, fuzzy });
  });
  return [...out.values()];
}

export interface Expansion<T> {
  term: string;
  /** What the term index holds for it. */
  value: T;
  weight: number;
  /** Its documents (how candidates are ranked when there are too many). */
  df: number;
}

/**
 * A query word's prefix and typo candidates in a term index, not the word itself, with MiniSearch's weights:
 * at most MAX_EXPANSIONS, the most frequent, so "found" may leave out documents that only match a rarer one.
 */
export function expansions<T>(index: SearchableMap<T>, q: QueryTerm, df: (value: T) => number): Array<Expansion<T>> {
  const found = new Map<string, Expansion<T>>();
  const len = q.term.length;
  if (q.prefix) {
    for (const [term, value] of index.atPrefix(q.term)) {
      const distance = term.length - len;
      if (distance === 0) continue;
      found.set(term, { term, value, weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), df: df(value) });
    }
  }
  if (q.fuzzy > 0) {
    for (const [term, [value, distance]] of index.fuzzyGet(q.term, q.fuzzy)) {
      if (distance === 0 || found.has(term)) continue;
      found.set(term, { term, value, weight: (FUZZY_WEIGHT * term.length) / (term.length + distance), df: df(value) });
    }
    // Adjacent transpositions count as one typo (Levenshtein counts two).
    for (let i = 0; i + 1 < len; i++) {
      if (q.term[i] === q.term[i + 1]) continue;
      const t = q.term.slice(0, i) + q.term[i + 1] + q.term[i] + q.term.slice(i + 2);
      if (t === q.term || found.has(t)) continue;
      const value = index.get(t);
      if (value !== undefined) found.set(t, { term: t, value, weight: (FUZZY_WEIGHT * t.length) / (t.length + 1), df: df(value) });
    }
  }
  const out = [...found.values()];
  return out.length > MAX_EXPANSIONS ? out.sort((a, b) => b.df - a.df).slice(0, MAX_EXPANSIONS) : out;
}
