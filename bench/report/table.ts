/** The bench's printed report: the loads' table, the other steps' figures, then the targets (PASS or MISS). */
import os from 'node:os';
import path from 'node:path';
import { formatProfile } from '../cpuprofile.ts';
import { mixComposition, showComposition } from '../distinct-queries.ts';
import { LOAD_NAMES, type LoadKind } from '../load-names.ts';
import type { LoadResult } from '../loads.ts';
import { MIXED_CONNECTIONS, MIXED_NAMES, type MixedKind } from '../mixed.ts';
import { opts } from '../options.ts';
import { postgresReport } from '../postgres.ts';
import { elapsedSeconds, ROOT, type Memory } from '../processes.ts';
import type { RunResults } from '../run-results.ts';
import { showHeap } from '../show-heap.ts';
import { fmt, median, showSpread, spread } from '../stats.ts';
import { RESULTS } from './results-file.ts';
import { allLoadsOf, rebuildSpread, type TargetLine } from './targets.ts';

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const header = `${pad('load', 44)}${lpad('req/s', 24)}${lpad('p50 ms', 8)}${lpad('p99 ms', 16)}${lpad('CPU µs', 8)}${lpad('non-2xx+err', 13)}`;
const perRound = (xs: LoadResult[], of: LoadResult[]) => xs.map((l, i) => (l.rps / (of[i]?.rps ?? NaN)).toFixed(2)).join(', ');
const mb = (m: Memory) => fmt(m.vmHwmBytes / 1048576);

/** The lines of the report, a load a row and a figure a key and value, appended section by section. */
class Lines {
  readonly lines: string[] = [];
  push(...lines: string[]) {
    this.lines.push(...lines);
  }
  kv(k: string, v: string) {
    this.lines.push(`${pad(k, 45)} ${v}`);
  }
  row(name: string, results: LoadResult[], cpu = median(results.map((l) => l.cpuMicrosPerRequest))) {
    this.lines.push(
      `${pad(name, 44)}${lpad(showSpread(spread(results.map((l) => l.rps))), 24)}${lpad(fmt(median(results.map((l) => l.p50))), 8)}` +
        `${lpad(showSpread(spread(results.map((l) => l.p99))), 16)}${lpad(fmt(cpu), 8)}${lpad(String(results.reduce((s, l) => s + l.non2xx + l.errors, 0)), 13)}`,
    );
  }
}

export function reportText(run: RunResults, targets: TargetLine[]): string {
  const out = new Lines();
  loadTables(run, out);
  mixedTable(run, out);
  if (run.postgres.postgres) out.push(...postgresReport(run.postgres.postgres));
  out.push('');
  ratioLines(run, out);
  allCoresLines(run, out);
  heapAndDatasetLines(run, out);
  stoppedServiceLines(run, out);
  millionLines(run, out);
  accountsLines(run, out);
  printsLines(run, out);
  closingLines(run, targets, out);
  return out.lines.join('\n') + '\n';
}

function loadTables({ first, single: { loads }, allCoresResult: a }: RunResults, out: Lines) {
  out.push(
    '',
    `bench ${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} CPUs · ${fmt(first.info.lots)} lots, ${fmt(first.events)} events · ` +
      `${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s measured, ${opts.rounds} rounds interleaved · LOG_LEVEL=${opts.logLevel}${opts.profile ? ' · PROFILED (slower)' : ''}`,
    '',
    `Loads: medians of the rounds (min–max), the service with API_PROCESSES=${opts.apiProcesses}. CPU: the answering process's CPU time per request.`,
  );
  out.push(header, '-'.repeat(header.length));
  for (const kind of Object.keys(loads) as LoadKind[]) if (loads[kind].length) out.row(LOAD_NAMES[kind], loads[kind]);
  if (a) {
    out.push(
      '',
      `All cores: the service again with API_PROCESSES=auto (${a.allAnswering.processes} node processes, ${a.allAnswering.answering} answering on the port); ` +
        'CPU: all its processes per request',
      header,
      '-'.repeat(header.length),
    );
    if (a.loads.ceiling.length) out.row('ceiling: the same, beside the cluster', a.loads.ceiling);
    for (const kind of ['lots', 'distinct', 'watch'] as const) if (a.loads[kind].length) out.row(LOAD_NAMES[kind], a.loads[kind]);
  }
}

