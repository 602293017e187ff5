/**
 * A PostgreSQL server of a spec's own: a fresh cluster in a temp folder on a free port, which the spec may stop
 * and start again (faults) without disturbing the machine's shared server that other specs use at the same time.
 * Run as the `postgres` user when the spec runs as root (initdb refuses root), directly otherwise.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './service-process.ts';

const run = promisify(execFile);

/** Where the PostgreSQL binaries are: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin, else the PATH. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : '';
}

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication, loopback only). */
  url: string;
  port: number;
  /** Starts the server (again), waiting until it accepts connections. */
  start(): Promise<void>;
  /** Stops it: `fast` ends every session cleanly, `immediate` drops them as a crash would. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Copies a schema, tables and data, under another name (a deployment seeded once, served twice). */
  cloneSchema(from: string, to: string): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

/** Whether a private server can be made here (the binaries are installed). */
export function privatePostgresAvailable(): boolean {
  return fs.existsSync(path.join(binDir(), 'initdb')) || fs.existsSync(path.join(binDir(), 'initdb.exe'));
}

/** Creates and starts a private server in a temp folder. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-private-pg-'));
  const dataDir = path.join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await run('chown', ['postgres:postgres', root]);
  // Root runs the server's tools as the `postgres` user.
  const tool = (name: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args]) : run(path.join(bin, name), args);
  const port = await freePort();
  await tool('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  // No fsync (a spec's data need not survive the machine), the socket in the spec's own folder.
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  let running = false;
  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await tool('pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(root, 'server.log'), '-w', '-t', '30', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      if (!running) return;
      await tool('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
      running = false;
    },
    async cloneSchema(from, to) {
      if (!/^[a-z_][a-z0-9_]*$/.test(from) || !/^[a-z_][a-z0-9_]*$/.test(to)) throw new TypeError('schema names: a-z, 0-9, _');
      const dump = path.join(root, `${from}.sql`);
      const connection = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
      await tool('pg_dump', [...connection, '-n', from, '--no-owner', '-f', dump, 'postgres']);
      // The schema's name, quoted or not, wherever the dump names it (never inside the data of these specs), and as
      // the start of a name its functions build from it (the log's notification channel, `<schema>_events`).
      const text = fs.readFileSync(dump, 'utf8').replace(new RegExp(`(?<![A-Za-z0-9_])${from}(?![A-Za-z0-9])`, 'g'), to);
      fs.writeFileSync(dump, text);
      await tool('psql', [...connection, '-q', '-v', 'ON_ERROR_STOP=1', '-f', dump, 'postgres']);
      fs.rmSync(dump, { force: true });
    },
    async remove() {
      await server.stop('immediate').catch(() => {});
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return server;
}
