/**
 * SIGTERM and SIGINT as supervisors send them, to the real service in each role on one DATA_DIR: the process
 * stops taking connections, lets what is in flight finish within SHUTDOWN_TIMEOUT_MS, abandons and names what
 * is left, and exits, whatever its standard output is; a second signal exits at once; an abandoned job runs
 * again after a restart.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  call,
  demoMemberToken,
  exitWithin,
  freePort,
  ready,
  SERVICE_API_KEY,
  sleep,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';
import { GracefulShutdown } from '../../src/shutdown.ts';
import { createLogger } from '../../src/logger.ts';

const GRACE_MS = 3000;

/** True once no process of the group is left. */
async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    await sleep(50);
  }
  return false;
}

/** An upload that sends its headers and the first 64 KiB of a 1 MiB body, then waits; `finish()` sends the rest. */
function stalledUpload(base: string, token: string) {
  const boundary = 'shutdown-test';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="DocumentType"\r\n\r\npassport\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="passport.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = 1024 * 1024;
  const filler = Buffer.alloc(total - head.length - tail.length, 0x20);
  const req = http.request(`${base}/v1/me/identity-documents`, {
    method: 'POST',
    headers: {
      'Api-Key': SERVICE_API_KEY,
      Authorization: `Bearer ${token}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(total),
    },
    agent: false,
  });
  const outcome = new Promise<{ status: number; connection?: string } | { error: string }>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
  req.write(Buffer.concat([head, filler.subarray(0, 64 * 1024)]));
  return { outcome, finish: () => req.end(Buffer.concat([filler.subarray(64 * 1024), tail])) };
}

/** A VIES stand-in that takes requests and never answers: a VAT check job then runs until it is abandoned. */
async function blackHole(): Promise<{ url: string; requests: () => number; close: () => void }> {
  let requests = 0;
  const server = http.createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/check-vat-number`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('roles: stopping with SIGTERM or SIGINT, in time, whatever standard output is', function () {
  this.timeout(240_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-shutdown-'));
  const started: ServiceProcess[] = [];
  let vies: Awaited<ReturnType<typeof blackHole>>;
  let projector: ServiceProcess;
  let api: ServiceProcess;
  let member: string;

  const start = async (role: string, options: { npm?: boolean; detached?: boolean } = {}) => {
    const proc = startService({
      role,
      port: await freePort(),
      dataDir,
      ...options,
      env: { SHUTDOWN_TIMEOUT_MS: String(GRACE_MS), LOG_LEVEL: 'info', VIES_URL: vies.url, VIES_TIMEOUT_MS: '600000' },
    });
    started.push(proc);
    return proc;
  };

  before(async () => {
    vies = await blackHole();
  });

  after(async () => {
    for (const proc of started) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    vies.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('all, as `npm start` in a process group, exits at once on SIGTERM to the group when its output pipes are closed', async () => {
    const all = await start('all', { npm: true, detached: true });
    await ready(all);
    // The reader of its output goes away (a log pipe ended with the service), and a log line is still held.
    all.child.stdout!.destroy();
    all.child.stderr!.destroy();
    expect((await fetch(`${all.base}/healthz`)).status).to.equal(200);
    process.kill(-all.child.pid!, 'SIGTERM');
    expect(await groupGoneWithin(all.child.pid!, GRACE_MS + 2000), 'the process group is still running').to.equal(true);
  });

  describe('with a projector, an api and a worker on the folder', () => {
    before(async () => {
      projector = await start('projector');
      await ready(projector);
      api = await start('api');
      await ready(api);
      member = await demoMemberToken(api.base);
    });

    it('api: stops taking connections, answers a request that ends within the grace period (closing its connection), and exits 0', async () => {
      const upload = stalledUpload(api.base, member);
      await sleep(300);
      api.child.kill('SIGTERM');
      await sleep(300);
      await fetch(`${api.base}/healthz`).then(
        () => expect.fail('a new connection was taken after SIGTERM'),
        (error) => expect(error.cause?.code).to.equal('ECONNREFUSED'),
      );
      upload.finish();
      expect(await upload.outcome).to.deep.equal({ status: 200, connection: 'close' });
      const exit = await exitWithin(api, GRACE_MS + 2000);
      expect(exit, api.output()).to.deep.equal({ code: 0, signal: null });
    });

    it('api: abandons a request still in flight when the grace period ends, names it in the log, and exits 1', async () => {
      api = await start('api');
      await ready(api);
      const upload = stalledUpload(api.base, member);
      await sleep(300);
      const signalled = Date.now();
      api.child.kill('SIGTERM');
      const exit = await exitWithin(api, GRACE_MS + 2000);
      expect(exit, api.output()).to.deep.equal({ code: 1, signal: null });
      expect(Date.now() - signalled).to.be.at.least(GRACE_MS - 100);
      expect(await upload.outcome).to.have.property('error');
      expect(api.output()).to.match(/grace period over: requests abandoned/);
      expect(api.output()).to.include('POST /v1/me/identity-documents');
    });

    it('api: exits at once on a second signal during the grace period', async () => {
      api = await start('api');
      await ready(api);
      const upload = stalledUpload(api.base, member);
      await sleep(300);
      api.child.kill('SIGTERM');
      await sleep(300);
      const second = Date.now();
      api.child.kill('SIGINT');
      const exit = await exitWithin(api, 1500);
      expect(exit, api.output()).to.deep.equal({ code: 130, signal: null });
      expect(Date.now() - second).to.be.below(1500);
      await upload.outcome;
    });

    it('worker: abandons a job still running when the grace period ends, names it, exits 1, and the job runs again after a restart', async () => {
      api = await start('api');
      const worker = await start('worker');
      await Promise.all([ready(api), ready(worker)]);
      const put = await call(api.base, 'PUT', '/v1/me', member, { CompanyName: 'Berg GmbH', VATNumber: 'DE136695976' });
      expect(put.status, put.text).to.equal(200);
      const seen = vies.requests();
      for (let i = 0; i < 100 && vies.requests() === seen; i++) await sleep(100);
      expect(vies.requests(), 'the VAT check job never started').to.equal(seen + 1);
      worker.child.kill('SIGTERM');
      const exit = await exitWithin(worker, GRACE_MS + 2000);
      expect(exit, worker.output()).to.deep.equal({ code: 1, signal: null });
      expect(worker.output()).to.match(/grace period over: jobs abandoned/);
      expect(worker.output()).to.include('check-vat-number');

      const again = await start('worker');
      await ready(again);
      for (let i = 0; i < 100 && vies.requests() === seen + 1; i++) await sleep(100);
      expect(vies.requests(), 'the abandoned job did not run again').to.equal(seen + 2);
      again.child.kill('SIGTERM');
      expect(await exitWithin(again, GRACE_MS + 2000)).to.deep.equal({ code: 1, signal: null });
    });

    it('projector: exits 0 at once on SIGTERM with its output pipes closed', async () => {
      projector.child.stdout!.destroy();
      projector.child.stderr!.destroy();
      const signalled = Date.now();
      projector.child.kill('SIGTERM');
      expect(await exitWithin(projector, GRACE_MS)).to.deep.equal({ code: 0, signal: null });
      expect(Date.now() - signalled).to.be.below(GRACE_MS);
      api.child.kill('SIGTERM');
      expect(await exitWithin(api, GRACE_MS + 2000)).to.deep.equal({ code: 0, signal: null });
    });
  });
});

describe('the log on standard output never holds the exit', function () {
  this.timeout(30_000);

  const logWriter = (env: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/log-writer.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exited };
  };

  it('exits at once when the reader of its standard output has gone while a line is held', async () => {
    const { child, exited } = logWriter({ LINES: '3', WAIT_MS: '0' });
    child.stdout!.destroy();
    expect(await Promise.race([exited, sleep(5000).then(() => 'still running')])).to.equal(0);
  });

  it('exits within its drain bound when the reader of its standard output stopped reading', async () => {
    const { child, exited } = logWriter({ LINES: '20000', WAIT_MS: '200', DRAIN_MS: '500' });
    child.stdout!.pause();
    const started = Date.now();
    expect(await Promise.race([exited, sleep(10_000).then(() => 'still running')])).to.equal(0);
    expect(Date.now() - started).to.be.below(8000);
    child.stdout!.destroy();
  });

  it('writes every line when its standard output is read', async () => {
    const { child, exited } = logWriter({ LINES: '5000', DRAIN_MS: '5000' });
    let text = '';
    child.stdout!.on('data', (chunk) => (text += chunk));
    expect(await exited).to.equal(0);
    await sleep(50);
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).to.have.length(5001);
    expect(lines.at(-1).msg).to.equal('the last line');
  });
});

describe('a stop asked for without a signal (a cluster primary asking its api process to stop)', () => {
  const shutdownOf = (exits: number[]) =>
    new GracefulShutdown({
      logger: createLogger({ level: 'silent' }),
      timeoutMs: 1000,
      background: async () => ({ abandoned: [] }),
      close: async () => undefined,
      drainLogs: async () => undefined,
      exit: (code) => void exits.push(code),
    });

  it('takes the Ctrl-C that reached the whole process group just after as a first signal: the stop goes on, exit code 0', async () => {
    const exits: number[] = [];
    const shutdown = shutdownOf(exits);
    const asked = shutdown.stop();
    expect(shutdown.stopping).to.equal(true);
    await shutdown.signal('SIGINT');
    await asked;
    expect(exits).to.deep.equal([0]);
  });

  it('still exits at once (128 + 2) on a second Ctrl-C', async () => {
    const exits: number[] = [];
    const shutdown = shutdownOf(exits);
    const asked = shutdown.stop();
    await shutdown.signal('SIGINT');
    await shutdown.signal('SIGINT');
    await asked;
    expect(exits).to.deep.equal([130]);
  });
});
