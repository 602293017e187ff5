/**
 * The steps `index`, `rebuild` and `restart`, with the service stopped, rounds interleaved: the index alone
 * (bench/index-alone.ts on the service's snapshot), the rebuilds of `catalogue` and `lot-search` from position 0, and
 * restarts (spawn to /readyz 200).
 */
import { datasetEnv, type Dataset } from '../dataset.ts';
import { has, opts } from '../options.ts';
import { lastJsonLine, runCli, say, stopProcess } from '../processes.ts';
import { restart, type RestartResult } from '../service-process.ts';
import { fmt } from '../stats.ts';

export interface RebuildResult {
  projection: string;
  position: number;
  seconds: number;
  eventsPerSecond: number;
  processSeconds: number;
}

export interface ServiceStoppedResult {
  indexRuns: Array<Record<string, number>>;
  rebuilds: { catalogue: RebuildResult[]; lotSearch: RebuildResult[] };
  restarts: RestartResult[];
}

export async function serviceStoppedSteps(dataset: Dataset): Promise<ServiceStoppedResult> {
  const result: ServiceStoppedResult = { indexRuns: [], rebuilds: { catalogue: [], lotSearch: [] }, restarts: [] };
  for (let round = 1; round <= opts.rounds; round++) {
    if (has('index')) result.indexRuns.push(await indexAlone(dataset, round));
    if (has('rebuild')) {
      result.rebuilds.catalogue.push(await rebuild(dataset, 'catalogue'));
      result.rebuilds.lotSearch.push(await rebuild(dataset, 'lot-search'));
    }
    if (has('restart')) {
      say(`restart (round ${round})`);
      const r = await restart('service-restart', dataset);
      await stopProcess(r.proc);
      result.restarts.push(r);
    }
  }
  return result;
}

/** 2,000 distinct queries on the index the service wrote, in a process of their own. */
async function indexAlone(dataset: Dataset, round: number): Promise<Record<string, number>> {
  say(`the index alone (round ${round}): 2,000 distinct queries on the index the service wrote`);
  const r = await runCli('bench/index-alone.ts', [dataset.dataDir, '--queries', '2000', '--seed', String(100 + round)], process.env);
  if (r.code !== 0) throw new Error(`index-alone failed (${r.code}): ${r.stderr.slice(-2000)}`);
  const out = lastJsonLine(r.stdout) as Record<string, number>;
  say(
    `  ${fmt(out.documents)} documents loaded in ${fmt(out.loadMs)} ms; p50 ${out.p50.toFixed(2)} ms, p99 ${out.p99.toFixed(2)} ms, mean ${out.mean.toFixed(2)} ms`,
  );
  return out;
}

async function rebuild(dataset: Dataset, projection: string): Promise<RebuildResult> {
  say(`rebuild ${projection} (service stopped)`);
  const r = await runCli('app/cli/rebuild.ts', [projection], datasetEnv(dataset, { LOG_LEVEL: 'warn' }));
  if (r.code !== 0) throw new Error(`rebuild ${projection} failed (${r.code}):\n${r.stderr.slice(-3000)}`);
  const out = lastJsonLine(r.stdout) as { projection: string; position: number; seconds: number; eventsPerSecond: number };
  say(
    `  ${fmt(out.position)} events in ${out.seconds.toFixed(2)} s: ${fmt(out.eventsPerSecond)} events/s (process ${r.seconds.toFixed(1)} s)`,
  );
  return { ...out, processSeconds: r.seconds };
}
