/**
 * End-to-end benchmark of the service: `npm run bench [-- options]`. Prints the figures and the targets of
 * docs/performance.md (PASS or MISS, a miss is never hidden) and writes bench/results.json. Every load is on
 * 127.0.0.1, bounded in duration, and stops by itself; the exit code is 1 only when something broke.
 *
 *  1. Dataset (bench/dataset.ts): 100k generated lots in .bench/data, made when it holds no events (or with
 *     --fresh): generate, import, then the service's first projection build (spawn to /readyz 200), timed.
 *  2. Loads, --rounds rounds interleaved so that every ratio is taken between loads run minutes apart at most:
 *       ceiling          the lot page's own bytes sent by Express the fastest way we found (bench/ceiling-server.ts)
 *       lot page         GET /v1/lots?AuctionId=1&pageSize=20, Page rotating 1..100 (cached answers)
 *       ceiling gzip     the same bytes gzip-compressed once, sent the same way
 *       lot page gzip    the lot page with Accept-Encoding: gzip
 *       search           GET /v1/lots/search, the 54 queries of every run (mostly cached answers)
 *       distinct search  GET /v1/lots/search, every query one never asked before (bench/distinct-queries.ts), two
 *                        mixes: `distinct` (a fifth drawn for a typo, a fifth a half word) and `distinct-typos`
 *                        (a third with a typo, a fifth a half word)
 *       watchlist        PUT /v1/me/watchlist/{lotId} by one member, every request appending an event (read your writes)
 *       mixed            lot pages at 10 connections, watchlist PUTs at 10, distinct searches at 4, all at once
 *                        (bench/mixed.ts)
 *     The service runs with API_PROCESSES=1 (one process) for all of these. `distinct` and
 *     `mixed` run the lot page load as their reference when `lots` is not asked for (without the ceiling).
 *     The service's V8 heap (its /metrics, bench/heap.ts) is read at ready and after the loads,
 *     then the back office (bench/backoffice.ts: feed pages, 500 streams, 10 webhooks, the watchlist PUT with streams
 *     and webhooks attached), timed bidding (bench/bidding.ts: a hot lot, 1,000 lots, the lot page with bids arriving,
 *     1,000 auction streams, a closing storm), pushes (bench/push.ts: one lot's close told to 5,000 push
 *     subscriptions), the service's peak memory, the prints (bench/prints.ts) and the
 *     sign-up flows (bench/accounts.ts). Then `postgres` (bench/postgres.ts): the dataset's log copied into a fresh
 *     schema on --postgres-url, a second service on it (--postgres-port), and per round, embedded then PostgreSQL:
 *     one-event appends and a replay on the two logs, the lot page, the watchlist PUT and a hot lot's bids.
 *  3. All cores (`cores`, and `mixed`'s second half): the service stopped, started again on the same dataset with
 *     API_PROCESSES=auto (a cluster: projectors and job worker in the primary, one `api` per core on the one
 *     port), --rounds rounds of: the ceiling beside it, the lot page, distinct search, watchlist (`cores`) and the
 *     mixed load (`mixed`); CPU is that of all the service's processes; heap at ready and after the loads (all
 *     processes: METRICS_PORT --metrics-port for the primary, the ports after it for the api processes).
 *  4. With the service stopped: the index alone (bench/index-alone.ts on the service's snapshot, distinct
 *     queries), the rebuilds of `catalogue` and `lot-search` from position 0, and restarts (spawn to /readyz 200).
 *  5. --million: the same catalogue with about 1M events (13 bids a lot of a started auction) in
 *     .bench/million: its first build, restarts, and memory after a short lot page and search load.
 *  0. pg-network and pg-writers (bench/pg-network.ts, bench/pg-writers.ts; docs/scaling.md), first and alone when
 *     only they are asked: the service on the demo data behind a latency proxy (bench/latency-proxy.ts) to
 *     PostgreSQL and Redis at each of --network-rtts, each operation one request at a time (p50/p99, round trips
 *     a request from its /metrics, CPU); then 1, 4 and 16 writer processes on the append lock.
 *  6. analysts (with --million, or alone: --only analysts needs no service): on the 1M-event dataset, `npm run
 *     project` replaying a projection of three event types and `npm run export -- events` in each format,
 *     events/s and peak memory, also at half the log (bench/analysts.ts).
 *
 * Options: --fresh  --lots 100000  --rounds 3  --connections 50  --warmup 2  --duration 10  --log-level info
 *          --port 3100  --ceiling-port 3101  --metrics-port 3102  --million
 *          --postgres-url $POSTGRES_URL or postgres://postgres@127.0.0.1:5432/postgres  --postgres-port 3103
 *          --redis-url $REDIS_URL or redis://127.0.0.1:6379  --network-rtts 0.5,2  --network-requests 200
 *          --only lots,gzip,search,distinct,watch,mixed,cores,backoffice,bidding,push,postgres,pg-network,pg-writers,index,prints,accounts,rebuild,restart (default;
 *          --million adds million,analysts; `distinct-typos` alone is the second mix only)
 *          --profile (node --cpu-prof on the loaded service; the top self-time functions per load)
 *          --api-processes 1 (API_PROCESSES of the service the steps other than `cores` and `mixed` load; `auto`
 *          measures e.g. timed bidding on every core, and then `cores` compares auto with auto)
 */
import type { AutocannonRequest } from 'autocannon';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatProfile, summariseProfile, type ProfileSummary } from './cpuprofile.ts';
import { accounts, type AccountsResult } from './accounts.ts';
import {
  datasetEnv,
  ensureDataset,
  headPosition,
  importBenchMember,
  MEMBER_PASSWORD,
  API_KEY,
  saveInfo,
  type Dataset,
  type DatasetInfo,
} from './dataset.ts';
import { DISTINCT_MIX, distinctQueries, mixComposition, showComposition, TYPOS_MIX, type DistinctQuery } from './distinct-queries.ts';
import { readHeap, waitForAllAnswering, type HeapReading } from './heap.ts';
import { MIXED_CONNECTIONS, MIXED_NAMES, mixedLoad, type MixedKind, type MixedResult } from './mixed.ts';
import {
  distinctSearchRequests,
  load,
  lotPageRequests,
  SEARCH_QUERIES,
  searchPath,
  searchRequests,
  watchRequests,
  type LoadOptions,
  type LoadResult,
  type Target,
} from './loads.ts';
import { prints, type PrintsResult } from './prints.ts';
import { backOfficeBench, importBackOfficeKey, type BackOfficeResult } from './backoffice.ts';
import { biddingBench, biddingSummary, importBiddingFixture, type BiddingResult } from './bidding.ts';
import { importPushFixture, pushBench, PUSH_MEMBERS, type PushResult } from './push.ts';
import {
  BENCH_DIR,
  elapsedSeconds,
  lastJsonLine,
  memoryOf,
  ROOT,
  runCli,
  say,
  startProcess,
  stopProcess,
  waitFor200,
  type Memory,
  type Proc,
} from './processes.ts';
import { ServiceClient } from './service-client.ts';
import { analysts, analystsReport, type AnalystsResult } from './analysts.ts';
import { DEFAULT_POSTGRES_URL, postgresColumn, postgresReport, shownUrl, unreachable, type PostgresColumn } from './postgres.ts';
import { fmt, median, showSpread, spread, type Spread } from './stats.ts';
import { pgNetworkReport, pgNetworkStep } from './pg-network.ts';
import { pgWritersReport, pgWritersStep } from './pg-writers.ts';

// ---------------------------------------------------------------------------------------------- options

/** The Node.js flags `npm start` runs the service with (package.json), so the bench measures the same process. */
const SERVICE_NODE_FLAGS = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start as string)
  .split(/\s+/)
  .filter((flag) => flag.startsWith('--max-old-space-size'));
const RESULTS = path.join(ROOT, 'bench', 'results.json');

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
function intOption(name: string, fallback: number): number {
  const n = Number(option(name, String(fallback)));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
  return n;
}
const million = process.argv.includes('--million');
const opts = {
  fresh: process.argv.includes('--fresh'),
  profile: process.argv.includes('--profile'),
  lots: intOption('lots', 100_000),
  logLevel: option('log-level', 'info'),
  connections: intOption('connections', 50),
  warmup: intOption('warmup', 2),
  duration: intOption('duration', 10),
  rounds: intOption('rounds', 3),
  /** API_PROCESSES of the service the steps outside `cores` and `mixed` load (default 1, as in docs/performance.md). */
  apiProcesses: option('api-processes', '1'),
  port: intOption('port', 3100),
  ceilingPort: intOption('ceiling-port', 3101),
  /** API_PROCESSES=auto only: METRICS_PORT of the cluster (the primary's /metrics; its api processes' on the ports after). */
  metricsPort: intOption('metrics-port', 3102),
  /** The `postgres` step: the PostgreSQL the second service runs on (a schema of the run's own, dropped after), and its port. */
  postgresUrl: option('postgres-url', process.env.POSTGRES_URL || DEFAULT_POSTGRES_URL),
  postgresPort: intOption('postgres-port', 3103),
  /** `pg-network` and `pg-writers`: the Redis behind the proxy, the round-trip times (ms) and requests an operation. */
  redisUrl: option('redis-url', process.env.REDIS_URL || 'redis://127.0.0.1:6379'),
  networkRtts: option('network-rtts', '0.5,2')
    .split(',')
    .map(Number)
    .filter((n) => n > 0),
  networkRequests: intOption('network-requests', 200),
  only: new Set(
    option(
      'only',
      `lots,gzip,search,distinct,watch,mixed,cores,backoffice,bidding,push,postgres,pg-network,pg-writers,index,prints,accounts,rebuild,restart${million ? ',million,analysts' : ''}`,
    )
      .split(',')
      .map((s) => s.trim()),
  ),
};
const has = (step: string) => opts.only.has(step);
/** What the selected steps run with the service at API_PROCESSES=1 (`cores` compares three loads with all cores). */
const runs = {
  ceiling: has('lots') || has('gzip') || has('cores'),
  lots: has('lots') || has('distinct') || has('distinct-typos') || has('mixed') || has('cores'),
  distinct: has('distinct') || has('cores'),
  distinctTypos: has('distinct') || has('distinct-typos'),
  watch: has('watch') || has('cores'),
  allCores: has('cores') || has('mixed'),
};
const loadOptions: LoadOptions = { connections: opts.connections, warmup: opts.warmup, duration: opts.duration };

