// Group commit of the PostgreSQL event log: the appends asked for together, committed in one statement
// (append_group), or append by append in one transaction when the unique key refused the group.
import type pg from 'pg';
import type { AppendResult, ExpectedRevision, NewEvent, RecordedEvent } from '../../ports/event-log.ts';
import { WrongExpectedVersionError } from '../../ports/event-log.ts';
import { EXPECTED_CODES, type GroupAnswer } from './pg-event-log-schema.ts';
import { releaseError } from './pool.ts';

/** Events of this process's appends kept parsed for its subscribers. */
const TAIL_SIZE = 10_000;

/** An append asked for and not yet committed. */
export interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** What a group commit writes to and tells: the log's pool, schema, channel and tail. */
export interface GroupCommitTarget {
  pool: pg.Pool;
  /** The schema as an identifier (quoted), and its name. */
  s: string;
  schema: string;
  /** The NOTIFY channel of appends. */
  channel: string;
  /** This process's last appended events: committed events join it. */
  tail: Map<number, RecordedEvent>;
  /** This process committed up to `last`. */
  appended(last: number): void;
}

/**
 * The group in one statement (append_group). When the unique (stream, revision) key refuses it (a writer that
 * raced past the revision check without the lock), the group again in a transaction, append by append, so that
 * only that append fails. Committed events join the tail, and this process's subscribers are woken at once.
 */
export async function commitGroup(t: GroupCommitTarget, group: PendingAppend[]): Promise<void> {
  const columns = {
    streams: [] as string[],
    expected: [] as number[],
    counts: [] as number[],
    types: [] as string[],
    versions: [] as number[],
  };
  const data: string[] = [];
  const metadata: string[] = [];
  for (const append of group) {
    columns.streams.push(append.streamId);
    columns.expected.push(typeof append.expected === 'number' ? append.expected : EXPECTED_CODES[append.expected]);
    columns.counts.push(append.events.length);
    for (const e of append.events) {
      columns.types.push(e.type);
      columns.versions.push(e.version);
      data.push(JSON.stringify(e.data));
      metadata.push(JSON.stringify(e.metadata));
    }
  }
  let answer: GroupAnswer;
  try {
    const { rows } = await t.pool.query<{ r: GroupAnswer }>(
      `SELECT ${t.s}.append_group($1::text[], $2::int[], $3::int[], $4::text[], $5::int[], $6::json[], $7::json[]) AS r`,
      [columns.streams, columns.expected, columns.counts, columns.types, columns.versions, data, metadata],
    );
    answer = rows[0].r;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return commitOneByOne(t, group);
    for (const append of group) append.reject(error);
    return;
  }
  const positions = (answer.p ?? []).map(Number);
  const created = (answer.c ?? []).map((ms) => new Date(Number(ms)).toISOString());
  // `from`: where an append's events start in the flat arrays sent; `o.k`: the written events up to its own end.
  let from = 0;
  group.forEach((append, i) => {
    const o = answer.o[i];
    const sent = from;
    from += append.events.length;
    if (o.x !== undefined) {
      append.reject(new WrongExpectedVersionError(append.streamId, append.expected, o.x === -1 ? 'no_stream' : o.x));
      return;
    }
    append.events.forEach((e, j) => {
      const at = o.k! - append.events.length + j;
      // A copy of what was stored (not the caller's objects), as a reader of the table would get it.
      t.tail.set(positions[at], {
        position: positions[at],
        streamId: append.streamId,
        revision: o.n! - append.events.length + 1 + j,
        type: e.type,
        version: e.version,
        data: JSON.parse(data[sent + j]),
        metadata: JSON.parse(metadata[sent + j]),
        created: created[at],
      });
    });
    append.resolve({ nextExpectedRevision: o.n!, position: o.k === 0 ? Number(answer.h ?? 0) : positions[o.k! - 1] });
  });
  while (t.tail.size > TAIL_SIZE) t.tail.delete(t.tail.keys().next().value as number);
  if (positions.length > 0) t.appended(positions[positions.length - 1]);
}

/** The group in a transaction, append by append with a savepoint each (see commitGroup). */
async function commitOneByOne(t: GroupCommitTarget, group: PendingAppend[]): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await t.pool.connect();
  } catch (error) {
    for (const append of group) append.reject(error);
    return;
  }
  let broken: Error | undefined;
  try {
    const { outcomes, head } = await writeGroup(t, client, group);
    group.forEach((append, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) append.reject(outcome);
      else append.resolve(outcome.position === -1 ? { ...outcome, position: head } : outcome);
    });
    const last = outcomes.reduce((max, o) => (o instanceof Error ? max : Math.max(max, o.position)), 0);
    if (last > 0) t.appended(last);
  } catch (error) {
    broken = releaseError(error);
    if (!broken) await client.query('ROLLBACK').catch(() => {});
    for (const append of group) append.reject(error);
  } finally {
    client.release(broken);
  }
}

