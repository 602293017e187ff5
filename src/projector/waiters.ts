// Read your writes: a command's wait until the projections serving its caller have reached its event, resolved
// by this process's loops when they run here, else by polling their stored checkpoints.
import type { Progress } from './progress.ts';

/**
 * How often waits on projections of another process look at their stored checkpoints (one read serves all): every
 * millisecond where the stores tell cheaply whether anything changed (a change mark: SQLite's data_version, a
 * header read), so that a command's answer follows the projector by about a millisecond; else every 5 ms.
 */
const WAIT_POLL_MS = { marked: 1, unmarked: 5 };

type Waiter = { position: number; resolve: () => void };

export class Waiters {
  /** Waits on projections whose loop runs here, resolved as they advance. */
  private readonly local = new Map<string, Waiter[]>();
  /** Waits on projections that run elsewhere: one checkpoint read per projection and poll serves them all. */
  private readonly remote = new Map<string, Waiter[]>();
  private remoteTimer: NodeJS.Timeout | null = null;
  /** The change mark as the last poll that read the checkpoints began (null: read at the next poll). */
  private polledMark: string | null = null;
  private stopped = false;

  constructor(
    private readonly progress: Progress,
    /** The named projections' stored checkpoints, in that order, read together where the store can (one statement). */
    private readonly checkpoints: (names: readonly string[]) => Promise<readonly number[]>,
    /** Whether this process's loops run (else nothing here moves a position: every wait polls). */
    private readonly loopsRun: () => boolean,
    /**
     * A mark that moves whenever the named projections' stored checkpoints may have moved, read without I/O (null:
     * unknown, the checkpoints are read at every poll).
     */
    private readonly changeMark: (names: readonly string[]) => string | null = () => null,
  ) {
    progress.subscribe({ advanced: (name, position) => this.advanced(name, position) });
  }

  private advanced(name: string, position: number) {
    const waiting = this.local.get(name);
    if (!waiting?.length) return;
    const still: Waiter[] = [];
    for (const w of waiting) {
      if (w.position <= position) w.resolve();
      else still.push(w);
    }
    this.local.set(name, still);
  }

  /**
   * Resolves true once every named projection has reached `position`, false after timeoutMs. Projections
   * that run in another process are followed through their stored checkpoints, all of them in one read a poll.
   */
  async waitFor(position: number, names: string[], timeoutMs = 5000): Promise<boolean> {
    if (position <= 0) return true;
    const deadline = Date.now() + timeoutMs;
    const elsewhere: string[] = [];
    for (const name of names) {
      const local = this.progress.positions.get(name);
      if (local !== undefined && local >= position) continue;
      if (local !== undefined && this.loopsRun()) {
        if (!(await this.waitHere(name, position, deadline))) return false;
      } else elsewhere.push(name);
    }
    if (elsewhere.length === 0) return true;
    const stored = await this.checkpoints(elsewhere);
    const behind = elsewhere.filter((_, i) => stored[i] < position);
    const reached = await Promise.all(behind.map((name) => this.waitElsewhere(name, position, deadline)));
    return reached.every(Boolean);
  }

  /** A wait on a projection whose loop runs here, resolved as it advances. */
  private waitHere(name: string, position: number, deadline: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
      const list = this.local.get(name) ?? [];
      list.push({ position, resolve: () => (clearTimeout(timer), resolve(true)) });
      this.local.set(name, list);
    });
  }

  /** A wait on a projection of another process, resolved by the polls of the stored checkpoints. */
  private waitElsewhere(name: string, position: number, deadline: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter = { position, resolve: () => (clearTimeout(timer), resolve(true)) };
      const timer = setTimeout(
        () => {
          const list = this.remote.get(name);
          if (list)
            this.remote.set(
              name,
              list.filter((w) => w !== waiter),
            );
          resolve(false);
        },
        Math.max(0, deadline - Date.now()),
      );
      this.remote.set(name, [...(this.remote.get(name) ?? []), waiter]);
      this.remoteTimer ??= setTimeout(this.pollRemote, this.pollMs());
    });
  }

  private readonly pollRemote = async () => {
    try {
      // Nothing stored has moved since the last read began: no read (a wait that began since read its checkpoint itself).
      const mark = this.changeMark([...this.remote.keys()]);
      if (mark !== null && mark === this.polledMark) return;
      this.polledMark = mark;
      for (const [name, list] of this.remote) if (list.length === 0) this.remote.delete(name);
      const names = [...this.remote.keys()];
      if (names.length === 0) return;
      const stored = await this.checkpoints(names);
      names.forEach((name, i) => {
        const still = (this.remote.get(name) ?? []).filter((w) => (w.position <= stored[i] ? (w.resolve(), false) : true));
        if (still.length) this.remote.set(name, still);
        else this.remote.delete(name);
      });
    } catch {
      // a store that does not answer now may answer at the next poll; each waiter has its own deadline
      this.polledMark = null;
    } finally {
      this.remoteTimer = this.remote.size > 0 && !this.stopped ? setTimeout(this.pollRemote, this.pollMs()) : null;
    }
  };

  private pollMs(): number {
    return this.changeMark([...this.remote.keys()]) === null ? WAIT_POLL_MS.unmarked : WAIT_POLL_MS.marked;
  }

  /** Stops polling stored checkpoints; waits still open end at their deadline. */
  stop(): void {
    this.stopped = true;
    if (this.remoteTimer) clearTimeout(this.remoteTimer);
  }

  /** Once the loops have ended: nothing will advance, waits still open end at their deadline. */
  clear(): void {
    for (const list of this.local.values()) list.length = 0;
  }
}
