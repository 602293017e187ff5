/**
 * How fast can Express send the lot page's bytes? Compares the ways bench/ceiling-server.ts can send them
 * (VARIANT lean, send-noetag, send, json), each in its own process, rounds interleaved, 50 connections on
 * 127.0.0.1, and optionally with the service running idle beside them (as in `npm run bench`, where the
 * service is up while its ceilings are measured). Prints medians with min–max. Bounded; stops by itself.
 *
 *   npx tsx bench/ceilings.ts [--rounds 3] [--duration 10] [--with-service] [--variants lean,send]
 *
 * Needs .bench/lot-page.json and, with --with-service, .bench/data (both made by `npm run bench`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const rounds = Number(option('rounds', '3'));
const duration = Number(option('duration', '10'));
const variants = option('variants', 'lean,send-noetag,send,json').split(',');
const withService = process.argv.includes('--with-service');
const BODY_FILE = path.join(ROOT, '.bench', 'lot-page.json');
if (!fs.existsSync(BODY_FILE)) throw new Error('run `npm run bench` once first: it stores .bench/lot-page.json');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

function start(script: string, env: Record<string, string>, flags: string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

async function until200(url: string) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not up yet
    }
    await sleep(100);
  }
  throw new Error(`${url} never answered 200`);
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function main() {
  let service: ChildProcess | null = null;
  if (withService) {
    service = start(
      'app/main.ts',
      {
        DATA_DIR: path.join(ROOT, '.bench', 'data'),
        // One process, as the bench's loads (API_PROCESSES above 1 would make it a cluster).
        API_PROCESSES: '1',
        PORT: '3110',
        HOST: '127.0.0.1',
        SEED_DEMO: 'false',
        LOG_LEVEL: 'info',
        DEMO_API_KEY: 'bench-api-key-0123456789',
        DEMO_MEMBER_PASSWORD: 'bench-password-123',
      },
      ['--max-old-space-size=1024'],
    );
    await until200('http://127.0.0.1:3110/readyz');
  }
  const results = new Map<string, number[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const variant of variants) {
      const server = start('bench/ceiling-server.ts', { PORT: '3111', VARIANT: variant, BODY_FILE });
      await until200('http://127.0.0.1:3111/stored');
      const r = await autocannon({
        url: 'http://127.0.0.1:3111/stored',
        connections: 50,
        duration,
        warmup: { connections: 50, duration: 2 },
      });
      await stop(server);
      process.stderr.write(`round ${round} ${variant}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms\n`);
      results.set(variant, [...(results.get(variant) ?? []), r.requests.average]);
    }
  }
  if (service) await stop(service);
  process.stdout.write(
    `Express sending the stored lot page (${fs.statSync(BODY_FILE).size} bytes), 50 connections, ${rounds} rounds of ${duration} s${withService ? ', the service idle beside' : ''}\n`,
  );
  for (const [variant, rps] of results)
    process.stdout.write(
      `  ${variant.padEnd(12)} median ${Math.round(median(rps))} req/s (min ${Math.round(Math.min(...rps))}, max ${Math.round(Math.max(...rps))})\n`,
    );
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