/** The group in one transaction, append by append: its outcomes in order (position -1 for an append of nothing) and the head those answer. */
async function writeGroup(
  t: GroupCommitTarget,
  client: pg.PoolClient,
  group: PendingAppend[],
): Promise<{ outcomes: Array<AppendResult | Error>; head: number }> {
  await client.query('BEGIN');
  // Positions in commit order: one appending transaction at a time draws positions, until it commits.
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${t.schema}.append`]);
  const outcomes = await appendOneByOne(t, client, group);
  const last = outcomes.reduce((max, o) => (o instanceof Error ? max : Math.max(max, o.position)), 0);
  if (last > 0) await client.query('SELECT pg_notify($1, $2)', [t.channel, String(last)]);
  // An append of nothing answers the head as of its commit: read under the lock, before it (nothing is
  // read after the commit, so a group whose commit succeeded is never answered as failed).
  let head = last;
  if (outcomes.some((o) => !(o instanceof Error) && o.position === -1)) {
    const { rows } = await client.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${t.s}.events`);
    head = Number(rows[0]?.p ?? 0);
  }
  // A lost connection here fails the whole group: the transaction either committed whole or not at all,
  // and its callers, answered 503, may find their events in the log or not (docs/architecture.md).
  await client.query('COMMIT');
  return { outcomes, head };
}

/** Whether an append may go on a stream at `current` (-1: no stream). */
function accepts(expected: ExpectedRevision, current: number): boolean {
  return (
    expected === 'any' ||
    (expected === 'no_stream' && current === -1) ||
    (expected === 'stream_exists' && current >= 0) ||
    (typeof expected === 'number' && expected === current)
  );
}

/** The group append by append, each in a savepoint: the unique key refuses a writer that raced past the check, that append alone. */
async function appendOneByOne(t: GroupCommitTarget, client: pg.PoolClient, group: PendingAppend[]): Promise<Array<AppendResult | Error>> {
  const outcomes: Array<AppendResult | Error> = [];
  const revisions = new Map<string, number>();
  for (const append of group) {
    let current = revisions.get(append.streamId);
    if (current === undefined) {
      const { rows } = await client.query<{ r: number | null }>(`SELECT max(revision) AS r FROM ${t.s}.events WHERE stream_id = $1`, [
        append.streamId,
      ]);
      current = rows[0]?.r ?? -1;
    }
    const { expected } = append;
    if (!accepts(expected, current)) {
      outcomes.push(new WrongExpectedVersionError(append.streamId, expected, current === -1 ? 'no_stream' : current));
      continue;
    }
    if (append.events.length === 0) {
      outcomes.push({ nextExpectedRevision: current, position: -1 });
      continue;
    }
    let positions: number[];
    await client.query('SAVEPOINT append');
    try {
      // Positions drawn first (in order), then the rows written with them: one statement each.
      const drawn = await client.query<{ p: string }>(`SELECT nextval('${t.s}.event_positions') AS p FROM generate_series(1, $1)`, [
        append.events.length,
      ]);
      positions = drawn.rows.map((r) => Number(r.p)).sort((a, b) => a - b);
      await client.query(
        `INSERT INTO ${t.s}.events (position, stream_id, revision, type, version, data, metadata)
         SELECT position, $1, $2::int + ord::int - 1, type, version, data, metadata
         FROM unnest($3::bigint[], $4::text[], $5::int[], $6::json[], $7::json[]) WITH ORDINALITY AS e(position, type, version, data, metadata, ord)`,
        [
          append.streamId,
          current + 1,
          positions,
          append.events.map((e) => e.type),
          append.events.map((e) => e.version),
          append.events.map((e) => JSON.stringify(e.data)),
          append.events.map((e) => JSON.stringify(e.metadata)),
        ],
      );
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
      await client.query('ROLLBACK TO SAVEPOINT append');
      outcomes.push(new WrongExpectedVersionError(append.streamId, expected, current === -1 ? 'no_stream' : current));
      continue;
    }
    await client.query('RELEASE SAVEPOINT append');
    current += append.events.length;
    revisions.set(append.streamId, current);
    outcomes.push({ nextExpectedRevision: current, position: positions[positions.length - 1] });
  }
  return outcomes;
}
