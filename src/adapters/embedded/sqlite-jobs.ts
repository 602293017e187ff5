/**
 * Embedded JobQueue on SQLite (better-sqlite3). One table `jobs` in a database the caller owns (it can
 * share the file with other tables); the caller opens and closes the Database, close() here only stops
 * the worker loop.
 *
 * - add() is INSERT OR IGNORE on the job id: a duplicated id has no effect, whatever the first job's state.
 * - Jobs survive a restart; jobs left 'active' by a crash go back to 'waiting' when a queue registers its
 *   first processor. An interrupted attempt counts as used, except that a job always keeps at least one
 *   more try. Consequence: run one worker process per database file (a second worker starting up would
 *   hand the first one's running jobs out again); queues that only add jobs may be many.
 * - A job is claimed by one UPDATE ... RETURNING statement, so two queues on one file never run the
 *   same job twice concurrently.
 * - Failures retry with the port's exponential backoff (retryDelayMs) in state 'delayed', then end
 *   'failed' with last_error (the error message only). Defaults and option checks: src/ports/jobs.ts.
 * - A try that failed for want of room (a full disk: `storage`) gives its attempt back and is tried again
 *   STORAGE_FULL_RETRY_MS later (`storageFullRetryMs`), logged by the storage's record, not per try. An
 *   outcome that cannot be written (the same full disk) is kept in memory and written again on every look at
 *   the table; until then the job stays 'active', so it runs once. While the data folder has no room, add()
 *   is refused before it writes.
 * - A try that throws JobDeferred gives its attempt back too, and runs again after the delay it names; one that
 *   throws JobFailedForGood ends the job 'failed' at once, marked `failed_for_good`: not parked (parked() and
 *   parkedCounts() leave it out). Neither is logged here (the processor did).
 * - retry() puts a 'failed' job back to 'waiting' with no tries made and no progress, from any process on the
 *   file: the worker's loop finds it on its next look at the table.
 * - Job data is never logged (it may hold personal data): logs carry id, name, attempt and error message.
 * - The poll timer is unref'd: the queue does not by itself keep the process alive (the HTTP server, a
 *   running job or a pending whenIdle() does).
 */
import type Database from 'better-sqlite3';
import type {
  ClosedQueue,
  Job,
  JobOptions,
  JobProcessor,
  JobQueue,
  JobQueueLogger,
  JobRecord,
  JobState,
  ParkedJob,
} from '../../ports/jobs.ts';
import {
  JobDeferred,
  JobFailedForGood,
  JOB_DEFAULTS,
  jobErrorMessage as errorMessage,
  jobSettings,
  positiveInt,
  retryDelayMs,
  silentJobLogger,
  STORAGE_FULL_RETRY_MS,
} from '../../ports/jobs.ts';
import type { DataFolderRoom, StorageFaults } from '../../storage-room.ts';

export interface SqliteJobQueueOptions {
  db: Database.Database;
  /** Longest wait between two looks at the table when nothing wakes the loop (default 200 ms). */
  pollMs?: number;
  /** Jobs run at once by this queue (default JOB_DEFAULTS.concurrency). */
  concurrency?: number;
  logger?: JobQueueLogger;
  /** The process's record of a full storage: told of writes that failed for want of room, asked before an add. */
  storage?: StorageFaults & DataFolderRoom;
  /** Wait before a try that failed for want of room runs again (default STORAGE_FULL_RETRY_MS). */
  storageFullRetryMs?: number;
}

const QUEUE = 'SqliteJobQueue';
const DRAIN_CHECK_MS = 10;

interface ListedRow {
  id: string;
  name: string;
  state: JobState;
  data: string;
  attempts_made: number;
  progress: string | null;
  last_error: string | null;
  failed_for_good: number;
  created_at: number;
  run_at: number;
  finished_at: number | null;
}

interface ClaimedRow {
  id: string;
  name: string;
  data: string;
  attempts_made: number;
  max_attempts: number;
  backoff_ms: number;
  progress: string | null;
}

