/**
 * The `pg-network` step: the service on PostgreSQL and Redis reached through the latency proxy
 * (bench/latency-proxy.ts, a process of its own), per round-trip time: each operation's p50/p99 at one request at a
 * time, its round trips to PostgreSQL and Redis a request (the service's own bidder_round_trips_total, read on
 * /metrics before and after) and its CPU a request. The schema is the demo data, seeded directly by a first
 * process that then stops; the measured process runs every role (API_PROCESSES=1), and at the first round-trip
 * time also as an `api` process beside a projector process apart (on PostgreSQL directly). Schema and Redis keys
 * go after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { targetOf, throughProxy } from './latency-proxy.ts';
import { dropSchemas } from './postgres.ts';
import { cpuSecondsOf, say, sleep, startProcess, stopProcess, waitFor200, type Proc } from './processes.ts';
import { fmt } from './stats.ts';

const API_KEY = 'bench-network-api-key-0123456789';
const PASSWORD = 'bench-network-password-123';
const OPERATOR_TOKEN = 'bench-network-operator-token-0123456789';
const BACK_OFFICE_KEY = 'bench-network-backoffice-key-0123456789';
/** The demo tenant's timed auction and its first lot (app/seed/demo.ts). */
const TIMED_AUCTION = 10;
const TIMED_FIRST_LOT = 2001;
const TIMED_LOTS = 60;

export interface NetworkRow {
  name: string;
  operation: string;
  requests: number;
  p50: number;
  p99: number;
  /** Round trips a request, from the service's counter. */
  postgres: number;
  redis: number;
  cpuMsPerRequest: number;
  statuses: Record<string, number>;
}

/** `one process`: every role in the measured process; `api apart`: an `api` process, the projector in another. */
export type NetworkShape = 'one process' | 'api apart';

export interface NetworkRun {
  rttMs: number;
  shape: NetworkShape;
  rows: NetworkRow[];
}

export interface NetworkInputs {
  postgresUrl: string;
  redisUrl: string;
  port: number;
  rttsMs: number[];
  /** Requests an operation, one at a time. */
  requests: number;
}

function serviceEnv(dataDir: string, port: number, postgres: string, redis: string, schema: string, prefix: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    POSTGRES_URL: postgres,
    POSTGRES_SCHEMA: schema,
    REDIS_URL: redis,
    REDIS_PREFIX: prefix,
    API_PROCESSES: '1',
    LOG_LEVEL: 'warn',
    JWT_SECRET: '',
    DEMO_API_KEY: API_KEY,
    DEMO_MEMBER_PASSWORD: PASSWORD,
    DEMO_BACKOFFICE_KEY: BACK_OFFICE_KEY,
    OPERATOR_TOKEN,
  };
}

/** The proxy process: one listening port per target, read from its log's first line. */
async function startProxy(oneWayMs: number, targets: Array<{ host: string; port: number }>): Promise<{ proc: Proc; ports: number[] }> {
  const proc = startProcess(`latency-proxy-${oneWayMs}`, 'bench/latency-proxy.ts', {
    ...process.env,
    ONE_WAY_MS: String(oneWayMs),
    TARGETS: targets.map((t) => `${t.host}:${t.port}`).join(','),
  });
  for (let tries = 0; tries < 300; tries++) {
    const line = fs.readFileSync(proc.logFile, 'utf8').split('\n')[0];
    if (line.startsWith('{')) return { proc, ports: (JSON.parse(line) as { ports: number[] }).ports };
    await sleep(100);
  }
  throw new Error('the latency proxy did not start');
}

/** Every series of a counter for one operation, summed (engine: one engine's series only). */
function sumOf(metrics: string, name: string, operation: string, engine?: string): number {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && l.includes(`operation="${operation}"`) && (!engine || l.includes(`engine="${engine}"`)))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

