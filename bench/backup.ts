/**
 * How long `npm run backup` takes on a 1M-event log and how much it slows writes meanwhile:
 * `npx tsx bench/backup.ts [events]`. The log (.bench/backup/data, made once) holds generated events of the
 * bench's sizes; appends from 32 callers run in this process throughout, the backup in its own process (as an
 * operator runs it). Prints appends/s before, during and after the backup, and the backup's time and size.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { SqliteEventLog } from '../src/adapters/embedded/sqlite-event-log.ts';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const dir = path.resolve('.bench/backup');
const dataDir = path.join(dir, 'data');
const file = path.join(dataDir, 'events.sqlite');

/** A log of `EVENTS` events shaped like the bench's (a lot's catalogue record, its bids), written in bulk once. */
async function makeLog(): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true });
  const log = new SqliteEventLog(file);
  await log.close();
  const db = new Database(file);
  const have = (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
  if (have < EVENTS) {
    const insert = db.prepare(
      'INSERT INTO events (stream_id, revision, type, version, data, metadata, created) VALUES (?, ?, ?, 1, ?, \'{"tenant":"demo"}\', ?)',
    );
    const text = 'An oak chair with a carved back and turned legs, Sweden, about 1780. '.repeat(4);
    const write = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const lot = Math.floor(i / 10);
        const catalogue = i % 10 === 0;
        const data = catalogue
          ? { tenant: 'demo', lotId: lot, texts: { en: { title: `Lot ${lot}`, description: text } } }
          : { tenant: 'demo', lotId: lot, amount: 100 * (i % 10) };
        insert.run(
          `lot-demo-${lot}`,
          i % 10,
          catalogue ? 'LotCatalogued' : 'BidPlaced',
          JSON.stringify(data),
          new Date(1_700_000_000_000 + i).toISOString(),
        );
      }
    });
    for (let from = have; from < EVENTS; from += 50_000) write(from, Math.min(EVENTS, from + 50_000));
  }
  db.close();
}

function backup(dest: string): Promise<{ code: number | null; seconds: number; out: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'app/cli/backup.ts', dest], {
      env: { ...process.env, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => resolve({ code, seconds: (Date.now() - started) / 1000, out }));
  });
}

async function main() {
  const made = Date.now();
  await makeLog();
  console.log(`log: ${fs.statSync(file).size} bytes, ready in ${((Date.now() - made) / 1000).toFixed(1)} s`);
  const log = new SqliteEventLog(file);
  let appended = 0;
  let running = true;
  // The longest wait between two appends while the backup runs (writes blocked by it would show here).
  let last = 0;
  let longestStallMs = 0;
  const callers = Array.from({ length: 32 }, async (_, caller) => {
    for (let n = 0; running; n++) {
      const event = {
        type: 'LotWatched',
        version: 1,
        data: { tenant: 'demo', lotId: n, memberId: caller + 1 },
        metadata: { tenant: 'demo' },
      };
      await log.appendToStream(`bench-writer-${made}-${caller}-${n}`, [event], { expectedRevision: 'no_stream' });
      appended++;
      const now = performance.now();
      if (last > 0) longestStallMs = Math.max(longestStallMs, now - last);
      last = now;
    }
  });
  const rate = async (ms: number) => {
    const from = appended;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return ((appended - from) * 1000) / ms;
  };
  const before = await rate(5000);
  const dest = path.join(dir, `taken-${Date.now()}`);
  const from = appended;
  const startedAt = Date.now();
  longestStallMs = 0;
  const taken = await backup(dest);
  const stall = longestStallMs;
  const during = ((appended - from) * 1000) / (Date.now() - startedAt);
  const after = await rate(5000);
  running = false;
  await Promise.all(callers);
  await log.close();
  // The next run starts from the same log.
  const db = new Database(file);
  db.prepare("DELETE FROM events WHERE stream_id LIKE 'bench-writer-%'").run();
  db.close();
  const summary = JSON.parse(taken.out.trim().split('\n').at(-1) ?? '{}');
  fs.rmSync(dest, { recursive: true, force: true });
  console.log(
    JSON.stringify({
      events: summary.events,
      bytes: summary.bytes,
      backupSeconds: taken.seconds,
      appendsPerSecond: { before: Math.round(before), during: Math.round(during), after: Math.round(after) },
      duringOverBefore: Number((during / before).toFixed(2)),
      longestStallMs: Math.round(stall),
      exit: taken.code,
    }),
  );
}

void main();
