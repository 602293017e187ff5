/**
 * A Typesense search response as the port's SearchResult (docs: API > Search > "Sample response":
 * `found`, `hits[].document`, `hits[].text_match`, `hits[].text_match_info`, `facet_counts[].counts`).
 *
 * Ids: each hit's `doc_id` field (the port's id; the Typesense id also names tenant and partition).
 * Scores: `text_match` is a 64-bit integer that JSON numbers round to 53 bits, which erases its low bits:
 * the field weight and the number of matching fields, i.e. what ranks a title match above a description
 * match (layout in Typesense's collection.cpp, populate_text_match_info). The score is rebuilt instead from
 * `text_match_info` (documented fields): tokens matched, the best field's score without its 6 lowest bits
 * (synonym and token-position parts, unused here), the best field's weight (0..15) and the fields matched
 * (0..7): 4 + 42 + 4 + 3 = 53 bits, exact in a double and in the server's order.
 * Facets: every requested facet, counts high to low, then by value (numerically for integers), as the
 * embedded index orders them.
 */
import type { SearchHit, SearchResult } from '../../ports/search.ts';
import { DOC_ID } from './schema.ts';

export interface TypesenseHit {
  document: Record<string, unknown>;
  text_match?: number;
  text_match_info?: {
    score: string;
    best_field_score: string;
    best_field_weight: number;
    fields_matched: number;
    tokens_matched: number;
  };
}

export interface TypesenseSearchResponse {
  found: number;
  hits?: TypesenseHit[];
  facet_counts?: Array<{ field_name: string; counts: Array<{ value: string; count: number }> }>;
}

export function hitScore(hit: TypesenseHit): number {
  const info = hit.text_match_info;
  if (!info) return hit.text_match ?? 0;
  const tokens = BigInt(Math.min(15, Math.max(0, info.tokens_matched)));
  const field = BigInt(info.best_field_score) & ((1n << 48n) - 1n);
  const high = Number(((tokens << 48n) | field) >> 6n); // 46 bits
  const weight = Math.min(15, Math.max(0, info.best_field_weight));
  const fields = Math.min(7, Math.max(0, info.fields_matched));
  return high * 128 + weight * 8 + fields;
}

const INTEGER = /^-?\d+$/;

function compareValues(a: string, b: string): number {
  if (INTEGER.test(a) && INTEGER.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

export function toSearchResult(response: TypesenseSearchResponse, facetBy: string[]): SearchResult {
  const hits = (response.hits ?? []).map((hit): SearchHit => {
    const id = hit.document[DOC_ID];
    if (typeof id !== 'string') throw new Error(`typesense search: a hit has no ${DOC_ID}`);
    return { id, score: hitScore(hit) };
  });
  const facets: SearchResult['facets'] = {};
  for (const name of facetBy) {
    const counts = response.facet_counts?.find((f) => f.field_name === name)?.counts ?? [];
    facets[name] = counts
      .map((c) => ({ value: String(c.value), count: c.count }))
      .sort((a, b) => b.count - a.count || compareValues(a.value, b.value));
  }
  return { found: response.found, hits, facets };
}

/** What a search that matches nothing answers (no request sent). */
export function emptyResult(facetBy: string[]): SearchResult {
  return { found: 0, hits: [], facets: Object.fromEntries(facetBy.map((f) => [f, []])) };
}
