// The key ring on PostgreSQL: two tables of the service's schema, read by every process of every machine, so a
// token one `api` issued is verified by any other. The ring is made once, in a transaction under an advisory lock:
// of several processes starting on a new schema, the first stores its ring and the others read that one.
import type pg from 'pg';
import { isKeyRing, type KeyRing, type KeyRingStore, type SigningKey } from '../../ports/key-ring.ts';
import type { MigrationSteps } from './migrate.ts';
import { PgPart } from './pg-part.ts';
import { inTransaction, openPart } from './pool.ts';

export const KEY_RING_STEPS: MigrationSteps = [
  (s) => `
    CREATE TABLE ${s}.key_anchor (one boolean PRIMARY KEY DEFAULT true CHECK (one), secret text NOT NULL);
    CREATE TABLE ${s}.signing_keys (
      id text PRIMARY KEY,
      secret text NOT NULL,
      created_at timestamptz NOT NULL,
      retired_at timestamptz
    );`,
];

interface KeyRow {
  id: string;
  secret: string;
  created_at: Date;
  retired_at: Date | null;
}

export class PgKeyRing extends PgPart implements KeyRingStore {
  private constructor(pool: pg.Pool, owned: boolean, schema: string) {
    super(pool, owned, schema);
  }

  /** Connects (or shares the process's pool) and migrates the ring's tables (schema default `bidder`). */
  static async open(url: string | pg.Pool, options: { schema?: string } = {}): Promise<PgKeyRing> {
    const schema = options.schema ?? 'bidder';
    const { pool, owned } = await openPart(url, 2, schema, 'key-ring', KEY_RING_STEPS);
    return new PgKeyRing(pool, owned, schema);
  }

  async open(initial: () => KeyRing): Promise<KeyRing> {
    const found = await this.read();
    if (found) return found;
    await inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}.key-ring`]);
      // Read again under the lock: a process that held it before has made the ring (its commit is seen).
      const { rowCount } = await client.query(`SELECT 1 FROM ${this.s}.key_anchor`);
      if (rowCount) return;
      const ring = initial();
      await client.query(`INSERT INTO ${this.s}.key_anchor (secret) VALUES ($1)`, [ring.anchor]);
      for (const key of ring.keys) await this.insert(client, key);
    });
    return (await this.read())!;
  }

  async read(): Promise<KeyRing | null> {
    const anchor = await this.pool.query<{ secret: string }>(`SELECT secret FROM ${this.s}.key_anchor`);
    if (anchor.rows.length === 0) return null;
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT id, secret, created_at, retired_at FROM ${this.s}.signing_keys ORDER BY created_at, id`,
    );
    const ring = {
      anchor: anchor.rows[0].secret,
      keys: rows.map((row) => ({
        id: row.id,
        secret: row.secret,
        created: row.created_at.toISOString(),
        ...(row.retired_at ? { retired: row.retired_at.toISOString() } : {}),
      })),
    };
    if (!isKeyRing(ring)) throw new Error(`the key ring in ${this.schema}.signing_keys is not one (edited by hand?)`);
    return ring;
  }

  async add(key: SigningKey): Promise<boolean> {
    return (await this.insert(this.pool, key)) === 1;
  }

  async retire(id: string, at: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`UPDATE ${this.s}.signing_keys SET retired_at = $2 WHERE id = $1 AND retired_at IS NULL`, [
      id,
      at,
    ]);
    return rowCount === 1;
  }

  private async insert(client: pg.Pool | pg.PoolClient, key: SigningKey): Promise<number> {
    const { rowCount } = await client.query(
      `INSERT INTO ${this.s}.signing_keys (id, secret, created_at, retired_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`,
      [key.id, key.secret, key.created, key.retired ?? null],
    );
    return rowCount ?? 0;
  }
}
