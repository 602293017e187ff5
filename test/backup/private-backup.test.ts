/**
 * A backup and a restored DATA_DIR are their user's alone, and restore trusts only a backup it can authenticate
 * (docs/operations.md): under umask 000 `npm run backup` makes its folder 0700 and every file 0600, `npm run
 * restore` lays everything down 0700/0600 whatever the backup's own modes, and user `nobody` reads neither. With
 * BACKUP_KEY the manifest carries an HMAC: an edited backup whose checksums were made to match is refused, and a
 * backup that cannot be authenticated (unsigned, or no key to check it) is restored only with --unsigned.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { call, exitWithin, freePort, ready, sleep, startService, type ServiceProcess } from '../support/service-process.ts';
import { canRunAsNobody, entriesUnder, notPrivate, readableByNobody } from '../support/file-modes.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';

const KEY = 'backup-key-for-the-specs-0123456789abcdef';
const OTHER_KEY = 'another-backup-key-0123456789abcdefghijkl';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run backup`/`restore` as an operator runs them, under umask 000 so only the tools' own modes count. */
function cli(script: 'backup' | 'restore', args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, '--import', 'tsx', `app/cli/${script}.ts`, ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn', BACKUP_KEY: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const made: string[] = [];
/** A folder other users may pass through (0755): only the modes of what is made in it keep them out. */
function openParent(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bidder-${name}-`));
  fs.chmodSync(dir, 0o755);
  made.push(dir);
  return dir;
}
let parent = '';
const fresh = (name: string) => path.join(parent, `${name}-${made.length}-${Math.random().toString(36).slice(2, 8)}`);

/** A copy of a backup (modes kept), to edit. */
function copyOf(backup: string): string {
  const dir = fresh('copy');
  fs.cpSync(backup, dir, { recursive: true, preserveTimestamps: true });
  return dir;
}

function rewriteManifest(backup: string, change: (manifest: any) => void): void {
  const file = path.join(backup, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  change(manifest);
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
}

/** What an intruder with write access to the backups does: change the log, then make its size and SHA-256 match. */
function plantInLog(backup: string): void {
  const log = path.join(backup, 'events.sqlite');
  const db = new Database(log);
  const changed = db
    .prepare("UPDATE events SET data = json_set(data, '$.passwordHash', 'planted') WHERE position = (SELECT MIN(position) FROM events)")
    .run();
  db.close();
  expect(changed.changes).to.equal(1);
  const bytes = fs.readFileSync(log);
  rewriteManifest(backup, (manifest) => {
    const part = manifest.parts.find((p: { path: string }) => p.path === 'events.sqlite');
    part.bytes = bytes.length;
    part.sha256 = createHash('sha256').update(bytes).digest('hex');
  });
}

function expectRefused(run: Run, line: RegExp, target: string): void {
  expect(run.code, run.stderr).to.equal(2);
  expect(run.stderr.trim().split('\n'), run.stderr).to.have.length(1);
  expect(run.stderr.trim()).to.match(line);
  expect(fs.existsSync(target) ? fs.readdirSync(target) : [], 'nothing restored').to.deep.equal([]);
}

describe('backup and restore: private, and authenticated with BACKUP_KEY', function () {
  this.timeout(240_000);
  let dataDir = '';
  let service: ServiceProcess;
  let signed: string;
  let unsigned: string;
  const taken: { signed?: Run; unsigned?: Run } = {};

  before(async () => {
    parent = openParent('private-backups');
    dataDir = path.join(parent, 'data');
    service = startService({ port: await freePort(), dataDir, umask: 0 });
    await ready(service);
    // A mail in the outbox (the sign-up's confirmation), beside the demo's stored files and the secrets.
    const anonymous = (await call(service.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token;
    const signUp = await call(service.base, 'POST', '/v1/members', anonymous, {
      Email: 'anna.berg@example.com',
      Password: 'correct horse battery',
    });
    expect(signUp.status, signUp.text).to.equal(200);
    const deadline = Date.now() + 30_000;
    while ((await readOutbox(path.join(dataDir, 'outbox'))).length === 0 && Date.now() < deadline) await sleep(100);

    signed = fresh('signed');
    taken.signed = await cli('backup', [signed], { DATA_DIR: dataDir, BACKUP_KEY: KEY });
    expect(taken.signed.code, taken.signed.stderr).to.equal(0);
    unsigned = fresh('unsigned');
    taken.unsigned = await cli('backup', [unsigned], { DATA_DIR: dataDir });
    expect(taken.unsigned.code, taken.unsigned.stderr).to.equal(0);
  });

  after(async () => {
    if (service && service.child.exitCode === null) service.child.kill('SIGTERM');
    if (service) await exitWithin(service, 15_000);
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('with umask 000, makes the backup folder 0700 and every file in it 0600, manifest included; signed with BACKUP_KEY, else says it is not', () => {
    const summary = (run: Run) => JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(summary(taken.signed!)).to.include({ signed: true });
    expect(summary(taken.unsigned!)).to.include({ signed: false });
    expect(taken.unsigned!.stderr).to.include('backup: not signed (BACKUP_KEY is not set): restoring it will take --unsigned');
    const paths = entriesUnder(signed).map((e) => e.path);
    for (const part of ['manifest.json', 'events.sqlite', 'jobs.sqlite', 'secrets/keys.json', 'secrets/demo-credentials.json'])
      expect(paths).to.include(part);
    expect(
      paths.some((p) => /^outbox\/mail-.+\.json$/.test(p)),
      paths.join(', '),
    ).to.equal(true);
    expect(
      paths.some((p) => /^files\/demo\/[0-9a-f]{64}$/.test(p)),
      paths.join(', '),
    ).to.equal(true);
    expect(notPrivate(signed)).to.deep.equal([]);
    expect(notPrivate(unsigned)).to.deep.equal([]);
  });

  it('with umask 000, restores 0700 folders and 0600 files whatever the backup’s modes, into a new folder or an empty one open to others', async () => {
    const restored = fresh('restored');
    const laid = await cli('restore', [signed, restored], { BACKUP_KEY: KEY });
    expect(laid.code, laid.stderr).to.equal(0);
    expect(JSON.parse(laid.stdout)).to.include({ authenticated: true });
    expect(entriesUnder(restored).map((e) => e.path)).to.include.members(['events.sqlite', 'secrets/keys.json']);
    expect(notPrivate(restored)).to.deep.equal([]);

    // A backup whose files were opened up (copied by hand, kept on a share), into an empty folder open to all.
    const opened = copyOf(signed);
    for (const entry of entriesUnder(opened)) fs.chmodSync(path.join(opened, entry.path), entry.kind === 'folder' ? 0o755 : 0o644);
    const target = fresh('target');
    fs.mkdirSync(target);
    fs.chmodSync(target, 0o777);
    const again = await cli('restore', [opened, target], { BACKUP_KEY: KEY });
    expect(again.code, again.stderr).to.equal(0);
    expect(notPrivate(target)).to.deep.equal([]);
  });

  it('leaves nothing of DATA_DIR or of a backup that user nobody can read or list', async function () {
    if (!canRunAsNobody()) return this.skip(); // needs root and runuser
    const restored = fresh('restored');
    expect((await cli('restore', [signed, restored], { BACKUP_KEY: KEY })).code).to.equal(0);
    expect(readableByNobody(signed), 'in the backup').to.deep.equal([]);
    expect(readableByNobody(restored), 'in the restored DATA_DIR').to.deep.equal([]);
    expect(readableByNobody(dataDir), 'in the service’s DATA_DIR').to.deep.equal([]);
  });

  it('refuses a signed backup whose log was edited and its size and SHA-256 made to match, and one whose signature was taken off', async () => {
    const edited = copyOf(signed);
    plantInLog(edited);
    let target = fresh('target');
    expectRefused(
      await cli('restore', [edited, target], { BACKUP_KEY: KEY }),
      /^restore: .* does not match its signature: the manifest was changed after the backup was taken$/,
      target,
    );
    const stripped = copyOf(edited);
    rewriteManifest(stripped, (manifest) => delete manifest.signature);
    target = fresh('target');
    expectRefused(
      await cli('restore', [stripped, target], { BACKUP_KEY: KEY }),
      /^restore: .* is not signed, so BACKUP_KEY cannot authenticate it: pass --unsigned/,
      target,
    );
    // Refused even with --unsigned while a key is set: a signature that does not match is never accepted.
    target = fresh('target');
    expectRefused(await cli('restore', [edited, target, '--unsigned'], { BACKUP_KEY: KEY }), /does not match its signature/, target);
  });

  it('refuses a backup signed with another key, and one it cannot authenticate unless --unsigned says so', async () => {
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      [
        signed,
        { BACKUP_KEY: OTHER_KEY },
        /^restore: .* was signed with another BACKUP_KEY \(key id [0-9a-f]{16}, this one's is [0-9a-f]{16}\): set the key it was taken with$/,
      ],
      [signed, {}, /^restore: .* is signed but BACKUP_KEY is not set, so it cannot be checked: set BACKUP_KEY .*, or pass --unsigned/],
      [
        unsigned,
        { BACKUP_KEY: KEY },
        /^restore: .* is not signed, so BACKUP_KEY cannot authenticate it: pass --unsigned to restore it anyway/,
      ],
      [
        unsigned,
        {},
        /^restore: .* is not signed and BACKUP_KEY is not set: nothing authenticates it .*; pass --unsigned to restore it anyway$/,
      ],
    ];
    for (const [backup, env, line] of cases) {
      const target = fresh('target');
      expectRefused(await cli('restore', [backup, target], env), line, target);
    }
    for (const [backup, env] of [
      [signed, {}],
      [unsigned, { BACKUP_KEY: KEY }],
      [unsigned, {}],
    ] as const) {
      const target = fresh('target');
      const run = await cli('restore', ['--unsigned', backup, target], env);
      expect(run.code, run.stderr).to.equal(0);
      expect(JSON.parse(run.stdout)).to.include({ authenticated: false });
      expect(run.stderr).to.include('restore: --unsigned: the backup was restored without being authenticated');
      expect(notPrivate(target)).to.deep.equal([]);
    }
  });

  it('refuses a BACKUP_KEY shorter than 32 bytes, with one line, before writing anything', async () => {
    const dest = fresh('short');
    const taken = await cli('backup', [dest], { DATA_DIR: dataDir, BACKUP_KEY: 'too-short' });
    expect(taken.code, taken.stderr).to.equal(2);
    expect(taken.stderr.trim()).to.equal('backup: BACKUP_KEY must be at least 32 bytes (it has 9): e.g. openssl rand -base64 48');
    expect(fs.existsSync(dest)).to.equal(false);
    const target = fresh('target');
    expectRefused(
      await cli('restore', [signed, target], { BACKUP_KEY: 'too-short' }),
      /^restore: BACKUP_KEY must be at least 32 bytes/,
      target,
    );
  });
});
