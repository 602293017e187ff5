/**
 * The dataset and its fixtures, then the service's first start on it (the first projection build when the dataset is
 * new) with the bench member's and an anonymous visitor's credentials; and its stop once the steps on it are done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { importBackOfficeKey } from '../backoffice.ts';
import { importBiddingFixture, type BiddingFixture } from '../bidding-fixture.ts';
import {
  API_KEY,
  ensureDataset,
  headPosition,
  importBenchMember,
  MEMBER_PASSWORD,
  saveInfo,
  type Dataset,
  type DatasetInfo,
} from '../dataset.ts';
import { readHeap, type HeapReading } from '../heap.ts';
import type { Target } from '../loads.ts';
import { has, opts } from '../options.ts';
import { BENCH_DIR, say, stopProcess, waitFor200, type Proc } from '../processes.ts';
import { importPushFixture, type PushFixture } from '../push.ts';
import { ServiceClient } from '../service-client.ts';
import { startService } from '../service-process.ts';
import { showHeap } from '../show-heap.ts';
import { fmt } from '../stats.ts';

/** The dataset with what the selected steps import into it before the service starts. */
export interface PreparedDataset {
  dataset: Dataset;
  info: DatasetInfo;
  created: boolean;
  member: { memberId: number; email: string };
  biddingFixture: BiddingFixture | null;
  pushFixture: PushFixture | null;
  /** The postgres step's watchlist member: its own, so that its watchlist starts empty on both engine sets. */
  pgMember: { memberId: number; email: string } | null;
}

/** The service of the first start, ready, and what the steps on it call it with. */
export interface FirstService extends PreparedDataset {
  svc: Proc;
  svcTarget: Target;
  profileDir: string;
  events: number;
  firstReadyMs: number;
  heapAtReady: HeapReading;
  client: ServiceClient;
  anon: string;
  memberTok: string;
  catalogueHeaders: Record<string, string>;
  memberHeaders: Record<string, string>;
}

export async function prepareDataset(): Promise<PreparedDataset> {
  const dataset: Dataset = { dir: BENCH_DIR, dataDir: path.join(BENCH_DIR, 'data'), lots: opts.lots, bidsPerLot: 2 };
  const { info, created } = await ensureDataset(dataset, opts.fresh);
  const member = await importBenchMember(dataset);
  say(`bench member ${member.email} (id ${member.memberId}) imported`);
  if (has('backoffice')) await importBackOfficeKey(dataset);
  const biddingFixture = has('bidding') || has('postgres') ? await importBiddingFixture(dataset) : null;
  const pushFixture = has('push') ? await importPushFixture(dataset) : null;
  const pgMember = has('postgres') ? await importBenchMember(dataset, 1) : null;
  // Generated files (catalogue PDFs, factsheets) of earlier runs go, so the prints step measures first requests.
  fs.rmSync(path.join(dataset.dataDir, 'files'), { recursive: true, force: true });
  return { dataset, info, created, member, biddingFixture, pushFixture, pgMember };
}

export async function startFirstService(prepared: PreparedDataset): Promise<FirstService> {
  const { dataset, info, created } = prepared;
  const profileDir = path.join(BENCH_DIR, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  const events = headPosition(dataset);
  say(
    `starting the service (${fmt(events)} events; LOG_LEVEL=${opts.logLevel}${opts.profile ? ', --cpu-prof' : ''}); log in .bench/service.log`,
  );
  const svc = startService('service', dataset, opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [], opts.apiProcesses);
  const firstReadyMs = await waitFor200(svc, `http://127.0.0.1:${opts.port}/readyz`, 15 * 60_000);
  say(`  ready after ${(firstReadyMs / 1000).toFixed(1)} s`);
  const heapAtReady = await readHeap(opts.port, svc.pid);
  say(`  heap used at ready: ${showHeap(heapAtReady)}`);
  if (created) {
    info.firstBuild = { seconds: firstReadyMs / 1000, events, eventsPerSecond: events / (firstReadyMs / 1000) };
    saveInfo(dataset, info);
  }
  const client = new ServiceClient(opts.port);
  const anon = await client.anonymousToken();
  const memberTok = await client.memberToken(anon, prepared.member.email, MEMBER_PASSWORD);
  return {
    ...prepared,
    svc,
    svcTarget: { pid: svc.pid, spawnedAt: svc.spawnedAt },
    profileDir,
    events,
    firstReadyMs,
    heapAtReady,
    client,
    anon,
    memberTok,
    catalogueHeaders: { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` },
    memberHeaders: { 'Api-Key': API_KEY, Authorization: `Bearer ${memberTok}`, 'Content-Type': 'application/json' },
  };
}

/** Stops the first start's service (SIGTERM); the milliseconds it took. */
export async function stopFirstService(first: FirstService): Promise<number> {
  const shutdownMs = await stopProcess(first.svc);
  say(`service stopped (SIGTERM) in ${(shutdownMs / 1000).toFixed(1)} s, exit code ${first.svc.child.exitCode}`);
  return shutdownMs;
}
