/**
 * The step `cores`, and the mixed load's second half: the service again on the same dataset with API_PROCESSES=auto
 * (after the first start stopped), --rounds rounds of the ceiling beside it, the lot page, distinct search, watchlist
 * (`cores`) and the mixed load (`mixed`); CPU is that of all the service's processes.
 */
import type { AutocannonRequest } from 'autocannon';
import { API_KEY, MEMBER_PASSWORD, type Dataset } from '../dataset.ts';
import { readHeap, waitForAllAnswering, type HeapReading } from '../heap.ts';
import { LOAD_NAMES, type AllCoresKind } from '../load-names.ts';
import { load, lotPageRequests, type LoadResult, type Target } from '../loads.ts';
import { mixedLoad, type MixedResult } from '../mixed.ts';
import { has, loadOptions, opts } from '../options.ts';
import { say, startProcess, stopProcess, waitFor200, type Proc } from '../processes.ts';
import { ServiceClient } from '../service-client.ts';
import { startService } from '../service-process.ts';
import { showHeap } from '../show-heap.ts';
import type { FirstService } from './first-start.ts';
import type { Probes } from './probes.ts';
import type { SingleProcessLoads } from './single-process-loads.ts';

export interface AllCoresResult {
  readySeconds: number;
  /** Spawn to every node process of the service but the primary (a cluster) answering GET /healthz on the port. */
  allAnswering: { processes: number; answering: number; seconds: number; complete: boolean };
  loads: Record<AllCoresKind, LoadResult[]>;
  mixed: MixedResult[];
  heap: { atReady: HeapReading; afterLoads: HeapReading };
  shutdownSeconds: number;
}

/** Shared with the first start: one distinct-query generator and one watchlist generator for the whole run. */
export interface AllCoresInputs {
  dataset: Dataset;
  memberEmail: string;
  storedPage: string;
  distinct: { requests: AutocannonRequest[] };
  watch: AutocannonRequest[];
}

/** From the first start: its dataset, member and stored lot page, and its distinct-query and watchlist generators. */
export function allCoresInputs(first: FirstService, probes: Probes, single: SingleProcessLoads): AllCoresInputs {
  return {
    dataset: first.dataset,
    memberEmail: first.member.email,
    storedPage: probes.storedPage,
    distinct: single.distinct,
    watch: single.watch,
  };
}

/** The cluster's service and what its loads are sent with. */
interface Cluster {
  client: ServiceClient;
  target: Target;
  catalogueHeaders: Record<string, string>;
  memberHeaders: Record<string, string>;
}

export async function allCores(inputs: AllCoresInputs): Promise<AllCoresResult> {
  say('all cores: the service again on the same dataset, API_PROCESSES=auto; log in .bench/service-auto.log');
  // METRICS_PORT: the primary's /metrics (it answers on no other port), for its heap; the api processes count
  // their requests as with metrics on the service's port.
  const svc = startService('service-auto', inputs.dataset, [], 'auto', { METRICS_PORT: String(opts.metricsPort) });
  const { readyMs, allAnswering } = await clusterReady(svc);
  const atReady = await readHeap(opts.port, svc.pid, opts.metricsPort);
  say(`  heap used at ready: ${showHeap(atReady)}`);
  const client = new ServiceClient(opts.port);
  const anon = await client.anonymousToken();
  const memberTok = await client.memberToken(anon, inputs.memberEmail, MEMBER_PASSWORD);
  const cluster: Cluster = {
    client,
    target: { pid: svc.pid, spawnedAt: svc.spawnedAt, tree: true },
    catalogueHeaders: { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` },
    memberHeaders: { 'Api-Key': API_KEY, Authorization: `Bearer ${memberTok}`, 'Content-Type': 'application/json' },
  };
  const { loads, mixed } = await clusterLoads(inputs, cluster);
  const afterLoads = await readHeap(opts.port, svc.pid, opts.metricsPort);
  say(`  heap used after the loads: ${showHeap(afterLoads)}`);
  const shutdownMs = await stopProcess(svc);
  say(`  the API_PROCESSES=auto service stopped (SIGTERM) in ${(shutdownMs / 1000).toFixed(1)} s, exit code ${svc.child.exitCode}`);
  return { readySeconds: readyMs / 1000, allAnswering, loads, mixed, heap: { atReady, afterLoads }, shutdownSeconds: shutdownMs / 1000 };
}

/** Spawn to /readyz 200, then to every api process answering on the port. */
async function clusterReady(svc: Proc): Promise<{ readyMs: number; allAnswering: AllCoresResult['allAnswering'] }> {
  const readyMs = await waitFor200(svc, `http://127.0.0.1:${opts.port}/readyz`, 5 * 60_000);
  const answering = await waitForAllAnswering(opts.port, svc.pid, 60_000);
  const allAnswering = {
    processes: answering.processes,
    answering: answering.answering.length,
    seconds: (readyMs + answering.ms) / 1000,
    complete: answering.complete,
  };
  say(
    `  ready after ${(readyMs / 1000).toFixed(2)} s; ${answering.processes} node process(es), ${allAnswering.answering} answering on port ${opts.port} ` +
      `after ${allAnswering.seconds.toFixed(2)} s${answering.complete ? '' : ' (not all within 60 s)'}`,
  );
  return { readyMs, allAnswering };
}

/** The rounds on the cluster: the ceiling beside it and the three loads (`cores`), the mixed load (`mixed`). */
async function clusterLoads(inputs: AllCoresInputs, cluster: Cluster) {
  const { client, target, catalogueHeaders, memberHeaders } = cluster;
  const loads: Record<AllCoresKind, LoadResult[]> = { ceiling: [], lots: [], distinct: [], watch: [] };
  const mixed: MixedResult[] = [];
  const ceiling = has('cores')
    ? startProcess('ceiling', 'bench/ceiling-server.ts', { ...process.env, PORT: String(opts.ceilingPort), BODY_FILE: inputs.storedPage })
    : null;
  if (ceiling) await waitFor200(ceiling, `http://127.0.0.1:${opts.ceilingPort}/stored`, 60_000);
  const suffix = ' (API_PROCESSES=auto)';
  const url = client.url('/');
  for (let round = 1; round <= opts.rounds; round++) {
    if (ceiling)
      loads.ceiling.push(
        await load(
          `${LOAD_NAMES.ceiling}, beside the cluster`,
          round,
          `http://127.0.0.1:${opts.ceilingPort}`,
          [{ path: '/stored' }],
          {},
          loadOptions,
          {
            pid: ceiling.pid,
            spawnedAt: ceiling.spawnedAt,
          },
        ),
      );
    loads.lots.push(await load(LOAD_NAMES.lots + suffix, round, url, lotPageRequests(), catalogueHeaders, loadOptions, target));
    if (has('cores')) {
      loads.distinct.push(
        await load(LOAD_NAMES.distinct + suffix, round, url, inputs.distinct.requests, catalogueHeaders, loadOptions, target),
      );
      loads.watch.push(await load(LOAD_NAMES.watch + suffix, round, url, inputs.watch, memberHeaders, loadOptions, target));
    }
    if (has('mixed')) {
      const kinds = {
        lots: { requests: lotPageRequests(), headers: catalogueHeaders },
        watch: { requests: inputs.watch, headers: memberHeaders },
        distinct: { requests: inputs.distinct.requests, headers: catalogueHeaders },
      };
      mixed.push(await mixedLoad('auto', round, url, kinds, loadOptions, target));
    }
  }
  if (ceiling) await stopProcess(ceiling);
  return { loads, mixed };
}
