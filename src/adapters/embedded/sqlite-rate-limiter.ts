/**
 * Embedded RateLimiter in a SQLite file, so that several processes on one DATA_DIR (one `projector`, one
 * `worker`, any number of `api`) share their limits without Redis.
 * `new SqliteRateLimiter({ file: path.join(dataDir, 'rate-limits.sqlite') })`; `close()` closes the file.
 *
 * Same semantics as MemoryRateLimiter: a fixed window opened by a key's first hit and lasting windowMs, every
 * hit counted (refused ones included), allowed = count <= limit; peek's allowed says whether a hit now would
 * be allowed (count < limit); retryAfterSeconds is the whole seconds (>= 1) until the window resets, 0 when
 * none is open.
 *
 * - One table, in its own file (WAL, busy_timeout): a hit is one `BEGIN IMMEDIATE` transaction (one UPSERT
 *   that opens or counts the window), so parallel hits from several processes count exactly. peek reads a
 *   snapshot; release and reset are single statements.
 * - Bounded: expired windows are swept inside a hit's transaction (at most once per sweepMs, or after 1,000
 *   new windows, per process; 5,000 rows per sweep), and if the table still holds more than maxKeys windows
 *   the oldest go. So it holds about maxKeys windows, plus those opened since the last sweep.
 * - Counters are not worth a disk flush per hit: synchronous=NORMAL (a power cut may lose the last hits).
 */
import Database from 'better-sqlite3';
import { rateLimitRules, type RateDecision, type RateLimiter } from '../../ports/rate-limit.ts';
import type { DataFolderRoom } from '../../storage-room.ts';
import { privateDatabaseFile } from '../../private-files.ts';

export interface SqliteRateLimiterOptions {
  /** The database file (created if missing); e.g. `${DATA_DIR}/rate-limits.sqlite`. */
  file: string;
  /** Clock in ms (default Date.now), for tests. Every process sharing the file must share the clock. */
  now?: () => number;
  /** Most windows kept at once (default 100,000). */
  maxKeys?: number;
  /** Least time between two sweeps of expired windows by this process (default 60,000 ms). */
  sweepMs?: number;
  /** How long a hit waits for another process's write to finish (default 5,000 ms). */
  busyTimeoutMs?: number;
  /** Asked before a hit: while the data folder has no room, the hit is refused without a try. */
  room?: DataFolderRoom;
}

interface WindowRow {
  count: number;
  reset_at: number;
}

/** New windows opened by this process that trigger a sweep before sweepMs has passed. */
const SWEEP_AFTER_NEW_WINDOWS = 1000;
/** Rows deleted by one sweep statement, so one hit never stalls on a huge backlog. */
const SWEEP_BATCH = 5000;

export class SqliteRateLimiter implements RateLimiter {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly sweepMs: number;
  private lastSweep: number;
  private newWindows = 0;
  private readonly room: DataFolderRoom | null;

  private readonly hitStmt: Database.Statement<[{ key: string; now: number; resetAt: number }], WindowRow>;
  private readonly peekStmt: Database.Statement<[string], WindowRow>;
  private readonly resetStmt: Database.Statement<[string], unknown>;
  private readonly releaseStmt: Database.Statement<[string, number], unknown>;
  private readonly sweepStmt: Database.Statement<[number, number], unknown>;
  private readonly sizeStmt: Database.Statement<[], { n: number }>;
  private readonly evictStmt: Database.Statement<[number], unknown>;
  private readonly hitTx: (key: string, windowMs: number) => WindowRow;

  constructor(options: SqliteRateLimiterOptions) {
    if (typeof options?.file !== 'string' || options.file === '') {
      throw new TypeError('SqliteRateLimiter: file is required');
    }
    this.now = options.now ?? Date.now;
    this.room = options.room ?? null;
    this.maxKeys = options.maxKeys ?? 100_000;
    this.sweepMs = options.sweepMs ?? 60_000;
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (!Number.isInteger(this.maxKeys) || this.maxKeys < 1) {
      throw new RangeError('SqliteRateLimiter: maxKeys must be an integer >= 1');
    }
    if (!Number.isFinite(this.sweepMs) || this.sweepMs < 0) {
      throw new RangeError('SqliteRateLimiter: sweepMs must be >= 0');
    }
    if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new RangeError('SqliteRateLimiter: busyTimeoutMs must be an integer >= 0');
    }

