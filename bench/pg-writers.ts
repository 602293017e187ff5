/**
 * The single writer (`pg-writers` step): every append of every house takes the one advisory lock of the log
 * (src/adapters/postgres/pg-event-log.ts), which orders positions in commit order. 1, 4 and 16 writer processes,
 * each with WRITER_CALLERS callers appending one event at a time to streams of houses of its own, for a few
 * seconds, directly and through the latency proxy: appends/s over all, and the lock's wait, sampled in pg_locks
 * (sessions waiting for it, on average; by Little's law the wait a transaction = waiting ÷ transactions/s).
 *
 * As a process: `tsx bench/pg-writers.ts` with WRITER_URL, WRITER_SCHEMA, WRITER_HOUSES (a,b,...), WRITER_SECONDS
 * appends and prints one JSON line {"appends":n,"failed":n}.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { PgEventLog } from '../src/adapters/postgres/pg-event-log.ts';
import type { ExpectedRevision } from '../src/ports/event-log.ts';
import { targetOf, throughProxy } from './latency-proxy.ts';
import { dropSchemas } from './postgres.ts';
import { BENCH_DIR, lastJsonLine, say, sleep, startProcess, stopProcess, type Proc } from './processes.ts';
import { fmt } from './stats.ts';

/** Callers a writer process: as many requests at once as an `api` process appends for under load. */
export const WRITER_CALLERS = 16;
/** Houses a writer process appends for. */
const HOUSES_A_WRITER = 4;

export interface WritersRow {
  processes: number;
  rttMs: number;
  appendsPerSecond: number;
  /** Sessions waiting for the advisory lock, on average over the samples. */
  waitingSessions: number;
  /** Samples in which someone waited for the lock. */
  contended: number;
  failed: number;
}

async function writerMain(): Promise<void> {
  const url = process.env.WRITER_URL!;
  const schema = process.env.WRITER_SCHEMA!;
  const houses = (process.env.WRITER_HOUSES ?? 'h').split(',');
  const seconds = Number(process.env.WRITER_SECONDS ?? 5);
  const log = await PgEventLog.open(url, { schema, pollMs: 60_000 });
  // Every writer starts together: once all are ready, the bench makes the go file.
  process.stdout.write('ready\n');
  while (!fs.existsSync(process.env.WRITER_GO_FILE!)) await sleep(5);
  let appends = 0;
  let failed = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: WRITER_CALLERS }, async (_, c) => {
      const tenant = houses[c % houses.length];
      const streamId = `bench-writer-${tenant}-${process.pid}-${c}`;
      let expected: ExpectedRevision = 'no_stream';
      while (performance.now() < until) {
        try {
          const r = await log.appendToStream(streamId, [{ type: 'BenchAppended', version: 1, data: { c }, metadata: { tenant } }], {
            expectedRevision: expected,
          });
          expected = r.nextExpectedRevision;
          appends++;
        } catch {
          failed++;
          expected = 'any';
        }
      }
    }),
  );
  await log.close();
  process.stdout.write(`${JSON.stringify({ appends, failed })}\n`);
}

/** Samples pg_locks every 10 ms while `running`: sessions waiting for an advisory lock, on average, and how often any. */
async function sampleLockWaits(url: string, running: () => boolean): Promise<{ waiting: number; contended: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let samples = 0;
  let waiting = 0;
  let contended = 0;
  try {
    while (running()) {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
      samples++;
      waiting += rows[0].n;
      if (rows[0].n > 0) contended++;
      await sleep(10);
    }
  } finally {
    await client.end();
  }
  return { waiting: samples ? waiting / samples : 0, contended: samples ? contended / samples : 0 };
}