function mixedTable({ single, allCoresResult }: RunResults, out: Lines) {
  const mixedRuns = [
    ['1', single.mixedSingle],
    ['auto', allCoresResult?.mixed ?? []],
  ] as const;
  if (!mixedRuns.some(([, m]) => m.length)) return;
  out.push(
    '',
    `Mixed load ("sale day"): lot pages at ${MIXED_CONNECTIONS.lots} connections, watchlist PUTs at ${MIXED_CONNECTIONS.watch}, ` +
      `distinct searches at ${MIXED_CONNECTIONS.distinct}, all at once; one process: API_PROCESSES=1, all cores: API_PROCESSES=auto; ` +
      "CPU: the service's (all its processes) per request of any kind",
    header,
    '-'.repeat(header.length),
  );
  for (const [apiProcesses, mixed] of mixedRuns) {
    if (!mixed.length) continue;
    for (const kind of Object.keys(MIXED_CONNECTIONS) as MixedKind[])
      out.row(
        `${apiProcesses === '1' ? 'one process' : 'all cores'}: ${MIXED_NAMES[kind]} (${MIXED_CONNECTIONS[kind]} conns)`,
        mixed.map((m) => m.kinds[kind]),
        NaN,
      );
    out.push(
      `${pad(`${apiProcesses === '1' ? 'one process' : 'all cores'}: all kinds together`, 44)}${lpad(showSpread(spread(mixed.map((m) => m.total / opts.duration))), 24)}` +
        `${lpad('', 24)}${lpad(fmt(median(mixed.map((m) => m.cpuMicrosPerRequest))), 8)}`,
    );
  }
}

function ratioLines({ single: { loads, distinct, distinctTypos } }: RunResults, out: Lines) {
  if (loads.lots.length && loads.ceiling.length)
    out.kv('lot page ÷ ceiling, per round', loads.lots.map((l, i) => (l.rps / loads.ceiling[i].rps).toFixed(2)).join(', '));
  if (loads.lotsGzip.length)
    out.kv(
      'gzip lot page ÷ gzip ceiling, per round',
      loads.lotsGzip.map((l, i) => (l.rps / loads.ceilingGzip[i].rps).toFixed(2)).join(', '),
    );
  if (loads.search.length && loads.lots.length)
    out.kv('search ÷ lot page, per round', loads.search.map((l, i) => (l.rps / loads.lots[i].rps).toFixed(2)).join(', '));
  if (loads.distinct.length && loads.lots.length)
    out.kv('distinct search ÷ lot page, per round', loads.distinct.map((l, i) => (l.rps / loads.lots[i].rps).toFixed(2)).join(', '));
  if (loads.distinctTypos.length && loads.lots.length)
    out.kv(
      'distinct search, ⅓ typos ÷ lot page, per round',
      loads.distinctTypos.map((l, i) => (l.rps / loads.lots[i].rps).toFixed(2)).join(', '),
    );
  if (distinct.asked().length)
    out.kv('distinct search: the queries asked', `${fmt(distinct.asked().length)}: ${showComposition(mixComposition(distinct.asked()))}`);
  if (distinctTypos.asked().length)
    out.kv(
      'distinct search, ⅓ typos: the queries asked',
      `${fmt(distinctTypos.asked().length)}: ${showComposition(mixComposition(distinctTypos.asked()))}`,
    );
}

function allCoresLines({ allCoresResult: a, single: { loads } }: RunResults, out: Lines) {
  if (!a) return;
  if (a.loads.ceiling.length) out.kv('all cores: lot page ÷ ceiling, per round', perRound(a.loads.lots, a.loads.ceiling));
  if (a.loads.ceiling.length && loads.ceiling.length)
    out.kv('all cores: ceiling ÷ ceiling of the first start', perRound(a.loads.ceiling, loads.ceiling));
  for (const kind of ['lots', 'distinct', 'watch'] as const)
    if (a.loads[kind].length && loads[kind].length)
      out.kv(`all cores ÷ one process: ${MIXED_NAMES[kind]}`, perRound(a.loads[kind], loads[kind]));
  out.kv(
    'all cores: start',
    `${a.readySeconds.toFixed(2)} s spawn → /readyz 200; ${a.allAnswering.answering} of ${a.allAnswering.processes} node processes answering on the port after ` +
      `${a.allAnswering.seconds.toFixed(2)} s${a.allAnswering.complete ? '' : ' (not all within 60 s)'}; stopped in ${a.shutdownSeconds.toFixed(1)} s`,
  );
}