const TARGETS = {
  lotPageRatio: 0.8,
  lotPageP99: 25,
  searchRatio: 0.8,
  distinctRatio: 0.3,
  /** For both distinct-search mixes (docs/performance.md). */
  distinctP99: 50,
  indexP99: 10,
  watchRps: 3000,
  watchP99: 25,
  rebuildEventsPerSecond: 200_000,
  restartSeconds: 10,
  peakRssBytes: 1.5 * 1024 ** 3,
  cataloguePdfFirstSeconds: 10,
  feedEventsPerSecond: 100_000,
  streamP99: 250,
  webhookDeliveriesPerSecond: 500,
  attachedRatio: 0.9,
  bidHotRps: 1500,
  bidSpreadRps: 3000,
  bidP99: 50,
  bidStreamP99: 250,
  bidPageRatio: 0.8,
  /** API_PROCESSES=auto: the lot page against the single-process ceiling; search and watchlist against one process. */
  allCoresRatio: 1.5,
  mixedLotPageRatio: 0.5,
  mixedP99: 50,
  /** The PostgreSQL event log read from position 0 (PRODUCTION.md "PostgreSQL"). */
  pgReplayEventsPerSecond: 100_000,
};

/** Distinct queries for the uncached search load (more than rounds × seconds × any rate it reaches). */
const DISTINCT_POOL = 300_000;
/** Of which these are kept out of the load, for the probe that they find lots. */
const DISTINCT_PROBE = 300;
/** The same for the second mix (its own seed). */
const TYPOS_POOL = 200_000;
const TYPOS_SEED = 19;

// ---------------------------------------------------------------------------------------------- the service

function serviceEnv(dataset: Dataset, apiProcesses: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  // TRUST_PROXY: the accounts step sends each flow from its own address (X-Forwarded-For), as bidders behind a proxy.
  return datasetEnv(dataset, {
    // One process unless asked otherwise, so that every figure stays comparable with the figures in docs/performance.md.
    API_PROCESSES: apiProcesses,
    PORT: String(opts.port),
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    LOG_LEVEL: opts.logLevel,
    TRUST_PROXY: 'true',
    // The back-office step's webhooks go to a receiver on 127.0.0.1, and the push step's pushes to a push service there.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    PUSH_ENDPOINT_HOSTS: '127.0.0.1',
    PUSH_ALLOW_PRIVATE: 'true',
    ...extra,
  });
}

function startService(
  name: string,
  dataset: Dataset,
  extraFlags: string[] = [],
  apiProcesses = '1',
  extraEnv: Record<string, string> = {},
): Proc {
  return startProcess(name, 'app/main.ts', serviceEnv(dataset, apiProcesses, extraEnv), [...SERVICE_NODE_FLAGS, ...extraFlags]);
}

async function rebuild(dataset: Dataset, projection: string) {
  say(`rebuild ${projection} (service stopped)`);
  const r = await runCli('app/cli/rebuild.ts', [projection], datasetEnv(dataset, { LOG_LEVEL: 'warn' }));
  if (r.code !== 0) throw new Error(`rebuild ${projection} failed (${r.code}):\n${r.stderr.slice(-3000)}`);
  const out = lastJsonLine(r.stdout) as { projection: string; position: number; seconds: number; eventsPerSecond: number };
  say(
    `  ${fmt(out.position)} events in ${out.seconds.toFixed(2)} s: ${fmt(out.eventsPerSecond)} events/s (process ${r.seconds.toFixed(1)} s)`,
  );
  return { ...out, processSeconds: r.seconds };
}

interface RestartResult {
  readySeconds: number;
  lotPageStatus: number;
  memoryAtReady: Memory | null;
}

async function restart(name: string, dataset: Dataset): Promise<RestartResult & { proc: Proc }> {
  const proc = startService(name, dataset);
  const readyMs = await waitFor200(proc, `http://127.0.0.1:${opts.port}/readyz`, 5 * 60_000);
  const client = new ServiceClient(opts.port);
  const check = await client.call('GET', '/v1/lots?AuctionId=1&pageSize=20', { Authorization: `Bearer ${await client.anonymousToken()}` });
  say(`  ${name}: ready after ${(readyMs / 1000).toFixed(2)} s, lot page ${check.status}`);
  return { proc, readySeconds: readyMs / 1000, lotPageStatus: check.status, memoryAtReady: memoryOf(proc.pid) };
}

function newestProfile(dir: string): string | null {
  if (!fs.existsSync(dir)) return null;
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (tsx's loader runs in another).
  const files = fs
    .readdirSync(dir)
    .filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .map((f) => path.join(dir, f));
  files.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] ?? null;
}

// ---------------------------------------------------------------------------------------------- main

type LoadKind = 'ceiling' | 'lots' | 'ceilingGzip' | 'lotsGzip' | 'search' | 'distinct' | 'distinctTypos' | 'watch';
const LOAD_NAMES: Record<LoadKind, string> = {
  ceiling: 'ceiling: Express sending the stored lot page',
  lots: 'GET /v1/lots page',
  ceilingGzip: 'ceiling: Express sending it gzip-compressed',
  lotsGzip: 'GET /v1/lots page, Accept-Encoding: gzip',
  search: 'GET /v1/lots/search, the 54 queries',
  distinct: 'GET /v1/lots/search, every query distinct',
  distinctTypos: 'GET /v1/lots/search, distinct, ⅓ typos',
  watch: 'PUT /v1/me/watchlist/{lotId}',
};
type AllCoresKind = 'ceiling' | 'lots' | 'distinct' | 'watch';

/** The service again on the same dataset with API_PROCESSES=auto (`cores`, and the mixed load's second half). */
interface AllCoresResult {
  readySeconds: number;
  /** Spawn to every node process of the service but the primary (a cluster) answering GET /healthz on the port. */
  allAnswering: { processes: number; answering: number; seconds: number; complete: boolean };
  loads: Record<AllCoresKind, LoadResult[]>;
  mixed: MixedResult[];
  heap: { atReady: HeapReading; afterLoads: HeapReading };
  shutdownSeconds: number;
}

/** Shared with the first start: one distinct-query generator and one watchlist generator for the whole run. */
interface AllCoresInputs {
  dataset: Dataset;
  memberEmail: string;
  storedPage: string;
  distinct: { requests: AutocannonRequest[] };
  watch: AutocannonRequest[];
}

async function allCores(inputs: AllCoresInputs): Promise<AllCoresResult> {
  say('all cores: the service again on the same dataset, API_PROCESSES=auto; log in .bench/service-auto.log');
  // METRICS_PORT: the primary's /metrics (it answers on no other port), for its heap; the api processes count
  // their requests as with metrics on the service's port.
  const svc = startService('service-auto', inputs.dataset, [], 'auto', { METRICS_PORT: String(opts.metricsPort) });
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
  const atReady = await readHeap(opts.port, svc.pid, opts.metricsPort);
  say(`  heap used at ready: ${showHeap(atReady)}`);
  const client = new ServiceClient(opts.port);
  const anon = await client.anonymousToken();
  const memberTok = await client.memberToken(anon, inputs.memberEmail, MEMBER_PASSWORD);
  const catalogueHeaders = { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` };
  const memberHeaders = { 'Api-Key': API_KEY, Authorization: `Bearer ${memberTok}`, 'Content-Type': 'application/json' };
  const target: Target = { pid: svc.pid, spawnedAt: svc.spawnedAt, tree: true };
  const loads: Record<AllCoresKind, LoadResult[]> = { ceiling: [], lots: [], distinct: [], watch: [] };
  const mixed: MixedResult[] = [];
  const ceiling = has('cores')
    ? startProcess('ceiling', 'bench/ceiling-server.ts', { ...process.env, PORT: String(opts.ceilingPort), BODY_FILE: inputs.storedPage })
    : null;
  if (ceiling) await waitFor200(ceiling, `http://127.0.0.1:${opts.ceilingPort}/stored`, 60_000);
  const suffix = ' (API_PROCESSES=auto)';
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
    loads.lots.push(await load(LOAD_NAMES.lots + suffix, round, client.url('/'), lotPageRequests(), catalogueHeaders, loadOptions, target));
    if (has('cores')) {
      loads.distinct.push(
        await load(LOAD_NAMES.distinct + suffix, round, client.url('/'), inputs.distinct.requests, catalogueHeaders, loadOptions, target),
      );
      loads.watch.push(await load(LOAD_NAMES.watch + suffix, round, client.url('/'), inputs.watch, memberHeaders, loadOptions, target));
    }
    if (has('mixed'))
      mixed.push(
        await mixedLoad(
          'auto',
          round,
          client.url('/'),
          {
            lots: { requests: lotPageRequests(), headers: catalogueHeaders },
            watch: { requests: inputs.watch, headers: memberHeaders },
            distinct: { requests: inputs.distinct.requests, headers: catalogueHeaders },
          },
          loadOptions,
          target,
        ),
      );
  }
  if (ceiling) await stopProcess(ceiling);
  const afterLoads = await readHeap(opts.port, svc.pid, opts.metricsPort);
  say(`  heap used after the loads: ${showHeap(afterLoads)}`);
  const shutdownMs = await stopProcess(svc);
  say(`  the API_PROCESSES=auto service stopped (SIGTERM) in ${(shutdownMs / 1000).toFixed(1)} s, exit code ${svc.child.exitCode}`);
  return { readySeconds: readyMs / 1000, allAnswering, loads, mixed, heap: { atReady, afterLoads }, shutdownSeconds: shutdownMs / 1000 };
}