/** One run: `processes` writers on `url` (directly or through a proxy) for `seconds`. */
async function writersRun(
  url: string,
  sampleUrl: string,
  schema: string,
  processes: number,
  seconds: number,
): Promise<Omit<WritersRow, 'rttMs'>> {
  const procs: Proc[] = [];
  const go = path.join(BENCH_DIR, `writers-go-${processes}-${Date.now()}`);
  for (let p = 0; p < processes; p++) {
    const houses = Array.from({ length: HOUSES_A_WRITER }, (_, h) => `house-${p * HOUSES_A_WRITER + h}`).join(',');
    procs.push(
      startProcess(`pg-writer-${p}`, 'bench/pg-writers.ts', {
        ...process.env,
        WRITER_MAIN: '1',
        WRITER_URL: url,
        WRITER_SCHEMA: schema,
        WRITER_HOUSES: houses,
        WRITER_SECONDS: String(seconds),
        WRITER_GO_FILE: go,
      }),
    );
  }
  const isReady = (p: Proc) => fs.readFileSync(p.logFile, 'utf8').includes('ready\n');
  while (!procs.every(isReady)) {
    if (procs.some((p) => p.child.exitCode !== null)) throw new Error('a writer ended before it was ready');
    await sleep(50);
  }
  fs.writeFileSync(go, '');
  let done = false;
  const sampling = sampleLockWaits(sampleUrl, () => !done);
  const codes = await Promise.all(procs.map((p) => p.exited));
  done = true;
  fs.rmSync(go, { force: true });
  const waits = await sampling;
  let appends = 0;
  let failed = 0;
  for (const [i, p] of procs.entries()) {
    const out = lastJsonLine(fs.readFileSync(p.logFile, 'utf8')) as { appends?: number; failed?: number };
    if (codes[i] !== 0 || out.appends === undefined) throw new Error(`writer ${p.name} failed (${codes[i]}); see ${p.logFile}`);
    appends += out.appends;
    failed += out.failed ?? 0;
  }
  return { processes, appendsPerSecond: appends / seconds, waitingSessions: waits.waiting, contended: waits.contended, failed };
}

/** The step: 1, 4 and 16 writers, directly and through the proxy at each round-trip time; the schema dropped after. */
export async function pgWritersStep(url: string, rttsMs: number[], seconds: number): Promise<WritersRow[]> {
  const schema = `bench_writers_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const rows: WritersRow[] = [];
  await (await PgEventLog.open(url, { schema })).close();
  let proxy: Proc | null = null;
  try {
    for (const rtt of [0, ...rttsMs]) {
      let target = url;
      if (rtt > 0) {
        proxy = startProcess(`latency-proxy-writers-${rtt}`, 'bench/latency-proxy.ts', {
          ...process.env,
          ONE_WAY_MS: String(rtt / 2),
          TARGETS: `${targetOf(url).host}:${targetOf(url).port}`,
        });
        let line = '';
        for (let tries = 0; tries < 300 && !line.startsWith('{'); tries++, await sleep(100))
          line = fs.readFileSync(proxy.logFile, 'utf8').split('\n')[0];
        target = throughProxy(url, (JSON.parse(line) as { ports: number[] }).ports[0]);
      }
      for (const processes of [1, 4, 16]) {
        const row = { ...(await writersRun(target, url, schema, processes, seconds)), rttMs: rtt };
        say(
          `  writers: ${processes} process(es) × ${WRITER_CALLERS} callers, RTT ${rtt} ms: ${fmt(row.appendsPerSecond)} appends/s, ` +
            `${row.waitingSessions.toFixed(2)} sessions waiting for the lock on average, someone waiting in ${(row.contended * 100).toFixed(0)}% of samples, ${row.failed} failed`,
        );
        rows.push(row);
      }
      if (proxy) await stopProcess(proxy);
      proxy = null;
    }
    return rows;
  } finally {
    if (proxy) await stopProcess(proxy);
    await dropSchemas(url, [schema]).catch(() => {});
    say(`  schema ${schema} dropped; writer logs in ${BENCH_DIR}`);
  }
}

export function pgWritersReport(rows: WritersRow[]): string[] {
  const header = `${'writers'.padEnd(10)}${'RTT'.padStart(8)}${'appends/s'.padStart(12)}${'waiting'.padStart(10)}${'contended'.padStart(11)}${'failed'.padStart(8)}`;
  const lines = [
    '',
    `The single writer: writer processes × ${WRITER_CALLERS} callers, ${HOUSES_A_WRITER} houses each:`,
    header,
    '-'.repeat(header.length),
  ];
  for (const r of rows)
    lines.push(
      `${String(r.processes).padEnd(10)}${`${r.rttMs} ms`.padStart(8)}${fmt(r.appendsPerSecond).padStart(12)}${r.waitingSessions.toFixed(2).padStart(10)}` +
        `${`${(r.contended * 100).toFixed(0)}%`.padStart(11)}${String(r.failed).padStart(8)}`,
    );
  return lines;
}

if (process.env.WRITER_MAIN === '1') await writerMain();
