/**
 * One search request over one collection: checks the request, picks the single partition it reads (the
 * tenant's, and with a partition field the one its equality filter names), matches the query, then in one
 * tight loop per concern filters the matches (compacting them in place), counts facets and keeps the top
 * page x perPage hits.
 */
import type { SearchHit, SearchRequest, SearchResult } from '../../../ports/search.ts';
import { FacetCounts } from './facets.ts';
import { checkSearchRequest, compileFilter, fieldBoost } from './filters.ts';
import { matchAll, type FieldBoost } from './match.ts';
import type { PartitionSet } from './partitions.ts';
import { queryTerms, tokenizeQuery } from './terms.ts';
import { TopK } from './top-k.ts';

export function searchCollection(live: PartitionSet, tenant: string, request: SearchRequest): SearchResult {
  const compiled = live.compiled;
  const { page, perPage } = request;
  const value = checkSearchRequest(compiled, request);
  const facetBy = request.facetBy ?? [];
  const filter = request.filter ?? {};
  const pf = compiled.partitionField;

  const result: SearchResult = { found: 0, hits: [], facets: {} };
  for (const f of facetBy) result.facets[f] = [];
  const partition = live.get(tenant, value);
  const terms = tokenizeQuery(request.q);
  if (!partition || terms.length === 0) return result;

  const engine = partition.engine;
  const preds = compileFilter(compiled, engine, filter, pf);
  const n = request.queryBy.length;
  const boosts: FieldBoost[] = request.queryBy.map((f, i) => ({ fieldId: engine.fieldId(f), boost: fieldBoost(i, n) }));
  const facets = new FacetCounts(compiled, engine, facetBy);
  const byShort = engine.byShort;
  const top = new TopK(page * perPage, (s) => byShort[s]!.id);

  const { count, cands, scores } = matchAll(engine, queryTerms(terms), boosts);
  let found = count;
  for (const pred of preds) {
    let m = 0;
    for (let k = 0; k < found; k++) {
      const s = cands[k];
      if (pred(s)) cands[m++] = s;
    }
    found = m;
  }
  facets.add(cands, found);
  for (let k = 0; k < found; k++) {
    const s = cands[k];
    top.offer(s, scores[s]);
  }
  result.found = found;
  result.hits = top
    .sorted()
    .slice((page - 1) * perPage)
    .map((h): SearchHit => ({ id: h.id, score: h.score }));
  result.facets = facets.result();
  return result;
}
