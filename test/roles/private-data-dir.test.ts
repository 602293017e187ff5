/**
 * What the service keeps in DATA_DIR is its user's alone: under a permissive umask (000) every folder it makes
 * is 0700 and every file 0600, the databases' -wal and -shm files, the outbox's mails, stored and generated files
 * and the lot index's snapshots included, and user `nobody` opens none of them; an existing DATA_DIR open to
 * other users is tightened at start, and one owned by another user is refused with one line.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
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
import { canRunAsNobody, entriesUnder, notPrivate, readableByNobody } from '../support/file-modes.ts';

const made: string[] = [];
/** A folder other users may pass through (0755), as /srv is: only DATA_DIR's own modes keep them out. */
function openParent(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bidder-${name}-`));
  fs.chmodSync(dir, 0o755);
  made.push(dir);
  return dir;
}

const started: ServiceProcess[] = [];
async function start(dataDir: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const proc = startService({ port: await freePort(), dataDir, umask: 0, env: { SEARCH_FLUSH_INTERVAL_MS: '200', ...env } });
  started.push(proc);
  await ready(proc);
  return proc;
}
async function stop(proc: ServiceProcess): Promise<void> {
  proc.child.kill('SIGTERM');
  expect(await exitWithin(proc, 30_000), proc.output()).to.not.equal(null);
}

/** Writes every kind of file the service keeps: outbox mails, a stored identity document, a generated catalogue PDF. */
async function writeEveryKind(base: string, dataDir: string): Promise<void> {
  const anonymous = (await call(base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token;
  const signUp = await call(base, 'POST', '/v1/members', anonymous, { Email: 'anna.berg@example.com', Password: 'correct horse battery' });
  expect(signUp.status, signUp.text).to.equal(200);
  const reset = await call(base, 'POST', '/v1/password-resets', anonymous, { Email: 'bidder@example.com' });
  expect(reset.status, reset.text).to.equal(200);

  const member = await demoMemberToken(base);
  const form = new FormData();
  form.append('DocumentType', 'passport');
  form.append('file', new Blob([Buffer.from('%PDF-1.4\n% a passport\n')], { type: 'application/pdf' }), 'passport.pdf');
  const upload = await fetch(`${base}/v1/me/identity-documents`, {
    method: 'POST',
    headers: { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${member}` },
    body: form,
  });
  expect(upload.status, await upload.clone().text()).to.equal(200);

  const auctions = await call(base, 'GET', '/v1/auctions?PageSize=1', anonymous);
  expect(auctions.status, auctions.text).to.equal(200);
  const pdf = await fetch(`${base}/v1/auctions/${auctions.body.Items[0].Id}/catalogue`, {
    headers: { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${anonymous}` },
  });
  expect(pdf.status).to.equal(200);
  expect(pdf.headers.get('content-type')).to.match(/^application\/pdf/);
  await pdf.arrayBuffer();

  // The mails are written by the job worker: the sign-up's confirmation and the reset key.
  const deadline = Date.now() + 30_000;
  while ((await readOutbox(path.join(dataDir, 'outbox'))).length < 2 && Date.now() < deadline) await sleep(100);
  expect(await readOutbox(path.join(dataDir, 'outbox'))).to.have.length.at.least(2);
}

describe('DATA_DIR is private to the user who runs the service', function () {
  this.timeout(240_000);

  after(async () => {
    for (const proc of started) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await Promise.all(started.map((proc) => exitWithin(proc, 10_000)));
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('with umask 000, makes every folder 0700 and every file 0600 on a fresh DATA_DIR (both embedded lot indexes), and nobody else reads any', async () => {
    const dataDir = path.join(openParent('private-fresh'), 'data');
    const first = await start(dataDir);
    await writeEveryKind(first.base, dataDir);
    await sleep(500); // a flush of the lot index's snapshot (SEARCH_FLUSH_INTERVAL_MS=200)
    const running = entriesUnder(dataDir).map((e) => e.path);
    expect(notPrivate(dataDir), 'while it runs').to.deep.equal([]);
    await stop(first);
    expect(notPrivate(dataDir), 'once stopped').to.deep.equal([]);

    // Every kind was written: the databases with their WAL files, mails, stored and generated files, the index.
    for (const kind of [
      /^events\.sqlite-wal$/,
      /^read-models\.sqlite-shm$/,
      /^jobs\.sqlite$/,
      /^limits\.sqlite$/,
      /^leases\.sqlite$/,
      /^outbox\/mail-.+\.json$/,
      /^files\/demo\/[0-9a-f]{64}$/,
      /^files\/demo\/[0-9a-f]{64}\.json$/,
      /^search\/.+/,
      /^secrets\/keys\.json$/,
      /^secrets\/demo-credentials\.json$/,
    ])
      expect(
        running.some((p) => kind.test(p)),
        `${kind} among ${running.join(', ')}`,
      ).to.equal(true);

    // The lot index in SQLite's FTS5 (search.sqlite) on the same folder.
    const second = await start(dataDir, { EMBEDDED_SEARCH: 'fts5' });
    const search = await call(
      second.base,
      'GET',
      '/v1/lots?Query=chair',
      (await call(second.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token,
    );
    expect(search.status, search.text).to.equal(200);
    expect(entriesUnder(dataDir).map((e) => e.path)).to.include.members(['search.sqlite', 'search.sqlite-wal']);
    expect(notPrivate(dataDir), 'with EMBEDDED_SEARCH=fts5').to.deep.equal([]);
    await stop(second);
    expect(notPrivate(dataDir)).to.deep.equal([]);

    if (!canRunAsNobody()) return console.log('      (skipped the look as user nobody: runuser or root is not there)');
    expect(readableByNobody(dataDir), 'read or listed by user nobody').to.deep.equal([]);
  });

  it('tightens an existing DATA_DIR whose folders are 0755 and files 0644 at start, saying so', async () => {
    const dataDir = path.join(openParent('private-open'), 'data');
    await stop(await start(dataDir));
    for (const entry of entriesUnder(dataDir)) fs.chmodSync(path.join(dataDir, entry.path), entry.kind === 'folder' ? 0o755 : 0o644);
    expect(notPrivate(dataDir)).to.not.deep.equal([]);

    const again = await start(dataDir);
    expect(notPrivate(dataDir)).to.deep.equal([]);
    expect(again.output()).to.match(/DATA_DIR was open to other users: tightened \d+ entries/);
    await stop(again);
  });

  it('refuses to start, with one line naming DATA_DIR and what to do, on a DATA_DIR owned by another user', async function () {
    if (process.getuid?.() !== 0) return this.skip(); // only root can hand a folder to another user
    const dataDir = path.join(openParent('private-owned'), 'data');
    fs.mkdirSync(dataDir, { mode: 0o777 });
    fs.chmodSync(dataDir, 0o777);
    fs.chownSync(dataDir, 65534, 65534);
    const proc = startService({ port: await freePort(), dataDir });
    started.push(proc);
    const exit = await exitWithin(proc, 60_000);
    expect(exit?.code, proc.output()).to.equal(1);
    const lines = proc.output().trim().split('\n');
    expect(lines, proc.output()).to.have.length(1);
    expect(lines[0]).to.match(new RegExp(`^fatal: DATA_DIR ${dataDir} is owned by uid 65534, not by uid 0 who runs the service: `));
    expect(lines[0]).to.include(`chown -R 0 ${dataDir}`);
    expect(fs.readdirSync(dataDir), 'nothing written').to.deep.equal([]);
  });

  it('refuses to start, with one line, when an entry open to others belongs to another user and cannot be tightened', async function () {
    if (!canRunAsNobody()) return this.skip(); // needs root and runuser
    const dataDir = path.join(openParent('private-foreign'), 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    fs.chownSync(dataDir, 65534, 65534);
    const foreign = path.join(dataDir, 'events.sqlite');
    fs.writeFileSync(foreign, '');
    fs.chmodSync(foreign, 0o644); // root's, readable by all
    // The service as user nobody, who owns DATA_DIR but not the file.
    const child = spawn('runuser', ['-u', 'nobody', '--', process.execPath, '--import', 'tsx', 'app/main.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', API_PROCESSES: '1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code, output).to.equal(1);
    expect(output.trim().split('\n'), output).to.have.length(1);
    expect(output.trim()).to.equal(
      `fatal: DATA_DIR ${dataDir}: ${foreign} is open to other users (mode 0644, owner uid 0) and cannot be made private (EPERM): ` +
        `run chmod -R go-rwx ${dataDir} as its owner, or chown -R 65534 ${dataDir}`,
    );
    expect(fs.readdirSync(dataDir), 'nothing written').to.deep.equal(['events.sqlite']);
  });
});
