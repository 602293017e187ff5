/**
 * The probes before the loads (these answers must be right for the loads to mean anything): the lot page (stored for
 * the ceiling), the 54 search queries, and a few hundred queries of each distinct-search mix kept out of the loads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DISTINCT_MIX, distinctQueries, TYPOS_MIX, type DistinctQuery } from '../distinct-queries.ts';
import { SEARCH_QUERIES, searchPath } from '../loads.ts';
import { runs } from '../options.ts';
import { BENCH_DIR, say } from '../processes.ts';
import type { ServiceClient } from '../service-client.ts';
import type { FirstService } from './first-start.ts';

/** Distinct queries for the uncached search load (more than rounds × seconds × any rate it reaches). */
const DISTINCT_POOL = 300_000;
/** Of which these are kept out of the load, for the probe that they find lots. */
export const DISTINCT_PROBE = 300;
/** The same for the second mix (its own seed). */
const TYPOS_POOL = 200_000;
const TYPOS_SEED = 19;

export interface ProbeCheck {
  queries: number;
  withHits: number;
  meanFound: number;
}

export interface Probes {
  lotPageCheck: { status: number; items: number; totalCount: number; bytes: number };
  /** The lot page's bytes, which the ceiling sends. */
  storedPage: string;
  searchCheck: Record<string, ProbeCheck>;
  pool: DistinctQuery[];
  typosPool: DistinctQuery[];
  /** Every distinct query asked in the run (probes, both mixes, both service starts): none is asked twice. */
  askedInRun: Set<string>;
  distinctCheck: ProbeCheck;
  typosCheck: ProbeCheck | null;
}

export async function runProbes({ client, anon }: FirstService): Promise<Probes> {
  const page = await client.call('GET', '/v1/lots?AuctionId=1&pageSize=20&Page=50', { Authorization: `Bearer ${anon}` });
  const lotPageCheck = {
    status: page.status,
    items: page.body?.Items?.length ?? 0,
    totalCount: page.body?.TotalCount ?? 0,
    bytes: Buffer.byteLength(page.text),
  };
  const storedPage = path.join(BENCH_DIR, 'lot-page.json');
  fs.writeFileSync(storedPage, page.text);
  const searchCheck = await searchProbe(client, anon);
  const pool = distinctQueries(DISTINCT_POOL, 7, DISTINCT_MIX);
  const typosPool = runs.distinctTypos ? distinctQueries(TYPOS_POOL, TYPOS_SEED, TYPOS_MIX) : [];
  const askedInRun = new Set<string>();
  const probe = (probePool: DistinctQuery[], label: string) => distinctProbe(client, anon, askedInRun, probePool, label);
  const distinctCheck = await probe(pool.slice(pool.length - DISTINCT_PROBE), 'distinct search');
  const typosCheck = typosPool.length ? await probe(typosPool.slice(typosPool.length - DISTINCT_PROBE), 'distinct-typos search') : null;
  say(
    `probes: lot page ${JSON.stringify(lotPageCheck)}; search ${JSON.stringify(searchCheck)}; distinct search ${JSON.stringify(distinctCheck)}` +
      (typosCheck ? `; distinct-typos search ${JSON.stringify(typosCheck)}` : ''),
  );
  return { lotPageCheck, storedPage, searchCheck, pool, typosPool, askedInRun, distinctCheck, typosCheck };
}

/** The 54 search queries, per language: how many find lots, and how many they find on average. */
async function searchProbe(client: ServiceClient, anon: string): Promise<Record<string, ProbeCheck>> {
  const searchCheck: Record<string, ProbeCheck> = {};
  for (const s of SEARCH_QUERIES) {
    const r = await client.call('GET', searchPath(s), { Authorization: `Bearer ${anon}` });
    if (r.status !== 200) throw new Error(`search probe ${searchPath(s)}: ${r.status} ${JSON.stringify(r.body)}`);
    const c = (searchCheck[s.lang] ??= { queries: 0, withHits: 0, meanFound: 0 });
    c.queries += 1;
    c.withHits += r.body.TotalCount > 0 ? 1 : 0;
    c.meanFound += r.body.TotalCount / (SEARCH_QUERIES.length / 3);
  }
  for (const c of Object.values(searchCheck)) c.meanFound = Math.round(c.meanFound);
  return searchCheck;
}

async function distinctProbe(
  client: ServiceClient,
  anon: string,
  askedInRun: Set<string>,
  probePool: DistinctQuery[],
  label: string,
): Promise<ProbeCheck> {
  const check = { queries: probePool.length, withHits: 0, meanFound: 0 };
  for (const q of probePool) {
    askedInRun.add(q.key);
    const r = await client.call('GET', searchPath(q), { Authorization: `Bearer ${anon}` });
    if (r.status !== 200) throw new Error(`${label} probe ${searchPath(q)}: ${r.status} ${JSON.stringify(r.body)}`);
    check.withHits += r.body.TotalCount > 0 ? 1 : 0;
    check.meanFound += r.body.TotalCount / probePool.length;
  }
  check.meanFound = Math.round(check.meanFound);
  return check;
}
