// The connections of the PostgreSQL adapters: a pool of an adapter's own (from a URL), or the process's one pool
// shared by all of them (app/engines.ts), which its owner ends.
import pg from 'pg';

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
