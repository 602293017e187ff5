// Whether this process's stores have room for writes: the one record of a "storage full" episode (the data
// folder's disk, or a database server's, out of room), which HTTP writes, projections and jobs report to, /readyz
// and /metrics read, and which ends by itself once there is room again.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isLocalStorageFull, isStorageFull, StorageFullError } from './errors.ts';
import type { Logger } from './logger.ts';

/** Who met the full storage (a bounded label of /metrics). */
export type WriteSource = 'request' | 'projection' | 'job' | 'search' | 'lease';

/** Room the data folder must have to count as having room (written and removed by the probe when in doubt). */
export const ROOM_MARGIN_BYTES = 8 * 1024 * 1024;
/** How often a process in an episode looks for room again, with no traffic. */
export const ROOM_CHECK_MS = 1000;
/** A database server's full disk counts as healed once it has refused nothing for this long: it cannot be looked at. */
export const REMOTE_QUIET_MS = 10_000;
/** A look younger than this answers /readyz again: a flood of probes never writes the margin over and over. */
const LOOK_REUSE_MS = 250;
const PROBE_CHUNK_BYTES = 1024 * 1024;

/** What reports a failed write (HTTP answers, projections, jobs): true when it failed for want of room. */
export interface StorageFaults {
  /** A write failed: true when for want of room (the episode then starts, or goes on), false for any other error. */
  refused(error: unknown, source: WriteSource): boolean;
}

/** What an embedded store asks before it writes to the data folder. */
export interface DataFolderRoom {
  /** Throws a StorageFullError while the data folder is known to have no room: the write is refused before it starts. */
  assertRoom(): void;
}

/** The cause of a write refused before it started: the data folder's, as a write's ENOSPC would say. */
const noRoom = () => Object.assign(new Error('no space left in the data folder (refused before writing)'), { code: 'ENOSPC' });

export interface StorageRoomOptions {
  /** The data folder (DATA_DIR), whose disk is looked at. */
  dataDir: string;
  logger: Logger;
  now?: () => number;
  marginBytes?: number;
  checkMs?: number;
  quietMs?: number;
  /** Whether the data folder has room, in place of looking at its disk (tests). */
  hasRoom?: (marginBytes: number) => Promise<boolean>;
}

/**
 * One record per process. An episode starts when a write fails for want of room (SQLite's `SQLITE_FULL`, `ENOSPC`,
 * PostgreSQL's `53100`/`53200`, ...), or when /readyz finds the data folder with less than ROOM_MARGIN_BYTES free;
 * it is logged once (`error`) when it starts and once (`info`) when it ends. While the data folder has no room,
 * the embedded stores that requests write to refuse writes before they start (`assertRoom`), so every request
 * answers alike instead of some slipping into room a SQLite file still holds (its WAL's, mostly) and others not.
 * It ends when the data folder has room again (looked at every ROOM_CHECK_MS while it lasts, and by every /readyz)
 * and no database server has refused a write for REMOTE_QUIET_MS.
 */
