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
import { migrate, schemaIdent } from './migrate.ts';
import { inTransaction, poolOf, type PoolSource } from './pool.ts';
export { EVENT_LOG_STEPS } from './pg-event-log-schema.ts';
import { EVENT_LOG_STEPS } from './pg-event-log-schema.ts';
import { COLUMNS, STORED_COLUMNS, toRecorded, toStored, type Row, type StoredRow } from './pg-event-rows.ts';
import { commitGroup, type GroupCommitTarget, type PendingAppend } from './pg-group-commit.ts';
import { pollingSubscription } from '../../events/polling-subscription.ts';

/** How soon a lost listener connection is tried again (and again) while PostgreSQL is away. */
const LISTEN_RETRY_MS = 500;

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
  /** This process's last appended events, parsed: its subscribers read them from here instead of once per projection. */
  private readonly tail = new Map<number, RecordedEvent>();
  /** The highest position known to be committed (this process's appends, other processes' notifications). */
  private known = 0;
  /** The highest position a notification told of while this process's group was in flight (0: none). */
  private heldNotice = 0;
  /** Listener connections made again: a subscriber reads the table once after each (notifications may be lost). */
  private relistens = 0;

  private readonly pool: pg.Pool;
  /** What the group commit writes to and tells. */
  private readonly target: GroupCommitTarget;

  private constructor(
    private readonly source: PoolSource,
    private readonly schema: string,
    options: PgEventLogOptions,
  ) {
    this.pool = source.pool;
    this.s = schemaIdent(schema);
    this.channel = `${schema}_events`;
    this.pollMs = options.pollMs ?? 1000;
    this.target = { pool: this.pool, s: this.s, schema, channel: this.channel, tail: this.tail, appended: (last) => this.appended(last) };
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
      await commitGroup(this.target, group);
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

  /** This process appended up to `last`: its subscribers are woken now, not when the notification comes back. */
  private appended(last: number): void {
    if (last > this.known) this.known = last;
    this.wakeAll();
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
