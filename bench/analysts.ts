/**
 * The analysts' tools on the 1M-event dataset (BACKOFFICE.md "The analysts' tools"): `npm run project`
 * replaying projections of three event types from position 0, and `npm run export -- events` in each format.
 * Two replays, because which three types matters more than anything: examples/projections/bids-per-category-
 * per-day.ts reads nearly every event of this log (its bids and lots), bench/lots-per-category.ts a tenth of
 * it (the log's type filter skips the bids).
 *
 * Each run gets a DATA_DIR of its own whose events.sqlite is a link to the dataset's log (read models of its
 * own, so every replay starts from nothing and the dataset stays as it is). Speeds are the tools' own seconds
 * (their summary line, process start excluded): replay = the log's head ÷ seconds (as the rebuilds are
 * measured), export = rows written ÷ seconds. Peak memory is the process's VmHWM (worker threads included),
 * sampled every 50 ms. Memory flat as the log grows: the same runs up to half the log (--to) beside the whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { headPosition, type Dataset } from './dataset.ts';
import Database from 'better-sqlite3';
import { cpuSecondsOf, lastJsonLine, memoryOf, say, spawnTs } from './processes.ts';
import { fmt, showSpread, spread, type Spread } from './stats.ts';

/** The replayed projections and the three types each handles. */
const REPLAYS = [
  {
    name: 'replay bids per category',
    file: 'examples/projections/bids-per-category-per-day.ts',
    types: ['CategoryCatalogued', 'LotCatalogued', 'BidPlaced'],
  },
  {
    name: 'replay lots per category',
    file: 'bench/lots-per-category.ts',
    types: ['AuctionCatalogued', 'CategoryCatalogued', 'LotCatalogued'],
  },
];

export const ANALYSTS_TARGETS = { replayEventsPerSecond: 200_000, exportEventsPerSecond: 100_000 };

export interface ToolRun {
  /** What was run: `replay <projection>`, or `export <format>` (`, one thread` without worker threads). */
  name: string;
  /** Up to this position (the head, or half of it). */
  to: number;
  /** Events the tool went through: the log's events up to `to` (replay), the rows written (export). */
  events: number;
  seconds: number;
  eventsPerSecond: number;
  peakRssBytes: number;
  /** CPU time of the process, every thread (sampled until it exits: a few ms may be missing). */
  cpuSeconds: number;
  processSeconds: number;
}

export interface AnalystsResult {
  head: number;
  /** Per replay: the events of its three types in the log. */
  handledEvents: Record<string, number>;
  rounds: ToolRun[][];
  half: ToolRun[];
}

/** A DATA_DIR of its own over the dataset's log. */
function scratchDataDir(dataset: Dataset): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-analysts-'));
  fs.symlinkSync(path.join(dataset.dataDir, 'events.sqlite'), path.join(dir, 'events.sqlite'));
  return dir;
}

/** Runs a CLI to its end, sampling its peak memory (VmHWM) every 50 ms. */
function measured(script: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; seconds: number; peak: number; cpu: number }>(
    (resolve, reject) => {
      const started = process.hrtime.bigint();
      const child = spawnTs(script, args, env, ['ignore', 'pipe', 'pipe']);
      let peak = 0;
      let cpu = 0;
      // (A process that has exited but is not yet reaped has no VmHWM: those samples are NaN and skipped.)
      const sample = setInterval(() => {
        const hwm = memoryOf(child.pid!)?.vmHwmBytes ?? NaN;
        if (Number.isFinite(hwm)) peak = Math.max(peak, hwm);
        const used = cpuSecondsOf(child.pid!);
        if (Number.isFinite(used)) cpu = Math.max(cpu, used);
      }, 50);
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-100_000)));
      child.on('error', reject);
      child.on('close', (code) => {
        clearInterval(sample);
        resolve({ code, stdout, stderr, peak, cpu, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      });
    },
  );
}