function heapAndDatasetLines({ first, heapAfterLoads, allCoresResult: a }: RunResults, out: Lines) {
  const { info, created } = first;
  out.kv(`heap used, API_PROCESSES=${opts.apiProcesses}: at ready`, showHeap(first.heapAtReady));
  out.kv(`heap used, API_PROCESSES=${opts.apiProcesses}: after the loads`, showHeap(heapAfterLoads));
  if (a) {
    out.kv('heap used, API_PROCESSES=auto: at ready', showHeap(a.heap.atReady));
    out.kv('heap used, API_PROCESSES=auto: after its loads', showHeap(a.heap.afterLoads));
  }
  if (info.generate)
    out.kv(
      `generate${created ? '' : ' (at dataset creation)'}`,
      `${info.generate.seconds.toFixed(1)} s, ${fmt(info.generate.bytes / 1048576)} MB NDJSON`,
    );
  if (info.import)
    out.kv(
      `import${created ? '' : ' (at dataset creation)'}`,
      `${info.import.seconds.toFixed(1)} s, ${fmt(info.import.records)} records → ${fmt(info.import.appended)} events (${fmt(info.import.recordsPerSecond)} records/s)`,
    );
  if (info.firstBuild)
    out.kv(
      `first build${created ? '' : ' (at dataset creation)'}`,
      `${info.firstBuild.seconds.toFixed(1)} s spawn → /readyz 200, ${fmt(info.firstBuild.eventsPerSecond)} events/s`,
    );
  if (!created) out.kv('service start on the reused dataset', `${(first.firstReadyMs / 1000).toFixed(2)} s spawn → /readyz 200`);
}

function stoppedServiceLines({ stopped: { indexRuns, rebuilds, restarts }, memory }: RunResults, out: Lines) {
  if (indexRuns.length) {
    out.kv(
      'the index alone, 2,000 distinct queries',
      `p50 ${showSpread(spread(indexRuns.map((r) => r.p50)), 2)} ms, p99 ${showSpread(spread(indexRuns.map((r) => r.p99)), 2)} ms, mean ${showSpread(spread(indexRuns.map((r) => r.mean)), 2)} ms`,
    );
    out.kv(
      '  its snapshot loaded in',
      `${showSpread(spread(indexRuns.map((r) => r.loadMs)))} ms (${fmt(indexRuns[0].documents)} documents)`,
    );
  }
  if (rebuilds.catalogue.length) {
    out.kv(
      'rebuild catalogue',
      `${showSpread(rebuildSpread(rebuilds.catalogue))} events/s (${showSpread(spread(rebuilds.catalogue.map((r) => r.seconds)), 2)} s for ${fmt(rebuilds.catalogue[0].position)} events)`,
    );
    out.kv(
      'rebuild lot-search',
      `${showSpread(rebuildSpread(rebuilds.lotSearch))} events/s (${showSpread(spread(rebuilds.lotSearch.map((r) => r.seconds)), 2)} s)`,
    );
  }
  if (restarts.length)
    out.kv(
      'restart',
      `${showSpread(spread(restarts.map((r) => r.readySeconds)), 2)} s spawn → /readyz 200; VmHWM at ready ${fmt(median(restarts.map((r) => r.memoryAtReady?.vmHwmBytes ?? NaN)) / 1048576)} MiB`,
    );
  if (memory) out.kv('service memory after the loads', `VmHWM ${mb(memory)} MiB, VmRSS ${fmt(memory.vmRssBytes / 1048576)} MiB`);
}

function millionLines({ millionResult: m }: RunResults, out: Lines) {
  if (!m) return;
  out.kv(`about 1M events: the dataset`, `${fmt(m.info.lots)} lots, ${fmt(m.events)} events`);
  if (m.info.firstBuild)
    out.kv('  first build', `${m.info.firstBuild.seconds.toFixed(1)} s (${fmt(m.info.firstBuild.eventsPerSecond)} events/s)`);
  out.kv(
    '  restart',
    `${showSpread(spread(m.restarts.map((r) => r.readySeconds)), 2)} s; VmHWM at ready ${fmt(median(m.restarts.map((r) => r.memoryAtReady?.vmHwmBytes ?? NaN)) / 1048576)} MiB`,
  );
  if (m.lots) out.kv('  lot page (1 round)', `${fmt(m.lots.rps)} req/s, p99 ${m.lots.p99} ms`);
  if (m.search) out.kv('  distinct search (1 round)', `${fmt(m.search.rps)} req/s, p99 ${m.search.p99} ms`);
  if (m.afterLoads)
    out.kv('  memory after those loads', `VmHWM ${mb(m.afterLoads)} MiB, VmRSS ${fmt(m.afterLoads.vmRssBytes / 1048576)} MiB`);
}

