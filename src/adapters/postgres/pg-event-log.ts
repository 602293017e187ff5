/**
 * The event log on PostgreSQL (PRODUCTION.md "PostgreSQL"). Positions are given in commit order: every append
 * transaction takes one advisory lock before it draws its positions and holds it until it commits, so a reader
 * that sees position P has seen every committed position below it, and no event can appear later behind a
 * reader that passed it (the hard part of a log on SQL: transactions otherwise commit out of position order).
 * Appends asked for together are committed in one statement of their own transaction (group commit: the SQL
 * function append_group), each against its own expected revision. Subscribers take this process's appends from
 * memory; others' they read from the table, woken by LISTEN/NOTIFY, with a poll as a fallback.
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
  StoredEventsResult,
  SubscribeOptions,
  Subscription,
} from '../../ports/event-log.ts';
import { WrongExpectedVersionError } from '../../ports/event-log.ts';
import { migrate, schemaIdent } from './migrate.ts';
import { inTransaction, poolOf, releaseError, type PoolSource } from './pool.ts';
export { EVENT_LOG_STEPS } from './pg-event-log-schema.ts';
import { EVENT_LOG_STEPS, EXPECTED_CODES, type GroupAnswer } from './pg-event-log-schema.ts';
import { COLUMNS, STORED_COLUMNS, toRecorded, toStored, type Row, type StoredRow } from './pg-event-rows.ts';
import { pollingSubscription } from '../../events/polling-subscription.ts';

/** How soon a lost listener connection is tried again (and again) while PostgreSQL is away. */
const LISTEN_RETRY_MS = 500;
/** Events of this process's appends kept parsed for its subscribers. */
const TAIL_SIZE = 10_000;

