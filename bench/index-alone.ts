/**
 * The lot index alone, without HTTP: opens a service's snapshot of the embedded index read-only (as an `api`
 * replica does) and runs distinct queries (bench/distinct-queries.ts) the way GET /v1/lots/search asks
 * them (the three text fields, Language and open lots, facets by category and auction, page 1 of 20), one
 * at a time, after a warm-up. Prints one JSON line: documents, load time and per-query latency in ms.
 *
 *   npx tsx bench/index-alone.ts DATA_DIR/search [--queries 2000] [--seed 11]
 */
import { distinctQueries } from './distinct-queries.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import { LOT_SEARCH, LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: npx tsx bench/index-alone.ts DATA_DIR/search [--queries 2000] [--seed 11]');
const option = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const count = option('queries', 2000);
const seed = option('seed', 11);
const TENANT = 'demo';

const loadStarted = performance.now();
const index = await MiniSearchIndex.open({ dir, readOnly: true, partitions: LOT_SEARCH_PARTITION });
const loadMs = performance.now() - loadStarted;
const queries = distinctQueries(count + 200, seed);
const now = Date.now();
const run = (q: { lang: string; q: string }) =>
  index.searchSync(LOT_SEARCH, TENANT, {
    q: q.q,
    queryBy: ['Title', 'AttributeText', 'Description'],
    filter: { Language: q.lang, EndTime: { gt: now } },
    facetBy: ['CategoryId', 'AuctionId'],
    page: 1,
    perPage: 20,
  });
for (const q of queries.slice(count)) run(q); // warm-up, other queries
const times: number[] = [];
let found = 0;
for (const q of queries.slice(0, count)) {
  const started = performance.now();
  const result = run(q);
  times.push(performance.now() - started);
  if (result.found > 0) found += 1;
}
times.sort((a, b) => a - b);
const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
process.stdout.write(
  JSON.stringify({
    documents: index.loadStats.documents,
    loadMs,
    queries: times.length,
    withHits: found,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: times[times.length - 1],
    mean: times.reduce((s, t) => s + t, 0) / times.length,
  }) + '\n',
);
await index.close();