function accountsLines({ accountFlows }: RunResults, out: Lines) {
  if (!accountFlows) return;
  out.kv(
    "scrypt (N=2^17), the service's own",
    `${fmt(accountFlows.scrypt.sequentialMedianMs)} ms a hash; ${fmt(accountFlows.scrypt.parallel4PerSecond, 1)} hashes/s for 8 asked at once`,
  );
  out.kv(
    'sign-up + confirm + sign-in flows, 4 at once',
    `${fmt(accountFlows.flows.perSecond, 1)} flows/s, median ${fmt(accountFlows.flows.medianMs)} ms, p90 ${fmt(accountFlows.flows.p90Ms)} ms (${accountFlows.flows.completed} done, ${accountFlows.flows.failed} failed)`,
  );
  out.kv(
    'lot page, 10 conns: alone / during flows',
    `${fmt(accountFlows.lotPageAlone.rps)} req/s p99 ${accountFlows.lotPageAlone.p99} ms / ${fmt(accountFlows.lotPageDuringFlows.rps)} req/s p99 ${accountFlows.lotPageDuringFlows.p99} ms`,
  );
}

function printsLines({ printed, single: { loads, watchlistSize } }: RunResults, out: Lines) {
  if (printed) {
    out.kv(
      `catalogue PDF, ${fmt(printed.auctionLots)} lots, first request`,
      `${fmt(printed.pdfFirst.ms)} ms, ${fmt(printed.pdfFirst.bytes / 1024)} KB`,
    );
    out.kv(
      'catalogue PDF, 50 concurrent first requests',
      `${fmt(printed.pdfConcurrentFirst.msAll)} ms until the last answer, ${printed.pdfConcurrentFirst.distinctBodies} distinct bodies`,
    );
    out.kv(
      'catalogue PDF, repeated request',
      `median ${fmt(printed.pdfRepeated.medianMs, 1)} ms (min ${fmt(printed.pdfRepeated.minMs, 1)}, max ${fmt(printed.pdfRepeated.maxMs, 1)}, ${printed.pdfRepeated.requests} requests)`,
    );
    out.kv(
      'spreadsheet export (.xlsx)',
      `median ${fmt(printed.export.medianMs)} ms (min ${fmt(printed.export.minMs)}, max ${fmt(printed.export.maxMs)}), ${fmt(printed.export.bytes / 1024)} KB`,
    );
    const memoryText = (m: Memory | null) => (m ? `VmRSS ${fmt(m.vmRssBytes / 1048576)} MiB, VmHWM ${mb(m)} MiB` : '-');
    out.kv('service memory before / after the prints', `${memoryText(printed.memoryBefore)} / ${memoryText(printed.memoryAfter)}`);
  }
  // The watchlist's line closes this group as it always has, after the prints.
  if (loads.watch.length)
    out.kv(
      'watchlist load',
      `${fmt(loads.watch.reduce((s, l) => s + l.total, 0))} PUTs (+ warm-ups) by one member; watchlist holds ${watchlistSize ?? '?'} lots`,
    );
}

function closingLines(run: RunResults, targets: TargetLine[], out: Lines) {
  out.push('', 'targets');
  for (const t of targets) out.push(`  ${t.pass ? 'PASS' : 'MISS'}  ${pad(t.target, 63)} ${t.value}`);
  const nonOk = allLoadsOf(run).filter((l) => l.non2xx + l.errors > 0);
  if (nonOk.length) {
    out.push('');
    for (const l of nonOk)
      out.push(
        `  non-2xx/errors in ${l.name} round ${l.round}: status codes ${JSON.stringify(l.statusCodes)}, errors ${l.errors} (of which timeouts after 10 s: ${l.timeouts})`,
      );
  }
  const { file, perLoad } = run.profile;
  if (file) {
    out.push('', `CPU profile of the service: ${path.relative(ROOT, file)} (per measured window)`);
    for (const p of perLoad) out.push('', `${p.name} round ${p.round}:`, formatProfile(p.profile));
  }
  out.push(
    '',
    `results: ${path.relative(ROOT, RESULTS)}; service logs: .bench/service.log${run.allCoresResult ? ', .bench/service-auto.log' : ''}, .bench/service-restart.log; total ${elapsedSeconds().toFixed(0)} s`,
  );
}
