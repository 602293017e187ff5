/**
 * The production shape on the embedded default with Redis: two `api`, one `projector` and one `worker`
 * process (the real entry point, app/main.ts) on one DATA_DIR, jobs and rate limits in the local Redis.
 * What must hold across them (API.md "Engines and roles"): read-your-writes from one `api` to the other,
 * one shared sign-in limit, a side effect done once by the worker, a projector killed with SIGKILL that
 * loses nothing, a second projector refused, and parallel bids on one lot decided one after another across both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { hashPassword } from '../../src/security/passwords.ts';
import {
  call,
  exitWithin,
  freePort,
  ready,
  SERVICE_PASSWORD,
  sleep,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';

describe('roles: two api, one projector and one worker on one DATA_DIR with Redis', function () {
  this.timeout(180_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-topology-'));
  const prefix = `bidder-test-${randomUUID().slice(0, 8)}`;
  const procs: ServiceProcess[] = [];
  let redisUp = true;

  /** A process of `role` on the shared DATA_DIR and Redis prefix, on a free port; stopped in after(). */
  async function start(role: string): Promise<ServiceProcess> {
    const env = { REDIS_URL, REDIS_PREFIX: prefix, READ_YOUR_WRITES_TIMEOUT_MS: '1000', TRUST_PROXY: 'false' };
    const proc = startService({ role, port: await freePort(), dataDir, env });
    procs.push(proc);
    return proc;
  }

  let projector: ServiceProcess;
  let worker: ServiceProcess;
  let api1: ServiceProcess;
  let api2: ServiceProcess;
  let anonymous: string;
  let member: string;

  before(async function () {
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await redis.connect();
      await redis.ping();
    } catch {
      redisUp = false;
    } finally {
      redis.disconnect();
    }
    if (!redisUp) {
      if (process.env.SKIP_REDIS === '1') this.skip();
      throw new Error(`Redis is not reachable at ${REDIS_URL} (.ci/run starts it; SKIP_REDIS=1 skips this suite)`);
    }
    projector = await start('projector');
    await ready(projector);
    [worker, api1, api2] = [await start('worker'), await start('api'), await start('api')];
    await Promise.all([ready(worker), ready(api1), ready(api2)]);
    const token = await call(api1.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' });
    expect(token.status, token.text).to.equal(200);
    anonymous = token.body.Token;
    const session = await call(api2.base, 'POST', '/v1/sessions', anonymous, { Email: 'bidder@example.com', Password: SERVICE_PASSWORD });
    expect(session.status, session.text).to.equal(200);
    member = session.body.Token;
  });

  after(async function () {
    for (const proc of procs) if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => exitWithin(p, 10_000)));
    if (redisUp) {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second projector, worker or all on the same DATA_DIR with a clear message', async () => {
    for (const role of ['projector', 'worker', 'all']) {
      const second = await start(role);
      const exit = await exitWithin(second, 30_000);
      expect(exit?.code ?? 'still running', `${role}: ${second.output()}`).to.equal(3);
      expect(second.output()).to.match(/already runs the (projector|worker) on these engines; a second one is refused/);
    }
  });

  it('shows a lot watched through one api in the watchlist read through the other, at once', async () => {
    const put = await call(api1.base, 'PUT', '/v1/me/watchlist/17', member, { Type: 'watch' });
    expect(put.status, put.text).to.equal(200);
    const list = await call(api2.base, 'GET', '/v1/me/watchlist', member);
    expect(list.status, list.text).to.equal(200);
    expect(JSON.stringify(list.body)).to.contain('17');
    expect(list.body.Items.map((i: { Id: number }) => i.Id)).to.include(17);
  });

  it('counts wrong sign-ins spread over both api processes against one limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const proc = i % 2 === 0 ? api1 : api2;
      statuses.push(
        (await call(proc.base, 'POST', '/v1/sessions', anonymous, { Email: 'bidder@example.com', Password: `wrong-${i}` })).status,
      );
    }
    expect(statuses.filter((s) => s === 401)).to.have.length(5);
    expect(statuses.slice(5)).to.deep.equal([429, 429, 429]);
  });

  it('delivers a contact message once, through the worker', async () => {
    const subject = `Topology ${randomUUID()}`;
    const sent = await call(api2.base, 'POST', '/v1/contact', anonymous, {
      Name: 'Ada',
      Email: 'ada@example.org',
      Subject: subject,
      Message: 'Hello from one api.',
    });
    expect(sent.status, sent.text).to.be.oneOf([200, 202]);
    const mine = async () => (await readOutbox(path.join(dataDir, 'outbox'))).filter((m) => JSON.stringify(m).includes(subject));
    const deadline = Date.now() + 15_000;
    while ((await mine()).length === 0 && Date.now() < deadline) await sleep(100);
    await sleep(1000);
    expect(await mine()).to.have.length(1);
  });

  it('loses nothing when the projector is killed with SIGKILL in the middle of writes and started again', async () => {
    const lots = Array.from({ length: 30 }, (_, i) => 100 + i);
    const writes = (async () => {
      const statuses: number[] = [];
      for (const lot of lots) {
        statuses.push((await call((lot % 2 ? api1 : api2).base, 'PUT', `/v1/me/watchlist/${lot}`, member, { Type: 'watch' })).status);
      }
      return statuses;
    })();
    await sleep(150);
    projector.child.kill('SIGKILL');
    await projector.exited;
    const statuses = await writes;
    // Every command was stored; those made while no projector ran answered after their bounded wait.
    expect(
      statuses.every((s) => s === 200),
      String(statuses),
    ).to.equal(true);
    projector = await start('projector');
    await ready(projector);
    await ready(api1);
    const list = await call(api1.base, 'GET', '/v1/me/watchlist?PageSize=100', member);
    expect(list.status, list.text).to.equal(200);
    const watched = list.body.Items.map((i: { Id: number }) => i.Id);
    for (const lot of lots) expect(watched, `lot ${lot}`).to.include(lot);
  });

  it('decides parallel bids on one lot through both api processes one after another: one leader, the highest maximum, no bid lost', async () => {
    // Ten bidders of `demo`, imported with the CLI while the services run (ids apart from the demo's). One hash
    // for all (scrypt is slow by design: hashing each password would cost the import most of a second).
    const ids = Array.from({ length: 10 }, (_, i) => 3001 + i);
    const password = 'a long enough password 123';
    const passwordHash = await hashPassword(password);
    const emailOf = (id: number) => `topology-bidder-${id}@example.com`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-topology-import-'));
    const file = path.join(dir, 'bidders.ndjson');
    const records = ids.map((memberId) => ({
      kind: 'member',
      tenant: 'demo',
      memberId,
      email: emailOf(memberId),
      passwordHash,
      firstName: 'Parallel',
      lastName: String(memberId),
      language: 'en',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    }));
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    try {
      const importer = spawn(process.execPath, ['--import', 'tsx', 'app/cli/import.ts', file], {
        env: { ...process.env, DATA_DIR: dataDir, REDIS_URL, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      importer.stdout.on('data', (chunk) => (output += chunk));
      importer.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => importer.on('exit', (c) => resolve(c)));
      expect(code, output).to.equal(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // Wrong passwords count against the sign-in limits (20 per address in 15 minutes, 5 used above), and an
    // account the projector has not read yet is one: wait on the address look-up (a limit of its own) for the
    // last account imported, then sign in the last one alone, then the others (earlier in the log) at once.
    const last = ids[ids.length - 1];
    const projected = Date.now() + 8000;
    while ((await call(api1.base, 'GET', `/v1/members/availability?email=${emailOf(last)}`, anonymous)).body?.Available !== false) {
      expect(Date.now(), `${emailOf(last)} not projected`).to.be.below(projected);
      await sleep(250);
    }
    const signIn = (memberId: number, n: number) =>
      call((n % 2 ? api2 : api1).base, 'POST', '/v1/sessions', anonymous, { Email: emailOf(memberId), Password: password });
    const tokens = new Map<number, string>();
    for (let tries = 1; ; tries++) {
      const session = await signIn(last, 0);
      if (session.status === 200) {
        tokens.set(last, session.body.Token);
        break;
      }
      // 403: the account is there, its confirmation not yet (the password was right: nothing counted).
      expect(session.status, session.text).to.equal(403);
      expect(tries, session.text).to.be.below(20);
      await sleep(250);
    }
    const sessions = await Promise.all(ids.slice(0, -1).map(signIn));
    for (const [i, session] of sessions.entries()) {
      expect(session.status, session.text).to.equal(200);
      tokens.set(ids[i], session.body.Token);
    }
    for (const [i, memberId] of ids.entries()) {
      const registered = await call((i % 2 ? api1 : api2).base, 'POST', '/v1/me/registrations/10', tokens.get(memberId)!);
      expect(registered.status, registered.text).to.equal(200);
    }

    // A lot of the timed auction without a reserve, open for days, not bid on yet.
    const page = await call(api1.base, 'GET', '/v1/lots?AuctionId=10&pageSize=100', anonymous);
    expect(page.status, page.text).to.equal(200);
    const target = (
      page.body.Items as Array<{ Id: number; ReserveMet: boolean | null; EndTime: string; BidCount: number; MinimumNextBid: number }>
    ).find((l) => l.ReserveMet === null && Date.parse(l.EndTime) > Date.now() + 3600_000 && l.BidCount === 0)!;
    expect(target, 'a lot without a reserve').to.not.equal(undefined);
    for (const memberId of ids) {
      const may = await call(api2.base, 'GET', `/v1/me/lots/${target.Id}/registration`, tokens.get(memberId)!);
      expect(may.body, may.text).to.include({ MayBid: true });
    }

    // Three distinct maxima each, a step of the largest increment apart (so the highest is always enough), sent
    // all at once and alternately through api1 and api2: both processes append to the lot's stream.
    const increments = (await call(api1.base, 'GET', '/v1/increments', anonymous)).body as Array<{ Increment: number }>;
    const step = Math.max(...increments.map((r) => r.Increment));
    const bids = ids.flatMap((memberId, i) =>
      [0, 1, 2].map((k) => ({ memberId, maxAmount: target.MinimumNextBid + step * (k * ids.length + i) })),
    );
    const answers = await Promise.all(
      bids.map((b, n) =>
        call((n % 2 ? api2 : api1).base, 'POST', '/v1/me/bids', tokens.get(b.memberId)!, { LotId: target.Id, MaxAmount: b.maxAmount }),
      ),
    );
    for (const [n, answer] of answers.entries()) {
      expect(answer.status, `${JSON.stringify(bids[n])}: ${answer.text}`).to.be.within(200, 499);
      if (answer.status !== 200) expect(answer.headers.get('content-type'), answer.text).to.match(/^application\/problem\+json/);
    }

    // Each member's highest accepted maximum; the leader must be the member with the highest of them.
    const accepted = new Map<number, number>();
    for (const [n, answer] of answers.entries())
      if (answer.status === 200) {
        expect(answer.body.MaxAmount).to.equal(bids[n].maxAmount);
        accepted.set(bids[n].memberId, Math.max(accepted.get(bids[n].memberId) ?? 0, answer.body.MaxAmount));
      }
    const ranked = [...accepted.entries()].sort((a, b) => b[1] - a[1]);
    expect(ranked.length, 'members with an accepted bid').to.be.at.least(2);
    const [[expectedLeader, leaderMax], [, secondMax]] = ranked;

    // Read through either api; the projector may lag a moment behind the last write.
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        const leaders: number[] = [];
        for (const [i, memberId] of ids.entries()) {
          const mine = await call((i % 2 ? api2 : api1).base, 'GET', '/v1/me/bids?status=leading', tokens.get(memberId)!);
          expect(mine.status, mine.text).to.equal(200);
          if (mine.body.Items.some((item: { LotId: number }) => item.LotId === target.Id)) leaders.push(memberId);
        }
        expect(leaders, 'the members leading the lot').to.deep.equal([expectedLeader]);
        const lot = (await call(api1.base, 'GET', `/v1/lots/${target.Id}`, anonymous)).body;
        expect(lot.CurrentBid, 'CurrentBid').to.be.at.least(secondMax).and.at.most(leaderMax);
        const history = await call(api2.base, 'GET', `/v1/lots/${target.Id}/bids`, anonymous);
        expect(history.body.Items, 'the public bids').to.have.length(lot.BidCount);
        expect(Math.max(...history.body.Items.map((item: { Amount: number }) => item.Amount))).to.equal(lot.CurrentBid);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(200);
      }
    }
  });
});
