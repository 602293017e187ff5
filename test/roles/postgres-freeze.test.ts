/**
 * A process frozen while it writes (PRODUCTION.md "PostgreSQL", faults): an `all` and an `api` process on the local
 * PostgreSQL (POSTGRES_TEST_URL, a schema of the run's own, dropped after), each on a DATA_DIR of its own, while
 * bidders write through both. An append is one statement (`append_group`: the advisory lock taken and let go inside
 * it), so a frozen process cannot hold the log's append lock: the `api` is paused (SIGSTOP) at many random moments
 * and none finds its backend holding the lock idle in its transaction (seen in pg_locks by its application_name);
 * then it is kept paused for 10 s, the `all` goes on writing meanwhile, every answer is 200 or 503 with
 * Retry-After, and once resumed (SIGCONT) it serves writes again by itself. Every write answered 200 is in the log.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  call,
  demoMemberToken,
  exitWithin,
  freePort,
  ready,
  sleep,
  startService,
  SERVICE_API_KEY,
  type ServiceProcess,
} from '../support/service-process.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const shown = URL.replace(/\/\/[^@/]*@/, '//');
const schema = `bidder_freeze_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const JWT_SECRET = 'a-secret-of-the-freeze-spec-0123456789-abcdef';

/** How long the process stays frozen in the long pause. */
const FREEZE_MS = 10_000;
/** The longest answer allowed of the process that was not frozen: READ_YOUR_WRITES_TIMEOUT_MS plus a few seconds. */
const ANSWER_BOUND_MS = 8000;
/** How soon after SIGCONT the frozen process must answer a write 200 again. */
const RECOVERY_MS = 10_000;
/** How many short pauses look for the lock held across a pause. */
const PAUSES = 40;

interface Answer {
  proc: 'all' | 'api';
  status: number;
  retryAfter: string | null;
  sent: number;
  at: number;
  lotId: number;
  max: number;
  text: string;
}

/** The long pause: when the process was stopped and resumed, and what the short pauses before it found. */
interface Freeze {
  stopped: number;
  resumed: number;
  /** Pauses (short, and samples of the long one) that found the frozen process's backend holding the append lock while idle in its transaction. */
  held: string[];
}

