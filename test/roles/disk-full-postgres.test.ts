/**
 * PostgreSQL out of disk (PRODUCTION.md faults): a PostgreSQL server of the spec's own whose database lives in a
 * tablespace on a small tmpfs (its WAL stays in the server's folder: a full WAL disk stops PostgreSQL itself), which
 * the spec fills to its last block while an `all` process runs on it. While it is full, every write answers 200 (a
 * page with room left) or 503 `storage-full` with Retry-After (PostgreSQL's 53100 disk_full), never 500; reads answer
 * 200; /readyz answers 503 with `storage: full`; the episode is one `error` line. Once the filler is removed, /readyz
 * answers 200 again within the bound (10 s without a refusal: the service cannot look at the server's disk) and
 * writes succeed, in the same process; every write answered 200 is in the log. As root with PostgreSQL's binaries:
 * otherwise it says it skipped.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  call,
  demoMemberToken,
  freePort,
  OPERATOR,
  ready,
  SERVICE_PASSWORD,
  sleep,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';
import { privatePostgresAvailable, startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres.ts';
import { readResponse, type TestResponse } from '../support/server.ts';
import { fillToLastBlock, mountTmpfs, unmountTmpfs } from '../support/tmpfs.ts';

/** How long after the filler is removed /readyz must answer 200 again: 10 s without a refusal, and a margin (measured: 10 s). */
const RECOVERY_MS = 20_000;
/** Writes refused for want of room the spec waits for before it makes room again. */
const REFUSALS = 6;

interface Write {
  kind: 'watch' | 'bid' | 'sign-up' | 'sign-in';
  phase: 'before' | 'full' | 'after';
  response: TestResponse;
  lotId?: number;
  value?: string | number;
}

