/**
 * The bench's HTTP loads: autocannon in this process against 127.0.0.1, a warm-up excluded from the figures,
 * bounded in time, stopping by itself. Each load reports req/s, latency percentiles, non-2xx and errors,
 * and the CPU the measured process used per request.
 */
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { cpuSecondsOf, cpuSecondsOfTree, say } from './processes.ts';
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
  /** Read the CPU of the process and of all its descendants (a cluster: the primary and its `api` workers). */
  tree?: boolean;
}

/** CPU seconds the target has used so far (the process, or its whole tree). */
export const cpuSecondsOfTarget = (target: Target) => (target.tree ? cpuSecondsOfTree(target.pid) : cpuSecondsOf(target.pid));

export interface LoadHooks {
  /** false: the load runs beside others (the mixed load), so its own CPU a request is not read (NaN). */
  cpu?: boolean;
  /** Called when the measured run starts (after the warm-up). */
  onStart?: () => void;
}

export async function load(
  name: string,
  round: number,
  url: string,
  requests: AutocannonRequest[],
  headers: Record<string, string>,
  options: LoadOptions,
  target: Target,
  hooks: LoadHooks = {},
): Promise<LoadResult> {
  const cpu = hooks.cpu === false ? () => NaN : () => cpuSecondsOfTarget(target);
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
    cpuFrom = cpu();
    hooks.onStart?.();
  });
  const r: AutocannonResult = await instance;
  const cpuTo = cpu();
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
    `  ${name}: ${Math.round(result.rps).toLocaleString('en-US')} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
      `${hooks.cpu === false ? '' : `${Math.round(result.cpuMicrosPerRequest)} µs CPU a request, `}non-2xx ${result.non2xx}, errors ${result.errors} (timeouts ${result.timeouts})`,
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
 * Every request a query never asked before: warm-ups and rounds draw from one pool, and `askedInRun` (one set for
 * the run, shared by the pools of both mixes and both service starts) skips a query another pool asked
 * already. `used()` says how far into the pool the load went (past its end queries come again: the run checks
 * it never does), `skipped()` how many were skipped, `asked()` the queries this generator sent.
 */
export function distinctSearchRequests(pool: DistinctQuery[], askedInRun = new Set<string>()) {
  let next = 0;
  let skipped = 0;
  const sent: DistinctQuery[] = [];
  const take = () => {
    while (next < pool.length && askedInRun.has(pool[next].key)) {
      next++;
      skipped++;
    }
    const q = pool[next++ % pool.length];
    askedInRun.add(q.key);
    sent.push(q);
    return q;
  };
  return {
    requests: [{ setupRequest: (req) => ({ ...req, path: searchPath(take()) }) }] as AutocannonRequest[],
    used: () => next,
    skipped: () => skipped,
    asked: () => sent,
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
