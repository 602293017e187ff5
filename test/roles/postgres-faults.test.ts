/**
 * PostgreSQL restarted under a stream of writes (PRODUCTION.md "PostgreSQL", faults): the service in two shapes at
 * once, one `all` process and a `projector` with an `api` (each shape in a schema of its own), on a PostgreSQL
 * server of the spec's own (test/support/private-postgres.ts), which is stopped twice while a bidder writes
 * through each shape, once cleanly (`fast`) and once as a crash (`immediate`). Every answer is 200, or 503 with
 * Retry-After, within the bound; /readyz of every process is 503 while PostgreSQL is down; every process serves
 * again soon after its return without a restart; every write answered 200 is in the log; the projections equal
 * a replay of the log.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  call,
  demoMemberToken,
  ready,
  sleep,
  startService,
  freePort,
  SERVICE_API_KEY,
  type ServiceProcess,
} from '../support/service-process.ts';
import { privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';
import { PgEventLog } from '../../src/adapters/postgres/pg-event-log.ts';
import { PgDocumentStore } from '../../src/adapters/postgres/pg-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { LOT_SEARCH_PARTITION } from '../../projections/lot-search/index.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { createLogger } from '../../src/logger.ts';
import { watchlistProjection } from '../../projections/watchlist/projection.ts';
import { biddingProjection } from '../../projections/bidding/projection.ts';
import { catalogueProjection } from '../../projections/catalogue/projection.ts';
import { bidsProjection } from '../../projections/bids/projection.ts';
import { collectionsOf, replayed } from '../support/replay.ts';

/** The longest answer allowed while PostgreSQL is down: READ_YOUR_WRITES_TIMEOUT_MS (5 s by default) plus a few seconds. */
const ANSWER_BOUND_MS = 8000;
/** How long after PostgreSQL's return the process must serve again. */
const RECOVERY_MS = 10_000;
/** How long PostgreSQL stays down each time. */
const DOWN_MS = 3000;

interface Answer {
  kind: 'watch' | 'bid';
  status: number;
  retryAfter: string | null;
  sent: number;
  ms: number;
  /** What the write asked for: the watch type of a lot, or a bid's maximum. */
  lotId: number;
  value: string | number;
  text: string;
}

interface Outage {
  mode: 'fast' | 'immediate';
  down: number;
  /** When pg_ctl's stop returned: the server is gone from then on (a fast stop takes a while on a busy machine). */
  stopped: number;
  up: number;
}

/** One /readyz probe: when it was sent, when its answer came, and the status (0: no answer). */
interface Probe {
  sent: number;
  at: number;
  status: number;
}

/** One deployment on its own schema: its processes (the last serves the API), and what the spec saw of it. */
interface Shape {
  name: string;
  schema: string;
  processes: ServiceProcess[];
  pids: Array<number | undefined>;
  answers: Answer[];
  /** /readyz of each process (by index in `processes`). */
  readiness: Probe[][];
  /** A subscriber of the shape's log in this process that polls only once a minute (so it follows on LISTEN alone). */
  listening: PgEventLog | null;
  /** Events that subscriber received: when each was appended, and when it arrived. */
  heard: Array<{ created: number; at: number }>;
}

const JWT_SECRET = 'a-secret-of-the-fault-spec-0123456789-abcdef';