const MiB = (bytes: number) => fmt(bytes / 1048576);

/**
 * "312 MiB; VmRSS 700 MiB" or "612 MiB, the sum over 3 of 3 processes (198 + 207 + 207); VmRSS 1,400 MiB (all 3:
 * the primary 500 + 450 + 450)".
 */
function showHeap(h: HeapReading): string {
  if (!h.processes.length) return `not read (no /metrics answer); VmRSS ${MiB(h.rssBytes)} MiB`;
  const each = h.rssOfTree.map((r, i) => `${i === 0 ? 'the primary ' : ''}${MiB(r)}`).join(' + ');
  const rss = `VmRSS ${MiB(h.rssBytes)} MiB${h.tree.length > 1 ? ` (all ${h.tree.length}: ${each})` : ''}`;
  if (h.tree.length === 1 && h.processes.length === 1) return `${MiB(h.heapUsedBytes)} MiB; ${rss}`;
  const unread = h.unread.map((p) => (p === h.tree[0] ? `the primary ${p}` : String(p)));
  return (
    `${MiB(h.heapUsedBytes)} MiB, the sum over ${h.processes.length} of ${h.tree.length} processes ` +
    `(${h.processes.map((p) => MiB(p.heapUsedBytes)).join(' + ')}${unread.length ? `; not read: ${unread.join(', ')}` : ''}); ${rss}`
  );
}

