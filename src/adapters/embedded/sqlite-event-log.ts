import type Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
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
import type { DataFolderRoom } from '../../storage-room.ts';
import { pollingSubscription } from '../../events/polling-subscription.ts';
import {
  BUSY_TIMEOUT_MS,
  fromRaw,
  fromStored,
  openEventsDatabase,
  prepareEventStatements,
  toRecorded,
  type EventStatements,
} from './sqlite-event-statements.ts';

/** An append asked for and not yet committed. */
interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  /** An append decided under the write lock (appendDecided): its events are decide's answer to the stream's newer ones. */
  decided?: { fromRevision: number; decide: (newer: RecordedEvent[]) => NewEvent[] };
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** What one append wrote: its result, and its events as stored (for the in-memory tail once committed). */
interface AppendOutcome {
  result: AppendResult;
  recorded: RecordedEvent[];
}

const TAIL_SIZE = 10_000;
/** How soon a group commit that found the write lock taken (another process appending) tries again. */
const LOCKED_RETRY_MS = 1;
/** How often the log looks for appends made by other processes (a header read, no I/O). */
const WATCH_MS = 5;

/** SQLite's "database is locked" (another connection holds the lock asked for). */
function isBusy(error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');
}

/**
 * A group of appends in one IMMEDIATE transaction, each append in a savepoint of its own. BEGIN IMMEDIATE fails at
 * once while another process holds the write lock (busy_timeout 0 around it), instead of SQLite's busy handler
 * sleeping on this process's event loop until the lock is free; `blocking` (at close) waits as that did.
 */
