// The connections of the PostgreSQL adapters: a pool of an adapter's own (from a URL), or the process's one pool
// shared by all of them (app/engines.ts), which its owner ends.
import pg from 'pg';
import { isEngineUnreachable } from '../../errors.ts';
import { migrate, type MigrationSteps } from './migrate.ts';

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

export interface PoolTimeouts {
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
}

/**
 * A pool with bounded waits: a connection that cannot be made, a free connection that does not come, and a
 * statement that does not answer (the server gone mid-query, a network that drops packets) each fail after
 * their time-out, so a request that needs PostgreSQL while it is down is answered 503 (src/errors.ts) in time.
 * A connection the server ends (a restart) is dropped from the pool, whether idle or checked out, and never
 * brings the process down; the next query opens a new one.
 */
export function createPool(connectionString: string, max: number, timeouts: PoolTimeouts = {}): pg.Pool {
  const queryTimeoutMs = timeouts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: timeouts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // The server cancels a statement past its time; the client stops waiting a little later (no answer at all).
    statement_timeout: queryTimeoutMs,
    query_timeout: queryTimeoutMs + 1000,
    keepAlive: true,
  });
  pool.on('error', () => {}); // an idle client's lost connection: the pool drops it, the next query reconnects
  // A checked-out client whose connection ends between two queries emits 'error' with nobody listening: heard
  // here, so the process lives on; its next query fails (503) and its release drops it from the pool.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * A statement that may rightly take longer than the query time-out (an index built on a full table, a wait for
 * another process's schema change): sent with a client-side wait of its own. In a transaction, `unboundedHere`
 * lifts the server's statement time-out for the rest of it.
 */
export const unbounded = (text: string, values?: unknown[]): pg.QueryConfig =>
  ({ text, values, query_timeout: 24 * 3600_000 }) as pg.QueryConfig;
export async function unboundedHere(client: pg.PoolClient): Promise<void> {
  await client.query('SET LOCAL statement_timeout = 0');
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
