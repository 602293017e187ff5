/**
 * The lot index alone, without HTTP: opens the index a service wrote under DATA_DIR read-only (as an `api`
 * process does) and runs distinct queries (bench/distinct-queries.ts) the way GET /v1/lots/search asks them
 * (the three text fields, Language and open lots, facets by category and auction, page 1 of 20), one at a
 * time, after a warm-up. Prints one JSON line: documents, open time, heap after opening, per-query latency
 * in ms. The engine is EMBEDDED_SEARCH's (minisearch, the default: DATA_DIR/search; fts5: DATA_DIR/search.sqlite).
 *
 *   npx tsx bench/index-alone.ts DATA_DIR [--engine fts5|minisearch] [--mix distinct|typos] [--queries 2000] [--seed 11]
 */
import path from 'node:path';
import { DISTINCT_MIX, distinctQueries, indexRequest, TYPOS_MIX } from './distinct-queries.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import { SqliteSearchIndex } from '../src/adapters/embedded/sqlite-search/index.ts';
import { LOT_SEARCH, LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';
import type { SearchRequest, SearchResult } from '../src/ports/search.ts';

const dataDir = process.argv[2];
if (!dataDir)
  throw new Error(
    'usage: npx tsx bench/index-alone.ts DATA_DIR [--engine fts5|minisearch] [--mix distinct|typos] [--queries 2000] [--seed 11]',
  );
const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const count = Number(option('queries', '2000'));
const seed = Number(option('seed', '11'));
const engine = option('engine', process.env.EMBEDDED_SEARCH || 'minisearch');
const mix = option('mix', 'distinct') === 'typos' ? TYPOS_MIX : DISTINCT_MIX;
const TENANT = 'demo';

const heapBefore = process.memoryUsage().heapUsed;
const loadStarted = performance.now();
let searchSync: (request: SearchRequest) => SearchResult;
let documents: number;
let close: () => Promise<void>;
if (engine === 'minisearch') {
  const index = await MiniSearchIndex.open({ dir: path.join(dataDir, 'search'), readOnly: true, partitions: LOT_SEARCH_PARTITION });
  searchSync = (r) => index.searchSync(LOT_SEARCH, TENANT, r);
  documents = index.loadStats.documents;
  close = () => index.close();
} else {
  const index = await SqliteSearchIndex.open({
    file: path.join(dataDir, 'search.sqlite'),
    readOnly: true,
    partitions: LOT_SEARCH_PARTITION,
  });
  searchSync = (r) => index.searchSync(LOT_SEARCH, TENANT, r);
  documents = index.documentCount(LOT_SEARCH);
  close = () => index.close();
}
const loadMs = performance.now() - loadStarted;
global.gc?.();
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
const queries = distinctQueries(count + 200, seed, mix);
const now = Date.now();
const run = (q: { lang: string; q: string }) => searchSync(indexRequest(q, now));
for (const q of queries.slice(count)) run(q); // warm-up, other queries
const times: number[] = [];
let found = 0;
const cpuStarted = process.cpuUsage();
for (const q of queries.slice(0, count)) {
  const started = performance.now();
  const result = run(q);
  times.push(performance.now() - started);
  if (result.found > 0) found += 1;
}
const cpu = process.cpuUsage(cpuStarted);
times.sort((a, b) => a - b);
const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
process.stdout.write(
  JSON.stringify({
    engine,
    documents,
    loadMs,
    heapMb,
    rssMb: process.memoryUsage().rss / 1e6,
    queries: times.length,
    withHits: found,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: times[times.length - 1],
    mean: times.reduce((s, t) => s + t, 0) / times.length,
    cpuMsPerQuery: (cpu.user + cpu.system) / 1000 / times.length,
  }) + '\n',
);
await close();
