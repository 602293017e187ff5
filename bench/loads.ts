/**
 * The bench's HTTP loads: autocannon in this process against 127.0.0.1, a warm-up excluded from the figures,
 * bounded in time, stopping by itself. Each load reports req/s, latency percentiles, non-2xx and errors,
 * and the CPU the measured process used per request.
 */
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { cpuSecondsOf, say } from './processes.ts';
import type { DistinctQuery } from './distinct-queries.ts';

export interface LoadOptions {
  connections: number;
  warmup: number;
  duration: number;
}

export interface LoadResult {
  name: string;
  round: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU of the answering process per request, µs (user + system, over the measured window). */
  cpuMicrosPerRequest: number;
  /** Milliseconds since the service was spawned: the measured window (for --profile). */
  window?: { fromMs: number; toMs: number };
}

export interface Target {
  /** The process answering (its CPU is read), and when it was spawned (for profile windows). */
  pid: number;
  spawnedAt: number;
}

export async function load(
  name: string,
  round: number,
  url: string,
  requests: AutocannonRequest[],
  headers: Record<string, string>,
  options: LoadOptions,
  target: Target,
): Promise<LoadResult> {
  say(`load ${name} (round ${round}): ${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s`);
  let measuredFrom = 0;
  let cpuFrom = NaN;
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    warmup: { connections: options.connections, duration: options.warmup },
    timeout: 10,
    headers,
    requests,
  });
  // The warm-up and the measured run are two autocannon runs; `start` is emitted by the second one only.
  instance.on('start', () => {
    measuredFrom = performance.now();
    cpuFrom = cpuSecondsOf(target.pid);
  });
  const r: AutocannonResult = await instance;
  const cpuTo = cpuSecondsOf(target.pid);
  const toMs = performance.now();
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = s.count;
  const result: LoadResult = {
    name,
    round,
    rps: r.requests.average,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    cpuMicrosPerRequest: ((cpuTo - cpuFrom) * 1e6) / r.requests.total,
    ...(measuredFrom ? { window: { fromMs: measuredFrom - target.spawnedAt, toMs: toMs - target.spawnedAt } } : {}),
  };
  say(
    `  ${Math.round(result.rps).toLocaleString('en-US')} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
      `${Math.round(result.cpuMicrosPerRequest)} µs CPU a request, non-2xx ${result.non2xx}, errors ${result.errors} (timeouts ${result.timeouts})`,
  );
  return result;
}

/** GET /v1/lots?AuctionId=1&pageSize=20, Page rotating 1..100. */
export function lotPageRequests(): AutocannonRequest[] {
  let page = 0;
  return [{ setupRequest: (req) => ({ ...req, path: `/v1/lots?AuctionId=1&pageSize=20&Page=${(page = (page % 100) + 1)}` }) }];
}

/** 1-2 word queries per language: plain words, pairs, typos and prefixes (the 54 of every run, so mostly cached). */
export const SEARCH_QUERIES: Array<{ lang: string; q: string }> = [
  ...[
    'chair',
    'oak table',
    'silver',
    'gilded mirror',
    'porcelain vase',
    'chiar',
    'mahogny',
    'candlest',
    'vict',
    'brass lamp',
    'walnut desk',
    'Stockholm',
    'carpte',
    'neckl',
    'art deco',
    'sculpture',
    'teapot pewter',
    'bookcas',
  ].map((q) => ({ lang: 'en', q })),
  ...[
    'stol',
    'ek bord',
    'silver',
    'förgylld spegel',
    'porslin vas',
    'mässing lampa',
    'klocka',
    'ljussta',
    'gustavinsk',
    'skrivbord valnöt',
    'halsban',
    'Köpenhamn',
    'matta',
    'målnig',
    'rokoko',
    'tekanna tenn',
    'skulp',
    'barock',
  ].map((q) => ({ lang: 'sv', q })),
  ...[
    'Stuhl',
    'Eiche Tisch',
    'Silber',
    'vergoldet Spiegel',
    'Porzellan Vase',
    'Messing Lampe',
    'Kerzenl',
    'Schrank',
    'Teppisch',
    'Halskett',
    'Gemälde',
    'Wien',
    'Nusbaum',
    'Bücherre',
    'barock',
    'Teekanne Zinn',
    'Skulp',
    'Jahrhundert',
  ].map((q) => ({ lang: 'de', q })),
];
export const searchPath = (s: { lang: string; q: string }) => `/v1/lots/search?q=${encodeURIComponent(s.q)}&LanguageCode=${s.lang}`;

export function searchRequests(): AutocannonRequest[] {
  let i = 0;
  return [{ setupRequest: (req) => ({ ...req, path: searchPath(SEARCH_QUERIES[i++ % SEARCH_QUERIES.length]) }) }];
}

/**
 * Every request a query never asked before (warm-ups and rounds draw from one pool); `used()` says how many
 * were taken, so the run can check the pool was not exhausted (a repeated query could be answered from the cache).
 */
export function distinctSearchRequests(pool: DistinctQuery[]): { requests: AutocannonRequest[]; used: () => number } {
  let next = 0;
  return {
    requests: [{ setupRequest: (req) => ({ ...req, path: searchPath(pool[next++ % pool.length]) }) }],
    used: () => next,
  };
}

export const WATCH_ROTATION = 2000;

/** Request n: lot 1 + n mod 2000; the type flips each pass over the lots, so every request changes something. */
export function watchRequests(): AutocannonRequest[] {
  let n = 0;
  return [
    {
      method: 'PUT',
      setupRequest: (req) => {
        const i = n++;
        const lotId = 1 + (i % WATCH_ROTATION);
        const type = Math.floor(i / WATCH_ROTATION) % 2 === 0 ? 'watch' : 'favourite';
        return { ...req, method: 'PUT', path: `/v1/me/watchlist/${lotId}`, body: JSON.stringify({ Type: type }) };
      },
    },
  ];
}