    // `timeout` is SQLite's busy_timeout, set before the first statement so that opening waits too.
    this.db = new Database(privateDatabaseFile(options.file), { timeout: busyTimeoutMs });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS rate_limits (
          key TEXT PRIMARY KEY,
          count INTEGER NOT NULL,
          reset_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS rate_limits_reset_at ON rate_limits (reset_at);
      `);
    } catch (err) {
      this.db.close();
      throw err;
    }

    // In an UPSERT's SET every right-hand side reads the row as it was, so both CASEs test the old window.
    this.hitStmt = this.db.prepare(
      `INSERT INTO rate_limits (key, count, reset_at) VALUES (@key, 1, @resetAt)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN rate_limits.reset_at <= @now THEN 1 ELSE rate_limits.count + 1 END,
         reset_at = CASE WHEN rate_limits.reset_at <= @now THEN excluded.reset_at ELSE rate_limits.reset_at END
       RETURNING count, reset_at`,
    );
    this.peekStmt = this.db.prepare(`SELECT count, reset_at FROM rate_limits WHERE key = ?`);
    this.resetStmt = this.db.prepare(`DELETE FROM rate_limits WHERE key = ?`);
    this.releaseStmt = this.db.prepare(`UPDATE rate_limits SET count = count - 1 WHERE key = ? AND count > 0 AND reset_at > ?`);
    this.sweepStmt = this.db.prepare(`DELETE FROM rate_limits WHERE key IN (SELECT key FROM rate_limits WHERE reset_at <= ? LIMIT ?)`);
    this.sizeStmt = this.db.prepare(`SELECT COUNT(*) AS n FROM rate_limits`);
    this.evictStmt = this.db.prepare(`DELETE FROM rate_limits WHERE key IN (SELECT key FROM rate_limits ORDER BY reset_at LIMIT ?)`);

    const hit = this.db.transaction((key: string, windowMs: number): WindowRow => {
      const now = this.now();
      if (now - this.lastSweep >= this.sweepMs || this.newWindows >= SWEEP_AFTER_NEW_WINDOWS) this.sweep(now);
      const row = this.hitStmt.get({ key, now, resetAt: now + windowMs });
      if (!row) throw new Error('SqliteRateLimiter: the hit returned no row');
      if (row.count === 1) this.newWindows += 1;
      return row;
    });
    // BEGIN IMMEDIATE: the write lock is taken (or waited for) up front, so no other process's commit can
    // slip in between this transaction's read and its write.
    this.hitTx = (key, windowMs) => hit.immediate(key, windowMs);
    this.lastSweep = this.now();
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    rateLimitRules.checkLimit(limit, 'SqliteRateLimiter');
    if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError('SqliteRateLimiter: windowMs must be > 0');
    this.room?.assertRoom();
    const row = this.hitTx(key, Math.ceil(windowMs));
    return {
      allowed: row.count <= limit,
      count: row.count,
      retryAfterSeconds: rateLimitRules.retryAfterSeconds(row.reset_at - this.now()),
    };
  }

  async peek(key: string, limit: number): Promise<RateDecision> {
    rateLimitRules.checkLimit(limit, 'SqliteRateLimiter');
    const now = this.now();
    const row = this.peekStmt.get(key);
    if (!row || row.reset_at <= now) return { allowed: limit > 0, count: 0, retryAfterSeconds: 0 };
    return { allowed: row.count < limit, count: row.count, retryAfterSeconds: rateLimitRules.retryAfterSeconds(row.reset_at - now) };
  }

  async reset(key: string): Promise<void> {
    this.resetStmt.run(key);
  }

  async release(key: string): Promise<void> {
    this.releaseStmt.run(key, this.now());
  }

  /** Windows held (expired ones not yet swept included). */
  size(): number {
    return this.sizeStmt.get()?.n ?? 0;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** Runs inside a hit's transaction. */
  private sweep(now: number): void {
    this.lastSweep = now;
    this.newWindows = 0;
    const swept = this.sweepStmt.run(now, SWEEP_BATCH).changes;
    // A full batch means more may be left: look again on the next hit rather than stall this one.
    if (swept >= SWEEP_BATCH) this.lastSweep = now - this.sweepMs;
    const excess = this.size() - this.maxKeys;
    if (excess > 0) this.evictStmt.run(excess);
  }
}
