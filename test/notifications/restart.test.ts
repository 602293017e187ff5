/**
 * A reminder survives a restart of the service: the real entry point (app/main.ts) in a child process on
 * one DATA_DIR, stopped after the subscription and before the reminder's moment, then started again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { importRecord } from '../../app/features/intake.ts';

const API_KEY = 'restart-test-key-0123456789';
const PASSWORD = 'restart-test-password';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function start(dataDir: string, port: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // One process whatever the machine's cores (test/support/service-process.ts does the same).
      API_PROCESSES: '1',
      DEMO_API_KEY: API_KEY,
      DEMO_MEMBER_PASSWORD: PASSWORD,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 90_000);
    child.stdout!.on('data', () => {
      if (output.includes('/openapi.json')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return { child, ready };
}

function stop(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('a lot-end reminder across a restart of the service', function () {
  this.timeout(240_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-notifications-'));
  const port = 3990 + Math.floor(Math.random() * 9);
  const base = `http://127.0.0.1:${port}`;
  const children: ChildProcess[] = [];
  after(async () => {
    for (const child of children) await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, urlPath: string, token?: string, body?: unknown) => {
    const response = await fetch(base + urlPath, {
      method,
      headers: { 'Api-Key': API_KEY, 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
  const run = async () => {
    const service = start(dataDir, port);
    children.push(service.child);
    await service.ready;
    return service.child;
  };

  it('is sent exactly once, at its moment, by the service started again after a stop before that moment', async () => {
    const first = await run();
    const anonymous = (await call('POST', '/v1/tokens/anonymous', undefined, { clientId: 'demo' })).body.Token;
    const session = await call('POST', '/v1/sessions', anonymous, { Email: 'bidder@example.com', Password: PASSWORD });
    expect(session.status).to.equal(200);

    // A lot ending in 5 minutes and 20 seconds; the reminder 5 minutes before its end, 20 seconds from now (a
    // restart takes about 5 s; were it later than the moment, the reminder would go out at once: the lot is open).
    const fireAt = Date.now() + 20_000;
    const log = new SqliteEventLog(path.join(dataDir, 'events.sqlite'));
    await importRecord(log, {
      kind: 'lot',
      tenant: 'demo',
      lotId: 9001,
      auctionId: 1,
      lotNumber: 901,
      categoryId: null,
      texts: { en: { title: 'Restart clock', description: 'A lot for the restart spec.' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'EUR',
      startingPrice: 1000,
      estimateLow: null,
      estimateHigh: null,
      endTime: new Date(fireAt + 5 * 60_000).toISOString(),
      combiId: null,
      ownerId: null,
    });
    await log.close();
    const deadline = Date.now() + 10_000;
    while ((await call('GET', '/v1/lots/9001', anonymous)).status !== 200) {
      if (Date.now() > deadline) throw new Error('the service did not see the imported lot');
      await sleep(100);
    }

    const subscribed = await call('POST', '/v1/me/notifications', session.body.Token, { GeneralId: 9001, SendTime: 5, Type: 1 });
    expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(200);
    const id = subscribed.body.Id as string;
    const outbox = async () => (await readOutbox(path.join(dataDir, 'outbox'))).filter((m) => m.Id === `notification-${id}`);

    await stop(first);
    expect(Date.now(), 'stopped before the moment').to.be.below(fireAt);
    expect(await outbox()).to.deep.equal([]);

    const second = await run();
    const until = Date.now() + Math.max(0, fireAt - Date.now()) + 20_000;
    while ((await outbox()).length === 0) {
      if (Date.now() > until) throw new Error('no reminder after the restart');
      await sleep(100);
    }
    await sleep(1500);
    const messages = await outbox();
    expect(messages).to.have.length(1);
    expect(Date.parse(messages[0].CreatedAt)).to.be.at.least(fireAt - 250);
    expect(messages[0]).to.include({ Channel: 'mail', Tenant: 'demo', To: 'bidder@example.com' });
    expect(messages[0].Subject).to.include('Lot 901').and.include('Restart clock');

    // Started once more, the service sends nothing again.
    await stop(second);
    const third = await run();
    await sleep(2000);
    expect(await outbox()).to.have.length(1);
    await stop(third);
    const events = new SqliteEventLog(path.join(dataDir, 'events.sqlite'));
    const memberId = (await events.readAll({ fromPosition: 0, maxCount: 1_000_000 })).find((e) => e.data.subscriptionId === id)!.data
      .memberId;
    const stream = (await events.readStream(`notifications-demo-${memberId}`)).filter((e) => e.data.subscriptionId === id);
    await events.close();
    expect(stream.map((e) => e.type)).to.deep.equal(['NotificationSubscribed', 'NotificationDispatched']);
  });
});