export class SqliteJobQueue implements JobQueue {
  private readonly db: Database.Database;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly logger: JobQueueLogger;
  private readonly processors = new Map<string, JobProcessor>();
  /** Running jobs, with their `name id`. */
  private readonly running = new Map<Promise<void>, string>();
  private closed = false;
  private closing: Promise<ClosedQueue> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private wakeScheduled = false;
  private readonly storage: (StorageFaults & DataFolderRoom) | null;
  private readonly storageFullRetryMs: number;
  /** Outcomes of finished tries not yet written (the disk was full), by job id: written again on every tick. */
  private readonly unwritten = new Map<string, () => void>();

  private readonly insertStmt: Database.Statement<unknown[], unknown>;
  private readonly stateStmt: Database.Statement<[string], { state: JobState }>;
  private readonly claimStmt: Database.Statement<[number, string], ClaimedRow>;
  private readonly nextRunStmt: Database.Statement<[string], { next: number | null }>;
  private readonly pendingStmt: Database.Statement<[number, string], { n: number }>;
  private readonly unfinishedStmt: Database.Statement<[string], { n: number }>;
  private readonly completeStmt: Database.Statement<[number, string], unknown>;
  private readonly retryStmt: Database.Statement<[number, string, string], unknown>;
  private readonly giveBackStmt: Database.Statement<[number, string, string], unknown>;
  private readonly failStmt: Database.Statement<[string, number, string], unknown>;
  private readonly failForGoodStmt: Database.Statement<[string, number, string], unknown>;
  private readonly progressStmt: Database.Statement<[string, string], unknown>;
  private readonly listStmt: Database.Statement<[string, string, number], ListedRow>;
  private readonly retryFailedStmt: Database.Statement<[number, string, string], unknown>;

