/**
 * The PostgreSQL column of the bench: the same loads on the PostgreSQL engine set beside the embedded default,
 * rounds interleaved. Appends and replay straight on the two event logs (in this process); the lot page, the
 * watchlist PUT and a hot lot's bids through a second service started with POSTGRES_URL on a schema of the
 * run's own, which holds a copy of the dataset's log (positions and all) and is dropped after.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { SqliteEventLog } from '../src/adapters/embedded/sqlite-event-log.ts';
import { PgEventLog } from '../src/adapters/postgres/pg-event-log.ts';
import type { EventLog, ExpectedRevision } from '../src/ports/event-log.ts';
import { bidRequests, memberTokens } from './bidding-fixture.ts';
import { settle } from './bidding.ts';
import { API_KEY, MEMBER_PASSWORD, type Dataset } from './dataset.ts';
import { load, lotPageRequests, watchRequests, type LoadOptions, type LoadResult, type Target } from './loads.ts';
import { BENCH_DIR, say, stopProcess, waitFor200, type Proc } from './processes.ts';
import { ServiceClient } from './service-client.ts';
import { fmt, median, showSpread, spread } from './stats.ts';

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Concurrent callers of the append load, each appending one event at a time to a stream of its own. */
export const APPEND_CALLERS = 64;
/** Events a replay page: the projector's subscription batch (src/projector/loops.ts). */
export const REPLAY_PAGE = 2000;

export interface AppendResult {
  appendsPerSecond: number;
  p50: number;
  p99: number;
  appends: number;
  failed: number;
}

export interface ReplayResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** Events per second of this process's CPU (user + system): steadier than the wall clock on a busy machine. */
  eventsPerCpuSecond: number;
}

/** A URL without its credentials, for the report. */
export const shownUrl = (url: string) => url.replace(/\/\/[^@/]*@/, '//');

