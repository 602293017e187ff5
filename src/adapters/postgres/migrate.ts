// The PostgreSQL schema, created and migrated at start in numbered steps under an advisory lock: the first
// process to hold it applies what is missing, the others wait for it and find nothing left to do.
import type pg from 'pg';
import { unbounded } from './pool.ts';

/** A schema name as it appears in SQL: lower-case letters, digits and underscores (quoted anyway). */
export function schemaIdent(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new TypeError(`PostgreSQL schema name not allowed: ${schema}`);
  return `"${schema}"`;
}

/** One part's steps (the event log's, the read models'...), step N at index N − 1; a step is never edited once released. */
export type MigrationSteps = ReadonlyArray<(schema: string) => string>;

/** Applies the steps of `part` not yet applied in `schema`, each in its own transaction, under the migration lock. */
export async function migrate(pool: pg.Pool, schema: string, part: string, steps: MigrationSteps): Promise<number> {
  const s = schemaIdent(schema);
  const client = await pool.connect();
  try {
    // The lock is tried rather than waited for, and the steps run without the statement and lock time-outs: a
    // migration (or another process's, waited for) may take longer than a request's bounded statement, and its
    // DDL may wait for other sessions' locks (each bounded by their own statement and idle time-outs).
    while (
      !(await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`${schema}.migrations`])).rows[0]
        .locked
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.migrations (part text NOT NULL, version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (part, version))`,
      );
      const { rows } = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${s}.migrations WHERE part = $1`, [part]);
      const applied = rows[0]?.v ?? 0;
      for (let version = applied + 1; version <= steps.length; version++) {
        await client.query('BEGIN');
        try {
          await client.query(unbounded(steps[version - 1](s)));
          await client.query(`INSERT INTO ${s}.migrations (part, version) VALUES ($1, $2)`, [part, version]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
      return steps.length - applied;
    } finally {
      await client.query('RESET statement_timeout; RESET lock_timeout');
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`${schema}.migrations`]);
    }
  } finally {
    client.release();
  }
}
