/** The step `analysts`: the analysts' tools on the 1M-event dataset (bench/analysts.ts), their report, and `analysts` in bench/results.json. */
import fs from 'node:fs';
import os from 'node:os';
import { analysts, analystsReport, type AnalystsResult } from '../analysts.ts';
import { ensureDataset } from '../dataset.ts';
import { opts, shownOptions } from '../options.ts';
import { RESULTS } from '../report/results-file.ts';
import { fmt } from '../stats.ts';
import { millionDataset } from './million.ts';

/** `results`: the run's bench/results.json, which `analysts` is added to; null when the step runs alone. */
export async function analystsStep(results: Record<string, unknown> | null) {
  const big = millionDataset();
  await ensureDataset(big, opts.fresh && results === null);
  const result: AnalystsResult = await analysts(big, opts.rounds);
  const report = analystsReport(result);
  const lines = [
    '',
    `analysts' tools · ${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} CPUs · ${fmt(result.head)} events · ${opts.rounds} rounds interleaved`,
    "medians of the rounds (min–max); the tools' own seconds; CPU and peak RSS (VmHWM) of the process, worker threads included",
    `load average (1 min) at the end: ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} CPUs (another workload on the machine shows here)`,
    ...report.lines,
    '',
    'targets',
    ...report.targets.map((t) => `  ${t.pass ? 'PASS' : 'MISS'}  ${t.target.padEnd(76)}${t.value}`),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const machine = { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemBytes: os.totalmem() };
  const merged = results ?? { finishedAt: new Date().toISOString(), machine, options: shownOptions() };
  fs.writeFileSync(RESULTS, JSON.stringify({ ...merged, analysts: { ...result, targets: report.targets } }, null, 2) + '\n');
}