describe('PostgreSQL: a process frozen while it writes', function () {
  // The demo data seeded into a fresh schema (most of the time), then up to a minute of freezes and writes.
  this.timeout(300_000);
  const dirs: string[] = [];
  const procs: Partial<Record<Answer['proc'], ServiceProcess>> = {};
  const answers: Answer[] = [];
  let freeze: Freeze | null = null;
  let admin: pg.Pool | null = null;

  const start = async (role: 'all' | 'api') => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-pg-freeze-'));
    dirs.push(dataDir);
    const proc = startService({
      role,
      port: await freePort(),
      dataDir,
      env: { POSTGRES_URL: URL, POSTGRES_SCHEMA: schema, JWT_SECRET },
    });
    procs[role] = proc;
    await ready(proc, 180_000);
    return proc;
  };

  /** The backend of `pid`'s process (by its application_name) that holds the log's append lock, if one does, and its state. */
  const lockHolder = async (pid: number): Promise<{ backend: number; state: string } | null> => {
    const { rows } = await admin!.query<{ backend: number; state: string }>(
      `SELECT a.pid AS backend, a.state FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid::bigint = ((hashtext($1)::bigint >> 32) & 4294967295) AND l.objid::bigint = (hashtext($1)::bigint & 4294967295)
         AND a.application_name = $2`,
      [`${schema}.append`, `bidder-api-${pid}`],
    );
    return rows[0] ?? null;
  };

  before(async function () {
    admin = new pg.Pool({ connectionString: URL, max: 2 });
    try {
      await admin.query('SELECT 1');
    } catch (error) {
      await admin.end();
      admin = null;
      if (process.env.SKIP_POSTGRES === '1') {
        console.log(`      (PostgreSQL at ${shown} unreachable, SKIP_POSTGRES=1: skipped)`);
        this.skip();
      }
      throw new Error(`PostgreSQL at ${shown} cannot be reached (${(error as Error).message}); set SKIP_POSTGRES=1 to skip`, {
        cause: error,
      });
    }
    // The demo data seeded by the `all` (which runs the projector), then an `api` beside it.
    const all = await start('all');
    const api = await start('api');

    let token = '';
    for (const deadline = Date.now() + 30_000; !token; await sleep(500))
      token = await demoMemberToken(all.base).catch((error: Error) => {
        if (Date.now() > deadline) throw error;
        return '';
      });
    // Lots of the timed auction 10, open for days, which the demo member registers for: three to bid on through each process.
    const registered = await call(all.base, 'POST', '/v1/me/registrations/10', token);
    expect(registered.status, registered.text).to.equal(200);
    const lots = await call(all.base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', token);
    expect(lots.status, lots.text).to.equal(200);
    const open = (
      lots.body.Items as Array<{ Id: number; EndTime: string | null; IsClosed: boolean; MinimumNextBid: number | null }>
    ).filter((l) => !l.IsClosed && l.EndTime && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.MinimumNextBid !== null);
    expect(open.length, 'open lots of auction 10').to.be.greaterThan(5);

    let writing = true;
    // A bidder raising its maximum each time, answered or not (a bid answered 503 is raised above either way), to
    // at least the lot's minimum next bid as its last answer gave it.
    const bidder = async (who: Answer['proc'], lot: { Id: number; MinimumNextBid: number | null }) => {
      const base = procs[who]!.base;
      let minimum = lot.MinimumNextBid!;
      for (let max = minimum + 1000; writing; max = Math.max(max + 10, minimum)) {
        const sent = Date.now();
        let status = 0;
        let retryAfter: string | null = null;
        let text: string;
        try {
          const response = await fetch(`${base}/v1/me/bids`, {
            method: 'POST',
            headers: { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ LotId: lot.Id, MaxAmount: max }),
            signal: AbortSignal.timeout(60_000),
          });
          status = response.status;
          retryAfter = response.headers.get('retry-after');
          text = await response.text();
          if (status === 200) minimum = (JSON.parse(text) as { MinimumNextBid: number }).MinimumNextBid;
        } catch (error) {
          text = String(error);
        }
        answers.push({ proc: who, status, retryAfter, sent, at: Date.now(), lotId: lot.Id, max, text });
        if (status !== 200) await sleep(50);
      }
    };
    const running = [0, 1, 2].flatMap((i) => [bidder('all', open[i]), bidder('api', open[3 + i])]);

    try {
      // Both write before the freeze.
      for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
        const made = (who: Answer['proc']) => answers.filter((a) => a.proc === who && a.status === 200).length;
        if (made('all') >= 5 && made('api') >= 5) break;
        expect(Date.now(), `writes before the freeze: ${answers.slice(-3).map((a) => `${a.status} ${a.text.slice(0, 200)}`)}`).to.be.below(
          deadline,
        );
      }
      // Paused at random moments: a backend holding the lock twice, 150 ms apart, the second time waiting for its
      // client, would be a lock kept across the pause (a paused process cannot move its transaction on).
      const pid = api.child.pid!;
      const held: string[] = [];
      const holding = async (at: string) => {
        const first = await lockHolder(pid);
        if (first === null) return;
        await sleep(150);
        const second = await lockHolder(pid);
        if (second?.backend === first.backend && second.state === 'idle in transaction') held.push(`${at}: backend ${first.backend}`);
      };
      for (let tries = 1; tries <= PAUSES; tries++) {
        api.child.kill('SIGSTOP');
        await sleep(150);
        await holding(`pause ${tries}`);
        api.child.kill('SIGCONT');
        await sleep(20 + Math.random() * 200);
      }
      api.child.kill('SIGSTOP');
      freeze = { stopped: Date.now(), resumed: 0, held };
      while (Date.now() < freeze.stopped + FREEZE_MS) {
        await holding(`the long pause, ${Date.now() - freeze.stopped} ms in`);
        await sleep(100);
      }
      api.child.kill('SIGCONT');
      freeze.resumed = Date.now();
      // Written on until the resumed process answers a write 200 again (or the bound is past), and a moment more.
      const resumed = freeze.resumed;
      while (Date.now() < resumed + RECOVERY_MS + 5000 && !answers.some((a) => a.proc === 'api' && a.status === 200 && a.sent > resumed))
        await sleep(100);
      await sleep(2000);
    } finally {
      api.child.kill('SIGCONT');
      writing = false;
      await Promise.all(running);
    }
  });

  after(async function () {
    this.timeout(60_000);
    const started = Object.values(procs);
    // Never left paused, whatever failed.
    for (const proc of started) proc.child.kill('SIGCONT');
    for (const proc of started) proc.child.kill('SIGTERM');
    for (const proc of started) if (!(await exitWithin(proc, 20_000))) proc.child.kill('SIGKILL');
    await Promise.all(started.map((proc) => proc.exited));
    if (admin) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
      await admin.end();
    }
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never leaves the append lock held by a frozen process: an append lets it go within its one statement', async function () {
    expect(freeze!.held).to.deep.equal([]);
    // The look is not blind: a session that takes the lock and waits in its transaction is seen.
    const holder = new pg.Client({ connectionString: URL, application_name: 'bidder-api-1' });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.append`]);
      await sleep(100);
      expect(await lockHolder(1)).to.deep.include({ state: 'idle in transaction' });
    } finally {
      await holder.end();
    }
  });

  it('goes on writing through the other process while one is frozen', function () {
    const { stopped, resumed } = freeze!;
    const during = answers.filter((a) => a.proc === 'all' && a.status === 200 && a.sent >= stopped && a.at <= resumed);
    expect(during.length, 'writes of the `all` sent and answered 200 during the freeze').to.be.at.least(5);
  });

  it('answers every write 200, or 503 with Retry-After, the process that was not frozen within the bound', function () {
    const bad = answers.filter((a) => !(a.status === 200 || (a.status === 503 && a.retryAfter !== null && Number(a.retryAfter) > 0)));
    expect(bad.map((a) => `${a.proc} ${a.status} ${a.at - a.sent} ms ${a.text.slice(0, 300)}`)).to.deep.equal([]);
    const slow = answers.filter((a) => a.proc === 'all' && a.at - a.sent > ANSWER_BOUND_MS);
    expect(slow.map((a) => `${a.status} ${a.at - a.sent} ms`)).to.deep.equal([]);
  });

  it('serves writes again once resumed, with the same process', async function () {
    const { resumed } = freeze!;
    const back = answers.find((a) => a.proc === 'api' && a.status === 200 && a.sent > resumed);
    expect(back, 'a write answered 200 after the resume').to.not.equal(undefined);
    expect(back!.at - resumed).to.be.below(RECOVERY_MS);
    const api = procs.api!;
    expect(api.child.exitCode, api.output()).to.equal(null);
    expect(api.child.signalCode, api.output()).to.equal(null);
  });

  it('keeps every write answered 200 in the log', async function () {
    const { rows } = await admin!.query<{ data: { lotId: number; maxAmount: number } }>(
      `SELECT data FROM "${schema}".events WHERE type = 'MaxBidPlaced'`,
    );
    const placed = new Set(rows.map((r) => `${r.data.lotId}:${r.data.maxAmount}`));
    const missing = answers.filter((a) => a.status === 200 && !placed.has(`${a.lotId}:${a.max}`));
    expect(missing.map((a) => `${a.proc} lot ${a.lotId} ${a.max}`)).to.deep.equal([]);
  });
});
