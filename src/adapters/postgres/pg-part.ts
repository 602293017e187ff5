// What every PostgreSQL part of the service (files, leases, the key ring) keeps: its pool, ended at close when it
// made that pool itself, and its schema with the schema's quoted name for its statements.
import type pg from 'pg';
import { schemaIdent } from './migrate.ts';

export abstract class PgPart {
  /** The schema's quoted name, as statements write it (`"bidder"`). */
  protected readonly s: string;

  protected constructor(
    protected readonly pool: pg.Pool,
    private readonly owned: boolean,
    protected readonly schema: string,
  ) {
    this.s = schemaIdent(schema);
  }

  async close(): Promise<void> {
    if (this.owned) await this.pool.end();
  }
}
