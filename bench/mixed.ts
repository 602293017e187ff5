/**
 * The mixed load ("sale day"): lot pages at 10 connections, watchlist PUTs at 10 and distinct searches
 * at 4, all at once for the load's warm-up and duration, each kind its own autocannon instance in this process
 * (as every load of the bench). Each kind reports its req/s, p50 and p99; the service's CPU over the measured
 * windows is divided by the requests of all kinds together (one kind's share of it cannot be told apart).
 */
import type { AutocannonRequest } from 'autocannon';
import { cpuSecondsOfTarget, load, type LoadOptions, type LoadResult, type Target } from './loads.ts';
import { say } from './processes.ts';
import { fmt } from './stats.ts';

export const MIXED_CONNECTIONS = { lots: 10, watch: 10, distinct: 4 } as const;
export type MixedKind = keyof typeof MIXED_CONNECTIONS;
export const MIXED_NAMES: Record<MixedKind, string> = {
  lots: 'lot page',
  watch: 'watchlist PUT',
  distinct: 'distinct search',
};

export interface MixedPart {
  requests: AutocannonRequest[];
  headers: Record<string, string>;
}

export interface MixedResult {
  round: number;
  /** API_PROCESSES of the service it ran against. */
  apiProcesses: string;
  kinds: Record<MixedKind, LoadResult>;
  /** Requests of all kinds in their measured windows. */
  total: number;
  /** The service's CPU (all its processes with `target.tree`) from the first measured start to the last end, ÷ `total`. */
  cpuMicrosPerRequest: number;
}

export async function mixedLoad(
  apiProcesses: string,
  round: number,
  url: string,
  parts: Record<MixedKind, MixedPart>,
  options: LoadOptions,
  target: Target,
): Promise<MixedResult> {
  say(
    `mixed load, API_PROCESSES=${apiProcesses} (round ${round}): lot pages at ${MIXED_CONNECTIONS.lots} connections, watchlist PUTs at ${MIXED_CONNECTIONS.watch}, distinct searches at ${MIXED_CONNECTIONS.distinct}, all at once`,
  );
  let cpuFrom = NaN;
  const onStart = () => {
    if (Number.isNaN(cpuFrom)) cpuFrom = cpuSecondsOfTarget(target);
  };
  const run = (kind: MixedKind) =>
    load(
      `${MIXED_NAMES[kind]} at ${MIXED_CONNECTIONS[kind]} connections (mixed, API_PROCESSES=${apiProcesses})`,
      round,
      url,
      parts[kind].requests,
      parts[kind].headers,
      { ...options, connections: MIXED_CONNECTIONS[kind] },
      target,
      { cpu: false, onStart },
    );
  const [lots, watch, distinct] = await Promise.all([run('lots'), run('watch'), run('distinct')]);
  const cpuTo = cpuSecondsOfTarget(target);
  const total = lots.total + watch.total + distinct.total;
  const result: MixedResult = {
    round,
    apiProcesses,
    kinds: { lots, watch, distinct },
    total,
    cpuMicrosPerRequest: ((cpuTo - cpuFrom) * 1e6) / total,
  };
  say(`  mixed: ${fmt(total / options.duration)} req/s of all kinds, ${fmt(result.cpuMicrosPerRequest)} µs of the service's CPU a request`);
  return result;
}
