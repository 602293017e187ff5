/**
 * The events projections set aside in the embedded read-model store (table `rm_parked`, src/projector/parking.ts),
 * by checkpoint name. `prepare` is the store's cache of prepared statements.
 */
import type Database from 'better-sqlite3';
import type { ParkedCount, ParkedEvent } from '../../ports/read-models.ts';

type Prepare = (sql: string) => Database.Statement;

/** The parked events of a checkpoint's name, by position. */
export function readParked(prepare: Prepare, projection: string): ParkedEvent[] {
  const rows = prepare(
    `SELECT position, type, stream, tenant, state, error, attempts, first_at, last_at FROM rm_parked WHERE projection = ? ORDER BY position`,
  ).all(projection) as Array<Record<string, string | number>>;
  return rows.map((row) => ({
    position: Number(row.position),
    type: String(row.type),
    streamId: String(row.stream),
    tenant: String(row.tenant),
    state: row.state as ParkedEvent['state'],
    error: String(row.error),
    attempts: Number(row.attempts),
    firstAt: String(row.first_at),
    lastAt: String(row.last_at),
  }));
}

/** How many events each checkpoint's name holds parked, held and skipped. */
export function countParked(prepare: Prepare): ParkedCount[] {
  return prepare(
    `SELECT projection, sum(state = 'parked') AS parked, sum(state = 'held') AS held, sum(state = 'skipped') AS skipped
     FROM rm_parked GROUP BY projection ORDER BY projection`,
  ).all() as ParkedCount[];
}

/** One parked event, replacing the one at its position (when it was first set aside is kept). */
export function writeParked(prepare: Prepare, projection: string, e: ParkedEvent): void {
  prepare(
    `INSERT INTO rm_parked (projection, position, type, stream, tenant, state, error, attempts, first_at, last_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (projection, position) DO UPDATE SET type = excluded.type, stream = excluded.stream, tenant = excluded.tenant,
       state = excluded.state, error = excluded.error, attempts = excluded.attempts, last_at = excluded.last_at`,
  ).run(projection, e.position, e.type, e.streamId, e.tenant, e.state, e.error, e.attempts, e.firstAt, e.lastAt);
}

/** Drops the parked events at `positions` of a checkpoint's name. */
export function deleteParked(prepare: Prepare, projection: string, positions: readonly number[]): void {
  prepare(`DELETE FROM rm_parked WHERE projection = ? AND position IN (SELECT value FROM json_each(?))`).run(
    projection,
    JSON.stringify(positions),
  );
}