describe('PostgreSQL out of disk', function () {
  this.timeout(300_000);
  let space: string | null = null;
  let server: PrivatePostgres | null = null;
  let url = '';
  let proc: ServiceProcess | null = null;
  let pid: number | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-pg-full-'));
  const writes: Write[] = [];
  const reads: Array<{ url: string; status: number }> = [];
  const readiness: TestResponse[] = [];
  let filledAt = 0;
  let freedAt = 0;
  let readyAgainAt = 0;
  let writableAgainAt = 0;

  before(async function () {
    if (!privatePostgresAvailable()) {
      console.log('      (PostgreSQL binaries not found: skipped)');
      this.skip();
    }
    space = mountTmpfs('128m', 'bidder-pg-space-');
    if (!space) this.skip();
    execFileSync('chown', ['postgres:postgres', space]);
    server = await startPrivatePostgres();
    // The database's tables and indexes in a tablespace on the tmpfs, its WAL in the server's own folder.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await admin.query(`CREATE TABLESPACE small LOCATION '${space}'`);
      await admin.query('CREATE DATABASE bidder TABLESPACE small');
    } finally {
      await admin.end();
    }
    url = server.url.replace(/\/postgres$/, '/bidder');
    // A write waits for its projection half a second at most: while they cannot store anything, that is the wait.
    const env = { POSTGRES_URL: url, LOG_LEVEL: 'info', READ_YOUR_WRITES_TIMEOUT_MS: '500' };
    proc = startService({ port: await freePort(), dataDir, env });
    await ready(proc, 200_000);
    pid = proc.child.pid;
    const base = proc.base;
    let token = '';
    for (const deadline = Date.now() + 30_000; !token; await sleep(500))
      token = await demoMemberToken(base).catch((error: Error) => {
        if (Date.now() > deadline) throw error;
        return '';
      });
    const anonymous = (await call(base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token as string;
    expect((await call(base, 'POST', '/v1/me/registrations/10', token)).status).to.equal(200);
    const lots = await call(base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', token);
    const open = (
      lots.body.Items as Array<{ Id: number; EndTime: string | null; IsClosed: boolean; MinimumNextBid: number | null }>
    ).filter((l) => !l.IsClosed && l.EndTime && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.MinimumNextBid !== null);
    const [watched, bidOn] = open;
    let maxAmount = bidOn.MinimumNextBid! + 1000;
    let watchType = 0;
    let signUps = 0;
    const types = ['watch', 'favourite', 'reminder'];
    const writeOf = async (kind: Write['kind'], phase: Write['phase']): Promise<Write> => {
      let write: Write;
      if (kind === 'watch') {
        const value = types[watchType++ % 3];
        const response = await call(base, 'PUT', `/v1/me/watchlist/${watched.Id}`, token, { Type: value });
        write = { kind, phase, lotId: watched.Id, value, response };
      } else if (kind === 'bid') {
        const value = (maxAmount += 10);
        const response = await call(base, 'POST', '/v1/me/bids', token, { LotId: bidOn.Id, MaxAmount: value });
        write = { kind, phase, lotId: bidOn.Id, value, response };
      } else if (kind === 'sign-up') {
        const value = `pg-full-${++signUps}-${pid}@example.com`;
        const body = { Email: value, Password: 'a long enough password', FirstName: 'Disk', LastName: 'Full', Language: 'sv' };
        write = { kind, phase, value, response: await call(base, 'POST', '/v1/members', anonymous, body) };
      } else {
        const body = { Email: 'bidder@example.com', Password: SERVICE_PASSWORD };
        write = { kind, phase, response: await call(base, 'POST', '/v1/sessions', anonymous, body) };
      }
      writes.push(write);
      return write;
    };
    const allKinds = async (phase: Write['phase']) => {
      for (const kind of ['sign-in', 'watch', 'sign-up', 'bid'] as const) await writeOf(kind, phase);
    };
    const readyz = async () => readResponse(await fetch(`${base}/readyz`, { headers: OPERATOR }));

    await allKinds('before');
    filledAt = Date.now();
    fillToLastBlock(path.join(space, 'filler'));
    for (const deadline = Date.now() + 120_000; writes.filter((w) => w.response.status === 503).length < REFUSALS;) {
      expect(Date.now(), 'writes refused while the database has no room').to.be.below(deadline);
      await allKinds('full');
      for (const url of ['/v1/lots?AuctionId=10', '/v1/auctions', `/v1/lots/${watched.Id}`, '/v1/auctions/10/catalogue'])
        reads.push({ url, status: (await call(base, 'GET', url, token)).status });
      readiness.push(await readyz());
    }
    readiness.push(await readyz());

    fs.rmSync(path.join(space, 'filler'));
    freedAt = Date.now();
    for (const deadline = freedAt + RECOVERY_MS + 10_000; !writableAgainAt && Date.now() < deadline; await sleep(200))
      if ((await writeOf('bid', 'after')).response.status === 200) writableAgainAt = Date.now();
    for (const deadline = freedAt + RECOVERY_MS + 10_000; !readyAgainAt && Date.now() < deadline; await sleep(200))
      if ((await readyz()).status === 200) readyAgainAt = Date.now();
    await allKinds('after');
  });

  after(async function () {
    if (proc) {
      proc.child.kill('SIGTERM');
      if (!(await Promise.race([proc.exited, sleep(20_000).then(() => null)]))) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    }
    await server?.remove();
    if (space) await unmountTmpfs(space);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every write 200 or 503 storage-full with Retry-After, never 500; a sign-in, which writes nothing there, 200', function () {
    const full = writes.filter((w) => w.phase === 'full');
    const bad = full.filter(
      (w) =>
        !(
          w.response.status === 200 ||
          (w.response.status === 503 && w.response.body?.code === 'storage-full' && Number(w.response.headers.get('retry-after')) > 0)
        ),
    );
    expect(bad.map((w) => `${w.kind} ${w.response.status} ${w.response.text.slice(0, 300)}`)).to.deep.equal([]);
    expect(full.filter((w) => w.response.status === 503).length).to.be.at.least(REFUSALS);
    expect(
      full
        .filter((w) => w.response.status === 503)
        .map((w) => w.response.text)
        .join('\n'),
    ).to.not.match(/postgres|53100|extend|space/i);
    expect(full.filter((w) => w.kind === 'sign-in').every((w) => w.response.status === 200)).to.equal(true);
  });

  it('answers reads while the database has no room, a catalogue PDF made on first request too', function () {
    expect(reads.length).to.be.greaterThan(3);
    expect(reads.filter((r) => r.status !== 200)).to.deep.equal([]);
  });

  it('answers /readyz 503 saying the storage is full, and 200 again within the bound once there is room', function () {
    const full = readiness.filter((r) => r.status === 503);
    expect(full.length, 'a /readyz 503 while full').to.be.greaterThan(0);
    for (const r of full) expect(r.body).to.include({ status: 'unavailable', storage: 'full' });
    expect(readiness.at(-1)!.body.storage, 'once writes were refused').to.equal('full');
    expect(readyAgainAt, '/readyz 200 again').to.be.greaterThan(0);
    expect(readyAgainAt - freedAt).to.be.below(RECOVERY_MS);
    expect(writableAgainAt, 'a write 200 again').to.be.greaterThan(0);
    expect(writableAgainAt - freedAt).to.be.below(RECOVERY_MS);
    expect(proc!.child.pid).to.equal(pid);
    expect(proc!.child.exitCode).to.equal(null);
    expect(
      writes
        .filter((w) => w.phase === 'after')
        .slice(-4)
        .map((w) => `${w.kind} ${w.response.status}`),
    ).to.deep.equal(['sign-in 200', 'watch 200', 'sign-up 200', 'bid 200']);
  });

  it('logs the episode once: one error line when it starts, one info line when it ends, and no other error', function () {
    const lines = proc!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; time: number; store?: string })
      .filter((l) => l.time >= filledAt);
    const errors = lines.filter((l) => l.level >= 50);
    expect(
      errors.map((l) => [l.msg, l.store]),
      JSON.stringify(errors.slice(0, 3)),
    ).to.deep.equal([['storage full: writes are refused until there is room again', 'database']]);
    expect(lines.filter((l) => l.msg === 'storage has room again: writes resumed').map((l) => l.level)).to.deep.equal([30]);
  });

  it('keeps every write answered 200 in the log', async function () {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query<{ type: string; data: Record<string, unknown> }>(
        `SELECT type, data FROM bidder.events WHERE type IN ('LotWatched', 'WatchTypeChanged', 'MaxBidPlaced', 'MemberSignedUp')`,
      );
      const inLog = (w: Write) =>
        w.kind === 'bid'
          ? rows.some((e) => e.type === 'MaxBidPlaced' && e.data.lotId === w.lotId && e.data.maxAmount === w.value)
          : w.kind === 'sign-up'
            ? rows.some((e) => e.type === 'MemberSignedUp' && e.data.email === w.value)
            : rows.some((e) => e.type !== 'MaxBidPlaced' && e.data.lotId === w.lotId && e.data.watchType === w.value);
      const answered = writes.filter((w) => w.kind !== 'sign-in' && w.response.status === 200);
      expect(answered.length).to.be.greaterThan(6);
      expect(answered.filter((w) => !inLog(w)).map((w) => `${w.phase} ${w.kind} ${w.value}`)).to.deep.equal([]);
    } finally {
      await db.end();
    }
  });
});
