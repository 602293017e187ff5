/**
 * The event log on PostgreSQL (PRODUCTION.md "PostgreSQL"). Positions are given in commit order: every append
 * transaction takes one advisory lock before it draws its positions and holds it until it commits, so a reader
 * that sees position P has seen every committed position below it, and no event can appear later behind a
 * reader that passed it (the hard part of a log on SQL: transactions otherwise commit out of position order).
 * Appends asked for together are committed in one transaction (group commit), each against its own expected
 * revision; readers wake on LISTEN/NOTIFY and poll as a fallback.
 */
import pg from 'pg';
import type {
  AppendResult,
  EventLog,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadTypesResult,
  RecordedEvent,
  StoredEvent,
  StoredEventsResult,
  SubscribeOptions,
  Subscription,
} from '../../ports/event-log.ts';
import { WrongExpectedVersionError } from '../../ports/event-log.ts';
import { migrate, schemaIdent, type MigrationSteps } from './migrate.ts';
import { inTransaction, poolOf, releaseError, type PoolSource } from './pool.ts';

/** The event log's schema, step by step. */
export const EVENT_LOG_STEPS: MigrationSteps = [
  (s) => `
    CREATE SEQUENCE ${s}.event_positions;
    CREATE TABLE ${s}.events (
      position bigint PRIMARY KEY,
      stream_id text NOT NULL,
      revision integer NOT NULL,
      type text NOT NULL,
      version integer NOT NULL,
      data json NOT NULL,
      metadata json NOT NULL,
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      UNIQUE (stream_id, revision)
    );
    CREATE INDEX events_type_position ON ${s}.events (type, position);`,
];

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface Row {
  position: string;
  stream_id: string;
  revision: number;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  created: Date;
}

/** A row of the stored reads: the data as its text (the `json` type keeps what was written), the metadata's tenant. */
interface StoredRow {
  position: string;
  stream_id: string;
  revision: number;
  type: string;
  version: number;
  data: string;
  tenant: string;
  created: Date;
}

const STORED_COLUMNS =
  "position, stream_id, revision, type, version, data::text AS data, coalesce(metadata->>'tenant', '') AS tenant, created";

const toStored = (row: StoredRow): StoredEvent => ({
  position: Number(row.position),
  streamId: row.stream_id,
  revision: row.revision,
  type: row.type,
  version: row.version,
  created: row.created.toISOString(),
  tenant: row.tenant,
  dataJson: Buffer.from(row.data, 'utf8'),
});

/** How soon a lost listener connection is tried again (and again) while PostgreSQL is away. */
const LISTEN_RETRY_MS = 500;

const COLUMNS = 'position, stream_id, revision, type, version, data, metadata, created';

const toRecorded = (row: Row): RecordedEvent => ({
  position: Number(row.position),
  streamId: row.stream_id,
  revision: row.revision,
  type: row.type,
  version: row.version,
  data: row.data,
  metadata: row.metadata,
  created: row.created.toISOString(),
});

export interface PgEventLogOptions {
  /** The schema the log's tables live in (default `bidder`). */
  schema?: string;
  /** How often a subscriber looks for new events when no notification came (default 1 s). */
  pollMs?: number;
}

export class PgEventLog implements EventLog {
  private readonly s: string;
  private readonly channel: string;
  private readonly pollMs: number;
  private queued: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  private listener: pg.Client | null = null;
  private relistenTimer: NodeJS.Timeout | null = null;
  private readonly waiters = new Set<() => void>();

  private readonly pool: pg.Pool;

  private constructor(
    private readonly source: PoolSource,
    private readonly schema: string,
    options: PgEventLogOptions,
  ) {
    this.pool = source.pool;
    this.s = schemaIdent(schema);
    this.channel = `${schema}_events`;
    this.pollMs = options.pollMs ?? 1000;
  }

  /** Connects (a URL, or the process's shared pool), migrates the schema and listens for appends of other processes. */
  static async open(url: string | pg.Pool, options: PgEventLogOptions = {}): Promise<PgEventLog> {
    const source = poolOf(url, 8);
    const log = new PgEventLog(source, options.schema ?? 'bidder', options);
    try {
      await migrate(source.pool, log.schema, 'event-log', EVENT_LOG_STEPS);
      await log.listen();
    } catch (error) {
      if (source.owned) await source.pool.end();
      throw error;
    }
    return log;
  }