/** Null when PostgreSQL answers, else why not. */
export async function unreachable(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function dropSchemas(url: string, schemas: string[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * Copies the embedded log (the dataset's events.sqlite, read-only, up to its head now) into `schema` on
 * PostgreSQL, positions, revisions and times as they are, in pages of one multi-row INSERT each.
 */
export async function copyLog(eventsFile: string, url: string, schema: string): Promise<{ events: number; seconds: number }> {
  const started = performance.now();
  // The adapter creates the schema and its tables; the rows then go in directly.
  await (await PgEventLog.open(url, { schema })).close();
  const db = new Database(eventsFile, { readonly: true, fileMustExist: true });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let events = 0;
  try {
    const head = (db.prepare('SELECT max(position) AS p FROM events').get() as { p: number | null }).p ?? 0;
    const page = db.prepare<[number, number, number], [number, string, number, string, number, string, string, string]>(
      'SELECT position, stream_id, revision, type, version, data, metadata, created FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?',
    );
    page.raw(true);
    const insert = `INSERT INTO "${schema}".events (position, stream_id, revision, type, version, data, metadata, created)
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::int[], $6::json[], $7::json[], $8::timestamptz[])`;
    for (let from = 0; from < head;) {
      const rows = page.all(from, head, 5000);
      if (rows.length === 0) break;
      await client.query(
        insert,
        [0, 1, 2, 3, 4, 5, 6, 7].map((c) => rows.map((r) => r[c])),
      );
      events += rows.length;
      from = rows[rows.length - 1][0];
    }
    await client.query(`SELECT setval('"${schema}".event_positions', $1)`, [Math.max(head, 1)]);
    await client.query(`ANALYZE "${schema}".events`);
  } finally {
    db.close();
    await client.end();
  }
  return { events, seconds: (performance.now() - started) / 1000 };
}

/** `callers` loops, each appending one event at a time to its own stream (expected revision as the last answer), for `seconds`. */
export async function appendLoad(log: EventLog, tag: string, seconds: number, callers = APPEND_CALLERS): Promise<AppendResult> {
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      const streamId = `bench-append-${tag}-${c}`;
      let expected: ExpectedRevision = 'no_stream';
      for (let n = 0; performance.now() < until; n++) {
        const t = performance.now();
        try {
          const r = await log.appendToStream(
            streamId,
            [{ type: 'BenchAppended', version: 1, data: { caller: c, n }, metadata: { tenant: '_system' } }],
            { expectedRevision: expected },
          );
          expected = r.nextExpectedRevision;
          latencies.push(performance.now() - t);
        } catch {
          failed++;
          expected = 'any';
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    appendsPerSecond: latencies.length / elapsed,
    p50: median(latencies),
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
    appends: latencies.length,
    failed,
  };
}

/** Reads the whole log from position 0 in pages of REPLAY_PAGE, every event parsed, as a projection's replay reads it. */
export async function replay(log: EventLog): Promise<ReplayResult> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let position = 0;
  let events = 0;
  for (;;) {
    const page = await log.readAll({ fromPosition: position, maxCount: REPLAY_PAGE });
    if (page.length === 0) break;
    events += page.length;
    position = page[page.length - 1].position;
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { events, seconds, eventsPerSecond: events / seconds, eventsPerCpuSecond: events / ((used.user + used.system) / 1e6) };
}

/** The two logs the adapter loads run on: appends on logs of their own (emptied after), replay on the dataset's. */
export async function openAdapterLogs(benchDir: string, eventsFile: string, url: string, schema: string) {
  const appendsFile = path.join(benchDir, `appends-${schema}.sqlite`);
  const embeddedAppends = new SqliteEventLog(appendsFile);
  const pgAppends = await PgEventLog.open(url, { schema: `${schema}_appends` });
  const embeddedReplay = new SqliteEventLog(eventsFile);
  const pgReplay = await PgEventLog.open(url, { schema });
  return {
    embedded: { appends: embeddedAppends as EventLog, replay: embeddedReplay as EventLog },
    postgres: { appends: pgAppends as EventLog, replay: pgReplay as EventLog },
    async close() {
      for (const log of [embeddedAppends, pgAppends, embeddedReplay, pgReplay]) await log.close();
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(appendsFile + suffix, { force: true });
      await dropSchemas(url, [`${schema}_appends`]);
      say('  adapter logs closed; the appends schema and file removed');
    },
  };
}

/** One engine set's figures, a value a round. */
export interface Side {
  appends: AppendResult[];
  replay: ReplayResult[];
  lots: LoadResult[];
  watch: LoadResult[];
  hot: LoadResult[];
}

export interface PostgresColumn {
  url: string;
  schema: string;
  /** The dataset's log copied into the schema. */
  copy: { events: number; seconds: number };
  /** The PostgreSQL service's first start: spawn to /readyz 200, every projection built from the copied log. */
  firstBuildSeconds: number;
  embedded: Side;
  postgres: Side;
}

export interface ColumnInputs {
  url: string;
  port: number;
  /** The embedded dataset (its service running) and that service. */
  dataset: Dataset;
  embedded: { client: ServiceClient; target: Target };
  /** Starts the service on `dataset` with `env` added (bench/steps/postgres.ts: the same flags as the embedded one). */
  startService: (name: string, dataset: Dataset, env: Record<string, string>) => Proc;
  /** A member imported for this step alone, with an empty watchlist on both. */
  memberEmail: string;
  /** The timed auction's members and one fresh hot lot a round (bench/bidding.ts). */
  bidders: number[];
  hotLots: number[];
  loadOptions: LoadOptions;
  rounds: number;
  /** Seconds of each append load. */
  appendSeconds: number;
}

/**
 * The loads on both engine sets, rounds interleaved (embedded, then PostgreSQL, load by load): the dataset's log
 * copied into a fresh schema, a second service started on it (its own DATA_DIR with the same secrets), then per
 * round appends, replay, the lot page, the watchlist PUT and a hot lot's bids; the service stopped and the schema
 * dropped after.
 */
export async function postgresColumn(inputs: ColumnInputs): Promise<PostgresColumn> {
  const { url, dataset, rounds } = inputs;
  const schema = `bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const eventsFile = path.join(dataset.dataDir, 'events.sqlite');
  const pgDataset: Dataset = { ...dataset, dir: path.join(BENCH_DIR, 'pg'), dataDir: path.join(BENCH_DIR, 'pg', 'data') };
  let proc: Proc | null = null;
  let logs: Awaited<ReturnType<typeof openAdapterLogs>> | null = null;
  try {
    say(`PostgreSQL: copying the log into schema ${schema} on ${shownUrl(url)}`);
    const copy = await copyLog(eventsFile, url, schema);
    say(`  ${fmt(copy.events)} events in ${copy.seconds.toFixed(1)} s`);
    // Its own DATA_DIR (the lot index replica, jobs, limits) with the embedded service's secrets: one token for both.
    fs.rmSync(pgDataset.dir, { recursive: true, force: true });
    fs.mkdirSync(pgDataset.dataDir, { recursive: true });
    fs.cpSync(path.join(dataset.dataDir, 'secrets'), path.join(pgDataset.dataDir, 'secrets'), { recursive: true });
    say('  starting the service on PostgreSQL; log in .bench/service-postgres.log');
    proc = inputs.startService('service-postgres', pgDataset, { POSTGRES_URL: url, POSTGRES_SCHEMA: schema, PORT: String(inputs.port) });
    const readyMs = await waitFor200(proc, `http://127.0.0.1:${inputs.port}/readyz`, 15 * 60_000);
    say(`  ready after ${(readyMs / 1000).toFixed(1)} s (every projection built from the copied log)`);
    // Ready means within READY_MAX_LAG_SECONDS of the head: the loads start once the last of the build is done.
    await settle(proc.pid);
    logs = await openAdapterLogs(BENCH_DIR, eventsFile, url, schema);

    const sides = await engineSides(inputs, proc, logs);
    const tokens = memberTokens(dataset, 'demo', inputs.bidders);
    for (let round = 1; round <= rounds; round++) await columnRound(inputs, sides, tokens, round);
    return { url: shownUrl(url), schema, copy, firstBuildSeconds: readyMs / 1000, embedded: sides[0].figures, postgres: sides[1].figures };
  } finally {
    if (proc) {
      const ms = await stopProcess(proc);
      say(`  the PostgreSQL service stopped (SIGTERM) in ${(ms / 1000).toFixed(1)} s, exit code ${proc.child.exitCode}`);
    }
    await logs?.close();
    await dropSchemas(url, [schema]).catch((error) => say(`  dropping schema ${schema} failed: ${(error as Error).message}`));
    fs.rmSync(pgDataset.dir, { recursive: true, force: true });
    say(`  schema ${schema} dropped, .bench/pg removed`);
  }
}

/** The report's lines: each figure's median (min–max) on both engine sets, and PostgreSQL ÷ embedded a round. */
export function postgresReport(p: PostgresColumn): string[] {
  const pad = (s: string, n: number) => s.padEnd(n);
  const lpad = (s: string, n: number) => s.padStart(n);
  const rows: Array<[string, (s: Side) => number[], number]> = [
    [`one-event appends, ${APPEND_CALLERS} callers (/s)`, (s) => s.appends.map((a) => a.appendsPerSecond), 0],
    ['  their p99 (ms)', (s) => s.appends.map((a) => a.p99), 1],
    [`replay, pages of ${fmt(REPLAY_PAGE)} (events/s)`, (s) => s.replay.map((r) => r.eventsPerSecond), 0],
    ['  events per CPU second of the reader', (s) => s.replay.map((r) => r.eventsPerCpuSecond), 0],
    ['lot page (req/s)', (s) => s.lots.map((l) => l.rps), 0],
    ['  its p99 (ms)', (s) => s.lots.map((l) => l.p99), 0],
    ['watchlist PUT (req/s)', (s) => s.watch.map((l) => l.rps), 0],
    ['  its p99 (ms)', (s) => s.watch.map((l) => l.p99), 0],
    ['one hot lot, bids (req/s)', (s) => s.hot.map((l) => l.rps), 0],
    ['  their p99 (ms)', (s) => s.hot.map((l) => l.p99), 0],
  ];
  const header = `${pad('load', 40)}${lpad('embedded', 26)}${lpad('PostgreSQL', 26)}${lpad('PostgreSQL ÷ embedded', 26)}`;
  const lines = [
    '',
    `PostgreSQL beside the embedded default: ${p.url}, schema ${p.schema} (dropped after) holding the dataset's log ` +
      `(${fmt(p.copy.events)} events copied in ${p.copy.seconds.toFixed(1)} s; the service's first build on it ${p.firstBuildSeconds.toFixed(1)} s). ` +
      'Medians of the rounds (min–max), the two run load by load in each round; appends and replay on the adapters in the bench process.',
    header,
    '-'.repeat(header.length),
  ];
  for (const [name, values, digits] of rows) {
    const e = values(p.embedded);
    const q = values(p.postgres);
    if (!e.length && !q.length) continue;
    const ratios = q.map((v, i) => v / e[i]);
    lines.push(
      `${pad(name, 40)}${lpad(showSpread(spread(e), digits), 26)}${lpad(showSpread(spread(q), digits), 26)}${lpad(showSpread(spread(ratios), 2, '×'), 26)}`,
    );
  }
  const refused = (s: Side) => [...s.lots, ...s.watch, ...s.hot].reduce((n, l) => n + l.non2xx + l.errors, 0);
  lines.push(
    `non-2xx or errors: embedded ${refused(p.embedded)}, PostgreSQL ${refused(p.postgres)}; hot lot statuses: embedded ` +
      `${JSON.stringify(p.embedded.hot.map((l) => l.statusCodes))}, PostgreSQL ${JSON.stringify(p.postgres.hot.map((l) => l.statusCodes))}`,
  );
  return lines;
}

/** One engine set as the rounds load it: its service and logs, what its requests are sent with, and its figures. */
interface EngineSide {
  name: string;
  client: ServiceClient;
  target: Target;
  logs: { appends: EventLog; replay: EventLog };
  figures: Side;
  headers: { catalogue: Record<string, string>; member: Record<string, string>; bids: Record<string, string> };
  watch: ReturnType<typeof watchRequests>;
}

/** The embedded service and the PostgreSQL one, with tokens and a watchlist generator of each's own (the member's watchlist starts empty on both). */
async function engineSides(inputs: ColumnInputs, proc: Proc, logs: Awaited<ReturnType<typeof openAdapterLogs>>): Promise<EngineSide[]> {
  const pgTarget: Target = { pid: proc.pid, spawnedAt: proc.spawnedAt };
  const sides = [
    { name: 'embedded', client: inputs.embedded.client, target: inputs.embedded.target, logs: logs.embedded },
    { name: 'PostgreSQL', client: new ServiceClient(inputs.port), target: pgTarget, logs: logs.postgres },
  ];
  return Promise.all(
    sides.map(async (side) => {
      const anon = await side.client.anonymousToken();
      const member = await side.client.memberToken(anon, inputs.memberEmail, MEMBER_PASSWORD);
      const headers = {
        catalogue: { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` },
        member: { 'Api-Key': API_KEY, Authorization: `Bearer ${member}`, 'Content-Type': 'application/json' },
        bids: { 'Api-Key': API_KEY, 'Content-Type': 'application/json' },
      };
      return { ...side, figures: { appends: [], replay: [], lots: [], watch: [], hot: [] } as Side, headers, watch: watchRequests() };
    }),
  );
}

/** One round: appends, replay, the lot page, the watchlist PUT and (while fresh hot lots last) a hot lot's bids, each load on both sides. */
async function columnRound(inputs: ColumnInputs, sides: EngineSide[], tokens: string[], round: number) {
  const { loadOptions } = inputs;
  for (const side of sides) {
    const r = await appendLoad(side.logs.appends, `${side.name === 'embedded' ? 'e' : 'p'}${round}`, inputs.appendSeconds);
    say(
      `  ${side.name} appends (round ${round}): ${fmt(r.appendsPerSecond)}/s from ${APPEND_CALLERS} callers, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.failed} failed`,
    );
    side.figures.appends.push(r);
  }
  for (const side of sides) {
    const r = await replay(side.logs.replay);
    say(
      `  ${side.name} replay (round ${round}): ${fmt(r.events)} events in ${r.seconds.toFixed(2)} s, ${fmt(r.eventsPerSecond)} events/s ` +
        `(${fmt(r.eventsPerCpuSecond)} per CPU second)`,
    );
    side.figures.replay.push(r);
  }
  const http = (side: EngineSide, what: string) => `${what} (${side.name})`;
  for (const side of sides)
    side.figures.lots.push(
      await load(
        http(side, 'GET /v1/lots page'),
        round,
        side.client.url('/'),
        lotPageRequests(),
        side.headers.catalogue,
        loadOptions,
        side.target,
      ),
    );
  for (const side of sides)
    side.figures.watch.push(
      await load(
        http(side, 'PUT /v1/me/watchlist/{lotId}'),
        round,
        side.client.url('/'),
        side.watch,
        side.headers.member,
        loadOptions,
        side.target,
      ),
    );
  const hotLot = inputs.hotLots[round - 1];
  if (hotLot === undefined) return;
  for (const side of sides)
    side.figures.hot.push(
      await load(
        http(side, 'POST /v1/me/bids, one hot lot'),
        round,
        side.client.url('/'),
        bidRequests(tokens, () => hotLot),
        side.headers.bids,
        loadOptions,
        side.target,
      ),
    );
}
