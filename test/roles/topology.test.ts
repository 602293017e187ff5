/**
 * The production shape on the embedded default with Redis: two `api`, one `projector` and one `worker`
 * process (the real entry point, app/main.ts) on one DATA_DIR, jobs and rate limits in the local Redis.
 * What must hold across them (API.md "Engines and roles"): read-your-writes from one `api` to the other,
 * one shared sign-in limit, a side effect done once by the worker, a projector killed with SIGKILL that
 * loses nothing, and a second projector refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
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
});
