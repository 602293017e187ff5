/**
 * PostgreSQL restarted under a stream of writes (PRODUCTION.md "PostgreSQL", faults): the service on a PostgreSQL
 * server of the spec's own (test/support/private-postgres.ts), which is stopped twice while bidders write, once
 * cleanly (`fast`) and once as a crash (`immediate`). Every answer is 200, or 503 with Retry-After, within the
 * bound; /readyz is 503 while PostgreSQL is down; the process serves again soon after its return without a
 * restart; every write answered 200 is in the log; the projections equal a replay of the log.
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
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { LOT_SEARCH_PARTITION } from '../../projections/lot-search/index.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { createLogger } from '../../src/logger.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import { watchlistProjection } from '../../projections/watchlist/projection.ts';
import { biddingProjection } from '../../projections/bidding/projection.ts';
import { catalogueProjection } from '../../projections/catalogue/projection.ts';
import { bidsProjection } from '../../projections/bids/projection.ts';

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
  up: number;
}

describe('PostgreSQL restarted during a stream of writes', function () {
  this.timeout(120_000);
  let server: PrivatePostgres | null = null;
  let service: ServiceProcess;
  let dataDir: string;
  const answers: Answer[] = [];
  const readiness: Array<{ at: number; status: number }> = [];
  const outages: Outage[] = [];
  let pid: number | undefined;
  let listening: PgEventLog | null = null;
  /** Events the subscriber above received: when each was appended, and when it arrived. */
  const heard: Array<{ created: number; at: number }> = [];

  before(async function () {
    if (!privatePostgresAvailable()) {
      if (process.env.SKIP_POSTGRES === '1') this.skip();
      throw new Error('PostgreSQL binaries not found (set PG_BIN); set SKIP_POSTGRES=1 to skip');
    }
    server = await startPrivatePostgres();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-pg-faults-'));
    service = startService({
      port: await freePort(),
      dataDir,
      env: { POSTGRES_URL: server.url, JWT_SECRET: 'a-secret-of-the-fault-spec-0123456789-abcdef' },
    });
    await ready(service);
    pid = service.child.pid;
    const token = await demoMemberToken(service.base);

    // Lots of the timed auction 10, open for days, which the demo member registers for: to watch and bid on.
    const registered = await call(service.base, 'POST', '/v1/me/registrations/10', token);
    expect(registered.status, registered.text).to.equal(200);
    const lots = await call(service.base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', token);
    expect(lots.status, lots.text).to.equal(200);
    const open = (
      lots.body.Items as Array<{ Id: number; EndTime: string | null; IsClosed: boolean; MinimumNextBid: number | null }>
    ).filter((l) => !l.IsClosed && l.EndTime && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.MinimumNextBid !== null);
    expect(open.length, 'open lots of auction 10').to.be.greaterThan(3);

    let writing = true;
    const timed = async (kind: Answer['kind'], lotId: number, value: string | number, method: string, url: string, body: unknown) => {
      const sent = Date.now();
      let status = 0;
      let retryAfter: string | null = null;
      let text: string;
      try {
        const response = await fetch(`${service.base}${url}`, {
          method,
          headers: {
            'Api-Key': SERVICE_API_KEY,
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        text = await response.text();
      } catch (error) {
        text = String(error);
      }
      const answer: Answer = { kind, status, retryAfter, sent, ms: Date.now() - sent, lotId, value, text };
      answers.push(answer);
      if (status !== 200) await sleep(50);
      return answer;
    };
    // Three watchers, each turning one lot's watch type round; a bidder raising its maximum on another lot.
    const types = ['watch', 'favourite', 'reminder'];
    const watcher = async (lotId: number) => {
      for (let i = 0; writing; i++) {
        const type = types[i % 3];
        await timed('watch', lotId, type, 'PUT', `/v1/me/watchlist/${lotId}`, { Type: type });
      }
    };
    // Each bid raises the maximum, answered or not: a bid answered 503 may have been placed all the same, and
    // the next is a raise above it either way. (Sent again with its Idempotency-Key instead, it would meet the key
    // still claimed by the failed attempt: 409 for ABANDONED_AFTER_MS.)
    const bidder = async (lot: { Id: number; MinimumNextBid: number | null }) => {
      for (let max = lot.MinimumNextBid! + 1000; writing; max += 10)
        await timed('bid', lot.Id, max, 'POST', '/v1/me/bids', { LotId: lot.Id, MaxAmount: max });
    };
    const probe = async () => {
      while (writing) {
        // 0: no answer at all (the process gone, or slower than 10 s).
        const status = await fetch(`${service.base}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(
          (r) => r.status,
          () => 0,
        );
        readiness.push({ at: Date.now(), status });
        await sleep(200);
      }
    };
    // A subscriber of the log in this process that polls only once a minute: it follows the writes after the
    // restarts only if its LISTEN connection came back.
    listening = await PgEventLog.open(server.url, { pollMs: 60_000 });
    const subscription = listening.subscribeToAll({ fromPosition: await listening.headPosition() });
    const subscribed = (async () => {
      for await (const events of subscription) for (const e of events) heard.push({ created: Date.parse(e.created), at: Date.now() });
    })();
    const running = [watcher(open[0].Id), watcher(open[1].Id), watcher(open[2].Id), bidder(open[3]), probe()];
    try {
      for (const mode of ['fast', 'immediate'] as const) {
        await sleep(1500);
        const down = Date.now();
        await server.stop(mode);
        await sleep(DOWN_MS);
        await server.start();
        const up = Date.now();
        outages.push({ mode, down, up });
        // Written again, and ready again, before the next outage.
        const deadline = up + RECOVERY_MS + 5000;
        while (Date.now() < deadline) {
          if (service.child.exitCode !== null || service.child.signalCode !== null)
            throw new Error(`the service ended: ${service.output()}`);
          const recovered =
            answers.some((a) => a.sent > up && a.status === 200 && a.kind === 'watch') &&
            answers.some((a) => a.sent > up && a.status === 200 && a.kind === 'bid') &&
            readiness.some((r) => r.at > up && r.status === 200);
          if (recovered) break;
          await sleep(100);
        }
      }
      await sleep(1500);
    } finally {
      writing = false;
      await Promise.all(running);
      await subscription.unsubscribe();
      await subscribed;
    }
  });

  after(async function () {
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await listening?.close();
    await server?.remove();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every write 200, or 503 with Retry-After, never later than the bound', function () {
    const bad = answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.retryAfter !== null && Number(a.retryAfter) > 0)));
    expect(
      bad.length,
      bad
        .slice(0, 5)
        .map((a) => `${a.kind} ${a.status} ${a.ms} ms ${a.text.slice(0, 300)}`)
        .join('\n'),
    ).to.equal(0);
    const slow = answers.filter((a) => a.ms > ANSWER_BOUND_MS);
    expect(slow.map((a) => `${a.kind} ${a.status} ${a.ms} ms`)).to.deep.equal([]);
    expect(answers.filter((a) => a.status === 503).length, 'writes refused while PostgreSQL was down').to.be.greaterThan(0);
    expect(answers.filter((a) => a.status === 200).length, 'writes made').to.be.greaterThan(20);
  });

  it('answers /readyz 503 while PostgreSQL is down, and 200 again within 10 s of its return', function () {
    for (const outage of outages) {
      const during = readiness.filter((r) => r.at > outage.down + 500 && r.at < outage.up - 200);
      expect(during.length, `${outage.mode}: probes while down`).to.be.greaterThan(3);
      expect(
        during.map((r) => r.status),
        outage.mode,
      ).to.satisfy((all: number[]) => all.every((s) => s === 503));
      const back = readiness.find((r) => r.at > outage.up && r.status === 200);
      expect(back, `${outage.mode}: ready again`).to.not.equal(undefined);
      expect(back!.at - outage.up, `${outage.mode}: ready again within 10 s`).to.be.below(RECOVERY_MS);
    }
  });

  it('serves writes again within 10 s of PostgreSQL’s return, in the same process', function () {
    expect(service.child.exitCode, service.output()).to.equal(null);
    expect(service.child.pid).to.equal(pid);
    for (const outage of outages)
      for (const kind of ['watch', 'bid'] as const) {
        const first = answers.find((a) => a.kind === kind && a.sent > outage.up && a.status === 200);
        expect(first, `${outage.mode}: a ${kind} answered 200 after the return`).to.not.equal(undefined);
        expect(first!.sent + first!.ms - outage.up, `${outage.mode}: ${kind} served again within 10 s`).to.be.below(RECOVERY_MS);
      }
  });

  it('keeps every write answered 200 in the log', async function () {
    const admin = new pg.Pool({ connectionString: server!.url, max: 1 });
    try {
      const { rows } = await admin.query<{ type: string; data: { lotId: number; watchType?: string; maxAmount?: number; at: string } }>(
        `SELECT type, data FROM bidder.events WHERE type IN ('LotWatched', 'WatchTypeChanged', 'MaxBidPlaced') ORDER BY position`,
      );
      // A watch answered 200 left the lot of that type in the log as of its answer: its own event, or one of a
      // write answered 503 that was made all the same (a PUT of the type already there appends nothing). Each lot
      // has one writer, one request at a time: events before the next request's are those before this answer.
      const watchedAsOf = (a: Answer) => {
        const next = answers.find((b) => b.kind === 'watch' && b.lotId === a.lotId && b.sent > a.sent)?.sent ?? Infinity;
        const before = rows.filter((r) => r.type !== 'MaxBidPlaced' && r.data.lotId === a.lotId && Date.parse(r.data.at) < next);
        return before[before.length - 1]?.data.watchType;
      };
      const missing = answers
        .filter((a) => a.status === 200)
        .filter((a) =>
          a.kind === 'bid'
            ? !rows.some((r) => r.type === 'MaxBidPlaced' && r.data.lotId === a.lotId && r.data.maxAmount === a.value)
            : watchedAsOf(a) !== a.value,
        );
      expect(missing.map((a) => `${a.kind} lot ${a.lotId} ${a.value}`)).to.deep.equal([]);
    } finally {
      await admin.end();
    }
  });

  it('wakes a subscriber on LISTEN again after the restarts, without waiting for its poll', function () {
    const last = outages[outages.length - 1];
    const after = heard.filter((h) => h.created > last.up + 1000);
    expect(after.length, 'events appended after the last return, heard').to.be.greaterThan(0);
    // Its poll comes once a minute: each arrived with the notification of its append.
    expect(Math.max(...after.map((h) => h.at - h.created))).to.be.below(2000);
  });

  it('leaves projections equal to a replay of the log', async function () {
    const log = await PgEventLog.open(server!.url);
    const live = await PgDocumentStore.open(server!.url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-pg-faults-replay-'));
    const fresh = new SqliteDocumentStore(path.join(dir, 'replayed.sqlite'));
    const search = await MiniSearchIndex.open({ dir: null, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
    try {
      const projections = [watchlistProjection, biddingProjection, catalogueProjection, bidsProjection];
      // The live projections caught up with the log first (the process's loops, after the outages).
      const head = await log.headPosition();
      const deadline = Date.now() + RECOVERY_MS;
      const following = new ProjectorRuntime({ log, documents: live, search, logger: createLogger({ level: 'silent' }) }, projections);
      while ((await following.checkpoints(projections.map((p) => p.name))).some((c) => c < head)) {
        expect(Date.now(), 'the live projections caught up').to.be.below(deadline);
        await sleep(100);
      }
      const replay = new ProjectorRuntime({ log, documents: fresh, search, logger: createLogger({ level: 'silent' }) }, projections);
      await replay.setup();
      await replay.catchUp();
      const snapshot = async (store: DocumentStore) => {
        const result: Record<string, unknown[]> = {};
        for (const projection of projections)
          for (const collection of projection.collections)
            result[collection.name] = await store
              .forTenant('demo')
              .collection(collection.name)
              .find({}, { sort: [['_id', 1]] });
        return result;
      };
      const [now, replayed] = [await snapshot(live), await snapshot(fresh)];
      expect(replayed.watchlist.length, 'watched lots').to.be.greaterThan(0);
      expect(replayed).to.deep.equal(now);
    } finally {
      await search.close();
      await fresh.close();
      await live.close();
      await log.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
