/**
 * A port SearchRequest as Typesense search parameters (docs: API > Search > "Search parameters"). The
 * matching rules follow the port's contract and the embedded index:
 * - every word must match: `drop_tokens_threshold: 0` ("set to 0 to disable dropping of words");
 * - the last word also matches as a prefix when it has 2 or more characters: `prefix` ("indicates that the
 *   last word in the query should be treated as a prefix"), true only then;
 * - typos: 1 from 4 characters, 2 from 8 (`num_typos: 2`, `min_len_1typo: 4`, `min_len_2typo: 8`); the
 *   distance is Damerau-Levenshtein, so "chiar" is one typo from "chair". Typesense looks for typo
 *   corrections only while fewer than `typo_tokens_threshold` documents match ("until at least N results are
 *   found"; default 1: one exact "chair" hides "chiar"); the embedded index always adds them, so the threshold
 *   is one no search reaches (TYPO_TOKENS_THRESHOLD);
 * - 50 prefix/typo candidates per word (`max_candidates`), as the embedded index expands;
 * - no splitting or joining of words ("basket ball" for "basketball"): `split_join_tokens: 'off'`;
 * - case and accents: the query is folded with the service's one rule (src/text/fold.ts), as the
 *   searchable fields are before they are written (documents.ts); Typesense's own folding ("diacritics
 *   are automatically removed" for fields without a `locale`) then has nothing left to change;
 * - fields weigh by their order in queryBy: `query_by_weights` 15, 14, ... ("Values can be between 0 and
 *   127"; the server maps them to 0..15 and uses them, in the default `max_score` mode, to break ties
 *   between equal text-match scores, which is how a title match ranks above a description match);
 * - ties on the text match go by the port's id: `sort_by: _text_match:desc,doc_id:asc`, so pages are
 *   stable and disjoint;
 * - the words are split here on spaces and ASCII punctuation, the characters the collection splits on
 *   (schema.ts TOKEN_SEPARATORS). That also removes Typesense's query operators: `"` (phrase), a leading
 *   `-` (exclusion) and `*` (match all). A query without a letter or digit left matches nothing.
 * Facets: `facet_by`, counted over every hit, with `max_facet_values` 10,000 (the `maxFacetValues` option)
 * so that every value comes back, as the port expects (Typesense's default is 10).
 * Paging: `page` (1-based) and `per_page` (at most 250: "Only up to 250 hits can be fetched per page").
 */
import type { SearchRequest } from '../../ports/search.ts';
import { foldText } from '../../text/fold.ts';
import { filterBy } from './filter.ts';
import { checkFieldName, DOC_ID, RESERVED_FIELDS, TOKEN_SEPARATORS } from './schema.ts';

export const MAX_PER_PAGE = 250;
export const DEFAULT_MAX_FACET_VALUES = 10_000;
const MAX_WEIGHT = 15;
/** More documents than any search matches: typo variants are always looked for (the server takes a uint32). */
export const TYPO_TOKENS_THRESHOLD = 2 ** 31 - 1;

export interface TypesenseSearchParams {
  q: string;
  query_by: string;
  query_by_weights: string;
  prefix: boolean;
  num_typos: number;
  typo_tokens_threshold: number;
  min_len_1typo: number;
  min_len_2typo: number;
  drop_tokens_threshold: number;
  max_candidates: number;
  split_join_tokens: 'off';
  filter_by: string;
  sort_by: string;
  facet_by?: string;
  max_facet_values?: number;
  page: number;
  per_page: number;
  include_fields: string;
  highlight_fields: 'none';
  enable_highlight_v1: false;
}

// Inside a character class only these need a backslash (and others may not have one under the u flag).
const escapeClass = (chars: readonly string[]) => chars.map((c) => (/[\\\][^-]/.test(c) ? `\\${c}` : c)).join('');
const WORD_SPLIT = new RegExp(`[\\s${escapeClass(TOKEN_SEPARATORS)}]+`, 'u');
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The query's words, folded, as Typesense will see them (only words with a letter or digit). */
export function queryWords(q: string): string[] {
  return foldText(q)
    .split(WORD_SPLIT)
    .filter((w) => LETTER_OR_DIGIT.test(w));
}

function fieldList(names: string[], what: string): string {
  for (const n of names) {
    checkFieldName(n);
    if (RESERVED_FIELDS.has(n)) throw new Error(`typesense search: ${n} cannot be used in ${what}`);
  }
  return names.join(',');
}

export interface SearchParamsOptions {
  /** The field whose equality filter names the partition (the adapter's `partitions` option). */
  partitionField?: string | null;
  maxFacetValues?: number;
}

/**
 * The parameters of one search, or null when the request matches nothing without asking the server (a
 * query with no words, or an empty `in` list). Invalid requests throw before anything is sent.
 */
export function searchParams(tenant: string, request: SearchRequest, options: SearchParamsOptions = {}): TypesenseSearchParams | null {
  const { page, perPage, queryBy } = request;
  if (!Number.isInteger(page) || page < 1) throw new Error('typesense search: page must be an integer >= 1');
  if (!Number.isInteger(perPage) || perPage < 0 || perPage > MAX_PER_PAGE) {
    throw new Error(`typesense search: perPage must be an integer from 0 to ${MAX_PER_PAGE}`);
  }
  if (queryBy.length === 0) throw new Error('typesense search: queryBy needs at least one field');
  const pf = options.partitionField ?? null;
  if (pf !== null) {
    const v = request.filter?.[pf];
    if (v === undefined || v === null || typeof v === 'object') {
      throw new Error(`typesense search: a search of this collection must filter ${pf} by equality`);
    }
  }
  const query_by = fieldList(queryBy, 'queryBy');
  const facetBy = request.facetBy ?? [];
  const facet_by = fieldList(facetBy, 'facetBy');
  const filter_by = filterBy(tenant, request.filter);
  const words = queryWords(request.q);
  if (filter_by === null || words.length === 0) return null;
  return {
    q: words.join(' '),
    query_by,
    query_by_weights: queryBy.map((_, i) => Math.max(1, MAX_WEIGHT - i)).join(','),
    prefix: words[words.length - 1].length >= 2,
    num_typos: 2,
    typo_tokens_threshold: TYPO_TOKENS_THRESHOLD,
    min_len_1typo: 4,
    min_len_2typo: 8,
    drop_tokens_threshold: 0,
    max_candidates: 50,
    split_join_tokens: 'off',
    filter_by,
    sort_by: `_text_match:desc,${DOC_ID}:asc`,
    ...(facetBy.length > 0 ? { facet_by, max_facet_values: options.maxFacetValues ?? DEFAULT_MAX_FACET_VALUES } : {}),
    page,
    per_page: perPage,
    include_fields: DOC_ID,
    highlight_fields: 'none',
    enable_highlight_v1: false,
  };
}