async function json(base: string, method: string, url: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { 'Api-Key': API_KEY, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

interface OperationPlan {
  name: string;
  operation: string;
  request: (i: number) => { method: string; url: string; headers: Record<string, string>; body?: unknown };
  /** Requests before the measured ones (a cache filled, a registration made). */
  warmup?: number;
}

/** One operation, `n` requests one at a time: latencies, statuses, round trips and CPU a request. */
async function measure(base: string, pid: number, plan: OperationPlan, n: number): Promise<NetworkRow> {
  const send = async (i: number) => {
    const r = plan.request(i);
    const response = await fetch(`${base}${r.url}`, {
      method: r.method,
      headers: { 'Api-Key': API_KEY, ...(r.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...r.headers },
      body: r.body === undefined ? undefined : JSON.stringify(r.body),
    });
    await response.arrayBuffer();
    return response.status;
  };
  for (let i = 0; i < (plan.warmup ?? 0); i++) await send(-1 - i);
  const metrics = async () => (await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
  const before = await metrics();
  const cpuBefore = cpuSecondsOf(pid);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const status = await send(i);
    latencies.push(performance.now() - started);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const cpu = cpuSecondsOf(pid) - cpuBefore;
  const after = await metrics();
  const counted = sumOf(after, 'bidder_http_requests_total', plan.operation) - sumOf(before, 'bidder_http_requests_total', plan.operation);
  const per = (engine: string) =>
    (sumOf(after, 'bidder_round_trips_total', plan.operation, engine) - sumOf(before, 'bidder_round_trips_total', plan.operation, engine)) /
    Math.max(1, counted);
  latencies.sort((a, b) => a - b);
  return {
    name: plan.name,
    operation: plan.operation,
    requests: n,
    p50: latencies[Math.floor(n / 2)],
    p99: latencies[Math.min(n - 1, Math.floor(n * 0.99))],
    postgres: per('postgres'),
    redis: per('redis'),
    cpuMsPerRequest: (cpu * 1000) / n,
    statuses,
  };
}

/** The feed's first pages, whose `Next` positions the load then asks from in turn (the first: from the start). */
async function feedPositions(base: string): Promise<string[]> {
  const feedAfter = [''];
  for (let page = 0; page < 10; page++) {
    const feed = await json(base, 'GET', `/backoffice/v1/events?limit=100${feedAfter[page]}`, {
      Authorization: `Bearer ${BACK_OFFICE_KEY}`,
    });
    if (feed.status !== 200 || typeof feed.body?.Next !== 'string') break;
    feedAfter.push(`&after=${encodeURIComponent(feed.body.Next)}`);
  }
  return feedAfter;
}

/** What each operation sends: the demo tenant's catalogue, its bidder, its timed auction and its back office. */
async function plans(base: string, round: number): Promise<OperationPlan[]> {
  const anonymous = (await json(base, 'POST', '/v1/tokens/anonymous', {}, { clientId: 'demo' })).body!.Token as string;
  const session = await json(
    base,
    'POST',
    '/v1/sessions',
    { Authorization: `Bearer ${anonymous}` },
    { Email: 'bidder@example.com', Password: PASSWORD },
  );
  if (session.status !== 200) throw new Error(`sign-in: ${session.status}`);
  const member = { Authorization: `Bearer ${session.body!.Token as string}` };
  const anon = { Authorization: `Bearer ${anonymous}` };
  const registered = await json(base, 'POST', `/v1/me/registrations/${TIMED_AUCTION}`, member);
  if (registered.status >= 300) say(`  registration for the timed auction: ${registered.status}`);
  const words = ['clock', 'chair', 'silver', 'painting', 'vase', 'table', 'lamp', 'ring', 'mirror', 'bowl'];
  const feedAfter = await feedPositions(base);
  return [
    {
      name: 'lot page, cached',
      operation: 'listLots',
      warmup: 3,
      request: () => ({ method: 'GET', url: '/v1/lots?AuctionId=1&PageSize=20', headers: anon }),
    },
    {
      name: 'lot page, uncached',
      operation: 'listLots',
      // A page size never asked before: the cache has no answer for it.
      request: (i) => ({
        method: 'GET',
        url: `/v1/lots?AuctionId=1&PageSize=${5 + (i % 95)}&Page=${2 + Math.floor(i / 95)}`,
        headers: anon,
      }),
    },
    {
      name: 'search',
      operation: 'searchLots',
      request: (i) => ({
        method: 'GET',
        url: `/v1/lots/search?q=${words[Math.abs(i) % words.length]}&pageSize=${5 + (Math.abs(i) % 20)}`,
        headers: anon,
      }),
    },
    {
      name: 'watchlist PUT',
      operation: 'watchLot',
      warmup: 1,
      // A lot not on the watchlist yet each time (in every round): every request appends an event.
      request: (i) => ({
        method: 'PUT',
        url: `/v1/me/watchlist/${i < 0 ? 900 + round : 1 + round * 300 + i}`,
        headers: member,
        body: { Type: 'watch' },
      }),
    },
    {
      name: 'bid',
      operation: 'placeBid',
      warmup: 1,
      // A rising maximum on one lot after another of the timed auction.
      request: (i) => ({
        method: 'POST',
        url: '/v1/me/bids',
        headers: member,
        body: { LotId: TIMED_FIRST_LOT + ((i + 1000) % TIMED_LOTS), MaxAmount: 100_000 + round * 10_000_000 + (i + 1000) * 1000 },
      }),
    },
    {
      name: 'feed page',
      operation: 'listBackOfficeEvents',
      request: (i) => ({
        method: 'GET',
        url: `/backoffice/v1/events?limit=100${feedAfter[Math.abs(i) % feedAfter.length]}`,
        headers: { Authorization: `Bearer ${BACK_OFFICE_KEY}` },
      }),
    },
  ];
}

/** The whole step: seed, then per round-trip time a proxy and the service behind it, each operation measured. */
export async function pgNetworkStep(inputs: NetworkInputs): Promise<NetworkRun[]> {
  const schema = `bench_net_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const prefix = `bench-net-${process.pid}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-bench-network-'));
  const base = `http://127.0.0.1:${inputs.port}`;
  const runs: NetworkRun[] = [];
  let service: Proc | null = null;
  let proxy: Proc | null = null;
  let projector: Proc | null = null;
  try {
    say(`pg-network: seeding the demo data into schema ${schema} (directly)`);
    const seeder = startProcess(
      'service-pg-network-seed',
      'app/main.ts',
      serviceEnv(path.join(root, 'seed'), inputs.port, inputs.postgresUrl, inputs.redisUrl, schema, prefix),
    );
    await waitFor200(seeder, `${base}/readyz`, 5 * 60_000);
    await stopProcess(seeder);
    // Every round-trip time with every role in one process; the first also with the projector in a process apart.
    const shapes = inputs.rttsMs.flatMap((rtt, i) => [
      { rtt, shape: 'one process' as const },
      ...(i === 0 ? [{ rtt, shape: 'api apart' as const }] : []),
    ]);
    for (const { rtt, shape } of shapes) {
      const started = await startProxy(rtt / 2, [targetOf(inputs.postgresUrl), targetOf(inputs.redisUrl)]);
      proxy = started.proc;
      const [pgPort, redisPort] = started.ports;
      const folder = path.join(root, `rtt-${rtt}-${runs.length}`);
      if (shape === 'api apart') {
        // The projector and the job worker on PostgreSQL and Redis directly, on a port of their own.
        const projectorEnv = serviceEnv(`${folder}-projector`, inputs.port + 1, inputs.postgresUrl, inputs.redisUrl, schema, prefix);
        projector = startProcess(`service-pg-network-projector`, 'app/main.ts', projectorEnv);
        await waitFor200(projector, `http://127.0.0.1:${inputs.port + 1}/readyz`, 5 * 60_000);
      }
      const env = serviceEnv(
        folder,
        inputs.port,
        throughProxy(inputs.postgresUrl, pgPort),
        throughProxy(inputs.redisUrl, redisPort),
        schema,
        prefix,
      );
      if (shape === 'api apart') env.ROLE = 'api';
      service = startProcess(`service-pg-network-${rtt}-${runs.length}`, 'app/main.ts', env);
      const readyMs = await waitFor200(service, `${base}/readyz`, 5 * 60_000);
      say(`  ${rtt} ms round-trip time, ${shape}: the service behind the proxy ready after ${(readyMs / 1000).toFixed(1)} s`);
      const rows: NetworkRow[] = [];
      for (const plan of await plans(base, runs.length)) {
        const row = await measure(base, service.pid, plan, inputs.requests);
        say(
          `  ${rtt} ms RTT, ${shape}, ${row.name}: p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, round trips a request PostgreSQL ` +
            `${row.postgres.toFixed(2)}, Redis ${row.redis.toFixed(2)}, CPU ${row.cpuMsPerRequest.toFixed(2)} ms a request, statuses ${JSON.stringify(row.statuses)}`,
        );
        rows.push(row);
      }
      runs.push({ rttMs: rtt, shape, rows });
      await stopProcess(service);
      service = null;
      if (projector) await stopProcess(projector);
      projector = null;
      await stopProcess(proxy);
      proxy = null;
    }
    return runs;
  } finally {
    if (service) await stopProcess(service);
    if (projector) await stopProcess(projector);
    if (proxy) await stopProcess(proxy);
    await dropSchemas(inputs.postgresUrl, [schema]).catch((error) =>
      say(`  dropping schema ${schema} failed: ${(error as Error).message}`),
    );
    const redis = new Redis(inputs.redisUrl);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    fs.rmSync(root, { recursive: true, force: true });
    say(`  schema ${schema}, Redis keys ${prefix}* and the data folders removed`);
  }
}

/** The report's table: a line per operation and round-trip time. */
export function pgNetworkReport(runs: NetworkRun[]): string[] {
  const header = `${'operation'.padEnd(22)}${'shape'.padEnd(13)}${'RTT'.padStart(7)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'PG RT/req'.padStart(11)}${'Redis RT/req'.padStart(14)}${'CPU ms/req'.padStart(12)}  statuses`;
  const lines = [
    '',
    'Across a network (the service behind the latency proxy; one request at a time):',
    header,
    '-'.repeat(header.length + 10),
  ];
  for (const run of runs)
    for (const r of run.rows)
      lines.push(
        `${r.name.padEnd(22)}${run.shape.padEnd(13)}${`${fmt(run.rttMs, 1)} ms`.padStart(7)}${r.p50.toFixed(2).padStart(9)}${r.p99.toFixed(2).padStart(9)}` +
          `${r.postgres.toFixed(2).padStart(11)}${r.redis.toFixed(2).padStart(14)}${r.cpuMsPerRequest.toFixed(2).padStart(12)}  ${JSON.stringify(r.statuses)}`,
      );
  return lines;
}
