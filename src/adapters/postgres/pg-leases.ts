// Leases on PostgreSQL: a row per lease whose holder and expiry change in one transaction with the row locked,
// on the database server's clock, so processes on several machines agree on who runs a singleton role.
import pg from 'pg';
import { holderIsGone, type LeaseHolder, type LeaseStore } from '../../ports/leases.ts';
import type { MigrationSteps } from './migrate.ts';
import { PgPart } from './pg-part.ts';
import { inTransaction, openPart } from './pool.ts';

export const LEASE_STEPS: MigrationSteps = [
  (s) => `CREATE TABLE ${s}.leases (name text PRIMARY KEY, holder json NOT NULL, expires_at timestamptz NOT NULL)`,
];

export class PgLeases extends PgPart implements LeaseStore {
  private constructor(pool: pg.Pool, owned: boolean, schema: string) {
    super(pool, owned, schema);
  }

  /** Connects and migrates the leases' table (schema default `bidder`). */
  static async open(url: string | pg.Pool, options: { schema?: string } = {}): Promise<PgLeases> {
    const schema = options.schema ?? 'bidder';
    const { pool, owned } = await openPart(url, 2, schema, 'leases', LEASE_STEPS);
    return new PgLeases(pool, owned, schema);
  }

  async acquire(name: string, holder: LeaseHolder, ttlMs: number): Promise<{ acquired: true } | { acquired: false; heldBy: LeaseHolder }> {
    return inTransaction(this.pool, async (client) => {
      // The row is created free (expired) if absent, then locked: two acquires of one lease take turns.
      await client.query(
        `INSERT INTO ${this.s}.leases (name, holder, expires_at) VALUES ($1, 'null', '-infinity') ON CONFLICT (name) DO NOTHING`,
        [name],
      );
      const { rows } = await client.query<{ holder: LeaseHolder | null; expired: boolean }>(
        `SELECT holder, expires_at <= clock_timestamp() AS expired FROM ${this.s}.leases WHERE name = $1 FOR UPDATE`,
        [name],
      );
      const current = rows[0]?.holder ?? null;
      if (current && !rows[0].expired && current.id !== holder.id && !holderIsGone(current, holder))
        return { acquired: false, heldBy: current };
      await client.query(
        `UPDATE ${this.s}.leases SET holder = $2, expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000) WHERE name = $1`,
        [name, JSON.stringify(holder), ttlMs],
      );
      return { acquired: true };
    });
  }

  async renew(name: string, holder: LeaseHolder, ttlMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.s}.leases SET expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
       WHERE name = $1 AND holder->>'id' = $2`,
      [name, holder.id, ttlMs],
    );
    return rowCount === 1;
  }

  async release(name: string, holder: LeaseHolder): Promise<void> {
    await this.pool.query(`UPDATE ${this.s}.leases SET holder = 'null', expires_at = '-infinity' WHERE name = $1 AND holder->>'id' = $2`, [
      name,
      holder.id,
    ]);
  }
}