async function replay(dataset: Dataset, which: (typeof REPLAYS)[number], to: number | null): Promise<ToolRun> {
  const dir = scratchDataDir(dataset);
  try {
    const r = await measured('app/cli/project.ts', [which.file, ...(to === null ? [] : ['--to', String(to)])], {
      ...process.env,
      DATA_DIR: dir,
      LOG_LEVEL: 'warn',
    });
    if (r.code !== 0) throw new Error(`project failed (${r.code}): ${r.stderr.slice(-2000)}`);
    const out = lastJsonLine(r.stdout) as { position: number; seconds: number };
    return {
      name: which.name,
      to: out.position,
      events: out.position,
      seconds: out.seconds,
      eventsPerSecond: out.position / out.seconds,
      peakRssBytes: r.peak,
      cpuSeconds: r.cpu,
      processSeconds: r.seconds,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function exportEvents(dataset: Dataset, format: string, to: number | null, oneThread = false): Promise<ToolRun> {
  const dir = scratchDataDir(dataset);
  try {
    const out = path.join(dir, `events.${format}`);
    const r = await measured(
      'app/cli/export.ts',
      ['events', '--format', format, '--out', out, ...(to === null ? [] : ['--to', String(to)])],
      {
        ...process.env,
        DATA_DIR: dir,
        LOG_LEVEL: 'warn',
        ...(oneThread ? { EXPORT_WORKERS: '0' } : {}),
      },
    );
    if (r.code !== 0) throw new Error(`export ${format} failed (${r.code}): ${r.stderr.slice(-2000)}`);
    const summary = lastJsonLine(r.stdout) as { rows: number; seconds: number; bytes: number };
    return {
      name: `export ${format}${oneThread ? ', one thread' : ''}`,
      to: to ?? headPosition(dataset),
      events: summary.rows,
      seconds: summary.seconds,
      eventsPerSecond: summary.rows / summary.seconds,
      peakRssBytes: r.peak,
      cpuSeconds: r.cpu,
      processSeconds: r.seconds,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const show = (run: ToolRun) =>
  `${run.name.padEnd(26)} ${fmt(run.events).padStart(10)} events in ${run.seconds.toFixed(2)} s: ${fmt(run.eventsPerSecond).padStart(8)} events/s, CPU ${run.cpuSeconds.toFixed(1)} s, peak RSS ${fmt(run.peakRssBytes / 1048576)} MiB`;

/** `rounds` rounds of a replay and the exports (each format with worker threads, NDJSON in one thread too), then the same at half the log. */
export async function analysts(dataset: Dataset, rounds: number): Promise<AnalystsResult> {
  const head = headPosition(dataset);
  const half = Math.floor(head / 2);
  const results: AnalystsResult = {
    head,
    handledEvents: Object.fromEntries(REPLAYS.map((r) => [r.name, handledEvents(dataset, r.types)])),
    rounds: [],
    half: [],
  };
  for (let round = 1; round <= rounds; round++) {
    say(`analysts (round ${round}): replay and exports of ${fmt(head)} events`);
    const runs = [
      await replay(dataset, REPLAYS[0], null),
      await replay(dataset, REPLAYS[1], null),
      await exportEvents(dataset, 'ndjson', null),
      await exportEvents(dataset, 'csv', null),
      await exportEvents(dataset, 'parquet', null),
      await exportEvents(dataset, 'ndjson', null, true),
    ];
    for (const run of runs) say(`  ${show(run)}`);
    results.rounds.push(runs);
  }
  say(`analysts: the same up to half the log (position ${fmt(half)}), for memory`);
  results.half = [
    await replay(dataset, REPLAYS[0], half),
    await exportEvents(dataset, 'ndjson', half),
    await exportEvents(dataset, 'parquet', half),
  ];
  for (const run of results.half) say(`  ${show(run)}`);
  return results;
}

/** The events of a projection's types (a replay reads only those: EventLog.readTypes). */
function handledEvents(dataset: Dataset, types: string[]): number {
  const db = new Database(path.join(dataset.dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare('SELECT count(*) AS n FROM events WHERE type IN (SELECT value FROM json_each(?))').get(JSON.stringify(types)) as {
        n: number;
      }
    ).n;
  } finally {
    db.close();
  }
}

/** The report's lines and targets. */
export function analystsReport(result: AnalystsResult) {
  const names = result.rounds[0]?.map((r) => r.name) ?? [];
  const of = (name: string) => result.rounds.map((runs) => runs.find((r) => r.name === name)!);
  const lines: string[] = [];
  const targets: Array<{ target: string; value: string; pass: boolean }> = [];
  const rate = (name: string): Spread => spread(of(name).map((r) => r.eventsPerSecond));
  for (const name of names) {
    const runs = of(name);
    const halfRun = result.half.find((r) => r.name === name);
    lines.push(
      `${name.padEnd(26)}${showSpread(rate(name)).padStart(30)} events/s  ${showSpread(spread(runs.map((r) => r.seconds)), 2, ' s').padStart(22)}` +
        `  CPU ${showSpread(spread(runs.map((r) => r.cpuSeconds)), 1, ' s')}  peak RSS ${showSpread(spread(runs.map((r) => r.peakRssBytes / 1048576)), 0, ' MiB')}` +
        (halfRun ? ` (at half the log: ${fmt(halfRun.peakRssBytes / 1048576)} MiB)` : ''),
    );
  }
  for (const { name } of REPLAYS) {
    const s = rate(name);
    const share = result.handledEvents[name] / result.head;
    targets.push({
      target: `${name} (3 types, ${fmt(share * 100)} % of the log) ≥ ${fmt(ANALYSTS_TARGETS.replayEventsPerSecond)} events/s`,
      value: `${showSpread(s)} events/s`,
      pass: s.median >= ANALYSTS_TARGETS.replayEventsPerSecond,
    });
  }
  for (const name of names.filter((n) => n.startsWith('export') && !n.endsWith('one thread'))) {
    const s = rate(name);
    targets.push({
      target: `${name} ≥ ${fmt(ANALYSTS_TARGETS.exportEventsPerSecond)} events/s`,
      value: `${showSpread(s)} events/s`,
      pass: s.median >= ANALYSTS_TARGETS.exportEventsPerSecond,
    });
  }
  return { lines, targets };
}
