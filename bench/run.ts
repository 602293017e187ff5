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
 *       sale-day         400 watchlist PUTs and 200 distinct searches a second, paced, alone and then with the lot page at
 *                        full speed (bench/sale-day.ts; the lot page alone is its reference)
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
 *          --profile (node --cpu-prof on the loaded service, and on the PostgreSQL one in `postgres`; the top self-time functions per load)
 *          --api-processes 1 (API_PROCESSES of the service the steps other than `cores` and `mixed` load; `auto`
 *          measures e.g. timed bidding on every core, and then `cores` compares auto with auto)
 */
import fs from 'node:fs';
import { has, opts, runs, shownOptions } from './options.ts';
import { BENCH_DIR, say } from './processes.ts';
import { targets } from './report/targets.ts';
import { reportText } from './report/table.ts';
import { writeResults } from './report/results-file.ts';
import type { RunResults } from './run-results.ts';
import { allCores, allCoresInputs } from './steps/all-cores.ts';
import { analystsStep } from './steps/analysts.ts';
import { prepareDataset, startFirstService, stopFirstService } from './steps/first-start.ts';
import { accountsStep, backOfficeStep, biddingStep, memoryAfterLoads, printsStep, pushStep } from './steps/loaded-service.ts';
import { millionStep } from './steps/million.ts';
import { networkSteps } from './steps/network.ts';
import { postgresStep } from './steps/postgres.ts';
import { runProbes } from './steps/probes.ts';
import { profileOfLoads } from './steps/profile.ts';
import { serviceStoppedSteps } from './steps/service-stopped.ts';
import { distinctQueriesUsed, singleProcessLoads } from './steps/single-process-loads.ts';

/** The steps in the order they run; each is in bench/steps/ (the loads they drive in bench/*.ts). */
async function main() {
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  say(`options: ${JSON.stringify(shownOptions())}`);
  // The analysts' tools need no service: alone, they are all that runs.
  if (opts.only.size === 1 && has('analysts')) return analystsStep(null);
  // Across a network and the single writer: services and writers of their own on the demo data, no dataset.
  if (has('pg-network') || has('pg-writers')) {
    await networkSteps();
    if ([...opts.only].every((step) => step === 'pg-network' || step === 'pg-writers')) return;
  }
  const run = await datasetSteps();
  const targetLines = targets(run);
  process.stdout.write(reportText(run, targetLines));
  const results = writeResults(run, targetLines);
  if (has('analysts')) await analystsStep(results);
}

/** The steps on the bench's dataset: first on one service start, then on a second (all cores), then with it stopped. */
async function datasetSteps(): Promise<RunResults> {
  const first = await startFirstService(await prepareDataset());
  const probes = await runProbes(first);
  // lots, gzip, search, distinct, watch, mixed: rounds interleaved
  const single = await singleProcessLoads(first, probes);
  const backOffice = has('backoffice') ? await backOfficeStep(first) : null;
  const bidding = has('bidding') && first.biddingFixture ? await biddingStep(first) : null;
  const pushes = first.pushFixture ? await pushStep(first) : null;
  const { memory, heapAfterLoads } = await memoryAfterLoads(first);
  const printed = has('prints') ? await printsStep(first) : null;
  const accountFlows = has('accounts') ? await accountsStep(first) : null;
  const postgres = has('postgres') ? await postgresStep(first) : { postgres: null, skipped: null };
  const shutdownMs = await stopFirstService(first);
  const profile = opts.profile ? profileOfLoads(first.profileDir, single, bidding) : { file: null, perLoad: [] };
  if (postgres.profile) profile.perLoad.push(...postgres.profile.perLoad);
  // cores, and mixed's second half
  const allCoresResult = runs.allCores ? await allCores(allCoresInputs(first, probes, single)) : null;
  const used = distinctQueriesUsed(single);
  // index, rebuild, restart
  const stopped = await serviceStoppedSteps(first.dataset);
  const millionResult = has('million') ? await millionStep() : null;
  const onFirst = { backOffice, bidding, pushes, memory, heapAfterLoads, printed, accountFlows, postgres, shutdownMs, profile };
  return { first, probes, single, ...used, ...onFirst, allCoresResult, stopped, millionResult };
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