function groupAppender(
  db: Database.Database,
  appendOne: (append: PendingAppend) => AppendOutcome,
): (group: PendingAppend[], blocking: boolean) => Array<AppendOutcome | Error> {
  const group = db.transaction((appends: PendingAppend[]) =>
    appends.map((append) => {
      try {
        return appendOne(append);
      } catch (error) {
        // SQLite ended the whole transaction (SQLITE_FULL, SQLITE_IOERR may): the group fails as one. Going on
        // would commit the appends after this one each on its own, outside the group, then fail its COMMIT.
        if (!db.inTransaction) throw error;
        // Rolled back to its savepoint: this append fails alone, the others of the group go on.
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
  const busyTimeout = (ms: number) => db.prepare(`PRAGMA busy_timeout = ${ms}`).pluck();
  const [noWait, wait] = [busyTimeout(0), busyTimeout(BUSY_TIMEOUT_MS)];
  return (appends, blocking) => {
    if (blocking) return group.immediate(appends);
    noWait.get();
    try {
      return group.immediate(appends);
    } finally {
      wait.get();
    }
  };
}

/**
 * The embedded event log: one SQLite file in WAL mode. `position` is the rowid, so $all is read in
 * append order with an index seek; (stream_id, revision) is unique, so a stale expected revision can never
 * be written, even by a second process sharing the file. An append is one IMMEDIATE transaction.
 */
export class SqliteEventLog implements EventLog {
  private readonly db: Database.Database;
  private readonly emitter = new EventEmitter();
  private readonly statements: EventStatements;
  /** One append, checked and written; inside the group's transaction it runs as a savepoint of its own. */
  private readonly appendOne: (append: PendingAppend) => AppendOutcome;
  /** A group of appends in one IMMEDIATE transaction (group commit). */
  private readonly appendGroup: (group: PendingAppend[], blocking: boolean) => Array<AppendOutcome | Error>;
  /** Since when the group waiting to be committed has found the write lock taken (null: it has not). */
  private lockedSince: number | null = null;
  private readonly readTypesTransaction: (fromPosition: number, types: string, maxCount: number) => ReadTypesResult;
  private readonly readStoredTypesTransaction: (fromPosition: number, types: string, maxCount: number) => StoredEventsResult;
  /** Appends waiting for the next group commit (at the end of this turn of the event loop). */
  private queued: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  /** The most recent events appended by this process, by position (immutable, shared with readers). */
  private readonly tail = new Map<number, RecordedEvent>();
  /** Highest position appended by this process. */
  private lastAppended = 0;
  /** Other processes' appends are seen by polling at this interval when nothing is pending in-process. */
  private readonly pollMs: number;
  private dataVersion: number;
  private readonly watcher: NodeJS.Timeout;
  /** Asked before each group commit: while the data folder has no room, the group is refused without a try. */
  private readonly room: DataFolderRoom | null;

  constructor(file: string, options: { pollMs?: number; room?: DataFolderRoom; mmapBytes?: number } = {}) {
    this.room = options.room ?? null;
    this.db = openEventsDatabase(file, options.mmapBytes);
    this.pollMs = options.pollMs ?? 250;
    this.emitter.setMaxListeners(0);
    this.statements = prepareEventStatements(this.db);
    this.dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    this.watcher = this.watchOtherProcesses();
    this.readTypesTransaction = this.db.transaction(this.readTypesSnapshot);
    this.readStoredTypesTransaction = this.db.transaction(this.readStoredTypesSnapshot);
    this.appendOne = this.db.transaction(this.appendTx);
    this.appendGroup = groupAppender(this.db, this.appendOne);
  }

  /**
   * Appends of other processes (several `api` beside one `projector`) are noticed within WATCH_MS: SQLite's
   * data_version moves when another connection commits, and reading it costs no I/O.
   */
  private watchOtherProcesses(): NodeJS.Timeout {
    const dataVersion = this.db.prepare('PRAGMA data_version').pluck();
    const watcher = setInterval(() => {
      if (this.closed) return;
      const version = dataVersion.get() as number;
      if (version !== this.dataVersion) {
        this.dataVersion = version;
        this.emitter.emit('external');
      }
    }, WATCH_MS);
    watcher.unref();
    return watcher;
  }

  private readonly appendTx = ({ streamId, events: asked, expected, decided }: PendingAppend): AppendOutcome => {
    const head = this.statements.streamHead.get(streamId);
    const current = head ? head.revision : -1;
    let events = asked;
    if (decided) {
      // Under the write lock: the stream cannot move between this read and the inserts below.
      if (current < decided.fromRevision - 1)
        throw new WrongExpectedVersionError(streamId, decided.fromRevision - 1, current === -1 ? 'no_stream' : current);
      const newer = current >= decided.fromRevision ? this.statements.readStream.all(streamId, decided.fromRevision).map(toRecorded) : [];
      events = decided.decide(newer);
    } else {
      const ok =
        expected === 'any' ||
        (expected === 'no_stream' && current === -1) ||
        (expected === 'stream_exists' && current >= 0) ||
        (typeof expected === 'number' && expected === current);
      if (!ok) throw new WrongExpectedVersionError(streamId, expected, current === -1 ? 'no_stream' : current);
    }
    const created = new Date().toISOString();
    let revision = current;
    let position = 0;
    const recorded: RecordedEvent[] = [];
    for (const event of events) {
      revision += 1;
      const data = JSON.stringify(event.data);
      const metadata = JSON.stringify(event.metadata);
      const info = this.statements.insert.run(streamId, revision, event.type, event.version, data, metadata, created);
      position = Number(info.lastInsertRowid);
      // A copy of what was stored (not the caller's objects), as a reader of the file would get it.
      recorded.push({
        type: event.type,
        version: event.version,
        data: JSON.parse(data),
        metadata: JSON.parse(metadata),
        streamId,
        revision,
        position,
        created,
      });
    }
    if (events.length === 0) position = this.statements.head.get()?.p ?? 0;
    return { result: { nextExpectedRevision: revision, position }, recorded };
  };

  /**
   * Appends are committed in groups: every append asked for during one turn of the event loop (concurrent
   * requests) is written in one IMMEDIATE transaction at the end of that turn, each checked against its own
   * expected revision in a savepoint of its own, so a stale revision fails only its own append. Each append
   * answers once the group is committed, exactly as durable as an append of its own (synchronous = NORMAL
   * in WAL mode); appends to the same stream in one group see each other, in the order asked.
   */
  appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    this.assertOpen();
    return new Promise<AppendResult>((resolve, reject) => {
      this.queued.push({ streamId, events, expected: options.expectedRevision ?? 'any', resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.commitGroup);
      }
    });
  }

  /**
   * An append decided in the group's IMMEDIATE transaction (see EventLog.appendDecided): `decide` runs there,
   * on the stream's events from `fromRevision` on, so another process's append can never come in between.
   */
  appendDecided(streamId: string, fromRevision: number, decide: (newer: RecordedEvent[]) => NewEvent[]): Promise<AppendResult> {
    this.assertOpen();
    return new Promise<AppendResult>((resolve, reject) => {
      this.queued.push({ streamId, events: [], expected: 'any', decided: { fromRevision, decide }, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.commitGroup);
      }
    });
  }

  /**
   * Commits the queued appends as one group. While another process holds the write lock, the group is tried again
   * LOCKED_RETRY_MS later (appends asked for meanwhile join it) and the event loop goes on serving, for up to
   * BUSY_TIMEOUT_MS, as long as SQLite's busy handler would have slept; `blocking` (at close) waits as that did.
   */
  private readonly commitGroup = (blocking = false) => {
    this.flushScheduled = false;
    const group = this.queued;
    this.queued = [];
    if (group.length === 0) return;
    if (this.closed) {
      for (const append of group) append.reject(new Error('event log is closed'));
      return;
    }
    let outcomes: Array<AppendOutcome | Error>;
    try {
      this.room?.assertRoom();
      outcomes = this.appendGroup(group, blocking);
    } catch (error) {
      const now = Date.now();
      if (!blocking && isBusy(error) && now - (this.lockedSince ??= now) < BUSY_TIMEOUT_MS) {
        // Nothing of it ran (BEGIN IMMEDIATE found the lock taken): it goes first, the next try soon.
        this.queued = group.concat(this.queued);
        this.flushScheduled = true;
        setTimeout(this.commitGroup, LOCKED_RETRY_MS);
        return;
      }
      this.lockedSince = null;
      // The group's transaction itself failed (the file, the lock, no room: a failed COMMIT is rolled back) or was
      // refused before it began: nothing of it was written, and every append of it is answered.
      for (const append of group) append.reject(error);
      return;
    }
    this.lockedSince = null;
    // Committed: the events join the in-memory tail, so subscribers following the log live read them
    // from memory instead of parsing them back from the file once per projection.
    let last = 0;
    group.forEach((append, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) {
        // Two writers raced past the check (another process): the unique (stream, revision) key decides.
        append.reject(
          /UNIQUE constraint failed/.test(outcome.message)
            ? new WrongExpectedVersionError(append.streamId, append.expected, 'no_stream')
            : outcome,
        );
        return;
      }
      for (const event of outcome.recorded) this.tail.set(event.position, event);
      if (outcome.recorded.length > 0) last = outcome.result.position;
    });
    if (last > 0) this.lastAppended = last;
    while (this.tail.size > TAIL_SIZE) this.tail.delete(this.tail.keys().next().value as number);
    for (let i = 0; i < group.length; i++) {
      const outcome = outcomes[i];
      if (!(outcome instanceof Error)) group[i].resolve(outcome.result);
    }
    if (last > 0) this.emitter.emit('appended', last);
  };

  async readStream(streamId: string, options: { fromRevision?: number } = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    return this.statements.readStream.all(streamId, options.fromRevision ?? 0).map(toRecorded);
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    this.assertOpen();
    const fromTail = this.fromTail(options.fromPosition, options.maxCount);
    if (fromTail.length > 0) return fromTail;
    return this.statements.readAll.all(options.fromPosition, options.maxCount).map(toRecorded);
  }

  /** Events of the given types, and the head as of the same read (one snapshot): how far the read covered. */
  private readonly readTypesSnapshot = (fromPosition: number, types: string, maxCount: number): ReadTypesResult => {
    const rows = this.statements.readTypes.all(fromPosition, types, maxCount);
    return { events: rows.map(fromRaw), position: this.covered(rows, fromPosition, maxCount) };
  };

  /** How far a read of some types covered (inside its snapshot): a full page up to its last event; a shorter one reached the head. */
  private covered(rows: ReadonlyArray<readonly [number, ...unknown[]]>, fromPosition: number, maxCount: number): number {
    const last = rows.length > 0 ? rows[rows.length - 1][0] : fromPosition;
    return rows.length < maxCount ? Math.max(last, this.statements.head.get()?.p ?? 0) : last;
  }

  private readonly readStoredTypesSnapshot = (fromPosition: number, types: string, maxCount: number): StoredEventsResult => {
    const rows = this.statements.storedTypes.all(fromPosition, types, maxCount);
    return { events: rows.map(fromStored), position: this.covered(rows, fromPosition, maxCount) };
  };

  async readTypes(options: ReadAllOptions & { types: readonly string[] }): Promise<ReadTypesResult> {
    this.assertOpen();
    return this.readTypesTransaction(options.fromPosition, JSON.stringify(options.types), options.maxCount);
  }

  /** The events as stored, from the file (the in-memory tail holds them parsed). */
  async readStored(options: ReadAllOptions & { types?: readonly string[] }): Promise<StoredEventsResult> {
    this.assertOpen();
    if (options.types) return this.readStoredTypesTransaction(options.fromPosition, JSON.stringify(options.types), options.maxCount);
    const events = this.statements.storedAll.all(options.fromPosition, options.maxCount).map(fromStored);
    return { events, position: events.at(-1)?.position ?? options.fromPosition };
  }

  /**
   * The events after a position from the in-memory tail, while it holds the very next positions (another
   * process's appends are not in it, so a missing position means: read the file).
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
    return this.statements.head.get()?.p ?? 0;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    // Woken by this process's append, the next events are in the in-memory tail; only a poll (another
    // process may have appended) or a gap in the tail sends the read to the file.
    let readFile = true;
    return pollingSubscription({
      fromPosition: options.fromPosition,
      batchSize: options.batchSize ?? 1000,
      pollMs: this.pollMs,
      isClosed: () => this.closed,
      listen: (wake) => {
        const onExternal = () => {
          readFile = true;
          wake();
        };
        this.emitter.on('appended', wake);
        this.emitter.on('external', onExternal);
        this.emitter.on('closed', wake);
        return () => {
          this.emitter.off('appended', wake);
          this.emitter.off('external', onExternal);
          this.emitter.off('closed', wake);
        };
      },
      reads: {
        read: async (position, maxCount) => {
          let events = this.fromTail(position, maxCount);
          if (events.length === 0 && (readFile || this.lastAppended > position)) {
            events = await this.readAll({ fromPosition: position, maxCount });
            if (events.length === 0) readFile = false;
          }
          return { events };
        },
        polled: () => {
          readFile = true;
        },
      },
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Appends already asked for are committed first (they were accepted before the close).
    if (this.queued.length > 0) this.commitGroup(true);
    this.closed = true;
    clearInterval(this.watcher);
    this.emitter.emit('closed');
    this.db.close();
  }

  private assertOpen() {
    if (this.closed) throw new Error('event log is closed');
  }
}
