/** The bench's command-line options (bench/run.ts lists them), and which loads the selected steps run. */
import { DEFAULT_POSTGRES_URL } from './postgres.ts';
import type { LoadOptions } from './loads.ts';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
function intOption(name: string, fallback: number): number {
  const n = Number(option(name, String(fallback)));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
  return n;
}
const million = process.argv.includes('--million');
export const opts = {
  fresh: process.argv.includes('--fresh'),
  profile: process.argv.includes('--profile'),
  lots: intOption('lots', 100_000),
  logLevel: option('log-level', 'info'),
  connections: intOption('connections', 50),
  warmup: intOption('warmup', 2),
  duration: intOption('duration', 10),
  rounds: intOption('rounds', 3),
  /** API_PROCESSES of the service the steps outside `cores` and `mixed` load (default 1, as in docs/performance.md). */
  apiProcesses: option('api-processes', '1'),
  port: intOption('port', 3100),
  ceilingPort: intOption('ceiling-port', 3101),
  /** API_PROCESSES=auto only: METRICS_PORT of the cluster (the primary's /metrics; its api processes' on the ports after). */
  metricsPort: intOption('metrics-port', 3102),
  /** The `postgres` step: the PostgreSQL the second service runs on (a schema of the run's own, dropped after), and its port. */
  postgresUrl: option('postgres-url', process.env.POSTGRES_URL || DEFAULT_POSTGRES_URL),
  postgresPort: intOption('postgres-port', 3103),
  /** `pg-network` and `pg-writers`: the Redis behind the proxy, the round-trip times (ms) and requests an operation. */
  redisUrl: option('redis-url', process.env.REDIS_URL || 'redis://127.0.0.1:6379'),
  networkRtts: option('network-rtts', '0.5,2')
    .split(',')
    .map(Number)
    .filter((n) => n > 0),
  networkRequests: intOption('network-requests', 200),
  only: new Set(
    option(
      'only',
      `lots,gzip,search,distinct,watch,mixed,sale-day,cores,backoffice,bidding,push,postgres,pg-network,pg-writers,index,prints,accounts,rebuild,restart${million ? ',million,analysts' : ''}`,
    )
      .split(',')
      .map((s) => s.trim()),
  ),
};
export const has = (step: string) => opts.only.has(step);
/** What the selected steps run with the service at API_PROCESSES=1 (`cores` compares three loads with all cores). */
export const runs = {
  ceiling: has('lots') || has('gzip') || has('cores'),
  lots: has('lots') || has('distinct') || has('distinct-typos') || has('mixed') || has('sale-day') || has('cores'),
  distinct: has('distinct') || has('cores'),
  distinctTypos: has('distinct') || has('distinct-typos'),
  watch: has('watch') || has('cores'),
  allCores: has('cores') || has('mixed'),
};
export const loadOptions: LoadOptions = { connections: opts.connections, warmup: opts.warmup, duration: opts.duration };
/** The options as bench/results.json and the first line printed show them. */
export const shownOptions = () => ({ ...opts, only: [...opts.only] });
