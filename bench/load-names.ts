/** The loads the bench runs on one service start, and their names in the printed table and bench/results.json. */
export type LoadKind = 'ceiling' | 'lots' | 'ceilingGzip' | 'lotsGzip' | 'search' | 'distinct' | 'distinctTypos' | 'watch';
export const LOAD_NAMES: Record<LoadKind, string> = {
  ceiling: 'ceiling: Express sending the stored lot page',
  lots: 'GET /v1/lots page',
  ceilingGzip: 'ceiling: Express sending it gzip-compressed',
  lotsGzip: 'GET /v1/lots page, Accept-Encoding: gzip',
  search: 'GET /v1/lots/search, the 54 queries',
  distinct: 'GET /v1/lots/search, every query distinct',
  distinctTypos: 'GET /v1/lots/search, distinct, ⅓ typos',
  watch: 'PUT /v1/me/watchlist/{lotId}',
};
/** Those the all-cores start runs again. */
export type AllCoresKind = 'ceiling' | 'lots' | 'distinct' | 'watch';
