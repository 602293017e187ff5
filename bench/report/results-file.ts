/** bench/results.json: every figure of a run, its options and machine, for comparing runs. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DISTINCT_MIX, mixComposition, TYPOS_MIX } from '../distinct-queries.ts';
import { MIXED_CONNECTIONS } from '../mixed.ts';
import { shownOptions } from '../options.ts';
import { elapsedSeconds, ROOT } from '../processes.ts';
import type { RunResults } from '../run-results.ts';
import { DISTINCT_PROBE } from '../steps/probes.ts';
import type { TargetLine } from './targets.ts';

export const RESULTS = path.join(ROOT, 'bench', 'results.json');

/** Writes bench/results.json; what it wrote, which the analysts step adds to. */
export function writeResults(run: RunResults, targets: TargetLine[]): Record<string, unknown> {
  const { first, probes, single, allCoresResult, stopped, profile } = run;
  const results = {
    finishedAt: new Date().toISOString(),
    totalSeconds: elapsedSeconds(),
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemBytes: os.totalmem() },
    options: shownOptions(),
    dataset: { ...first.info, reused: !first.created, eventsAtRun: first.events },
    serviceStartSeconds: first.firstReadyMs / 1000,
    probes: {
      lotPage: probes.lotPageCheck,
      search: probes.searchCheck,
      distinctSearch: probes.distinctCheck,
      distinctTyposSearch: probes.typosCheck,
    },
    loads: single.loads,
    distinctMixes: distinctMixes(run),
    mixed: { connections: MIXED_CONNECTIONS, apiProcesses1: single.mixedSingle, apiProcessesAuto: allCoresResult?.mixed ?? [] },
    saleDay: single.saleDay,
    allCores: allCoresResult && { ...allCoresResult, mixed: undefined },
    heap: {
      apiProcesses1: { atReady: first.heapAtReady, afterLoads: run.heapAfterLoads },
      apiProcessesAuto: allCoresResult?.heap ?? null,
    },
    indexAlone: stopped.indexRuns,
    rebuilds: stopped.rebuilds,
    restarts: stopped.restarts,
    memory: run.memory,
    million: run.millionResult,
    backOffice: run.backOffice,
    bidding: run.bidding,
    pushes: run.pushes,
    prints: run.printed,
    accounts: run.accountFlows,
    postgres: run.postgres.postgres ?? (run.postgres.skipped ? { skipped: run.postgres.skipped } : null),
    watchlist: { member: first.member.email, watchlistSize: single.watchlistSize },
    distinctQueriesUsed: run.distinctUsed,
    shutdownSeconds: run.shutdownMs / 1000,
    targets,
    profile: profile.file ? { file: path.relative(ROOT, profile.file), perLoad: profile.perLoad } : null,
  };
  fs.writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
  return results;
}

function distinctMixes({ probes, single, distinctUsed, typosUsed, skippedAsAsked }: RunResults) {
  return {
    distinct: {
      mix: DISTINCT_MIX,
      asked: mixComposition(single.distinct.asked()),
      used: distinctUsed,
      pool: probes.pool.length - DISTINCT_PROBE,
    },
    distinctTypos: {
      mix: TYPOS_MIX,
      asked: mixComposition(single.distinctTypos.asked()),
      used: typosUsed,
      pool: Math.max(0, probes.typosPool.length - DISTINCT_PROBE),
    },
    skippedAsAsked,
  };
}
