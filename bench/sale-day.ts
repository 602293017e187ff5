/**
 * The sale day at its stated rates (issue 44, point 2): 400 watchlist PUTs and 200 distinct searches a second
 * arrive paced (bench/paced.ts, each kind from a thread of its own), not as fast as answered; each kind first
 * alone, then both with the lot page at full speed (the `lots` load's connections). Against the lot page alone in
 * the same round: its rate, and bounds of its CPU a request (SaleDayResult.pageCpuMicros).
 */
import type { AutocannonRequest } from 'autocannon';
import { cpuSecondsOfTarget, load, type LoadOptions, type LoadResult, type Target } from './loads.ts';
import { pacedInThread, type PacedRequest, type PacedResult } from './paced.ts';
import { say, sleep } from './processes.ts';
import { fmt } from './stats.ts';

export const SALE_DAY_RATES = { watch: 400, distinct: 200 } as const;

export interface SaleDayResult {
  round: number;
  page: LoadResult;
  watch: PacedResult;
  distinct: PacedResult;
  /** Each kind paced alone: the service's CPU a second (cores), and the window (since the service was spawned, for --profile). */
  alone: Record<PacedKind, { cores: number; window: { fromMs: number; toMs: number } }>;
  /**
   * The page's CPU a request: the window's CPU less the paced requests' own. Bounds, as that share cannot be
   * measured beside the page: `low` takes out what they cost paced alone (each its own turn of the loop), `high`
   * what they cost under their own full load (the same round's `watch` and `distinct`: batched, the least; NaN
   * without those loads).
   */
  pageCpuMicros: { low: number; high: number };
}

export type PacedKind = keyof typeof SALE_DAY_RATES;

export interface SaleDayParts {
  page: AutocannonRequest[];
  catalogueHeaders: Record<string, string>;
  memberHeaders: Record<string, string>;
  /** Generators whose setupRequest gives each next request (bench/loads.ts). */
  watch: AutocannonRequest;
  distinct: AutocannonRequest;
  /** The same round's CPU a request under the kinds' own full loads, µs (NaN where not run). */
  saturated: Record<PacedKind, number>;
}

/** The next `count` requests of an autocannon generator. */
function take(generator: AutocannonRequest, count: number): PacedRequest[] {
  const setup = generator.setupRequest as unknown as (req: object) => { method?: string; path: string; body?: string };
  return Array.from({ length: count }, () => {
    const r = setup({});
    return { method: r.method ?? 'GET', path: r.path, body: r.body };
  });
}

export async function saleDayLoad(round: number, url: string, parts: SaleDayParts, options: LoadOptions, target: Target) {
  say(
    `sale day (round ${round}): ${SALE_DAY_RATES.watch} watchlist PUTs a second, then ${SALE_DAY_RATES.distinct} distinct searches, alone, then both with the lot page at ${options.connections} connections`,
  );
  const seconds = options.warmup + options.duration + 5;
  const start = (kind: PacedKind) =>
    pacedInThread(
      url,
      SALE_DAY_RATES[kind],
      take(parts[kind], SALE_DAY_RATES[kind] * seconds),
      kind === 'watch' ? parts.memberHeaders : parts.catalogueHeaders,
    );
  const aloneWindow = async (kind: PacedKind) => {
    const sender = start(kind);
    await sleep(options.warmup * 1000);
    const cpuFrom = cpuSecondsOfTarget(target);
    const fromMs = performance.now() - target.spawnedAt;
    await sleep(options.duration * 1000);
    const cores = (cpuSecondsOfTarget(target) - cpuFrom) / options.duration;
    const window = { fromMs, toMs: performance.now() - target.spawnedAt };
    const paced = await sender.stop();
    say(
      `  ${kind} alone: ${fmt(paced.perSecond)}/s, p99 ${fmt(paced.p99)} ms, ${fmt((cores * 1e6) / paced.perSecond)} µs of CPU a request`,
    );
    return { cores, window };
  };
  const alone = { watch: await aloneWindow('watch'), distinct: await aloneWindow('distinct') };

  const puts = start('watch');
  const searches = start('distinct');
  const page = await load('GET /v1/lots page, a sale day meanwhile', round, url, parts.page, parts.catalogueHeaders, options, target);
  const [watch, distinct] = await Promise.all([puts.stop(), searches.stop()]);
  const windowSeconds = (page.cpuMicrosPerRequest * page.total) / 1e6;
  const perPage = (pacedSeconds: number) => ((windowSeconds - pacedSeconds) * 1e6) / page.total;
  const pageCpuMicros = {
    low: perPage((alone.watch.cores + alone.distinct.cores) * options.duration),
    high: perPage(((watch.perSecond * parts.saturated.watch + distinct.perSecond * parts.saturated.distinct) * options.duration) / 1e6),
  };
  const result: SaleDayResult = { round, page, watch, distinct, alone, pageCpuMicros };
  say(
    `  meanwhile PUTs ${fmt(watch.perSecond)}/s p99 ${fmt(watch.p99)} ms ${JSON.stringify(watch.statuses)}, searches ${fmt(distinct.perSecond)}/s p99 ${fmt(distinct.p99)} ms ${JSON.stringify(distinct.statuses)}; the page's own CPU ${fmt(pageCpuMicros.low)}–${fmt(pageCpuMicros.high)} µs a request`,
  );
  return result;
}