  /**
   * Listens for other processes' appends on a connection of its own. When that connection is lost (PostgreSQL
   * restarted), subscribers go on polling and a new listener is tried every LISTEN_RETRY_MS until one connects;
   * subscribers are then woken, as appends may have come in meanwhile.
   */
  private async listen(): Promise<void> {
    const client = new pg.Client(this.source.config);
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.listener === client) this.listener = null;
      client.end().catch(() => {});
      this.relisten();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', () => this.wakeAll());
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (error) {
      lost = true;
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.listener = client;
  }

  /** Tries a new listener after LISTEN_RETRY_MS, again and again until one connects or the log is closed. */
  private relisten(): void {
    if (this.closed || this.relistenTimer) return;
    this.relistenTimer = setTimeout(() => {
      this.relistenTimer = null;
      if (this.closed) return;
      this.listen().then(
        () => this.wakeAll(),
        () => this.relisten(),
      );
    }, LISTEN_RETRY_MS);
    this.relistenTimer.unref();
  }

  private wakeAll() {
    for (const wake of [...this.waiters]) wake();
  }

  appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    this.assertOpen();
    return new Promise<AppendResult>((resolve, reject) => {
      this.queued.push({ streamId, events, expected: options.expectedRevision ?? 'any', resolve, reject });
      if (!this.flushing) this.flushing = new Promise<void>((done) => setImmediate(() => void this.flush().finally(done)));
    });
  }

  /** Commits every queued append, one group (one transaction) at a time, until none is left. */
  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const group = this.queued;
      this.queued = [];
      await this.commitGroup(group);
    }
    this.flushing = null;
  }

  private async commitGroup(group: PendingAppend[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      for (const append of group) append.reject(error);
      return;
    }
    let broken: Error | undefined;
    try {
      // A writer that raced past the revision check makes the unique key refuse the batch: then the group again,
      // append by append, so that only that append fails.
      const { outcomes, head } = (await this.writeGroup(client, group, true)) ?? (await this.writeGroup(client, group, false))!;
      group.forEach((append, i) => {
        const outcome = outcomes[i];
        if (outcome instanceof Error) append.reject(outcome);
        else append.resolve(outcome.position === -1 ? { ...outcome, position: head } : outcome);
      });
    } catch (error) {
      broken = releaseError(error);
      if (!broken) await client.query('ROLLBACK').catch(() => {});
      for (const append of group) append.reject(error);
    } finally {
      client.release(broken);
    }
  }

  /**
   * The group in one transaction: its outcomes in order (position -1 for an append of nothing) and the head those
   * answer, or null when `batched` and the unique (stream, revision) key refused the batch (rolled back, nothing
   * written).
   */
  private async writeGroup(
    client: pg.PoolClient,
    group: PendingAppend[],
    batched: boolean,
  ): Promise<{ outcomes: Array<AppendResult | Error>; head: number } | null> {
    await client.query('BEGIN');
    // Positions in commit order: one appending transaction at a time draws positions, until it commits.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}.append`]);
    const outcomes = batched ? await this.appendBatch(client, group) : await this.appendOneByOne(client, group);
    if (!outcomes) {
      await client.query('ROLLBACK');
      return null;
    }
    const last = outcomes.reduce((max, o) => (o instanceof Error ? max : Math.max(max, o.position)), 0);
    if (last > 0) await client.query('SELECT pg_notify($1, $2)', [this.channel, String(last)]);
    // An append of nothing answers the head as of its commit: read under the lock, before it (nothing is
    // read after the commit, so a group whose commit succeeded is never answered as failed).
    let head = last;
    if (outcomes.some((o) => !(o instanceof Error) && o.position === -1)) {
      const { rows } = await client.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${this.s}.events`);
      head = Number(rows[0]?.p ?? 0);
    }
    // A lost connection here fails the whole group: the transaction either committed whole or not at all,
    // and its callers, answered 503, may find their events in the log or not (docs/architecture.md).
    await client.query('COMMIT');
    return { outcomes, head };
  }

  /** Whether an append may go on a stream at `current` (-1: no stream). */
  private static accepts(expected: ExpectedRevision, current: number): boolean {
    return (
      expected === 'any' ||
      (expected === 'no_stream' && current === -1) ||
      (expected === 'stream_exists' && current >= 0) ||
      (typeof expected === 'number' && expected === current)
    );
  }

  /**
   * The group's appends in a fixed number of statements: the streams' revisions in one read, the checks here,
   * the positions drawn in one and every accepted event written in one INSERT. Null when the INSERT hit the
   * unique key (the transaction is then aborted).
   */
  private async appendBatch(client: pg.PoolClient, group: PendingAppend[]): Promise<Array<AppendResult | Error> | null> {
    const streams = [...new Set(group.map((a) => a.streamId))];
    // Each stream's last revision from the end of its index (a max() grouped over several streams would read
    // every revision of each: long streams, a hot lot's, would make every group slower).
    const { rows } = await client.query<{ stream_id: string; r: number | null }>(
      `SELECT s.id AS stream_id, (SELECT revision FROM ${this.s}.events WHERE stream_id = s.id ORDER BY revision DESC LIMIT 1) AS r
       FROM unnest($1::text[]) AS s(id)`,
      [streams],
    );
    const revisions = new Map<string, number>(rows.map((row) => [row.stream_id, row.r ?? -1]));
    const outcomes: Array<AppendResult | Error> = [];
    const accepted: Array<{ index: number; append: PendingAppend; first: number }> = [];
    let count = 0;
    for (const append of group) {
      const current = revisions.get(append.streamId) ?? -1;
      if (!PgEventLog.accepts(append.expected, current)) {
        outcomes.push(new WrongExpectedVersionError(append.streamId, append.expected, current === -1 ? 'no_stream' : current));
        continue;
      }
      if (append.events.length === 0) {
        outcomes.push({ nextExpectedRevision: current, position: -1 });
        continue;
      }
      accepted.push({ index: outcomes.length, append, first: current + 1 });
      revisions.set(append.streamId, current + append.events.length);
      outcomes.push({ nextExpectedRevision: current + append.events.length, position: -1 });
      count += append.events.length;
    }
    if (count === 0) return outcomes;
    // Positions drawn first (in order), then the rows written with them, the group's appends in the order asked.
    const drawn = await client.query<{ p: string }>(`SELECT nextval('${this.s}.event_positions') AS p FROM generate_series(1, $1)`, [
      count,
    ]);
    const positions = drawn.rows.map((r) => Number(r.p)).sort((a, b) => a - b);
    const columns = { streamIds: [] as string[], revisions: [] as number[], types: [] as string[], versions: [] as number[] };
    const data: string[] = [];
    const metadata: string[] = [];
    let written = 0;
    for (const { index, append, first } of accepted) {
      append.events.forEach((e, j) => {
        columns.streamIds.push(append.streamId);
        columns.revisions.push(first + j);
        columns.types.push(e.type);
        columns.versions.push(e.version);
        data.push(JSON.stringify(e.data));
        metadata.push(JSON.stringify(e.metadata));
      });
      written += append.events.length;
      outcomes[index] = { nextExpectedRevision: first + append.events.length - 1, position: positions[written - 1] };
    }
    try {
      await client.query(
        `INSERT INTO ${this.s}.events (position, stream_id, revision, type, version, data, metadata)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::int[], $6::json[], $7::json[])`,
        [positions, columns.streamIds, columns.revisions, columns.types, columns.versions, data, metadata],
      );
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
      return null;
    }
    return outcomes;
  }

  /** The group append by append, each in a savepoint: the unique key refuses a writer that raced past the check, that append alone. */
  private async appendOneByOne(client: pg.PoolClient, group: PendingAppend[]): Promise<Array<AppendResult | Error>> {
    const outcomes: Array<AppendResult | Error> = [];
    const revisions = new Map<string, number>();
    for (const append of group) {
      let current = revisions.get(append.streamId);
      if (current === undefined) {
        const { rows } = await client.query<{ r: number | null }>(`SELECT max(revision) AS r FROM ${this.s}.events WHERE stream_id = $1`, [
          append.streamId,
        ]);
        current = rows[0]?.r ?? -1;
      }
      const { expected } = append;
      if (!PgEventLog.accepts(expected, current)) {
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
        const drawn = await client.query<{ p: string }>(`SELECT nextval('${this.s}.event_positions') AS p FROM generate_series(1, $1)`, [
          append.events.length,
        ]);
        positions = drawn.rows.map((r) => Number(r.p)).sort((a, b) => a - b);
        await client.query(
          `INSERT INTO ${this.s}.events (position, stream_id, revision, type, version, data, metadata)
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

  async readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM ${this.s}.events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision`,
      [streamId, options.fromRevision ?? 0],
    );
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    this.assertOpen();
    const { rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM ${this.s}.events WHERE position > $1 ORDER BY position LIMIT $2`, [
      options.fromPosition,
      options.maxCount,
    ]);
    return rows.map(toRecorded);
  }

  /** Events of the given types, and the head as of the same snapshot: how far the read covered. */
  async readTypes(options: ReadAllOptions & { types: readonly string[] }): Promise<ReadTypesResult> {
    this.assertOpen();
    return inTransaction(
      this.pool,
      async (client) => {
        const { rows } = await client.query<Row>(
          `SELECT ${COLUMNS} FROM ${this.s}.events WHERE position > $1 AND type = ANY($2::text[]) ORDER BY position LIMIT $3`,
          [options.fromPosition, [...options.types], options.maxCount],
        );
        const events = rows.map(toRecorded);
        const last = events.length > 0 ? events[events.length - 1].position : options.fromPosition;
        // A full page covers up to its last event; a shorter one reached the head.
        if (events.length === options.maxCount) return { events, position: last };
        const head = await client.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${this.s}.events`);
        return { events, position: Math.max(last, Number(head.rows[0]?.p ?? 0)) };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  /** The events as stored: the data's text as the append wrote it; with `types`, as readTypes (one snapshot). */
  async readStored(options: ReadAllOptions & { types?: readonly string[] }): Promise<StoredEventsResult> {
    this.assertOpen();
    const { types } = options;
    if (!types) {
      const { rows } = await this.pool.query<StoredRow>(
        `SELECT ${STORED_COLUMNS} FROM ${this.s}.events WHERE position > $1 ORDER BY position LIMIT $2`,
        [options.fromPosition, options.maxCount],
      );
      const events = rows.map(toStored);
      return { events, position: events.at(-1)?.position ?? options.fromPosition };
    }
    return inTransaction(
      this.pool,
      async (client) => {
        const { rows } = await client.query<StoredRow>(
          `SELECT ${STORED_COLUMNS} FROM ${this.s}.events WHERE position > $1 AND type = ANY($2::text[]) ORDER BY position LIMIT $3`,
          [options.fromPosition, [...types], options.maxCount],
        );
        const events = rows.map(toStored);
        const last = events.at(-1)?.position ?? options.fromPosition;
        // A full page covers up to its last event; a shorter one reached the head.
        if (events.length === options.maxCount) return { events, position: last };
        const head = await client.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${this.s}.events`);
        return { events, position: Math.max(last, Number(head.rows[0]?.p ?? 0)) };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    const { rows } = await this.pool.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${this.s}.events`);
    return Number(rows[0]?.p ?? 0);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const batchSize = options.batchSize ?? 1000;
    let position = options.fromPosition;
    let stopped = false;
    let wake: (() => void) | null = null;
    const waitForMore = () =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          wake = null;
          resolve();
        };
        const timer = setTimeout(done, this.pollMs);
        wake = done;
        this.waiters.add(done);
      });
    const stop = async () => {
      stopped = true;
      wake?.();
    };
    const self = this;
    return {
      unsubscribe: stop,
      [Symbol.asyncIterator]() {
        return {
          async next(): Promise<IteratorResult<RecordedEvent[]>> {
            while (!stopped && !self.closed) {
              let batch: RecordedEvent[] = [];
              try {
                batch = await self.readAll({ fromPosition: position, maxCount: batchSize });
              } catch {
                // PostgreSQL unreachable for now: try again after the poll interval.
              }
              if (batch.length > 0) {
                position = batch[batch.length - 1].position;
                return { value: batch, done: false };
              }
              await waitForMore();
            }
            await stop();
            return { value: undefined, done: true };
          },
          async return(): Promise<IteratorResult<RecordedEvent[]>> {
            await stop();
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Appends already asked for are committed first (they were accepted before the close).
    if (this.flushing) await this.flushing;
    this.closed = true;
    if (this.relistenTimer) clearTimeout(this.relistenTimer);
    this.wakeAll();
    await this.listener?.end().catch(() => {});
    if (this.source.owned) await this.pool.end();
  }

  private assertOpen() {
    if (this.closed) throw new Error('event log is closed');
  }
}
