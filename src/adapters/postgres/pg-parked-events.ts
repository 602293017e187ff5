/** The events projections set aside on PostgreSQL (table `rm_parked`, src/projector/parking.ts), by checkpoint name. */
import type pg from 'pg';
import type { ParkedCount, ParkedEvent } from '../../ports/read-models.ts';

type Queryable = pg.Pool | pg.PoolClient;

/** The parked events of a checkpoint's name, by position. */
export async function readParked(pool: Queryable, s: string, projection: string): Promise<ParkedEvent[]> {
  const { rows } = await pool.query<{
    position: string;
    type: string;
    stream: string;
    tenant: string;
    state: ParkedEvent['state'];
    error: string;
    attempts: number;
    first_at: Date;
    last_at: Date;
  }>(
    `SELECT position, type, stream, tenant, state, error, attempts, first_at, last_at FROM ${s}.rm_parked
     WHERE projection = $1 ORDER BY position`,
    [projection],
  );
  return rows.map((row) => ({
    position: Number(row.position),
    type: row.type,
    streamId: row.stream,
    tenant: row.tenant,
    state: row.state,
    error: row.error,
    attempts: row.attempts,
    firstAt: row.first_at.toISOString(),
    lastAt: row.last_at.toISOString(),
  }));
}

/** How many events each checkpoint's name holds parked, held and skipped. */
export async function countParked(pool: Queryable, s: string): Promise<ParkedCount[]> {
  const { rows } = await pool.query<{ projection: string; parked: number; held: number; skipped: number }>(
    `SELECT projection, count(*) FILTER (WHERE state = 'parked')::int AS parked, count(*) FILTER (WHERE state = 'held')::int AS held,
       count(*) FILTER (WHERE state = 'skipped')::int AS skipped
     FROM ${s}.rm_parked GROUP BY projection ORDER BY projection`,
  );
  return rows;
}

/** Parked events of a checkpoint's name, each replacing the one at its position (when it was first set aside is kept). */
export async function writeParked(client: Queryable, s: string, projection: string, events: readonly ParkedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => [e.position, e.type, e.streamId, e.tenant, e.state, e.error, e.attempts, e.firstAt, e.lastAt]);
  await client.query(
    `INSERT INTO ${s}.rm_parked (projection, position, type, stream, tenant, state, error, attempts, first_at, last_at)
     SELECT $1, (r->>0)::bigint, r->>1, r->>2, r->>3, r->>4, r->>5, (r->>6)::int, (r->>7)::timestamptz, (r->>8)::timestamptz
     FROM jsonb_array_elements($2::jsonb) AS r
     ON CONFLICT (projection, position) DO UPDATE SET type = excluded.type, stream = excluded.stream, tenant = excluded.tenant,
       state = excluded.state, error = excluded.error, attempts = excluded.attempts, last_at = excluded.last_at`,
    [projection, JSON.stringify(rows)],
  );
}

/** Drops the parked events at `positions` of a checkpoint's name. */
export async function deleteParked(pool: Queryable, s: string, projection: string, positions: readonly number[]): Promise<void> {
  await pool.query(`DELETE FROM ${s}.rm_parked WHERE projection = $1 AND position = ANY($2::bigint[])`, [projection, [...positions]]);
}
