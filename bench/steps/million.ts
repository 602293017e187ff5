/**
 * The step `million`: the same catalogue with about 1M events (13 bids a lot of a started auction) in .bench/million:
 * its first build, restarts, and memory after a short lot page and distinct search load.
 */
import path from 'node:path';
import { API_KEY, ensureDataset, headPosition, saveInfo, type Dataset, type DatasetInfo } from '../dataset.ts';
import { distinctQueries } from '../distinct-queries.ts';
import { LOAD_NAMES } from '../load-names.ts';
import { distinctSearchRequests, load, lotPageRequests, type LoadResult } from '../loads.ts';
import { loadOptions, opts } from '../options.ts';
import { BENCH_DIR, memoryOf, say, stopProcess, waitFor200, type Memory, type Proc } from '../processes.ts';
import { ServiceClient } from '../service-client.ts';
import { restart, startService, type RestartResult } from '../service-process.ts';
import { fmt } from '../stats.ts';

export interface MillionResult {
  info: DatasetInfo;
  events: number;
  restarts: RestartResult[];
  afterLoads: Memory | null;
  lots: LoadResult | null;
  search: LoadResult | null;
}

/** The 1M-event dataset (also the analysts step's). */
export const millionDataset = (): Dataset => ({
  dir: path.join(BENCH_DIR, 'million'),
  dataDir: path.join(BENCH_DIR, 'million', 'data'),
  lots: opts.lots,
  bidsPerLot: 13,
});

export async function millionStep(): Promise<MillionResult> {
  const big = millionDataset();
  const made = await ensureDataset(big, opts.fresh);
  const bigEvents = headPosition(big);
  if (made.created || !made.info.firstBuild) {
    say(`million: first build of ${fmt(bigEvents)} events`);
    const proc = startService('service-million', big);
    const ms = await waitFor200(proc, `http://127.0.0.1:${opts.port}/readyz`, 30 * 60_000);
    made.info.firstBuild = { seconds: ms / 1000, events: bigEvents, eventsPerSecond: bigEvents / (ms / 1000) };
    saveInfo(big, made.info);
    say(`  built in ${(ms / 1000).toFixed(1)} s`);
    await stopProcess(proc);
  }
  const result: MillionResult = { info: made.info, events: bigEvents, restarts: [], afterLoads: null, lots: null, search: null };
  for (let round = 1; round <= opts.rounds; round++) {
    say(`million: restart (round ${round})`);
    const r = await restart('service-million', big);
    result.restarts.push(r);
    if (round === opts.rounds) Object.assign(result, await shortLoads(r.proc));
    await stopProcess(r.proc);
  }
  return result;
}

/** One round of the lot page and of distinct search, then the service's memory. */
async function shortLoads(proc: Proc): Promise<Pick<MillionResult, 'lots' | 'search' | 'afterLoads'>> {
  const bigClient = new ServiceClient(opts.port);
  const headers = { 'Api-Key': API_KEY, Authorization: `Bearer ${await bigClient.anonymousToken()}` };
  const target = { pid: proc.pid, spawnedAt: proc.spawnedAt };
  const lots = await load(`${LOAD_NAMES.lots} (1M events)`, 1, bigClient.url('/'), lotPageRequests(), headers, loadOptions, target);
  const search = await load(
    `${LOAD_NAMES.distinct} (1M events)`,
    1,
    bigClient.url('/'),
    distinctSearchRequests(distinctQueries(100_000, 23)).requests,
    headers,
    loadOptions,
    target,
  );
  return { lots, search, afterLoads: memoryOf(proc.pid) };
}
