import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import {
  call,
  demoMemberToken,
  freePort,
  ready,
  SERVICE_API_KEY,
  SERVICE_PASSWORD,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';

/** `npm start` as a user runs it: the real entry point in a child process, ready once its banner is printed. */
async function start(dataDir: string, port: number, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const proc = startService({ port, dataDir, env, plain: true });
  await ready(proc, 60_000, '/openapi.json');
  return proc;
}

async function stop(proc: ServiceProcess) {
  proc.child.kill('SIGTERM');
  await proc.exited;
}

async function eventCount(dataDir: string) {
  const log = new SqliteEventLog(path.join(dataDir, 'events.sqlite'));
  const head = await log.headPosition();
  await log.close();
  return head;
}

describe('npm start on a bare machine', function () {
  this.timeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-start-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('seeds an empty DATA_DIR, prints the demo credentials made and the URLs, and keeps changes without seeding or printing them twice', async () => {
    const port = await freePort();
    const first = await start(dataDir, port, { DEMO_API_KEY: SERVICE_API_KEY, DEMO_MEMBER_PASSWORD: SERVICE_PASSWORD });
    const banner = first.output();
    // The start that made the demo credentials prints them, and where they are kept.
    expect(banner).to.include(path.join(dataDir, 'secrets', 'demo-credentials.json'));
    expect(banner).to.include(SERVICE_API_KEY);
    expect(banner).to.include(`bidder@example.com / ${SERVICE_PASSWORD}`);
    expect(banner).to.include(`http://localhost:${port}/docs`);
    expect(banner).to.include(`http://localhost:${port}/openapi.json`);
    expect(banner).to.include(`http://localhost:${port}/demo/`);
    const anon = (await call(first.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token;
    const session = await call(first.base, 'POST', '/v1/sessions', anon, { Email: 'bidder@example.com', Password: SERVICE_PASSWORD });
    expect(session.status).to.equal(200);
    const put = await call(first.base, 'PUT', '/v1/me/watchlist/7', session.body.Token);
    expect(put.status).to.equal(200);
    const lots = await call(first.base, 'GET', '/v1/lots?PageSize=1', anon);
    expect(lots.body.TotalCount).to.be.at.least(1000 - 250);
    await stop(first);
    const afterFirst = await eventCount(dataDir);

    // Started again without the demo credentials in its environment: it says where they are kept, and prints none.
    const kept = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets', 'demo-credentials.json'), 'utf8'));
    expect(kept).to.include({ apiKey: SERVICE_API_KEY, memberPassword: SERVICE_PASSWORD });
    const second = await start(dataDir, port);
    const banner2 = second.output();
    expect(banner2).to.include(path.join(dataDir, 'secrets', 'demo-credentials.json'));
    for (const secret of [kept.apiKey, kept.memberPassword, kept.clientSecret, kept.backOfficeKeys.demo, kept.backOfficeKeys.demo2])
      expect(banner2).to.not.include(secret);
    expect(await eventCount(dataDir)).to.equal(afterFirst);
    const member2 = await demoMemberToken(second.base);
    const watchlist = await call(second.base, 'GET', '/v1/me/watchlist', member2);
    expect(watchlist.body.Items.map((i: { Id: number }) => i.Id)).to.deep.equal([7]);
    await stop(second);
  });
});
