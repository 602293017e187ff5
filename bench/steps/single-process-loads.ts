/**
 * The steps `lots`, `gzip`, `search`, `distinct` (and `distinct-typos`), `watch` and `mixed` on the first start's
 * service, --rounds rounds interleaved so that every ratio is taken between loads run minutes apart at most.
 */
import type { AutocannonRequest } from 'autocannon';
import { LOAD_NAMES, type LoadKind } from '../load-names.ts';
import { distinctSearchRequests, load, lotPageRequests, searchRequests, watchRequests, type LoadResult } from '../loads.ts';
import { mixedLoad, type MixedResult } from '../mixed.ts';
import { has, loadOptions, opts, runs } from '../options.ts';
import { saleDayLoad, type SaleDayResult } from '../sale-day.ts';
import { startProcess, stopProcess, waitFor200, type Proc } from '../processes.ts';
import type { FirstService } from './first-start.ts';
import { DISTINCT_PROBE, type Probes } from './probes.ts';

export type DistinctRequests = ReturnType<typeof distinctSearchRequests>;

export interface SingleProcessLoads {
  loads: Record<LoadKind, LoadResult[]>;
  mixedSingle: MixedResult[];
  /** The lot page with PUTs and searches paced at a sale day's rates (bench/sale-day.ts). */
  saleDay: SaleDayResult[];
  /** One generator each across rounds and both service starts: the watchlist keeps changing, no distinct query comes twice. */
  watch: AutocannonRequest[];
  distinct: DistinctRequests;
  distinctTypos: DistinctRequests;
  watchlistSize: number | null;
}

/** What a round's loads send to, and with. */
interface RoundInputs {
  first: FirstService;
  ceiling: Proc | null;
  generators: Pick<SingleProcessLoads, 'watch' | 'distinct' | 'distinctTypos'>;
  loads: Record<LoadKind, LoadResult[]>;
  mixedSingle: MixedResult[];
  saleDay: SaleDayResult[];
}

const ceilingUrl = () => `http://127.0.0.1:${opts.ceilingPort}`;
const gzip = { 'Accept-Encoding': 'gzip' };

export async function singleProcessLoads(first: FirstService, probes: Probes): Promise<SingleProcessLoads> {
  const loads: Record<LoadKind, LoadResult[]> = {
    ceiling: [],
    lots: [],
    ceilingGzip: [],
    lotsGzip: [],
    search: [],
    distinct: [],
    distinctTypos: [],
    watch: [],
  };
  const mixedSingle: MixedResult[] = [];
  const saleDay: SaleDayResult[] = [];
  const ceiling = runs.ceiling
    ? startProcess('ceiling', 'bench/ceiling-server.ts', { ...process.env, PORT: String(opts.ceilingPort), BODY_FILE: probes.storedPage })
    : null;
  if (ceiling) await waitFor200(ceiling, `${ceilingUrl()}/stored`, 60_000);
  const { pool, typosPool, askedInRun } = probes;
  const generators = {
    watch: watchRequests(),
    distinct: distinctSearchRequests(pool.slice(0, pool.length - DISTINCT_PROBE), askedInRun),
    distinctTypos: distinctSearchRequests(typosPool.slice(0, Math.max(0, typosPool.length - DISTINCT_PROBE)), askedInRun),
  };
  const inputs: RoundInputs = { first, ceiling, generators, loads, mixedSingle, saleDay };
  for (let round = 1; round <= opts.rounds; round++) {
    if (runs.ceiling && (has('lots') || has('cores'))) await ceilingRound(inputs, round);
    if (runs.lots) await lotsRound(inputs, round);
    if (has('gzip')) await gzipRound(inputs, round);
    if (has('search')) await searchRound(inputs, round);
    if (runs.distinct) await distinctRound(inputs, round);
    if (runs.distinctTypos) await distinctTyposRound(inputs, round);
    if (runs.watch) await watchRound(inputs, round);
    if (has('mixed')) await mixedRound(inputs, round);
    if (has('sale-day')) await saleDayRound(inputs, round);
  }
  if (ceiling) await stopProcess(ceiling);
  return { loads, mixedSingle, saleDay, ...generators, watchlistSize: runs.watch ? await watchlistSize(first) : null };
}

/** The service's answer sent the fastest way we found (bench/ceiling-server.ts). */
async function ceilingRound({ ceiling, loads }: RoundInputs, round: number) {
  loads.ceiling.push(
    await load(LOAD_NAMES.ceiling, round, ceilingUrl(), [{ path: '/stored' }], {}, loadOptions, {
      pid: ceiling!.pid,
      spawnedAt: ceiling!.spawnedAt,
    }),
  );
}

