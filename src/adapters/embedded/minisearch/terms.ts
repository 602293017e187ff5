/**
 * From text to terms: how documents and queries are split into words and folded, and which index terms a
 * query word may match (itself, as a prefix when it is the last word, with typos when it is long enough).
 */
import { foldText } from '../../../text/fold.ts';

/** MiniSearch's default tokenizer (documents are split by MiniSearch, or Engine.insertAll, with foldText per token). */
export const TOKEN_SPLIT = /[\n\r\p{Z}\p{P}]+/u;

/** A prefix match needs at least this many characters. */
const MIN_PREFIX_LENGTH = 2;
/** Typos: edit distance round(FUZZY_RATIO x length), capped to 1..MAX_FUZZY, for words of MIN_FUZZY_LENGTH+. */
const FUZZY_RATIO = 0.2;
const MIN_FUZZY_LENGTH = 4;
const MAX_FUZZY = 2;

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