/** `pg-network` and `pg-writers` (bench/pg-network.ts, bench/pg-writers.ts): their tables printed as they end. */
async function networkSteps() {
  const skipped = await unreachable(opts.postgresUrl);
  if (skipped) return say(`pg-network, pg-writers: ${shownUrl(opts.postgresUrl)} cannot be reached (${skipped}): skipped`);
  const lines: string[] = [];
  if (has('pg-network')) {
    const runs = await pgNetworkStep({
      postgresUrl: opts.postgresUrl,
      redisUrl: opts.redisUrl,
      port: opts.postgresPort,
      rttsMs: opts.networkRtts,
      requests: opts.networkRequests,
    });
    lines.push(...pgNetworkReport(runs));
  }
  if (has('pg-writers')) lines.push(...pgWritersReport(await pgWritersStep(opts.postgresUrl, opts.networkRtts.slice(0, 1), opts.duration)));
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main() {
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  say(`options: ${JSON.stringify({ ...opts, only: [...opts.only] })}`);
  // The analysts' tools need no service: alone, they are all that runs.
  if (opts.only.size === 1 && has('analysts')) return analystsStep(null);
  // Across a network and the single writer: services and writers of their own on the demo data, no dataset.
  if (has('pg-network') || has('pg-writers')) {
    await networkSteps();
    if ([...opts.only].every((step) => step === 'pg-network' || step === 'pg-writers')) return;
  }
  const dataset: Dataset = { dir: BENCH_DIR, dataDir: path.join(BENCH_DIR, 'data'), lots: opts.lots, bidsPerLot: 2 };
  const { info, created } = await ensureDataset(dataset, opts.fresh);
  const member = await importBenchMember(dataset);
  say(`bench member ${member.email} (id ${member.memberId}) imported`);
  if (has('backoffice')) await importBackOfficeKey(dataset);
  const biddingFixture = has('bidding') || has('postgres') ? await importBiddingFixture(dataset) : null;
  const pushFixture = has('push') ? await importPushFixture(dataset) : null;
  // The postgres step's watchlist member: its own, so that its watchlist starts empty on both engine sets.
  const pgMember = has('postgres') ? await importBenchMember(dataset, 1) : null;
  // Generated files (catalogue PDFs, factsheets) of earlier runs go, so the prints step measures first requests.
  fs.rmSync(path.join(dataset.dataDir, 'files'), { recursive: true, force: true });

  // ---- the service, first start (the first projection build when the dataset is new)
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

  // ---- credentials and probes (these answers must be right for the loads to mean anything)
  const client = new ServiceClient(opts.port);
  const anon = await client.anonymousToken();
  const memberTok = await client.memberToken(anon, member.email, MEMBER_PASSWORD);
  const catalogueHeaders = { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` };
  const memberHeaders = { 'Api-Key': API_KEY, Authorization: `Bearer ${memberTok}`, 'Content-Type': 'application/json' };
  const page = await client.call('GET', '/v1/lots?AuctionId=1&pageSize=20&Page=50', { Authorization: `Bearer ${anon}` });
  const lotPageCheck = {
    status: page.status,
    items: page.body?.Items?.length ?? 0,
    totalCount: page.body?.TotalCount ?? 0,
    bytes: Buffer.byteLength(page.text),
  };
  const storedPage = path.join(BENCH_DIR, 'lot-page.json');
  fs.writeFileSync(storedPage, page.text);
  const searchCheck: Record<string, { queries: number; withHits: number; meanFound: number }> = {};
  for (const s of SEARCH_QUERIES) {
    const r = await client.call('GET', searchPath(s), { Authorization: `Bearer ${anon}` });
    if (r.status !== 200) throw new Error(`search probe ${searchPath(s)}: ${r.status} ${JSON.stringify(r.body)}`);
    const c = (searchCheck[s.lang] ??= { queries: 0, withHits: 0, meanFound: 0 });
    c.queries += 1;
    c.withHits += r.body.TotalCount > 0 ? 1 : 0;
    c.meanFound += r.body.TotalCount / (SEARCH_QUERIES.length / 3);
  }
  for (const c of Object.values(searchCheck)) c.meanFound = Math.round(c.meanFound);
  const pool = distinctQueries(DISTINCT_POOL, 7, DISTINCT_MIX);
  const typosPool = runs.distinctTypos ? distinctQueries(TYPOS_POOL, TYPOS_SEED, TYPOS_MIX) : [];
  // Every distinct query asked in the run (probes, both mixes, both service starts): none is asked twice.
  const askedInRun = new Set<string>();
  const probe = async (probePool: DistinctQuery[], label: string) => {
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
  };
  const distinctCheck = await probe(pool.slice(pool.length - DISTINCT_PROBE), 'distinct search');
  const typosCheck = typosPool.length ? await probe(typosPool.slice(typosPool.length - DISTINCT_PROBE), 'distinct-typos search') : null;
  say(
    `probes: lot page ${JSON.stringify(lotPageCheck)}; search ${JSON.stringify(searchCheck)}; distinct search ${JSON.stringify(distinctCheck)}` +
      (typosCheck ? `; distinct-typos search ${JSON.stringify(typosCheck)}` : ''),
  );

  // ---- loads, rounds interleaved
  const loads: Record<LoadKind, LoadResult[]> = {
    ceiling: [],
    lots: [],
    ceilingGzip: [],
    lotsGzip: [],
    search: [],
    distinct: [],
    distinctTypos: [],
    watch: [],
  };
  const mixedSingle: MixedResult[] = [];
  const ceiling = runs.ceiling
    ? startProcess('ceiling', 'bench/ceiling-server.ts', { ...process.env, PORT: String(opts.ceilingPort), BODY_FILE: storedPage })
    : null;
  if (ceiling) await waitFor200(ceiling, `http://127.0.0.1:${opts.ceilingPort}/stored`, 60_000);
  const ceilingUrl = `http://127.0.0.1:${opts.ceilingPort}`;
  const svcTarget = { pid: svc.pid, spawnedAt: svc.spawnedAt };
  // One generator each across rounds and both service starts: the watchlist keeps changing, and no distinct
  // query comes twice (one set of the queries asked, for both mixes).
  const watch = watchRequests();
  const distinct = distinctSearchRequests(pool.slice(0, pool.length - DISTINCT_PROBE), askedInRun);
  const distinctTypos = distinctSearchRequests(typosPool.slice(0, Math.max(0, typosPool.length - DISTINCT_PROBE)), askedInRun);
  const gzip = { 'Accept-Encoding': 'gzip' };
  for (let round = 1; round <= opts.rounds; round++) {
    if (runs.ceiling && (has('lots') || has('cores')))
      loads.ceiling.push(
        await load(LOAD_NAMES.ceiling, round, ceilingUrl, [{ path: '/stored' }], {}, loadOptions, {
          pid: ceiling!.pid,
          spawnedAt: ceiling!.spawnedAt,
        }),
      );
    if (runs.lots)
      loads.lots.push(await load(LOAD_NAMES.lots, round, client.url('/'), lotPageRequests(), catalogueHeaders, loadOptions, svcTarget));
    if (has('gzip')) {
      loads.ceilingGzip.push(
        await load(LOAD_NAMES.ceilingGzip, round, ceilingUrl, [{ path: '/stored-gzip' }], gzip, loadOptions, {
          pid: ceiling!.pid,
          spawnedAt: ceiling!.spawnedAt,
        }),
      );
      loads.lotsGzip.push(
        await load(
          LOAD_NAMES.lotsGzip,
          round,
          client.url('/'),
          lotPageRequests(),
          { ...catalogueHeaders, ...gzip },
          loadOptions,
          svcTarget,
        ),
      );
    }
    if (has('search'))
      loads.search.push(await load(LOAD_NAMES.search, round, client.url('/'), searchRequests(), catalogueHeaders, loadOptions, svcTarget));
    if (runs.distinct)
      loads.distinct.push(
        await load(LOAD_NAMES.distinct, round, client.url('/'), distinct.requests, catalogueHeaders, loadOptions, svcTarget),
      );
    if (runs.distinctTypos)
      loads.distinctTypos.push(
        await load(LOAD_NAMES.distinctTypos, round, client.url('/'), distinctTypos.requests, catalogueHeaders, loadOptions, svcTarget),
      );
    if (runs.watch) loads.watch.push(await load(LOAD_NAMES.watch, round, client.url('/'), watch, memberHeaders, loadOptions, svcTarget));
    if (has('mixed'))
      mixedSingle.push(
        await mixedLoad(
          '1',
          round,
          client.url('/'),
          {
            lots: { requests: lotPageRequests(), headers: catalogueHeaders },
            watch: { requests: watch, headers: memberHeaders },
            distinct: { requests: distinct.requests, headers: catalogueHeaders },
          },
          loadOptions,
          svcTarget,
        ),
      );
  }
  if (ceiling) await stopProcess(ceiling);
  let watchlistSize: number | null = null;
  if (runs.watch) {
    const w = await client.call('GET', '/v1/me/watchlist?pageSize=1', { Authorization: `Bearer ${memberTok}` });
    watchlistSize = w.status === 200 ? (w.body?.TotalCount ?? null) : null;
  }

  // ---- the back office's feed, stream and webhooks (BACKOFFICE.md), on the loaded service
  let backOffice: BackOfficeResult | null = null;
  if (has('backoffice')) {
    say('back office: feed pages, 500 streams, 10 webhooks, and the watchlist PUT with streams and webhooks attached');
    backOffice = await backOfficeBench(client, memberHeaders, loadOptions, opts.rounds, svcTarget, opts.lots);
  }

  // ---- timed bidding, on the loaded service
  let bidding: BiddingResult | null = null;
  if (has('bidding') && biddingFixture) {
    say('timed bidding: a hot lot, 1,000 lots, the lot page with bids arriving, 1,000 auction streams, a closing storm');
    bidding = await biddingBench(client, dataset, biddingFixture, catalogueHeaders, loadOptions, opts.rounds, svcTarget);
  }

  // ---- one lot's close told to 5,000 push subscriptions
  let pushes: PushResult | null = null;
  if (pushFixture) {
    say(`push: ${fmt(PUSH_MEMBERS)} subscriptions told of one lot's close (won and lost)`);
    pushes = await pushBench(client, dataset, pushFixture, svc.pid);
    say(
      `  ${fmt(pushes.pushes)} pushes: the last ${pushes.secondsToLast.toFixed(1)} s after the lot's end (first ${pushes.secondsToFirst.toFixed(1)} s), ` +
        `${fmt(pushes.pushesPerSecond)}/s; service CPU ${pushes.cpuMsPerPush.toFixed(2)} ms a push (encryption alone ${pushes.encryptMsPerPush.toFixed(2)} ms)`,
    );
  }

  // ---- memory, prints, accounts, then stop
  const memory = memoryOf(svc.pid);
  say(`service memory: VmHWM ${fmt((memory?.vmHwmBytes ?? NaN) / 1048576)} MiB, VmRSS ${fmt((memory?.vmRssBytes ?? NaN) / 1048576)} MiB`);
  const heapAfterLoads = await readHeap(opts.port, svc.pid);
  say(`  heap used after the loads: ${showHeap(heapAfterLoads)}`);
  const printed: PrintsResult | null = has('prints') ? await prints(client, anon, svc.pid) : null;
  const accountFlows: AccountsResult | null = has('accounts') ? await accounts(client, anon, opts.duration, dataset.dataDir) : null;

  // ---- the same loads on PostgreSQL beside the embedded service still running, rounds interleaved
  let postgres: PostgresColumn | null = null;
  let postgresSkipped: string | null = null;
  if (has('postgres')) {
    postgresSkipped = await unreachable(opts.postgresUrl);
    if (postgresSkipped) say(`postgres: ${shownUrl(opts.postgresUrl)} cannot be reached (${postgresSkipped}): the step is skipped`);
    else {
      say('postgres: appends, replay, the lot page, the watchlist PUT and a hot lot on PostgreSQL beside the embedded default');
      // The timed bidding step's hot lots are the fixture's first ones: this step takes those after them.
      const hotTaken = has('bidding') ? Math.min(opts.rounds, biddingFixture!.hotLots.length) : 0;
      postgres = await postgresColumn({
        url: opts.postgresUrl,
        port: opts.postgresPort,
        dataset,
        embedded: { client, target: svcTarget },
        startService: (name, ds, env) => startService(name, ds, [], opts.apiProcesses, env),
        memberEmail: pgMember!.email,
        bidders: biddingFixture!.members,
        hotLots: biddingFixture!.hotLots.slice(hotTaken, hotTaken + opts.rounds),
        loadOptions,
        rounds: opts.rounds,
        appendSeconds: opts.duration,
      });
    }
  }
  const shutdownMs = await stopProcess(svc);
  say(`service stopped (SIGTERM) in ${(shutdownMs / 1000).toFixed(1)} s, exit code ${svc.child.exitCode}`);
  const profiles: Array<{ name: string; round: number; profile: ProfileSummary }> = [];
  let profileFile: string | null = null;
  if (opts.profile) {
    profileFile = newestProfile(profileDir);
    if (!profileFile) say('no .cpuprofile was written');
    else
      for (const l of [
        ...Object.values(loads).flat(),
        ...(bidding ? [...bidding.hot, ...bidding.spread, ...bidding.page.alone, ...bidding.page.withBids] : []),
      ].filter((x) => x.window && !x.name.startsWith('ceiling')))
        profiles.push({
          name: l.name,
          round: l.round,
          profile: summariseProfile(profileFile, { top: 12, sinceSec: l.window!.fromMs / 1000, untilSec: l.window!.toMs / 1000 }),
        });
  }

  // ---- all cores: the service again with API_PROCESSES=auto (after the first stopped), on the same dataset
  const allCoresResult = runs.allCores ? await allCores({ dataset, memberEmail: member.email, storedPage, distinct, watch: watch }) : null;
  const distinctUsed = distinct.used();
  const typosUsed = distinctTypos.used();
  const skippedAsAsked = distinct.skipped() + distinctTypos.skipped();

  // ---- the index alone, rebuilds and restarts (service stopped), rounds interleaved
  const indexRuns: Array<Record<string, number>> = [];
  const rebuilds: { catalogue: Array<Awaited<ReturnType<typeof rebuild>>>; lotSearch: Array<Awaited<ReturnType<typeof rebuild>>> } = {
    catalogue: [],
    lotSearch: [],
  };
  const restarts: RestartResult[] = [];
  for (let round = 1; round <= opts.rounds; round++) {
    if (has('index')) {
      say(`the index alone (round ${round}): 2,000 distinct queries on the index the service wrote`);
      const r = await runCli('bench/index-alone.ts', [dataset.dataDir, '--queries', '2000', '--seed', String(100 + round)], process.env);
      if (r.code !== 0) throw new Error(`index-alone failed (${r.code}): ${r.stderr.slice(-2000)}`);
      const out = lastJsonLine(r.stdout) as Record<string, number>;
      say(
        `  ${fmt(out.documents)} documents loaded in ${fmt(out.loadMs)} ms; p50 ${out.p50.toFixed(2)} ms, p99 ${out.p99.toFixed(2)} ms, mean ${out.mean.toFixed(2)} ms`,
      );
      indexRuns.push(out);
    }
    if (has('rebuild')) {
      rebuilds.catalogue.push(await rebuild(dataset, 'catalogue'));
      rebuilds.lotSearch.push(await rebuild(dataset, 'lot-search'));
    }
    if (has('restart')) {
      say(`restart (round ${round})`);
      const r = await restart('service-restart', dataset);
      await stopProcess(r.proc);
      restarts.push(r);
    }
  }

  // ---- about 1M events: first build, restarts, memory after a short load
  let millionResult: null | {
    info: DatasetInfo;
    events: number;
    restarts: RestartResult[];
    afterLoads: Memory | null;
    lots: LoadResult | null;
    search: LoadResult | null;
  } = null;
  if (has('million')) {
    const big: Dataset = {
      dir: path.join(BENCH_DIR, 'million'),
      dataDir: path.join(BENCH_DIR, 'million', 'data'),
      lots: opts.lots,
      bidsPerLot: 13,
    };
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
    const bigRestarts: RestartResult[] = [];
    let afterLoads: Memory | null = null;
    let bigLots: LoadResult | null = null;
    let bigSearch: LoadResult | null = null;
    for (let round = 1; round <= opts.rounds; round++) {
      say(`million: restart (round ${round})`);
      const r = await restart('service-million', big);
      bigRestarts.push(r);
      if (round === opts.rounds) {
        const bigClient = new ServiceClient(opts.port);
        const headers = { 'Api-Key': API_KEY, Authorization: `Bearer ${await bigClient.anonymousToken()}` };
        const target = { pid: r.proc.pid, spawnedAt: r.proc.spawnedAt };
        bigLots = await load(`${LOAD_NAMES.lots} (1M events)`, 1, bigClient.url('/'), lotPageRequests(), headers, loadOptions, target);
        bigSearch = await load(
          `${LOAD_NAMES.distinct} (1M events)`,
          1,
          bigClient.url('/'),
          distinctSearchRequests(distinctQueries(100_000, 23)).requests,
          headers,
          loadOptions,
          target,
        );
        afterLoads = memoryOf(r.proc.pid);
      }
      await stopProcess(r.proc);
    }
    millionResult = { info: made.info, events: bigEvents, restarts: bigRestarts, afterLoads, lots: bigLots, search: bigSearch };
  }

  // ---- report
  type TargetLine = { target: string; value: string; pass: boolean };
  const targets: TargetLine[] = [];
  const add = (target: string, value: string, pass: boolean) => targets.push({ target, value, pass });
  const rps = (kind: LoadKind) => spread(loads[kind].map((l) => l.rps));
  const p99 = (kind: LoadKind) => spread(loads[kind].map((l) => l.p99));
  const ratio = (kind: LoadKind, of: LoadKind) => spread(loads[kind].map((l, i) => l.rps / (loads[of][i]?.rps ?? NaN)));
  const ratioText = (s: Spread) => showSpread(s, 2, '×');
  if (loads.lots.length) {
    if (loads.ceiling.length) {
      const r = ratio('lots', 'ceiling');
      add(`lot page req/s ≥ ${TARGETS.lotPageRatio}× the ceiling (same rounds)`, ratioText(r), r.median >= TARGETS.lotPageRatio);
    }
    add(`lot page p99 ≤ ${TARGETS.lotPageP99} ms`, showSpread(p99('lots'), 0, ' ms'), p99('lots').median <= TARGETS.lotPageP99);
  }
  if (loads.lotsGzip.length) {
    const r = ratio('lotsGzip', 'ceilingGzip');
    add(`gzip lot page req/s ≥ ${TARGETS.lotPageRatio}× the gzip ceiling`, ratioText(r), r.median >= TARGETS.lotPageRatio);
    add(
      `gzip lot page p99 ≤ ${TARGETS.lotPageP99} ms`,
      showSpread(p99('lotsGzip'), 0, ' ms'),
      p99('lotsGzip').median <= TARGETS.lotPageP99,
    );
  }
  if (loads.search.length && loads.lots.length) {
    const r = ratio('search', 'lots');
    add(`search (54 queries) req/s ≥ ${TARGETS.searchRatio}× the lot page`, ratioText(r), r.median >= TARGETS.searchRatio);
  }
  for (const [kind, label] of [
    ['distinct', 'distinct search'],
    ['distinctTypos', 'distinct search, ⅓ typos'],
  ] as const) {
    if (!loads[kind].length) continue;
    if (loads.lots.length) {
      const r = ratio(kind, 'lots');
      add(`${label} req/s ≥ ${TARGETS.distinctRatio}× the lot page (same rounds)`, ratioText(r), r.median >= TARGETS.distinctRatio);
    }
    add(`${label} p99 ≤ ${TARGETS.distinctP99} ms`, showSpread(p99(kind), 0, ' ms'), p99(kind).median <= TARGETS.distinctP99);
  }
  if (loads.distinct.length || loads.distinctTypos.length || mixedSingle.length || allCoresResult) {
    const pools = [
      { used: distinctUsed, size: pool.length - DISTINCT_PROBE },
      { used: typosUsed, size: Math.max(0, typosPool.length - DISTINCT_PROBE) },
    ];
    add(
      'distinct search: no query asked twice (both mixes, both starts)',
      `${fmt(distinctUsed)} of ${fmt(pools[0].size)} used${typosPool.length ? `, ${fmt(typosUsed)} of ${fmt(pools[1].size)} (⅓ typos)` : ''}; ${fmt(skippedAsAsked)} skipped as asked before`,
      pools.every((p) => p.used <= p.size),
    );
  }
  if (allCoresResult) {
    const a = allCoresResult;
    const apiRatio = (kind: AllCoresKind, of: LoadResult[]) => spread(a.loads[kind].map((l, i) => l.rps / (of[i]?.rps ?? NaN)));
    if (a.loads.lots.length && a.loads.ceiling.length) {
      const r = apiRatio('lots', a.loads.ceiling);
      add(
        `lot page, API_PROCESSES=auto ≥ ${TARGETS.allCoresRatio}× the single-process ceiling (same rounds)`,
        `${ratioText(r)} (${showSpread(spread(a.loads.lots.map((l) => l.rps)))} against ${showSpread(spread(a.loads.ceiling.map((l) => l.rps)))} req/s)`,
        r.median >= TARGETS.allCoresRatio,
      );
    }
    for (const [kind, label] of [
      ['distinct', 'distinct search'],
      ['watch', 'watchlist PUT'],
    ] as const) {
      if (!a.loads[kind].length || !loads[kind].length) continue;
      const r = apiRatio(kind, loads[kind]);
      add(
        `${label}, API_PROCESSES=auto ≥ ${TARGETS.allCoresRatio}× its API_PROCESSES=1 req/s`,
        `${ratioText(r)} (${showSpread(spread(a.loads[kind].map((l) => l.rps)))} against ${showSpread(rps(kind))} req/s)`,
        r.median >= TARGETS.allCoresRatio,
      );
    }
    if (a.loads.distinct.length) {
      const s = spread(a.loads.distinct.map((l) => l.p99));
      add(`distinct search, API_PROCESSES=auto: p99 ≤ ${TARGETS.distinctP99} ms`, showSpread(s, 0, ' ms'), s.median <= TARGETS.distinctP99);
    }
    if (a.loads.watch.length) {
      const s = spread(a.loads.watch.map((l) => l.p99));
      add(`watchlist PUT, API_PROCESSES=auto: p99 ≤ ${TARGETS.watchP99} ms`, showSpread(s, 0, ' ms'), s.median <= TARGETS.watchP99);
    }
  }
  for (const [apiProcesses, mixed, alone] of [
    ['1', mixedSingle, loads.lots],
    ['auto', allCoresResult?.mixed ?? [], allCoresResult?.loads.lots ?? []],
  ] as const) {
    if (!mixed.length) continue;
    const r = spread(mixed.map((m, i) => m.kinds.lots.rps / (alone[i]?.rps ?? NaN)));
    add(
      `mixed, API_PROCESSES=${apiProcesses}: lot page ≥ ${TARGETS.mixedLotPageRatio}× its rate alone (same rounds)`,
      `${ratioText(r)} (${showSpread(spread(mixed.map((m) => m.kinds.lots.rps)))} against ${showSpread(spread(alone.map((l) => l.rps)))} req/s)`,
      r.median >= TARGETS.mixedLotPageRatio,
    );
    const p99s = (Object.keys(MIXED_CONNECTIONS) as MixedKind[]).map((kind) => ({ kind, s: spread(mixed.map((m) => m.kinds[kind].p99)) }));
    add(
      `mixed, API_PROCESSES=${apiProcesses}: p99 ≤ ${TARGETS.mixedP99} ms for every kind`,
      p99s.map(({ kind, s }) => `${kind} ${showSpread(s, 0, ' ms')}`).join(', '),
      p99s.every(({ s }) => s.median <= TARGETS.mixedP99),
    );
  }
  if (indexRuns.length) {
    const s = spread(indexRuns.map((r) => r.p99));
    add(
      `the index alone p99 ≤ ${TARGETS.indexP99} ms over ${fmt(indexRuns[0].documents)} documents`,
      showSpread(s, 2, ' ms'),
      s.median <= TARGETS.indexP99,
    );
  }
  if (loads.watch.length) {
    add(`watchlist PUT ≥ ${fmt(TARGETS.watchRps)} req/s`, showSpread(rps('watch')), rps('watch').median >= TARGETS.watchRps);
    add(`watchlist PUT p99 ≤ ${TARGETS.watchP99} ms`, showSpread(p99('watch'), 0, ' ms'), p99('watch').median <= TARGETS.watchP99);
  }
  if (backOffice) {
    const feedRate = spread(backOffice.feed.map((f) => f.eventsPerSecond));
    add(
      `feed pages of 1,000 ≥ ${fmt(TARGETS.feedEventsPerSecond)} events/s`,
      `${showSpread(feedRate)} events/s`,
      feedRate.median >= TARGETS.feedEventsPerSecond,
    );
    const st = backOffice.stream;
    add(
      `${st.subscribers} streams: an event within p99 ${TARGETS.streamP99} ms of its 200`,
      `p50 ${st.p50.toFixed(0)} ms, p99 ${st.p99.toFixed(0)} ms, max ${st.max.toFixed(0)} ms; ${st.missing} missing of ${st.subscribers * st.events}`,
      st.p99 <= TARGETS.streamP99 && st.missing === 0,
    );
    const wh = backOffice.webhooks;
    add(
      `webhooks: ≥ ${TARGETS.webhookDeliveriesPerSecond} deliveries/s across ${wh.webhooks}, in order`,
      `${fmt(wh.perSecond)}/s (${wh.deliveries} of ${wh.webhooks * wh.events} in ${wh.seconds.toFixed(1)} s), in order: ${wh.inOrder}, again: ${wh.duplicates}`,
      wh.perSecond >= TARGETS.webhookDeliveriesPerSecond && wh.inOrder && wh.deliveries === wh.webhooks * wh.events,
    );
    const ratios = backOffice.attached.attached.map((r, i) => r.rps / backOffice!.attached.alone[i].rps);
    const r = spread(ratios);
    add(`watchlist PUT with 100 streams and 5 webhooks ≥ ${TARGETS.attachedRatio}× alone`, ratioText(r), r.median >= TARGETS.attachedRatio);
  }
  if (bidding) {
    const b = biddingSummary(bidding);
    const hot = spread(bidding.hot.map((l) => l.rps));
    add(
      `one hot lot: ≥ ${fmt(TARGETS.bidHotRps)} bids/s decided, p99 ≤ ${TARGETS.bidP99} ms`,
      `${showSpread(hot)} bids/s, p99 ${fmt(b.hotP99)} ms; statuses ${JSON.stringify(bidding.hot.map((l) => l.statusCodes))}`,
      b.hotRps >= TARGETS.bidHotRps && b.hotP99 <= TARGETS.bidP99,
    );
    const spreadRps = spread(bidding.spread.map((l) => l.rps));
    add(
      `1,000 lots: ≥ ${fmt(TARGETS.bidSpreadRps)} bids/s decided, p99 ≤ ${TARGETS.bidP99} ms`,
      `${showSpread(spreadRps)} bids/s, p99 ${fmt(b.spreadP99)} ms; statuses ${JSON.stringify(bidding.spread.map((l) => l.statusCodes))}`,
      b.spreadRps >= TARGETS.bidSpreadRps && b.spreadP99 <= TARGETS.bidP99,
    );
    const pageRatios = spread(bidding.page.withBids.map((l, i) => l.rps / bidding!.page.alone[i].rps));
    add(
      `lot page with 200 bids/s meanwhile ≥ ${TARGETS.bidPageRatio}× alone`,
      `${ratioText(pageRatios)} (bids ${bidding.page.bidsPerSecond.map((x) => x.toFixed(0)).join(', ')}/s)`,
      pageRatios.median >= TARGETS.bidPageRatio,
    );
    const st = bidding.streams;
    add(
      `${st.subscribers} auction streams: a bid within p99 ${TARGETS.bidStreamP99} ms of its 200`,
      `p50 ${st.p50.toFixed(0)} ms, p99 ${st.p99.toFixed(0)} ms, max ${st.max.toFixed(0)} ms; ${st.missing} missing of ${st.subscribers * st.bids}`,
      st.p99 <= TARGETS.bidStreamP99 && st.missing === 0,
    );
    const storm = bidding.storm;
    const refusedWell = Object.keys(storm.answers).every((status) => /^(200|4\d\d)$/.test(status));
    add(
      `closing storm: ${storm.members} members, every answer 200 or 4xx, extensions right, equal to a replay`,
      `${JSON.stringify(storm.answers)}; ${storm.extensions} extensions (expected ${storm.expectedExtensions}); closed ${storm.closed}; ` +
        `replay ${storm.equalToReplay ? 'equal' : storm.differences.join('; ')}; bids after the end ${storm.lateBids}`,
      refusedWell &&
        storm.extensions === storm.expectedExtensions &&
        storm.finalEndTime === storm.expectedEndTime &&
        storm.closed &&
        storm.equalToReplay &&
        storm.lateBids === 0,
    );
  }
  if (pushes)
    add(
      `push: one lot's close told to ${fmt(PUSH_MEMBERS)} subscriptions, every one`,
      `${fmt(pushes.pushes)} of ${fmt(pushes.bidders)} bidders in ${pushes.secondsToLast.toFixed(1)} s after the end; ${pushes.cpuMsPerPush.toFixed(2)} ms CPU a push`,
      pushes.pushes === PUSH_MEMBERS && pushes.bidders === PUSH_MEMBERS && pushes.subscriptions === PUSH_MEMBERS,
    );
  if (postgresSkipped) add(`postgres: the loads on PostgreSQL at ${shownUrl(opts.postgresUrl)}`, `not run: ${postgresSkipped}`, false);
  if (postgres) {
    const replayRate = spread(postgres.postgres.replay.map((r) => r.eventsPerSecond));
    add(
      `PostgreSQL replay ≥ ${fmt(TARGETS.pgReplayEventsPerSecond)} events/s`,
      `${showSpread(replayRate)} events/s (${showSpread(spread(postgres.postgres.replay.map((r) => r.eventsPerCpuSecond)))} per CPU second of the reader)`,
      replayRate.median >= TARGETS.pgReplayEventsPerSecond,
    );
    const pgLoads = [...postgres.postgres.lots, ...postgres.postgres.watch, ...postgres.postgres.hot];
    const failed = pgLoads.reduce(
      (n, l) => n + l.errors + Object.entries(l.statusCodes).reduce((m, [code, count]) => m + (Number(code) >= 500 ? count : 0), 0),
      0,
    );
    add('PostgreSQL: no 5xx or errors in its HTTP loads', String(failed), failed === 0);
  }
  const allLoads = [
    ...Object.values(loads).flat(),
    ...(backOffice ? [...backOffice.attached.alone, ...backOffice.attached.attached] : []),
    ...(millionResult?.lots ? [millionResult.lots] : []),
    ...(millionResult?.search ? [millionResult.search] : []),
    ...[...mixedSingle, ...(allCoresResult?.mixed ?? [])].flatMap((m) => Object.values(m.kinds)),
    ...(allCoresResult ? Object.values(allCoresResult.loads).flat() : []),
  ];
  const non2xxTotal = allLoads.reduce((s, l) => s + l.non2xx + l.errors, 0);
  if (allLoads.length) add('no non-2xx or errors (incl. timeouts > 10 s) in any load', String(non2xxTotal), non2xxTotal === 0);
  add(
    'lot page probe: 200 with 20 items',
    `${lotPageCheck.status}, ${lotPageCheck.items} items of ${lotPageCheck.totalCount}`,
    lotPageCheck.status === 200 && lotPageCheck.items === 20,
  );
  for (const lang of ['en', 'sv', 'de']) {
    const c = searchCheck[lang];
    add(
      `search probe (${lang}): most queries find lots`,
      `${c.withHits}/${c.queries} with hits, mean found ${fmt(c.meanFound)}`,
      c.withHits >= c.queries / 2,
    );
  }
  for (const [label, check] of [
    ['distinct search probe', distinctCheck],
    ['distinct search probe, ⅓ typos', typosCheck],
  ] as const)
    if (check)
      add(
        `${label}: most queries find lots`,
        `${check.withHits}/${check.queries} with hits, mean found ${fmt(check.meanFound)}`,
        check.withHits >= check.queries / 2,
      );
  const rebuildSpread = (runs: Array<{ eventsPerSecond: number }>) => spread(runs.map((r) => r.eventsPerSecond));
  if (rebuilds.catalogue.length)
    for (const [name, runs] of [
      ['catalogue', rebuilds.catalogue],
      ['lot-search', rebuilds.lotSearch],
    ] as const) {
      const s = rebuildSpread(runs);
      add(
        `rebuild ${name} ≥ ${fmt(TARGETS.rebuildEventsPerSecond)} events/s`,
        `${showSpread(s)} events/s`,
        s.median >= TARGETS.rebuildEventsPerSecond,
      );
    }
  if (restarts.length) {
    const s = spread(restarts.map((r) => r.readySeconds));
    add(
      `restart at ${fmt(events)} events: spawn to /readyz 200 ≤ ${TARGETS.restartSeconds} s`,
      showSpread(s, 2, ' s'),
      s.median <= TARGETS.restartSeconds,
    );
  }
  if (millionResult) {
    const s = spread(millionResult.restarts.map((r) => r.readySeconds));
    add(
      `restart at ${fmt(millionResult.events)} events: spawn to /readyz 200 ≤ ${TARGETS.restartSeconds} s`,
      showSpread(s, 2, ' s'),
      s.median <= TARGETS.restartSeconds,
    );
  }
  if (allCoresResult) {
    const { atReady, afterLoads } = allCoresResult.heap;
    const most = Math.max(atReady.rssBytes, afterLoads.rssBytes);
    add(
      `API_PROCESSES=auto: VmRSS of all ${afterLoads.tree.length} processes ≤ 1.5 GB (at ready, after the loads)`,
      `${MiB(atReady.rssBytes)}, ${MiB(afterLoads.rssBytes)} MiB`,
      most <= TARGETS.peakRssBytes,
    );
  }
  if (memory)
    add('peak RSS (VmHWM) after the loads ≤ 1.5 GB', `${fmt(memory.vmHwmBytes / 1048576)} MiB`, memory.vmHwmBytes <= TARGETS.peakRssBytes);
  if (accountFlows) {
    add(
      'accounts: every sign-up + confirmation + sign-in flow succeeds',
      `${accountFlows.flows.completed} done, ${accountFlows.flows.failed} failed`,
      accountFlows.flows.failed === 0 && accountFlows.flows.completed > 0,
    );
    add(
      'lot page p99 during sign-up flows ≤ 2× alone (10 connections)',
      `${accountFlows.lotPageDuringFlows.p99} ms vs ${accountFlows.lotPageAlone.p99} ms alone`,
      accountFlows.lotPageDuringFlows.p99 <= 2 * Math.max(accountFlows.lotPageAlone.p99, 1),
    );
  }
  if (printed) {
    add(
      `catalogue PDF of ${fmt(printed.auctionLots)} lots: first request ≤ ${TARGETS.cataloguePdfFirstSeconds} s`,
      `${(printed.pdfFirst.ms / 1000).toFixed(2)} s`,
      printed.pdfFirst.status === 200 && printed.pdfFirst.ms <= TARGETS.cataloguePdfFirstSeconds * 1000,
    );
    add(
      'catalogue PDF: 50 concurrent first requests, identical bodies',
      `${printed.pdfConcurrentFirst.distinctBodies} distinct bodies, statuses ${printed.pdfConcurrentFirst.statuses}`,
      printed.pdfConcurrentFirst.distinctBodies === 1 && printed.pdfConcurrentFirst.statuses.join() === '200',
    );
  }

  const lines: string[] = [];
  const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
  const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
  lines.push(
    '',
    `bench ${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} CPUs · ${fmt(info.lots)} lots, ${fmt(events)} events · ` +
      `${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s measured, ${opts.rounds} rounds interleaved · LOG_LEVEL=${opts.logLevel}${opts.profile ? ' · PROFILED (slower)' : ''}`,
    '',
    `Loads: medians of the rounds (min–max), the service with API_PROCESSES=${opts.apiProcesses}. CPU: the answering process's CPU time per request.`,
  );
  const header = `${pad('load', 44)}${lpad('req/s', 24)}${lpad('p50 ms', 8)}${lpad('p99 ms', 16)}${lpad('CPU µs', 8)}${lpad('non-2xx+err', 13)}`;
  lines.push(header, '-'.repeat(header.length));
  const row = (name: string, results: LoadResult[], cpu = median(results.map((l) => l.cpuMicrosPerRequest))) =>
    lines.push(
      `${pad(name, 44)}${lpad(showSpread(spread(results.map((l) => l.rps))), 24)}${lpad(fmt(median(results.map((l) => l.p50))), 8)}` +
        `${lpad(showSpread(spread(results.map((l) => l.p99))), 16)}${lpad(fmt(cpu), 8)}${lpad(String(results.reduce((s, l) => s + l.non2xx + l.errors, 0)), 13)}`,
    );
  for (const kind of Object.keys(loads) as LoadKind[]) if (loads[kind].length) row(LOAD_NAMES[kind], loads[kind]);
  const a = allCoresResult;
  if (a) {
    lines.push(
      '',
      `All cores: the service again with API_PROCESSES=auto (${a.allAnswering.processes} node processes, ${a.allAnswering.answering} answering on the port); ` +
        'CPU: all its processes per request',
      header,
      '-'.repeat(header.length),
    );
    if (a.loads.ceiling.length) row('ceiling: the same, beside the cluster', a.loads.ceiling);
    for (const kind of ['lots', 'distinct', 'watch'] as const) if (a.loads[kind].length) row(LOAD_NAMES[kind], a.loads[kind]);
  }
  const mixedRuns = [
    ['1', mixedSingle],
    ['auto', a?.mixed ?? []],
  ] as const;
  if (mixedRuns.some(([, m]) => m.length)) {
    lines.push(
      '',
      `Mixed load ("sale day"): lot pages at ${MIXED_CONNECTIONS.lots} connections, watchlist PUTs at ${MIXED_CONNECTIONS.watch}, ` +
        `distinct searches at ${MIXED_CONNECTIONS.distinct}, all at once; one process: API_PROCESSES=1, all cores: API_PROCESSES=auto; ` +
        "CPU: the service's (all its processes) per request of any kind",
      header,
      '-'.repeat(header.length),
    );
    for (const [apiProcesses, mixed] of mixedRuns) {
      if (!mixed.length) continue;
      for (const kind of Object.keys(MIXED_CONNECTIONS) as MixedKind[])
        row(
          `${apiProcesses === '1' ? 'one process' : 'all cores'}: ${MIXED_NAMES[kind]} (${MIXED_CONNECTIONS[kind]} conns)`,
          mixed.map((m) => m.kinds[kind]),
          NaN,
        );
      lines.push(
        `${pad(`${apiProcesses === '1' ? 'one process' : 'all cores'}: all kinds together`, 44)}${lpad(showSpread(spread(mixed.map((m) => m.total / opts.duration))), 24)}` +
          `${lpad('', 24)}${lpad(fmt(median(mixed.map((m) => m.cpuMicrosPerRequest))), 8)}`,
      );
    }
  }
  if (postgres) lines.push(...postgresReport(postgres));
  lines.push('');
  const kv = (k: string, v: string) => lines.push(`${pad(k, 45)} ${v}`);
  if (loads.lots.length && loads.ceiling.length)
    kv('lot page ÷ ceiling, per round', loads.lots.map((l, i) => (l.rps / loads.ceiling[i].rps).toFixed(2)).join(', '));
  if (loads.lotsGzip.length)
    kv('gzip lot page ÷ gzip ceiling, per round', loads.lotsGzip.map((l, i) => (l.rps / loads.ceilingGzip[i].rps).toFixed(2)).join(', '));
  if (loads.search.length && loads.lots.length)
    kv('search ÷ lot page, per round', loads.search.map((l, i) => (l.rps / loads.lots[i].rps).toFixed(2)).join(', '));
  if (loads.distinct.length && loads.lots.length)
    kv('distinct search ÷ lot page, per round', loads.distinct.map((l, i) => (l.rps / loads.lots[i].rps).toFixed(2)).join(', '));
  if (loads.distinctTypos.length && loads.lots.length)
    kv(
      'distinct search, ⅓ typos ÷ lot page, per round',
      loads.distinctTypos.map((l, i) => (l.rps / loads.lots[i].rps).toFixed(2)).join(', '),
    );
  if (distinct.asked().length)
    kv('distinct search: the queries asked', `${fmt(distinct.asked().length)}: ${showComposition(mixComposition(distinct.asked()))}`);
  if (distinctTypos.asked().length)
    kv(
      'distinct search, ⅓ typos: the queries asked',
      `${fmt(distinctTypos.asked().length)}: ${showComposition(mixComposition(distinctTypos.asked()))}`,
    );
  if (a) {
    const perRound = (xs: LoadResult[], of: LoadResult[]) => xs.map((l, i) => (l.rps / (of[i]?.rps ?? NaN)).toFixed(2)).join(', ');
    if (a.loads.ceiling.length) kv('all cores: lot page ÷ ceiling, per round', perRound(a.loads.lots, a.loads.ceiling));
    if (a.loads.ceiling.length && loads.ceiling.length)
      kv('all cores: ceiling ÷ ceiling of the first start', perRound(a.loads.ceiling, loads.ceiling));
    for (const kind of ['lots', 'distinct', 'watch'] as const)
      if (a.loads[kind].length && loads[kind].length)
        kv(`all cores ÷ one process: ${MIXED_NAMES[kind]}`, perRound(a.loads[kind], loads[kind]));
    kv(
      'all cores: start',
      `${a.readySeconds.toFixed(2)} s spawn → /readyz 200; ${a.allAnswering.answering} of ${a.allAnswering.processes} node processes answering on the port after ` +
        `${a.allAnswering.seconds.toFixed(2)} s${a.allAnswering.complete ? '' : ' (not all within 60 s)'}; stopped in ${a.shutdownSeconds.toFixed(1)} s`,
    );
  }
  kv(`heap used, API_PROCESSES=${opts.apiProcesses}: at ready`, showHeap(heapAtReady));
  kv(`heap used, API_PROCESSES=${opts.apiProcesses}: after the loads`, showHeap(heapAfterLoads));
  if (a) {
    kv('heap used, API_PROCESSES=auto: at ready', showHeap(a.heap.atReady));
    kv('heap used, API_PROCESSES=auto: after its loads', showHeap(a.heap.afterLoads));
  }
  if (info.generate)
    kv(
      `generate${created ? '' : ' (at dataset creation)'}`,
      `${info.generate.seconds.toFixed(1)} s, ${fmt(info.generate.bytes / 1048576)} MB NDJSON`,
    );
  if (info.import)
    kv(
      `import${created ? '' : ' (at dataset creation)'}`,
      `${info.import.seconds.toFixed(1)} s, ${fmt(info.import.records)} records → ${fmt(info.import.appended)} events (${fmt(info.import.recordsPerSecond)} records/s)`,
    );
  if (info.firstBuild)
    kv(
      `first build${created ? '' : ' (at dataset creation)'}`,
      `${info.firstBuild.seconds.toFixed(1)} s spawn → /readyz 200, ${fmt(info.firstBuild.eventsPerSecond)} events/s`,
    );
  if (!created) kv('service start on the reused dataset', `${(firstReadyMs / 1000).toFixed(2)} s spawn → /readyz 200`);
  if (indexRuns.length) {
    kv(
      'the index alone, 2,000 distinct queries',
      `p50 ${showSpread(spread(indexRuns.map((r) => r.p50)), 2)} ms, p99 ${showSpread(spread(indexRuns.map((r) => r.p99)), 2)} ms, mean ${showSpread(spread(indexRuns.map((r) => r.mean)), 2)} ms`,
    );
    kv('  its snapshot loaded in', `${showSpread(spread(indexRuns.map((r) => r.loadMs)))} ms (${fmt(indexRuns[0].documents)} documents)`);
  }
  if (rebuilds.catalogue.length) {
    kv(
      'rebuild catalogue',
      `${showSpread(rebuildSpread(rebuilds.catalogue))} events/s (${showSpread(spread(rebuilds.catalogue.map((r) => r.seconds)), 2)} s for ${fmt(rebuilds.catalogue[0].position)} events)`,
    );
    kv(
      'rebuild lot-search',
      `${showSpread(rebuildSpread(rebuilds.lotSearch))} events/s (${showSpread(spread(rebuilds.lotSearch.map((r) => r.seconds)), 2)} s)`,
    );
  }
  if (restarts.length)
    kv(
      'restart',
      `${showSpread(spread(restarts.map((r) => r.readySeconds)), 2)} s spawn → /readyz 200; VmHWM at ready ${fmt(median(restarts.map((r) => r.memoryAtReady?.vmHwmBytes ?? NaN)) / 1048576)} MiB`,
    );
  if (memory)
    kv('service memory after the loads', `VmHWM ${fmt(memory.vmHwmBytes / 1048576)} MiB, VmRSS ${fmt(memory.vmRssBytes / 1048576)} MiB`);
  if (millionResult) {
    const m = millionResult;
    kv(`about 1M events: the dataset`, `${fmt(m.info.lots)} lots, ${fmt(m.events)} events`);
    if (m.info.firstBuild)
      kv('  first build', `${m.info.firstBuild.seconds.toFixed(1)} s (${fmt(m.info.firstBuild.eventsPerSecond)} events/s)`);
    kv(
      '  restart',
      `${showSpread(spread(m.restarts.map((r) => r.readySeconds)), 2)} s; VmHWM at ready ${fmt(median(m.restarts.map((r) => r.memoryAtReady?.vmHwmBytes ?? NaN)) / 1048576)} MiB`,
    );
    if (m.lots) kv('  lot page (1 round)', `${fmt(m.lots.rps)} req/s, p99 ${m.lots.p99} ms`);
    if (m.search) kv('  distinct search (1 round)', `${fmt(m.search.rps)} req/s, p99 ${m.search.p99} ms`);
    if (m.afterLoads)
      kv(
        '  memory after those loads',
        `VmHWM ${fmt(m.afterLoads.vmHwmBytes / 1048576)} MiB, VmRSS ${fmt(m.afterLoads.vmRssBytes / 1048576)} MiB`,
      );
  }
  if (accountFlows) {
    kv(
      "scrypt (N=2^17), the service's own",
      `${fmt(accountFlows.scrypt.sequentialMedianMs)} ms a hash; ${fmt(accountFlows.scrypt.parallel4PerSecond, 1)} hashes/s for 8 asked at once`,
    );
    kv(
      'sign-up + confirm + sign-in flows, 4 at once',
      `${fmt(accountFlows.flows.perSecond, 1)} flows/s, median ${fmt(accountFlows.flows.medianMs)} ms, p90 ${fmt(accountFlows.flows.p90Ms)} ms (${accountFlows.flows.completed} done, ${accountFlows.flows.failed} failed)`,
    );
    kv(
      'lot page, 10 conns: alone / during flows',
      `${fmt(accountFlows.lotPageAlone.rps)} req/s p99 ${accountFlows.lotPageAlone.p99} ms / ${fmt(accountFlows.lotPageDuringFlows.rps)} req/s p99 ${accountFlows.lotPageDuringFlows.p99} ms`,
    );
  }
  if (printed) {
    kv(
      `catalogue PDF, ${fmt(printed.auctionLots)} lots, first request`,
      `${fmt(printed.pdfFirst.ms)} ms, ${fmt(printed.pdfFirst.bytes / 1024)} KB`,
    );
    kv(
      'catalogue PDF, 50 concurrent first requests',
      `${fmt(printed.pdfConcurrentFirst.msAll)} ms until the last answer, ${printed.pdfConcurrentFirst.distinctBodies} distinct bodies`,
    );
    kv(
      'catalogue PDF, repeated request',
      `median ${fmt(printed.pdfRepeated.medianMs, 1)} ms (min ${fmt(printed.pdfRepeated.minMs, 1)}, max ${fmt(printed.pdfRepeated.maxMs, 1)}, ${printed.pdfRepeated.requests} requests)`,
    );
    kv(
      'spreadsheet export (.xlsx)',
      `median ${fmt(printed.export.medianMs)} ms (min ${fmt(printed.export.minMs)}, max ${fmt(printed.export.maxMs)}), ${fmt(printed.export.bytes / 1024)} KB`,
    );
    const mb = (m: Memory | null) => (m ? `VmRSS ${fmt(m.vmRssBytes / 1048576)} MiB, VmHWM ${fmt(m.vmHwmBytes / 1048576)} MiB` : '-');
    kv('service memory before / after the prints', `${mb(printed.memoryBefore)} / ${mb(printed.memoryAfter)}`);
  }
  if (loads.watch.length)
    kv(
      'watchlist load',
      `${fmt(loads.watch.reduce((s, l) => s + l.total, 0))} PUTs (+ warm-ups) by one member; watchlist holds ${watchlistSize ?? '?'} lots`,
    );
  lines.push('', 'targets');
  for (const t of targets) lines.push(`  ${t.pass ? 'PASS' : 'MISS'}  ${pad(t.target, 63)} ${t.value}`);
  const nonOk = allLoads.filter((l) => l.non2xx + l.errors > 0);
  if (nonOk.length) {
    lines.push('');
    for (const l of nonOk)
      lines.push(
        `  non-2xx/errors in ${l.name} round ${l.round}: status codes ${JSON.stringify(l.statusCodes)}, errors ${l.errors} (of which timeouts after 10 s: ${l.timeouts})`,
      );
  }
  if (profileFile) {
    lines.push('', `CPU profile of the service: ${path.relative(ROOT, profileFile)} (per measured window)`);
    for (const p of profiles) lines.push('', `${p.name} round ${p.round}:`, formatProfile(p.profile));
  }
  lines.push(
    '',
    `results: ${path.relative(ROOT, RESULTS)}; service logs: .bench/service.log${allCoresResult ? ', .bench/service-auto.log' : ''}, .bench/service-restart.log; total ${elapsedSeconds().toFixed(0)} s`,
  );
  process.stdout.write(lines.join('\n') + '\n');

  const results = {
    finishedAt: new Date().toISOString(),
    totalSeconds: elapsedSeconds(),
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemBytes: os.totalmem() },
    options: { ...opts, only: [...opts.only] },
    dataset: { ...info, reused: !created, eventsAtRun: events },
    serviceStartSeconds: firstReadyMs / 1000,
    probes: { lotPage: lotPageCheck, search: searchCheck, distinctSearch: distinctCheck, distinctTyposSearch: typosCheck },
    loads,
    distinctMixes: {
      distinct: { mix: DISTINCT_MIX, asked: mixComposition(distinct.asked()), used: distinctUsed, pool: pool.length - DISTINCT_PROBE },
      distinctTypos: {
        mix: TYPOS_MIX,
        asked: mixComposition(distinctTypos.asked()),
        used: typosUsed,
        pool: Math.max(0, typosPool.length - DISTINCT_PROBE),
      },
      skippedAsAsked,
    },
    mixed: { connections: MIXED_CONNECTIONS, apiProcesses1: mixedSingle, apiProcessesAuto: allCoresResult?.mixed ?? [] },
    allCores: allCoresResult && { ...allCoresResult, mixed: undefined },
    heap: {
      apiProcesses1: { atReady: heapAtReady, afterLoads: heapAfterLoads },
      apiProcessesAuto: allCoresResult?.heap ?? null,
    },
    indexAlone: indexRuns,
    rebuilds,
    restarts,
    memory,
    million: millionResult,
    backOffice,
    bidding,
    pushes,
    prints: printed,
    accounts: accountFlows,
    postgres: postgres ?? (postgresSkipped ? { skipped: postgresSkipped } : null),
    watchlist: { member: member.email, watchlistSize },
    distinctQueriesUsed: distinctUsed,
    shutdownSeconds: shutdownMs / 1000,
    targets,
    profile: profileFile ? { file: path.relative(ROOT, profileFile), perLoad: profiles } : null,
  };
  fs.writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
  if (has('analysts')) await analystsStep(results);
}

/** The analysts' tools on the 1M-event dataset (bench/analysts.ts), their report, and `analysts` in bench/results.json. */
async function analystsStep(results: Record<string, unknown> | null) {
  const big: Dataset = {
    dir: path.join(BENCH_DIR, 'million'),
    dataDir: path.join(BENCH_DIR, 'million', 'data'),
    lots: opts.lots,
    bidsPerLot: 13,
  };
  await ensureDataset(big, opts.fresh && results === null);
  const result: AnalystsResult = await analysts(big, opts.rounds);
  const report = analystsReport(result);
  const lines = [
    '',
    `analysts' tools · ${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} CPUs · ${fmt(result.head)} events · ${opts.rounds} rounds interleaved`,
    "medians of the rounds (min–max); the tools' own seconds; CPU and peak RSS (VmHWM) of the process, worker threads included",
    `load average (1 min) at the end: ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} CPUs (another workload on the machine shows here)`,
    ...report.lines,
    '',
    'targets',
    ...report.targets.map((t) => `  ${t.pass ? 'PASS' : 'MISS'}  ${t.target.padEnd(76)}${t.value}`),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const machine = { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemBytes: os.totalmem() };
  const merged = results ?? { finishedAt: new Date().toISOString(), machine, options: { ...opts, only: [...opts.only] } };
  fs.writeFileSync(RESULTS, JSON.stringify({ ...merged, analysts: { ...result, targets: report.targets } }, null, 2) + '\n');
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