export class StorageRoom implements StorageFaults, DataFolderRoom {
  /** Since when the data folder has had no room (null: it has). */
  private localSince: number | null = null;
  /** When a database server last refused a write for want of room (null: not within REMOTE_QUIET_MS). */
  private remoteLast: number | null = null;
  private episode: { since: number; refused: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<void> | null = null;
  private lastLook = Number.NEGATIVE_INFINITY;
  private readonly listeners: Array<(source: WriteSource) => void> = [];
  private readonly now: () => number;
  private readonly marginBytes: number;
  private chunk: Buffer | null = null;

  constructor(private readonly options: StorageRoomOptions) {
    this.now = options.now ?? Date.now;
    this.marginBytes = options.marginBytes ?? ROOM_MARGIN_BYTES;
  }

  /** Whether an episode lasts: some store has no room for writes. */
  get full(): boolean {
    return this.localSince !== null || this.remoteLast !== null;
  }

  /** Calls `listener` for every write refused for want of room (/metrics). */
  onRefused(listener: (source: WriteSource) => void): void {
    this.listeners.push(listener);
  }

  refused(error: unknown, source: WriteSource): boolean {
    if (!isStorageFull(error)) return false;
    const now = this.now();
    if (isLocalStorageFull(error)) this.localSince ??= now;
    else this.remoteLast = now;
    this.begin(source, error);
    this.count(source);
    return true;
  }

  assertRoom(): void {
    if (this.localSince !== null) throw new StorageFullError({ cause: noRoom() });
  }

  /** Looks for room (the data folder's disk, the database servers' quiet time) and answers whether an episode lasts. */
  async check(): Promise<boolean> {
    if (!this.looking && this.now() - this.lastLook >= LOOK_REUSE_MS)
      this.looking = this.look().finally(() => {
        this.looking = null;
        this.lastLook = this.now();
      });
    await this.looking;
    return this.full;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async look(): Promise<void> {
    if (this.remoteLast !== null && this.now() - this.remoteLast >= (this.options.quietMs ?? REMOTE_QUIET_MS)) this.remoteLast = null;
    const room = await (this.options.hasRoom ?? ((margin) => this.dataFolderHasRoom(margin)))(this.marginBytes);
    if (room) this.localSince = null;
    else if (this.localSince === null) {
      this.localSince = this.now();
      this.begin('check', null);
    }
    if (!this.full) this.end();
  }

  /**
   * What the file system says of the folder's free room is taken when it agrees with what is known; otherwise a probe
   * write of the margin decides (a quota is not in statfs, and some file systems report no free blocks at all).
   */
  private async dataFolderHasRoom(margin: number): Promise<boolean> {
    const stats = await fs.statfs(this.options.dataDir).catch(() => null);
    const seemsRoomy = stats === null || stats.bavail * stats.bsize >= margin;
    if (seemsRoomy === (this.localSince === null)) return seemsRoomy;
    return this.probe(margin);
  }

  /** Writes `margin` bytes (random: a compressing file system stores zeros in nothing) to a file of its own, then removes it. */
  private async probe(margin: number): Promise<boolean> {
    const file = path.join(this.options.dataDir, `.room-probe-${process.pid}`);
    this.chunk ??= randomBytes(PROBE_CHUNK_BYTES);
    try {
      const handle = await fs.open(file, 'w', 0o600);
      try {
        for (let written = 0; written < margin;) {
          const { bytesWritten } = await handle.write(this.chunk, 0, Math.min(this.chunk.length, margin - written));
          if (bytesWritten === 0) return false;
          written += bytesWritten;
        }
      } finally {
        await handle.close();
      }
      return true;
    } catch (error) {
      // Only a want of room counts; anything else (a folder not made yet) is not this record's to tell.
      return !isLocalStorageFull(error);
    } finally {
      await fs.rm(file, { force: true }).catch(() => undefined);
    }
  }

  private begin(found: WriteSource | 'check', error: unknown): void {
    if (this.episode) return;
    this.episode = { since: this.now(), refused: 0 };
    const store = this.localSince !== null ? 'data folder' : 'database';
    const err = error instanceof Error ? error.message : error === null ? `less than ${this.marginBytes} bytes free` : String(error);
    this.options.logger.error(
      { found, store, dataDir: this.options.dataDir, err },
      'storage full: writes are refused until there is room again',
    );
    this.timer = setInterval(() => void this.check(), this.options.checkMs ?? ROOM_CHECK_MS);
    this.timer.unref();
  }

  private end(): void {
    if (!this.episode) return;
    const { since, refused } = this.episode;
    this.episode = null;
    this.close();
    this.options.logger.info({ seconds: Math.round((this.now() - since) / 100) / 10, refused }, 'storage has room again: writes resumed');
  }

  private count(source: WriteSource): void {
    if (this.episode) this.episode.refused += 1;
    for (const listener of this.listeners) listener(source);
  }
}
