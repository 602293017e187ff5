/**
 * The restore drill (docs/operations.md): a backup taken with `npm run backup` while writes run through the API,
 * restored with `npm run restore` into a fresh DATA_DIR, serves every write acknowledged before the backup began,
 * holds the log as it was, rebuilds read models equal to a replay, and keeps the demo credentials and the tokens'
 * secret. A damaged, truncated or incomplete backup, and bad input, are refused with exit 2 and one line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { exitWithin, freePort, ready, startService, type ServiceProcess } from '../support/service-process.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run backup`/`restore` as an operator runs them (the CLI module under node), with DATA_DIR and BACKUP_KEY set. */
function cli(script: 'backup' | 'restore', args: string[], dataDir: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `app/cli/${script}.ts`, ...args], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', BACKUP_KEY: 'the-drill-backup-key-0123456789abcdef' },
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
const tempDir = (name: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bidder-${name}-`));
  made.push(dir);
  return dir;
};

type Row = { position: number; stream_id: string; revision: number; type: string; data: string; created: string };
function eventsUpTo(dataDir: string, position: number): Row[] {
  const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    return db
      .prepare('SELECT position, stream_id, revision, type, data, created FROM events WHERE position <= ? ORDER BY position')
      .all(position) as Row[];
  } finally {
    db.close();
  }
}

describe('backup and restore: the drill', function () {
  this.timeout(180_000);
  const original = tempDir('drill-a');
  const restored = tempDir('drill-b');
  const backup = path.join(tempDir('drill-backups'), 'taken');
  const started: ServiceProcess[] = [];
  let credentials: { apiKey: string; memberEmail: string; memberPassword: string };

  /** A call with the house's demo Api-Key as that DATA_DIR made it. */
  async function call(base: string, method: string, url: string, token: string | null, body?: unknown) {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        'Api-Key': credentials.apiKey,
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : null };
  }

  async function signIn(base: string): Promise<string> {
    const anonymous = await call(base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' });
    expect(anonymous.status, anonymous.text).to.equal(200);
    const session = await call(base, 'POST', '/v1/sessions', anonymous.body.Token, {
      Email: credentials.memberEmail,
      Password: credentials.memberPassword,
    });
    expect(session.status, session.text).to.equal(200);
    return session.body.Token;
  }

  async function start(dataDir: string): Promise<ServiceProcess> {
    // As an operator starts it: the demo credentials made at the first start and kept in DATA_DIR/secrets.
    const proc = startService({ port: await freePort(), dataDir, plain: true });
    started.push(proc);
    await ready(proc);
    return proc;
  }

  after(async () => {
    for (const proc of started) if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
    await Promise.all(started.map((proc) => exitWithin(proc, 10_000)));
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('restores a backup taken during writes: every write acknowledged before it began is served, the log as it was, read models equal to a replay', async () => {
    const first = await start(original);
    credentials = JSON.parse(fs.readFileSync(path.join(original, 'secrets', 'demo-credentials.json'), 'utf8'));
    const token = await signIn(first.base);

    // Writes through the API all along (lots 1 to 90 watched, then their watch types changed, round after round):
    // each acknowledged (200) is noted, in order.
    const acknowledged: number[] = [];
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing && n < 5_000; n++) {
        const lot = 1 + (n % 90);
        const answer = await call(first.base, 'PUT', `/v1/me/watchlist/${lot}`, token, {
          Type: ['watch', 'favourite'][Math.floor(n / 90) % 2],
        });
        expect(answer.status, answer.text).to.equal(200);
        acknowledged.push(lot);
      }
    })();
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    // Told apart by order, not by clock: a write acknowledged in the backup's first millisecond is before it.
    const ackedBefore = acknowledged.length;
    const taken = await cli('backup', [backup], original);
    writing = false;
    await writer;
    expect(taken.code, taken.stderr).to.equal(0);
    const summary = JSON.parse(taken.stdout.trim().split('\n').at(-1)!);
    const manifest = JSON.parse(fs.readFileSync(path.join(backup, 'manifest.json'), 'utf8'));
    expect(summary.logPosition).to.equal(manifest.logPosition);
    expect(manifest.parts.map((p: { path: string }) => p.path)).to.include.members([
      'events.sqlite',
      'secrets/keys.json',
      'secrets/demo-credentials.json',
    ]);
    const before = [...new Set(acknowledged.slice(0, ackedBefore))];
    const during = acknowledged.length - ackedBefore;
    expect(before.length).to.be.at.least(20);
    expect(during, 'writes acknowledged while the backup ran').to.be.greaterThan(0);

    const laid = await cli('restore', [backup, restored], original);
    expect(laid.code, laid.stderr).to.equal(0);
    expect(JSON.parse(laid.stdout).logPosition).to.equal(manifest.logPosition);
    // The log as it was, event for event, up to the backup's position.
    expect(eventsUpTo(restored, Number.MAX_SAFE_INTEGER)).to.deep.equal(eventsUpTo(original, manifest.logPosition));

    const second = await start(restored);
    // The tokens' secret came along: a token signed by the first service is good on the second.
    const list = await call(second.base, 'GET', '/v1/me/watchlist?PageSize=100', token);
    expect(list.status, list.text).to.equal(200);
    const watched: number[] = list.body.Items.map((item: { Id: number }) => item.Id);
    expect(watched).to.include.members(before);
    // The read model the first start rebuilt equals a replay of the restored log.
    const replayed = new Set<number>();
    for (const row of eventsUpTo(restored, Number.MAX_SAFE_INTEGER)) {
      const data = JSON.parse(row.data);
      if (row.type === 'LotWatched' && data.tenant === 'demo') replayed.add(data.lotId);
      if (row.type === 'LotUnwatched' && data.tenant === 'demo') replayed.delete(data.lotId);
    }
    expect([...watched].sort((a, b) => a - b)).to.deep.equal([...replayed].sort((a, b) => a - b));
    // And the demo credentials kept in the backup sign in.
    expect(await signIn(second.base)).to.be.a('string');
  });

  it('refuses a damaged, truncated or incomplete backup, and a DATA_DIR that is not empty, with one line and exit 2', async () => {
    const copyOf = (name: string) => {
      const dir = path.join(tempDir('drill-copies'), name);
      fs.cpSync(backup, dir, { recursive: true });
      return dir;
    };
    const damaged = copyOf('damaged');
    const log = path.join(damaged, 'events.sqlite');
    const bytes = fs.readFileSync(log);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(log, bytes);
    const truncated = copyOf('truncated');
    fs.truncateSync(path.join(truncated, 'events.sqlite'), 4096);
    const incomplete = copyOf('incomplete');
    fs.rmSync(path.join(incomplete, 'manifest.json'));

    const cases: Array<[string[], RegExp]> = [
      [[damaged, tempDir('drill-target')], /events\.sqlite does not match its checksum/],
      [[truncated, tempDir('drill-target')], /events\.sqlite is 4096 bytes where the manifest says \d+: the backup is truncated/],
      [[incomplete, tempDir('drill-target')], /is not a complete backup: it has no manifest\.json/],
      [[backup, restored], /DATA_DIR .* is not empty/],
      [[backup], /^restore: usage: npm run restore -- SRC DATA_DIR/],
    ];
    for (const [args, line] of cases) {
      const run = await cli('restore', args, original);
      expect(run.code, run.stderr).to.equal(2);
      expect(run.stderr.trim().split('\n'), run.stderr).to.have.length(1);
      expect(run.stderr).to.match(line);
      if (args[1] && args[1] !== restored) expect(fs.readdirSync(args[1])).to.deep.equal([]);
    }
  });

  it('refuses to back up without a folder, into one that is not empty, or from a DATA_DIR without a log', async () => {
    const cases: Array<[string[], string, RegExp]> = [
      [[], original, /^backup: usage: npm run backup -- DEST/],
      [[backup], original, /the backup folder .* is not empty/],
      [[path.join(tempDir('drill-backups'), 'x')], tempDir('drill-empty'), /holds no event log \(events\.sqlite\)/],
    ];
    for (const [args, dataDir, line] of cases) {
      const run = await cli('backup', args, dataDir);
      expect(run.code, run.stderr).to.equal(2);
      expect(run.stderr.trim().split('\n'), run.stderr).to.have.length(1);
      expect(run.stderr).to.match(line);
    }
  });
});