  constructor(options: SqliteJobQueueOptions) {
    this.db = options.db;
    this.pollMs = positiveInt(QUEUE, options.pollMs ?? 200, 'pollMs');
    this.concurrency = positiveInt(QUEUE, options.concurrency ?? JOB_DEFAULTS.concurrency, 'concurrency');
    this.logger = options.logger ?? silentJobLogger;
    this.storage = options.storage ?? null;
    this.storageFullRetryMs = options.storageFullRetryMs ?? STORAGE_FULL_RETRY_MS;

    this.db.exec(`
      CREATE TABLE IF NOT EXISTS jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts_made INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        backoff_ms INTEGER NOT NULL,
        run_at INTEGER NOT NULL,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER,
        progress TEXT,
        failed_for_good INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX IF NOT EXISTS jobs_state_run_at ON jobs (state, run_at);
    `);
    // A queue file made before jobs kept their progress gains the column.
    const columns = this.db.prepare(`SELECT name FROM pragma_table_info('jobs')`).all() as Array<{ name: string }>;
    if (!columns.some((c) => c.name === 'progress')) this.db.exec(`ALTER TABLE jobs ADD COLUMN progress TEXT`);
    // And one made before a processor could end a job on purpose (JobFailedForGood): its failed jobs are parked.
    if (!columns.some((c) => c.name === 'failed_for_good'))
      this.db.exec(`ALTER TABLE jobs ADD COLUMN failed_for_good INTEGER NOT NULL DEFAULT 0`);

    this.insertStmt = this.db.prepare(
      `INSERT OR IGNORE INTO jobs (id, name, data, state, attempts_made, max_attempts, backoff_ms, run_at, created_at)
       VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)`,
    );
    this.stateStmt = this.db.prepare(`SELECT state FROM jobs WHERE id = ?`);
    this.claimStmt = this.db.prepare(
      `UPDATE jobs SET state = 'active', attempts_made = attempts_made + 1
       WHERE id = (
         SELECT id FROM jobs
         WHERE state IN ('waiting', 'delayed') AND run_at <= ?
           AND name IN (SELECT value FROM json_each(?))
         ORDER BY run_at, rowid
         LIMIT 1)
       RETURNING id, name, data, attempts_made, max_attempts, backoff_ms, progress`,
    );
    this.nextRunStmt = this.db.prepare(
      `SELECT MIN(run_at) AS next FROM jobs
       WHERE state IN ('waiting', 'delayed') AND name IN (SELECT value FROM json_each(?))`,
    );
    this.pendingStmt = this.db.prepare(
      `SELECT COUNT(*) AS n FROM jobs
       WHERE (state IN ('waiting', 'active') OR (state = 'delayed' AND run_at <= ?)) AND name IN (SELECT value FROM json_each(?))`,
    );
    this.unfinishedStmt = this.db.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE name = ? AND state IN ('waiting', 'delayed', 'active')`);
    this.completeStmt = this.db.prepare(`UPDATE jobs SET state = 'completed', finished_at = ?, last_error = NULL WHERE id = ?`);
    this.retryStmt = this.db.prepare(`UPDATE jobs SET state = 'delayed', run_at = ?, last_error = ? WHERE id = ?`);
    this.giveBackStmt = this.db.prepare(
      `UPDATE jobs SET state = 'delayed', run_at = ?, last_error = ?, attempts_made = attempts_made - 1 WHERE id = ?`,
    );
    this.failStmt = this.db.prepare(`UPDATE jobs SET state = 'failed', last_error = ?, finished_at = ? WHERE id = ?`);
    this.failForGoodStmt = this.db.prepare(
      `UPDATE jobs SET state = 'failed', failed_for_good = 1, last_error = ?, finished_at = ? WHERE id = ?`,
    );
    this.progressStmt = this.db.prepare(`UPDATE jobs SET progress = ? WHERE id = ?`);
    this.listStmt = this.db.prepare(
      `SELECT id, name, state, data, attempts_made, progress, last_error, failed_for_good, created_at, run_at, finished_at FROM jobs
       WHERE name = ? AND state IN (SELECT value FROM json_each(?)) ORDER BY rowid DESC LIMIT ?`,
    );
    this.retryFailedStmt = this.db.prepare(
      `UPDATE jobs SET state = 'waiting', attempts_made = 0, run_at = ?, progress = NULL, finished_at = NULL, failed_for_good = 0
       WHERE name = ? AND id = ? AND state = 'failed'`,
    );
  }

  async add(name: string, data: unknown, options: JobOptions): Promise<{ id: string; added: boolean }> {
    if (this.closed) throw new Error('SqliteJobQueue: add() after close()');
    const { jobId: id, attempts, backoffMs, delayMs } = jobSettings(QUEUE, name, options);
    this.storage?.assertRoom();
    const now = Date.now();
    const json = JSON.stringify(data === undefined ? null : data);
    const state = delayMs > 0 ? 'delayed' : 'waiting';
    const result = this.insertStmt.run(id, name, json, state, attempts, Math.round(backoffMs), now + Math.round(delayMs), now);
    const added = result.changes > 0;
    if (added && this.processors.has(name)) this.wake();
    return { id, added };
  }

  process(name: string, processor: JobProcessor): void {
    if (this.closed) throw new Error('SqliteJobQueue: process() after close()');
    if (this.processors.has(name)) throw new Error(`SqliteJobQueue: a processor is already registered for "${name}"`);
    if (this.processors.size === 0) this.recoverCrashed();
    this.processors.set(name, processor);
    this.wake();
  }

  /**
   * Crash recovery, when this queue starts working: jobs left 'active' were being run by the last worker,
   * which is gone (one worker per file). A queue that only adds jobs (an `api` process) leaves them alone.
   */
  private recoverCrashed(): void {
    this.db
      .prepare(
        `UPDATE jobs SET state = 'waiting', attempts_made = MIN(attempts_made, max_attempts - 1)
         WHERE state = 'active'`,
      )
      .run();
  }

  async getState(jobId: string): Promise<JobState | null> {
    return this.stateStmt.get(jobId)?.state ?? null;
  }

  async parked(limit = 1000): Promise<ParkedJob[]> {
    const rows = this.db
      .prepare(
        `SELECT id, name, attempts_made, last_error, finished_at FROM jobs WHERE state = 'failed' AND failed_for_good = 0 ORDER BY finished_at, rowid LIMIT ?`,
      )
      .all(limit) as Array<{ id: string; name: string; attempts_made: number; last_error: string | null; finished_at: number | null }>;
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      attempts: row.attempts_made,
      error: row.last_error ?? '',
      failedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
    }));
  }

  async parkedCounts(): Promise<Record<string, number>> {
    const rows = this.db
      .prepare(`SELECT name, count(*) AS n FROM jobs WHERE state = 'failed' AND failed_for_good = 0 GROUP BY name ORDER BY name`)
      .all() as Array<{
      name: string;
      n: number;
    }>;
    return Object.fromEntries(rows.map((row) => [row.name, row.n]));
  }

  async retryParked(name: string, jobId: string): Promise<boolean> {
    const { changes } = this.db
      .prepare(
        `UPDATE jobs SET state = 'waiting', attempts_made = 0, run_at = ?, finished_at = NULL WHERE id = ? AND name = ? AND state = 'failed' AND failed_for_good = 0`,
      )
      .run(Date.now(), jobId, name);
    if (changes > 0 && this.processors.has(name)) this.wake();
    return changes > 0;
  }

  async removeParked(name: string, jobId: string): Promise<boolean> {
    return (
      this.db.prepare(`DELETE FROM jobs WHERE id = ? AND name = ? AND state = 'failed' AND failed_for_good = 0`).run(jobId, name).changes >
      0
    );
  }

  async unfinished(name: string): Promise<number> {
    return this.unfinishedStmt.get(name)?.n ?? 0;
  }

  async list(name: string, states: readonly JobState[], limit = 1000): Promise<JobRecord[]> {
    return this.listStmt.all(name, JSON.stringify(states), positiveInt(QUEUE, limit, 'limit')).map((row) => ({
      id: row.id,
      name: row.name,
      state: row.state,
      data: JSON.parse(row.data) as unknown,
      attemptsMade: row.attempts_made,
      progress: row.progress === null ? null : (JSON.parse(row.progress) as unknown),
      error: row.last_error,
      failedForGood: row.failed_for_good === 1,
      createdAt: new Date(row.created_at),
      at: new Date(row.state === 'completed' || row.state === 'failed' ? (row.finished_at ?? row.run_at) : row.run_at),
    }));
  }

  async retry(name: string, jobId: string): Promise<boolean> {
    this.storage?.assertRoom();
    const changed = this.retryFailedStmt.run(Date.now(), name, jobId).changes > 0;
    if (changed && this.processors.has(name)) this.wake();
    return changed;
  }

  /**
   * Resolves when no job of a registered name is waiting or active, and none is delayed (a retry, or a job
   * added with delayMs) to a time before the deadline; rejects after timeoutMs.
   */
  async whenIdle(timeoutMs: number = JOB_DEFAULTS.idleTimeoutMs): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pending = this.pendingCount(deadline);
      if (pending === 0 && this.running.size === 0) return;
      if (this.closed && this.running.size === 0) {
        throw new Error(`SqliteJobQueue: whenIdle() on a closed queue with ${pending} job(s) pending`);
      }
      if (Date.now() >= deadline) {
        throw new Error(`SqliteJobQueue: whenIdle() timed out after ${timeoutMs} ms with ${pending} job(s) pending`);
      }
      this.wake();
      await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_CHECK_MS, Math.max(1, deadline - Date.now()))));
    }
  }

  close(graceMs?: number): Promise<ClosedQueue> {
    this.closing ??= this.stop(graceMs);
    return this.closing;
  }

  private async stop(graceMs: number | undefined): Promise<ClosedQueue> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + (graceMs ?? 0);
    while (this.running.size > 0 && (graceMs === undefined || Date.now() < deadline)) {
      const settled = Promise.allSettled([...this.running.keys()]);
      if (graceMs === undefined) await settled;
      else await raceTimeout(settled, deadline - Date.now());
    }
    // Left 'active': the next queue on this file hands them out again (constructor).
    return { abandoned: [...this.running.values()] };
  }

  // ---- worker loop ----

  private names(): string {
    return JSON.stringify([...this.processors.keys()]);
  }

  private pendingCount(dueBy: number): number {
    if (this.processors.size === 0) return 0;
    return this.pendingStmt.get(dueBy, this.names())?.n ?? 0;
  }

  /** Runs the loop soon (next macrotask), coalescing many wake-ups into one tick. */
  private wake(): void {
    if (this.closed || this.wakeScheduled || this.processors.size === 0) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.tick();
    });
  }

  private tick(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    let delay = this.pollMs;
    try {
      if (!this.db.open) {
        this.logger.error({}, 'job queue: database is closed, worker loop stopped');
        this.closed = true;
        return;
      }
      this.writeOutcomes();
      const names = this.names();
      while (this.running.size < this.concurrency) {
        const row = this.claimStmt.get(Date.now(), names);
        if (!row) break;
        this.start(row);
      }
      if (this.running.size < this.concurrency) {
        const next = this.nextRunStmt.get(names)?.next;
        if (next != null) delay = Math.max(1, Math.min(this.pollMs, next - Date.now()));
      }
    } catch (err) {
      if (!this.storage?.refused(err, 'job')) this.logger.error({ err: errorMessage(err) }, 'job queue: worker loop error');
    }
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref();
  }

  private start(row: ClaimedRow): void {
    const run = this.runJob(row).finally(() => {
      this.running.delete(run);
      this.wake();
    });
    this.running.set(run, `${row.name} ${row.id}`);
  }

  private async runJob(row: ClaimedRow): Promise<void> {
    const processor = this.processors.get(row.name);
    const meta = { jobId: row.id, name: row.name, attempt: row.attempts_made, maxAttempts: row.max_attempts };
    try {
      if (!processor) throw new Error(`no processor for job name "${row.name}"`);
      const job: Job = {
        id: row.id,
        name: row.name,
        data: JSON.parse(row.data),
        attemptsMade: row.attempts_made,
        progress: row.progress === null ? null : JSON.parse(row.progress),
        saveProgress: async (value) => void this.progressStmt.run(JSON.stringify(value ?? null), row.id),
      };
      await processor(job);
    } catch (err) {
      this.recordFailure(row, meta, err);
      return;
    }
    this.writeOutcome(row.id, meta, () => this.completeStmt.run(Date.now(), row.id));
  }

  private recordFailure(row: ClaimedRow, meta: object, error: unknown): void {
    const message = errorMessage(error);
    if (this.storage?.refused(error, 'job')) {
      // No room to write what the job does: the fault is the machine's, so the try is not counted.
      this.writeOutcome(row.id, meta, () => this.giveBackStmt.run(Date.now() + this.storageFullRetryMs, message, row.id));
    } else if (error instanceof JobDeferred) {
      const delayMs = Math.max(0, Math.round(error.delayMs));
      this.writeOutcome(row.id, meta, () => this.giveBackStmt.run(Date.now() + delayMs, message, row.id));
    } else if (error instanceof JobFailedForGood) {
      this.writeOutcome(row.id, meta, () => this.failForGoodStmt.run(message, Date.now(), row.id));
    } else if (row.attempts_made < row.max_attempts) {
      const delayMs = retryDelayMs(row.backoff_ms, row.attempts_made);
      this.writeOutcome(row.id, meta, () => this.retryStmt.run(Date.now() + delayMs, message, row.id));
      this.logger.warn({ ...meta, delayMs, err: message }, 'job failed, will retry');
    } else {
      this.writeOutcome(row.id, meta, () => this.failStmt.run(message, Date.now(), row.id));
      this.logger.error({ ...meta, err: message }, 'job parked: its tries are spent (npm run parked)');
    }
  }

  /** Writes a try's outcome; one that cannot be written now is kept and written again by the next ticks. */
  private writeOutcome(id: string, meta: object, write: () => void): void {
    try {
      write();
    } catch (err) {
      this.unwritten.set(id, write);
      if (!this.storage?.refused(err, 'job'))
        this.logger.error({ ...meta, err: errorMessage(err) }, 'job queue: could not record the outcome of a job');
    }
  }

  /** The outcomes kept by writeOutcome, in the order they came; stops at the first that still fails. */
  private writeOutcomes(): void {
    for (const [id, write] of this.unwritten) {
      write();
      this.unwritten.delete(id);
    }
  }
}

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function raceTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
