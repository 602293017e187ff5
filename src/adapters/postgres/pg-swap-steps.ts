/**
 * The statements of a rebuild's swap on PostgreSQL (src/read-models/rebuild.ts), each run in the swap's transaction:
 * the checkpoint's row locked, the aliases pointed at the fresh copies, the checkpoint and parked events moved.
 */
import type pg from 'pg';
import type { SwapReply, SwapStep } from '../../read-models/rebuild.ts';

type Queryable = pg.Pool | pg.PoolClient;

/** Runs one step of a swap in the schema `s` (quoted) and gives its answer. */
export async function swapStep(client: Queryable, s: string, step: SwapStep): Promise<SwapReply> {
  switch (step.step) {
    case 'readCheckpoint': {
      // Locks the checkpoint's row, creating it at 0 when absent, so no commit can move it before the swap ends.
      const { rows } = await client.query<{ position: string }>(
        `INSERT INTO ${s}.rm_checkpoints AS c (projection, position) VALUES ($1, 0)
         ON CONFLICT (projection) DO UPDATE SET position = c.position RETURNING position`,
        [step.checkpoint],
      );
      return Number(rows[0].position);
    }
    case 'pointAlias': {
      const { rows } = await client.query<{ physical: string }>(
        `UPDATE ${s}.rm_aliases a SET physical = $2 FROM ${s}.rm_aliases old
         WHERE a.name = $1 AND old.name = a.name RETURNING old.physical`,
        [step.name, step.physical],
      );
      if (!rows[0]) throw new Error(`unknown collection ${step.name}`);
      return rows[0].physical;
    }
    case 'writeCheckpoint':
      await client.query(
        `INSERT INTO ${s}.rm_checkpoints (projection, position) VALUES ($1, $2)
         ON CONFLICT (projection) DO UPDATE SET position = excluded.position, updated = now()`,
        [step.checkpoint, step.position],
      );
      return;
    case 'moveParked':
      await client.query(`DELETE FROM ${s}.rm_parked WHERE projection = $1 AND state <> 'skipped'`, [step.to]);
      await client.query(
        `INSERT INTO ${s}.rm_parked SELECT $1, position, type, stream, tenant, state, error, attempts, first_at, last_at
         FROM ${s}.rm_parked WHERE projection = $2 ON CONFLICT (projection, position) DO NOTHING`,
        [step.to, step.from],
      );
      return;
    case 'deleteCheckpoint':
      await client.query(`DELETE FROM ${s}.rm_checkpoints WHERE projection = $1`, [step.checkpoint]);
      await client.query(`DELETE FROM ${s}.rm_parked WHERE projection = $1`, [step.checkpoint]);
      return;
  }
}