export interface PgEventLogOptions {
  /** The schema the log's tables live in (default `bidder`). */
  schema?: string;
  /** How often a subscriber looks for new events when no notification came (default 1 s). */
  pollMs?: number;
}
interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
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
  /** This process's last appended events, parsed: its subscribers read them from here instead of once per projection. */
  private readonly tail = new Map<number, RecordedEvent>();
  /** The highest position known to be committed (this process's appends, other processes' notifications). */
  private known = 0;
  /** The highest position a notification told of while this process's group was in flight (0: none). */
  private heldNotice = 0;
  /** Listener connections made again: a subscriber reads the table once after each (notifications may be lost). */
  private relistens = 0;

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
    client.on('notification', (message) => this.notified(Number(message.payload)));
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
        () => {
          this.relistens++;
          this.wakeAll();
        },
        () => this.relisten(),
      );
    }, LISTEN_RETRY_MS);
    this.relistenTimer.unref();
  }

  /**
   * A notification: another process's append, or this process's own come back. While a group of this process is in
   * flight, its notification can come before its answer; it is then held until the group is answered, so that its
   * events are taken from the tail instead of read again from the table by every subscriber.
   */
  private notified(last: number): void {
    if (this.flushing) {
      this.heldNotice = Math.max(this.heldNotice, last);
      return;
    }
    if (last > this.known) this.known = last;
    this.wakeAll();
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
      this.releaseNotice();
    }
    this.flushing = null;
    this.releaseNotice();
  }

  /** A notification held while a group was in flight, now that its answer has put its events in the tail. */
  private releaseNotice(): void {
    const last = this.heldNotice;
    if (last === 0) return;
    this.heldNotice = 0;
    if (last > this.known) {
      this.known = last;
      this.wakeAll();
    }
  }

  /**
   * The group in one statement (append_group). When the unique (stream, revision) key refuses it (a writer that
   * raced past the revision check without the lock), the group again in a transaction, append by append, so that
   * only that append fails. Committed events join the tail, and this process's subscribers are woken at once.
   */
  private async commitGroup(group: PendingAppend[]): Promise<void> {
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
      const { rows } = await this.pool.query<{ r: GroupAnswer }>(
        `SELECT ${this.s}.append_group($1::text[], $2::int[], $3::int[], $4::text[], $5::int[], $6::json[], $7::json[]) AS r`,
        [columns.streams, columns.expected, columns.counts, columns.types, columns.versions, data, metadata],
      );
      answer = rows[0].r;
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return this.commitOneByOne(group);
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
        this.tail.set(positions[at], {
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
    while (this.tail.size > TAIL_SIZE) this.tail.delete(this.tail.keys().next().value as number);
    if (positions.length > 0) this.appended(positions[positions.length - 1]);
  }

  /** The group in a transaction, append by append with a savepoint each (see commitGroup). */
  private async commitOneByOne(group: PendingAppend[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      for (const append of group) append.reject(error);
      return;
    }
    let broken: Error | undefined;
    try {
      const { outcomes, head } = await this.writeGroup(client, group);
      group.forEach((append, i) => {
        const outcome = outcomes[i];
        if (outcome instanceof Error) append.reject(outcome);
        else append.resolve(outcome.position === -1 ? { ...outcome, position: head } : outcome);
      });
      const last = outcomes.reduce((max, o) => (o instanceof Error ? max : Math.max(max, o.position)), 0);
      if (last > 0) this.appended(last);
    } catch (error) {
      broken = releaseError(error);
      if (!broken) await client.query('ROLLBACK').catch(() => {});
      for (const append of group) append.reject(error);
    } finally {
      client.release(broken);
    }
  }

  /** This process appended up to `last`: its subscribers are woken now, not when the notification comes back. */
  private appended(last: number): void {
    if (last > this.known) this.known = last;
    this.wakeAll();
  }

  /** The group in one transaction, append by append: its outcomes in order (position -1 for an append of nothing) and the head those answer. */
  private async writeGroup(
    client: pg.PoolClient,
    group: PendingAppend[],
  ): Promise<{ outcomes: Array<AppendResult | Error>; head: number }> {
    await client.query('BEGIN');
    // Positions in commit order: one appending transaction at a time draws positions, until it commits.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}.append`]);
    const outcomes = await this.appendOneByOne(client, group);
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

  /**
   * The events after a position from the tail, while it holds the very next positions (another process's appends
   * are not in it, nor positions a failed group drew: a missing one means the table is read).
   */
  private fromTail(fromPosition: number, maxCount: number): RecordedEvent[] {
    const events: RecordedEvent[] = [];
    for (let p = fromPosition + 1; events.length < maxCount; p++) {
      const event = this.tail.get(p);
      if (!event) break;
      events.push(event);
    }
    return events;
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    const { rows } = await this.pool.query<{ p: string | null }>(`SELECT max(position) AS p FROM ${this.s}.events`);
    return Number(rows[0]?.p ?? 0);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    // The table is read when a poll times out, a notification told of a position beyond, or the listener came back;
    // a wake by this process's own append finds its events in the tail.
    let readTable = true;
    let relistens = this.relistens;
    return pollingSubscription({
      fromPosition: options.fromPosition,
      batchSize: options.batchSize ?? 1000,
      pollMs: this.pollMs,
      isClosed: () => this.closed,
      listen: (wake) => {
        this.waiters.add(wake);
        return () => this.waiters.delete(wake);
      },
      reads: {
        read: async (position, maxCount) => {
          let events = this.fromTail(position, maxCount);
          if (relistens !== this.relistens) {
            relistens = this.relistens;
            readTable = true;
          }
          if (events.length === 0 && (readTable || this.known > position)) {
            try {
              events = await this.readAll({ fromPosition: position, maxCount });
              readTable = false;
            } catch {
              // PostgreSQL unreachable for now: try again after the poll interval.
              return { events: [] };
            }
          }
          // Appends that came while the table was read woke nobody: look again rather than wait.
          return { events, again: this.tail.has(position + 1) || this.known > position };
        },
        polled: () => {
          readTable = true;
        },
      },
    });
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
