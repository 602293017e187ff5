import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';

/** `npm start` as a user runs it: the real entry point in a child process on a fresh DATA_DIR. */
function start(dataDir: string, port: number, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 60_000);
    child.stdout!.on('data', () => {
      if (output.includes('/openapi.json')) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return { child, ready };
}

function stop(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
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
  const port = 3900 + Math.floor(Math.random() * 90);
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('seeds an empty DATA_DIR, prints the demo credentials and URLs, and keeps changes without seeding twice', async () => {
    const first = start(dataDir, port, { DEMO_API_KEY: 'start-test-key-0123456789', DEMO_MEMBER_PASSWORD: 'start-test-password' });
    const banner = await first.ready;
    expect(banner).to.include('start-test-key-0123456789');
    expect(banner).to.include('bidder@example.com / start-test-password');
    expect(banner).to.include(`http://localhost:${port}/docs`);
    expect(banner).to.include(`http://localhost:${port}/openapi.json`);
    const base = `http://127.0.0.1:${port}`;
    const headers = { 'Api-Key': 'start-test-key-0123456789', 'Content-Type': 'application/json' };
    const anon = await (await fetch(`${base}/v1/tokens/anonymous`, { method: 'POST', headers, body: JSON.stringify({ clientId: 'demo' }) })).json();
    const session = await fetch(`${base}/v1/sessions`, {
      method: 'POST',
      headers: { ...headers, Authorization: `Bearer ${anon.Token}` },
      body: JSON.stringify({ Email: 'bidder@example.com', Password: 'start-test-password' }),
    });
    expect(session.status).to.equal(200);
    const member = (await session.json()).Token;
    const put = await fetch(`${base}/v1/me/watchlist/7`, { method: 'PUT', headers: { ...headers, Authorization: `Bearer ${member}` } });
    expect(put.status).to.equal(200);
    const lots = await (await fetch(`${base}/v1/lots?PageSize=1`, { headers: { ...headers, Authorization: `Bearer ${anon.Token}` } })).json();
    expect(lots.TotalCount).to.be.at.least(1000 - 250);
    await stop(first.child);
    const afterFirst = await eventCount(dataDir);

    const second = start(dataDir, port);
    const banner2 = await second.ready;
    expect(banner2).to.include('start-test-key-0123456789');
    expect(banner2).to.include('bidder@example.com / start-test-password');
    expect(await eventCount(dataDir)).to.equal(afterFirst);
    const token2 = (await (await fetch(`${base}/v1/tokens/anonymous`, { method: 'POST', headers, body: JSON.stringify({ clientId: 'demo' }) })).json()).Token;
    const member2 = (
      await (
        await fetch(`${base}/v1/sessions`, {
          method: 'POST',
          headers: { ...headers, Authorization: `Bearer ${token2}` },
          body: JSON.stringify({ Email: 'bidder@example.com', Password: 'start-test-password' }),
        })
      ).json()
    ).Token;
    const watchlist = await (await fetch(`${base}/v1/me/watchlist`, { headers: { ...headers, Authorization: `Bearer ${member2}` } })).json();
    expect(watchlist.Items.map((i: { Id: number }) => i.Id)).to.deep.equal([7]);
    await stop(second.child);
  });
});