async function lotsRound({ first, loads }: RoundInputs, round: number) {
  const { client, catalogueHeaders, svcTarget } = first;
  loads.lots.push(await load(LOAD_NAMES.lots, round, client.url('/'), lotPageRequests(), catalogueHeaders, loadOptions, svcTarget));
}

/** The gzip ceiling, then the lot page with Accept-Encoding: gzip. */
async function gzipRound({ first, ceiling, loads }: RoundInputs, round: number) {
  const { client, catalogueHeaders, svcTarget } = first;
  loads.ceilingGzip.push(
    await load(LOAD_NAMES.ceilingGzip, round, ceilingUrl(), [{ path: '/stored-gzip' }], gzip, loadOptions, {
      pid: ceiling!.pid,
      spawnedAt: ceiling!.spawnedAt,
    }),
  );
  loads.lotsGzip.push(
    await load(LOAD_NAMES.lotsGzip, round, client.url('/'), lotPageRequests(), { ...catalogueHeaders, ...gzip }, loadOptions, svcTarget),
  );
}

async function searchRound({ first, loads }: RoundInputs, round: number) {
  const { client, catalogueHeaders, svcTarget } = first;
  loads.search.push(await load(LOAD_NAMES.search, round, client.url('/'), searchRequests(), catalogueHeaders, loadOptions, svcTarget));
}

async function distinctRound({ first, generators, loads }: RoundInputs, round: number) {
  const { client, catalogueHeaders, svcTarget } = first;
  loads.distinct.push(
    await load(LOAD_NAMES.distinct, round, client.url('/'), generators.distinct.requests, catalogueHeaders, loadOptions, svcTarget),
  );
}

async function distinctTyposRound({ first, generators, loads }: RoundInputs, round: number) {
  const { client, catalogueHeaders, svcTarget } = first;
  loads.distinctTypos.push(
    await load(
      LOAD_NAMES.distinctTypos,
      round,
      client.url('/'),
      generators.distinctTypos.requests,
      catalogueHeaders,
      loadOptions,
      svcTarget,
    ),
  );
}

async function watchRound({ first, generators, loads }: RoundInputs, round: number) {
  const { client, memberHeaders, svcTarget } = first;
  loads.watch.push(await load(LOAD_NAMES.watch, round, client.url('/'), generators.watch, memberHeaders, loadOptions, svcTarget));
}

/** Lot pages, watchlist PUTs and distinct searches all at once (bench/mixed.ts). */
async function mixedRound({ first, generators, mixedSingle }: RoundInputs, round: number) {
  const { client, catalogueHeaders, memberHeaders, svcTarget } = first;
  mixedSingle.push(
    await mixedLoad(
      '1',
      round,
      client.url('/'),
      {
        lots: { requests: lotPageRequests(), headers: catalogueHeaders },
        watch: { requests: generators.watch, headers: memberHeaders },
        distinct: { requests: generators.distinct.requests, headers: catalogueHeaders },
      },
      loadOptions,
      svcTarget,
    ),
  );
}

/** The lot page while PUTs and searches arrive at a sale day's rates (bench/sale-day.ts). */
async function saleDayRound({ first, generators, loads, saleDay }: RoundInputs, round: number) {
  const { client, catalogueHeaders, memberHeaders, svcTarget } = first;
  const saturated = (xs: LoadResult[]) => xs.find((l) => l.round === round)?.cpuMicrosPerRequest ?? NaN;
  saleDay.push(
    await saleDayLoad(
      round,
      client.url('/'),
      {
        page: lotPageRequests(),
        catalogueHeaders,
        memberHeaders,
        watch: generators.watch[0],
        distinct: generators.distinct.requests[0],
        saturated: { watch: saturated(loads.watch), distinct: saturated(loads.distinct) },
      },
      loadOptions,
      svcTarget,
    ),
  );
}

/** How many lots the bench member's watchlist holds after the watchlist loads. */
async function watchlistSize({ client, memberTok }: FirstService): Promise<number | null> {
  const w = await client.call('GET', '/v1/me/watchlist?pageSize=1', { Authorization: `Bearer ${memberTok}` });
  return w.status === 200 ? (w.body?.TotalCount ?? null) : null;
}

/** The distinct queries sent in the run, per mix, and those skipped as asked before (once both starts are done). */
export function distinctQueriesUsed({ distinct, distinctTypos }: SingleProcessLoads) {
  return {
    distinctUsed: distinct.used(),
    typosUsed: distinctTypos.used(),
    skippedAsAsked: distinct.skipped() + distinctTypos.skipped(),
  };
}
