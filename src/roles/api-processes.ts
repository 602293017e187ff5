/**
 * API_PROCESSES ≥ 2: the `api` processes of a cluster primary (node:cluster), all serving one PORT; the
 * primary forks them, restarts one that dies (bounded), and stops them gracefully when it stops itself.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../logger.ts';

/** Primary → api process: stop as on SIGTERM (a message, not a signal: see ApiProcesses.stop). */
const STOP = 'bidder:stop';
/** Api process → primary: its server listens. */
const LISTENING = 'bidder:listening';

/** Beyond the grace period, how long an api process may take to close before it is killed. */
const STOP_MARGIN_MS = 1000;

export interface ApiProcessesOptions {
  count: number;
  /** The environment of the process in slot 1..count over the primary's own (ROLE=api, its metrics port). */
  env(slot: number): Record<string, string>;
  logger: Logger;
  /** Restarts allowed within `windowMs` (default 5 in 60 s); one more and `giveUp` is called. */
  maxRestarts?: number;
  windowMs?: number;
  /** The processes cannot be kept running: the primary stops (and exits non-zero). */
  giveUp(reason: string): void;
}

function ended(code: number | null, signal: string | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/**
 * The primary's side. Node's cluster module shares the listening socket: the primary accepts connections and
 * hands them to the processes in turn (its default round-robin on Linux, `cluster.schedulingPolicy`, kept).
 */
export class ApiProcesses {
  private readonly slots = new Map<number, Worker>();
  /** The processes that have listened (the others are still starting). */
  private readonly listening = new WeakSet<Worker>();
  private readonly restarts: number[] = [];
  private started = false;
  private stopping = false;

  constructor(private readonly options: ApiProcessesOptions) {}

  /** The pids of the processes running now. */
  get pids(): number[] {
    return [...this.slots.values()].map((w) => w.process.pid!).filter(Boolean);
  }

  /** Forks every process; resolves once each listens, rejects when one exits before it does. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.count }, (_, i) => this.fork(i + 1)));
    this.started = true;
  }

  private fork(slot: number): Promise<void> {
    const worker = cluster.fork(this.options.env(slot));
    this.slots.set(slot, worker);
    return new Promise((resolve, reject) => {
      let listening = false;
      worker.on('message', (message) => {
        if (message !== LISTENING) return;
        listening = true;
        this.listening.add(worker);
        resolve();
      });
      worker.on('error', (error) => this.options.logger.warn({ pid: worker.process.pid, err: String(error) }, 'api process channel'));
      worker.once('exit', (code, signal) => {
        if (this.slots.get(slot) === worker) this.slots.delete(slot);
        const how = ended(code, signal);
        if (!listening) reject(new Error(`api process ${slot} (pid ${worker.process.pid}) ended before it listened (${how})`));
        if (this.stopping || !this.started) return;
        this.restart(slot, worker.process.pid, how);
      });
    });
  }

  /** A process died on its own: forked again, unless that happened too often lately. */
  private restart(slot: number, pid: number | undefined, how: string): void {
    const { logger, maxRestarts = 5, windowMs = 60_000 } = this.options;
    const now = Date.now();
    while (this.restarts.length > 0 && this.restarts[0] <= now - windowMs) this.restarts.shift();
    if (this.restarts.length >= maxRestarts) {
      const reason = `api processes ended ${this.restarts.length + 1} times within ${windowMs / 1000} s (the last: pid ${pid}, ${how})`;
      logger.fatal({ slot, pid }, reason);
      this.options.giveUp(reason);
      return;
    }
    this.restarts.push(now);
    logger.error({ slot, pid, ended: how }, 'api process ended unexpectedly; starting it again');
    this.fork(slot).catch(() => undefined); // its exit is seen (and counted) by the handler above
  }

  /**
   * Asks each process to stop as SIGTERM would (each then lets its requests finish within its own grace period,
   * SHUTDOWN_TIMEOUT_MS), and waits for it; one still running `graceMs` + 1 s later is killed. The request is a
   * message rather than a signal: a signal to the whole process group (Ctrl-C) reaches them already, and a
   * second one would make them exit at once. One still starting (it may not read messages yet, and has served
   * nothing) gets SIGTERM. Answers the processes that did not stop cleanly (exit code 1: they abandoned
   * requests and logged which).
   */
  async stop(graceMs: number): Promise<{ unclean: string[] }> {
    this.stopping = true;
    const outcomes = await Promise.all([...this.slots.values()].map((worker) => this.stopOne(worker, graceMs + STOP_MARGIN_MS)));
    return { unclean: outcomes.filter((o): o is string => o !== null) };
  }

  private stopOne(worker: Worker, waitMs: number): Promise<string | null> {
    const pid = worker.process.pid;
    return new Promise((resolve) => {
      if (worker.isDead()) return resolve(null);
      const kill = setTimeout(() => worker.process.kill('SIGKILL'), waitMs);
      const served = this.listening.has(worker);
      worker.once('exit', (code, signal) => {
        clearTimeout(kill);
        // SIGTERM: it had not opened its engines yet (see stopOnRequest).
        resolve(!served || code === 0 || signal === 'SIGTERM' ? null : `api process ${pid} (${ended(code, signal)})`);
      });
      if (served && worker.isConnected()) worker.send(STOP, (error: Error | null) => error && worker.process.kill('SIGTERM'));
      else worker.process.kill('SIGTERM');
    });
  }
}

/** In an api process of the cluster: `stop` runs when the primary asks it to stop. */
export function stopOnRequest(stop: () => void): void {
  process.on('message', (message) => {
    if (message === STOP) stop();
  });
}

/** In an api process of the cluster: tells the primary its server listens. */
export function reportListening(): void {
  process.send?.(LISTENING);
}