describe('PostgreSQL restarted during a stream of writes', function () {
  // The demo data seeded into PostgreSQL (most of the time), then about 25 s of faults.
  this.timeout(180_000);
  let server: PrivatePostgres | null = null;
  const dataDirs: string[] = [];
  const outages: Outage[] = [];
  const shape = (name: string, schema: string): Shape => ({
    name,
    schema,
    processes: [],
    pids: [],
    answers: [],
    readiness: [],
    listening: null,
    heard: [],
  });
  const shapes = [shape('all', 'bidder_all'), shape('projector + api', 'bidder_pair')];
  const http = (s: Shape) => s.processes[s.processes.length - 1];

  const start = async (s: Shape, role: string) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-pg-faults-'));
    dataDirs.push(dataDir);
    const proc = startService({
      role,
      port: await freePort(),
      dataDir,
      env: { POSTGRES_URL: server!.url, POSTGRES_SCHEMA: s.schema, JWT_SECRET },
    });
    s.processes.push(proc);
    await ready(proc, 150_000);
    s.pids.push(proc.child.pid);
  };

  before(async function () {
    if (!privatePostgresAvailable()) {
      if (process.env.SKIP_POSTGRES === '1') {
        console.log('      (PostgreSQL binaries not found, SKIP_POSTGRES=1: skipped)');
        this.skip();
      }
      throw new Error('PostgreSQL binaries not found (set PG_BIN); set SKIP_POSTGRES=1 to skip');
    }
    server = await startPrivatePostgres();
    const [all, pair] = shapes;
    // The demo data seeded once (by the projector), then copied for the `all` process, which finds its log full.
    await start(pair, 'projector');
    await server.cloneSchema(pair.schema, all.schema);
    // Without the projector's lease, which is the pair's.
    const admin = new pg.Pool({ connectionString: server.url, max: 1 });
    await admin.query(`DELETE FROM "${all.schema}".leases`).finally(() => admin.end());
    await Promise.all([start(pair, 'api'), start(all, 'all')]);

    let writing = true;
    const running: Array<Promise<void>> = [];
    for (const s of shapes) {
      const base = http(s).base;
      // Ready means at most READY_MAX_LAG_SECONDS behind: the demo member may be projected a moment later.
      let token = '';
      for (const deadline = Date.now() + 30_000; !token; await sleep(500))
        token = await demoMemberToken(base).catch((error: Error) => {
          if (Date.now() > deadline) throw new Error(`${s.name}: ${error.message}`);
          return '';
        });
      // Lots of the timed auction 10, open for days, which the demo member registers for: to watch and bid on.
      const registered = await call(base, 'POST', '/v1/me/registrations/10', token);
      expect(registered.status, registered.text).to.equal(200);
      const lots = await call(base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', token);
      expect(lots.status, lots.text).to.equal(200);
      const open = (
        lots.body.Items as Array<{ Id: number; EndTime: string | null; IsClosed: boolean; MinimumNextBid: number | null }>
      ).filter((l) => !l.IsClosed && l.EndTime && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.MinimumNextBid !== null);
      expect(open.length, 'open lots of auction 10').to.be.greaterThan(3);

      const timed = async (kind: Answer['kind'], lotId: number, value: string | number, method: string, url: string, body: unknown) => {
        const sent = Date.now();
        let status = 0;
        let retryAfter: string | null = null;
        let text: string;
        try {
          const response = await fetch(`${base}${url}`, {
            method,
            headers: { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(30_000),
          });
          status = response.status;
          retryAfter = response.headers.get('retry-after');
          text = await response.text();
        } catch (error) {
          text = String(error);
        }
        s.answers.push({ kind, status, retryAfter, sent, ms: Date.now() - sent, lotId, value, text });
        if (status !== 200) await sleep(50);
      };
      // Three watchers, each turning one lot's watch type round.
      const types = ['watch', 'favourite', 'reminder'];
      const watcher = async (lotId: number) => {
        for (let i = 0; writing; i++) await timed('watch', lotId, types[i % 3], 'PUT', `/v1/me/watchlist/${lotId}`, { Type: types[i % 3] });
      };
      // A bidder raising its maximum each time, answered or not: a bid answered 503 may have been placed all the
      // same, and the next is a raise above it either way. (Sent again with its Idempotency-Key instead, it would
      // meet the key still claimed by the failed attempt: 409 with Retry-After for up to 30 s.)
      const bidder = async (lot: { Id: number; MinimumNextBid: number | null }) => {
        for (let max = lot.MinimumNextBid! + 1000; writing; max += 10)
          await timed('bid', lot.Id, max, 'POST', '/v1/me/bids', { LotId: lot.Id, MaxAmount: max });
      };
      const probe = async (proc: ServiceProcess, seen: Probe[]) => {
        while (writing) {
          const sent = Date.now();
          // 0: no answer at all (the process gone, or slower than 10 s).
          const status = await fetch(`${proc.base}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(
            (r) => r.status,
            () => 0,
          );
          seen.push({ sent, at: Date.now(), status });
          await sleep(200);
        }
      };
      s.listening = await PgEventLog.open(server.url, { schema: s.schema, pollMs: 60_000 });
      const subscription = s.listening.subscribeToAll({ fromPosition: await s.listening.headPosition() });
      running.push(
        (async () => {
          for await (const events of subscription) for (const e of events) s.heard.push({ created: Date.parse(e.created), at: Date.now() });
        })(),
        (async () => {
          while (writing) await sleep(100);
          await subscription.unsubscribe();
        })(),
      );
      running.push(watcher(open[0].Id), watcher(open[1].Id), watcher(open[2].Id), bidder(open[3]));
      for (const proc of s.processes) {
        const seen: Probe[] = [];
        s.readiness.push(seen);
        running.push(probe(proc, seen));
      }
    }

    try {
      for (const mode of ['fast', 'immediate'] as const) {
        await sleep(1500);
        const down = Date.now();
        await server.stop(mode);
        const stopped = Date.now();
        await sleep(DOWN_MS);
        await server.start();
        const up = Date.now();
        outages.push({ mode, down, stopped, up });
        // Every shape written again, and every process ready again, before the next outage.
        const deadline = up + RECOVERY_MS + 5000;
        while (Date.now() < deadline) {
          for (const proc of shapes.flatMap((s) => s.processes))
            if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`${proc.role} ended: ${proc.output()}`);
          const recovered = shapes.every(
            (s) =>
              s.answers.some((a) => a.sent > up && a.status === 200 && a.kind === 'watch') &&
              s.answers.some((a) => a.sent > up && a.status === 200 && a.kind === 'bid') &&
              s.readiness.every((seen) => seen.some((r) => r.at > up && r.status === 200)),
          );
          if (recovered) break;
          await sleep(100);
        }
      }
      await sleep(1500);
    } finally {
      writing = false;
      await Promise.all(running);
    }
  });

  after(async function () {
    const processes = shapes.flatMap((s) => s.processes);
    for (const proc of processes) proc.child.kill('SIGTERM');
    await Promise.all(processes.map((proc) => proc.exited));
    for (const s of shapes) await s.listening?.close();
    await server?.remove();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers every write 200, or 503 with Retry-After, never later than the bound', function () {
    for (const s of shapes) {
      const bad = s.answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.retryAfter !== null && Number(a.retryAfter) > 0)));
      expect(
        bad.length,
        `${s.name}: ` +
          bad
            .slice(0, 5)
            .map((a) => `${a.kind} ${a.status} ${a.ms} ms ${a.text.slice(0, 300)}`)
            .join('\n'),
      ).to.equal(0);
      const slow = s.answers.filter((a) => a.ms > ANSWER_BOUND_MS);
      expect(
        slow.map((a) => `${a.kind} ${a.status} ${a.ms} ms`),
        s.name,
      ).to.deep.equal([]);
      expect(s.answers.filter((a) => a.status === 503).length, `${s.name}: writes refused while PostgreSQL was down`).to.be.greaterThan(0);
      expect(s.answers.filter((a) => a.status === 200).length, `${s.name}: writes made`).to.be.greaterThan(20);
    }
  });

  it('answers /readyz 503 in every process while PostgreSQL is down, and 200 again within 10 s of its return', function () {
    for (const s of shapes)
      s.readiness.forEach((seen, i) => {
        const who = `${s.name}, ${s.processes[i].role}`;
        for (const outage of outages) {
          // Probes sent once the server was gone and answered before it was back (a probe sent just before the stop
          // may be answered 200 a moment after it on a busy machine).
          const during = seen.filter((r) => r.sent > outage.stopped + 200 && r.at < outage.up - 200);
          expect(during.length, `${who}, ${outage.mode}: probes while down`).to.be.greaterThan(3);
          expect(
            during.map((r) => r.status),
            `${who}, ${outage.mode}`,
          ).to.satisfy((all: number[]) => all.every((status) => status === 503));
          const back = seen.find((r) => r.at > outage.up && r.status === 200);
          expect(back, `${who}, ${outage.mode}: ready again`).to.not.equal(undefined);
          expect(back!.at - outage.up, `${who}, ${outage.mode}: ready again within 10 s`).to.be.below(RECOVERY_MS);
        }
      });
  });

  it('serves writes again within 10 s of PostgreSQL’s return, with the same processes', function () {
    for (const s of shapes) {
      s.processes.forEach((proc, i) => {
        expect(proc.child.exitCode, proc.output()).to.equal(null);
        expect(proc.child.pid).to.equal(s.pids[i]);
      });
      for (const outage of outages)
        for (const kind of ['watch', 'bid'] as const) {
          const first = s.answers.find((a) => a.kind === kind && a.sent > outage.up && a.status === 200);
          expect(first, `${s.name}, ${outage.mode}: a ${kind} answered 200 after the return`).to.not.equal(undefined);
          expect(first!.sent + first!.ms - outage.up, `${s.name}, ${outage.mode}: ${kind} served again within 10 s`).to.be.below(
            RECOVERY_MS,
          );
        }
    }
  });

  it('leaves the projector lease with the projector that held it before the restarts, and no other', async function () {
    const admin = new pg.Pool({ connectionString: server!.url, max: 1 });
    try {
      for (const s of shapes) {
        const { rows } = await admin.query<{ holder: { pid: number } | null; live: boolean }>(
          `SELECT holder, expires_at > clock_timestamp() AS live FROM "${s.schema}".leases WHERE name = 'projector'`,
        );
        expect(rows, s.name).to.have.length(1);
        expect(rows[0].live, `${s.name}: renewed after the restarts`).to.equal(true);
        expect(rows[0].holder?.pid, s.name).to.equal(s.pids[0]);
      }
    } finally {
      await admin.end();
    }
  });

  it('keeps every write answered 200 in the log', async function () {
    const admin = new pg.Pool({ connectionString: server!.url, max: 1 });
    try {
      for (const s of shapes) {
        const { rows } = await admin.query<{ type: string; data: { lotId: number; watchType?: string; maxAmount?: number; at: string } }>(
          `SELECT type, data FROM "${s.schema}".events WHERE type IN ('LotWatched', 'WatchTypeChanged', 'MaxBidPlaced') ORDER BY position`,
        );
        // A watch answered 200 left the lot of that type in the log as of its answer: its own event, or one of a
        // write answered 503 that was made all the same (a PUT of the type already there appends nothing). Each
        // lot has one writer, one request at a time: events before the next request's are those before this answer.
        const watchedAsOf = (a: Answer) => {
          const next = s.answers.find((b) => b.kind === 'watch' && b.lotId === a.lotId && b.sent > a.sent)?.sent ?? Infinity;
          const before = rows.filter((r) => r.type !== 'MaxBidPlaced' && r.data.lotId === a.lotId && Date.parse(r.data.at) < next);
          return before[before.length - 1]?.data.watchType;
        };
        const missing = s.answers
          .filter((a) => a.status === 200)
          .filter((a) =>
            a.kind === 'bid'
              ? !rows.some((r) => r.type === 'MaxBidPlaced' && r.data.lotId === a.lotId && r.data.maxAmount === a.value)
              : watchedAsOf(a) !== a.value,
          );
        expect(
          missing.map((a) => `${a.kind} lot ${a.lotId} ${a.value}`),
          s.name,
        ).to.deep.equal([]);
      }
    } finally {
      await admin.end();
    }
  });

  it('wakes a subscriber on LISTEN again after the restarts, without waiting for its poll', function () {
    const last = outages[outages.length - 1];
    for (const s of shapes) {
      const after = s.heard.filter((h) => h.created > last.up + 1000);
      expect(after.length, `${s.name}: events appended after the last return, heard`).to.be.greaterThan(0);
      // Its poll comes once a minute: each arrived with the notification of its append.
      expect(Math.max(...after.map((h) => h.at - h.created)), s.name).to.be.below(2000);
    }
  });

  it('leaves projections equal to a replay of the log', async function () {
    for (const s of shapes) {
      const log = await PgEventLog.open(server!.url, { schema: s.schema });
      const live = await PgDocumentStore.open(server!.url, { schema: s.schema });
      const search = await MiniSearchIndex.open({ dir: null, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
      try {
        const projections = [watchlistProjection, biddingProjection, catalogueProjection, bidsProjection];
        // The live projections caught up with the log first (the shape's loops, after the outages).
        const head = await log.headPosition();
        const deadline = Date.now() + 30_000;
        const following = new ProjectorRuntime({ log, documents: live, search, logger: createLogger({ level: 'silent' }) }, projections);
        for (;;) {
          const checkpoints = await following.checkpoints(projections.map((p) => p.name));
          if (checkpoints.every((c) => c !== null && c >= head)) break;
          expect(
            Date.now(),
            `${s.name}: the live projections caught up with ${head}: ${checkpoints.join(', ')}; ${s.processes[0].output().slice(-3000)}`,
          ).to.be.below(deadline);
          await sleep(100);
        }
        const [now, replay] = [await collectionsOf(live, projections, ['demo']), await replayed(log, projections, ['demo'])];
        expect(replay['demo:watchlist'].length, `${s.name}: watched lots`).to.be.greaterThan(0);
        expect(replay, s.name).to.deep.equal(now);
      } finally {
        await search.close();
        await live.close();
        await log.close();
      }
    }
  });
});
