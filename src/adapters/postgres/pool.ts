// The connections of the PostgreSQL adapters: a pool of an adapter's own (from a URL), or the process's one pool
// shared by all of them (app/engines.ts), which its owner ends.
import pg from 'pg';
import { migrate, type MigrationSteps } from './migrate.ts';

export interface PoolSource {
  pool: pg.Pool;
  /** Ended by the adapter's close() when it made the pool itself. */
  owned: boolean;
  /** For a connection of its own (LISTEN): the pool's settings. */
  config: pg.PoolConfig;
}

export function poolOf(source: string | pg.Pool, max: number): PoolSource {
  if (typeof source !== 'string') return { pool: source, owned: false, config: (source as pg.Pool & { options: pg.PoolConfig }).options };
  const config: pg.PoolConfig = { connectionString: source, max };
  const pool = new pg.Pool(config);
  pool.on('error', () => {}); // an idle client's lost connection: the next query reconnects
  return { pool, owned: true, config };
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
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if (attempt < 5 && RETRIED.includes(String((error as { code?: unknown } | null)?.code))) continue;
      throw error;
    } finally {
      client.release();
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
