// The connections of the PostgreSQL adapters: a pool of an adapter's own (from a URL), or the process's one pool
// shared by all of them (app/engines.ts), which its owner ends.
import pg from 'pg';
import { isEngineUnreachable } from '../../errors.ts';
import { migrate, type MigrationSteps } from './migrate.ts';
import { countPostgresRoundTrips } from '../../round-trips.ts';

export interface PoolSource {
  pool: pg.Pool;
  /** Ended by the adapter's close() when it made the pool itself. */
  owned: boolean;
  /** For a connection of its own (LISTEN): the pool's settings. */
  config: pg.PoolConfig;
}

/** How long a connection attempt, or a wait for a free connection of the pool, may take (POSTGRES_CONNECT_TIMEOUT_MS). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;
/** How long one statement may run, on the server and as the client waits for its answer (POSTGRES_QUERY_TIMEOUT_MS). */
export const DEFAULT_QUERY_TIMEOUT_MS = 5000;
/**
 * How long a transaction may sit idle between its statements before the server ends its session, and its locks
 * with it (POSTGRES_IDLE_IN_TRANSACTION_TIMEOUT_MS): a process frozen or cut off mid-transaction (the append
 * lock held) stops every other writer for this long at most. The service's transactions send their statements
 * back to back, so only a stalled client is idle that long.
 */
export const DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS = 3000;
/**
 * How long a statement may wait for a lock (POSTGRES_LOCK_TIMEOUT_MS): above the idle bound, so a writer queued
 * behind a frozen holder gets the lock once the server ends that holder's session rather than give up first; far
 * above a healthy group commit's wait (each process has one group at a time, each a few milliseconds).
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 4000;
/**
 * TCP keep-alive of every session, both ways: the client probes an idle connection after 10 s (a server gone
 * without a word is found dead rather than lent out), the server probes its end after 10 s, every 5 s, 3 times
 * (a client machine gone is noticed within about 25 s: its session, and a session-level lock such as the
 * migrations', ends). A frozen process's kernel still answers the probes: the idle bound covers that case.
 */
const KEEPALIVE_CLIENT_MS = 10_000;
const KEEPALIVE_SERVER = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

export interface PoolOptions {
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  /** 0: not set by the service (the server's own setting applies); likewise lockTimeoutMs. */
  idleInTransactionTimeoutMs?: number;
  lockTimeoutMs?: number;
  /** How the sessions name themselves in pg_stat_activity and so pg_locks (default `bidder-<pid>`). */
  applicationName?: string;
}

/**
 * A pool with bounded waits: a connection that cannot be made, a free connection that does not come, and a
 * statement that does not answer (the server gone mid-query, a network that drops packets) each fail after
 * their time-out, so a request that needs PostgreSQL while it is down is answered 503 (src/errors.ts) in time.
 * Every session bounds what others may wait on it: a lock wait, and a transaction left idle (its client frozen or
 * cut off), which the server ends. A connection the server ends (a restart, an idle transaction) is dropped from
 * the pool, whether idle or checked out, and never brings the process down; the next query opens a new one.
 * A setting that POSTGRES_URL gives itself (`application_name`, `options`...) wins over these.
 */
export function createPool(connectionString: string, max: number, options: PoolOptions = {}): pg.Pool {
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: options.applicationName ?? `bidder-${process.pid}`,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // The server cancels a statement past its time; the client stops waiting a little later (no answer at all).
    statement_timeout: queryTimeoutMs,
    // 0 sets no bound at all (the server's own statement_timeout), rather than a client wait of 1 s.
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs + 1000 } : {}),
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    lock_timeout: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_CLIENT_MS,
    options: KEEPALIVE_SERVER,
  });
  pool.on('error', () => {}); // an idle client's lost connection: the pool drops it, the next query reconnects
  // A checked-out client whose connection ends between two queries emits 'error' with nobody listening: heard
  // here, so the process lives on; its next query fails (503) and its release drops it from the pool.
  pool.on('connect', (client) => client.on('error', () => {}));
  countPostgresRoundTrips(pool);
  return pool;
}

/**
 * A statement that may rightly take longer than the query time-out (an index built on a full table, a wait for
 * another process's schema change): sent with a client-side wait of its own. In a transaction, `unboundedHere`
 * lifts the server's statement and lock time-outs for the rest of it (the idle bound stays: it sends its
 * statements back to back like any other).
 */
export const unbounded = (text: string, values?: unknown[]): pg.QueryConfig =>
  ({ text, values, query_timeout: 24 * 3600_000 }) as pg.QueryConfig;
export async function unboundedHere(client: pg.PoolClient): Promise<void> {
  await client.query('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
}

export function poolOf(source: string | pg.Pool, max: number): PoolSource {
  if (typeof source !== 'string') return { pool: source, owned: false, config: (source as pg.Pool & { options: pg.PoolConfig }).options };
  const pool = createPool(source, max);
  return { pool, owned: true, config: (pool as pg.Pool & { options: pg.PoolConfig }).options };
}

/**
 * What to release a client with after `error`: the error itself when the connection is lost or a statement
 * timed out (the pool then drops the client, whose connection may still be busy), else nothing (kept).
 */
export function releaseError(error: unknown): Error | undefined {
  return isEngineUnreachable(error) ? (error instanceof Error ? error : new Error(String(error))) : undefined;
}

/** PostgreSQL's codes of a transaction that may simply be run again: a deadlock, a serialization failure. */
const RETRIED = ['40P01', '40001'];

/**
 * Runs `fn` in a transaction on one connection of the pool (`begin`: the statement that opens it), again up to
 * five times when PostgreSQL reports a deadlock or a serialization failure; rolled back when `fn` throws.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken = releaseError(error);
      if (!broken) await client.query('ROLLBACK').catch(() => {});
      if (attempt < 5 && RETRIED.includes(String((error as { code?: unknown } | null)?.code))) continue;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/** A part's connections with its tables migrated (`part`'s steps in `schema`); the pool ended again when that fails. */
export async function openPart(
  source: string | pg.Pool,
  max: number,
  schema: string,
  part: string,
  steps: MigrationSteps,
): Promise<PoolSource> {
  const opened = poolOf(source, max);
  try {
    await migrate(opened.pool, schema, part, steps);
  } catch (error) {
    if (opened.owned) await opened.pool.end();
    throw error;
  }
  return opened;
}
