import { constants } from 'node:os';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from './logger.ts';

/** The longest the last log lines may take to reach standard output before the process exits anyway. */
const LOG_DRAIN_MS = 1000;
/** After the grace period: how long closing projections, leases and engines may take before the process exits anyway. */
const CLOSE_MARGIN_MS = 2000;

export interface ShutdownPlan {
  logger: Logger;
  /** The grace period: what is not done by then is abandoned, and the process exits. */
  timeoutMs: number;
  /**
   * Runs beside the HTTP drain with the grace period (the job worker; a cluster primary's api processes); answers
   * the jobs it abandoned, and the child processes that did not stop cleanly (they name what they abandoned).
   */
  background(graceMs: number): Promise<{ abandoned: string[]; processes?: string[] }>;
  /** Called as the first signal comes, before requests are waited for: long waits (the feed's `wait`) end now. */
  stopping?(): void;
  /** Closes the rest once requests and background work are done (projections, leases, engines). */
  close(): Promise<void>;
  /** Lets the last log lines out, bounded (src/logger.ts drainLogs). */
  drainLogs(timeoutMs: number): Promise<unknown>;
  /** process.exit, replaced in specs. */
  exit?(code: number): void;
}

interface InFlight {
  req: IncomingMessage;
  res: ServerResponse;
  started: number;
}

/**
 * SIGTERM and SIGINT as supervisors expect them: the first stops taking connections, lets requests in flight
 * and running jobs finish within the grace period (`SHUTDOWN_TIMEOUT_MS`), abandons and logs what is left,
 * closes the engines (within CLOSE_MARGIN_MS more) and exits, whatever standard output is (the log never holds
 * the exit: src/log-output.ts); exit code 0, or 1 when something was abandoned. A second signal exits at once
 * (128 + the signal's number). Acknowledged writes are in the log already; an abandoned job stays queued and
 * runs again, and an abandoned request was never answered.
 */
export class GracefulShutdown {
  private readonly servers: Server[] = [];
  private readonly inFlight = new Set<InFlight>();
  private signalled = false;
  /** A signal came already: the next one exits at once. */
  private heard = false;
  /** Something in flight was cut off, or the process failed (fail()): the exit code says so. */
  private abandoned = false;
  private exiting = false;

  constructor(private readonly plan: ShutdownPlan) {}

  /** A stop began (a signal, a request or a failure): the process is on its way out. */
  get stopping(): boolean {
    return this.signalled;
  }

  /** Follows a server's requests, so that those in flight can be waited for, or named when abandoned. */
  track(server: Server): void {
    this.servers.push(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const entry: InFlight = { req, res, started: Date.now() };
      this.inFlight.add(entry);
      if (this.signalled) res.shouldKeepAlive = false;
      res.once('close', () => {
        this.inFlight.delete(entry);
        // A kept-alive connection whose answer had started before the signal: closed once idle.
        if (this.signalled) server.closeIdleConnections();
      });
    });
  }

  /** Installs the handlers of SIGTERM and SIGINT. */
  listen(): void {
    process.on('SIGTERM', () => void this.signal('SIGTERM'));
    process.on('SIGINT', () => void this.signal('SIGINT'));
  }

  /** A signal: the first stops gracefully (or joins a stop under way), a second exits at once. */
  async signal(signal: NodeJS.Signals): Promise<void> {
    if (this.heard) {
      this.plan.logger.warn({ signal }, 'second signal: exiting at once');
      this.exit(128 + (constants.signals[signal] ?? 15));
      return;
    }
    this.heard = true;
    await this.stop(signal);
  }

  /**
   * Stops as on a first signal `as`, without counting as a signal: a cluster primary's request to its api process
   * (which may come before the Ctrl-C that reached the whole process group), or fail(). Nothing more when a stop is
   * under way already.
   */
  async stop(as: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const { logger, timeoutMs } = this.plan;
    if (this.signalled) return;
    this.signalled = true;
    logger.info({ signal: as, timeoutMs }, 'shutting down');
    this.plan.stopping?.();
    // At the end of the grace period requests still in flight are cut off; closing the engines then gets a
    // little longer, and after that the process exits whatever still runs.
    const cutOff = setTimeout(() => this.abandonRequests(), timeoutMs);
    const hardStop = setTimeout(() => {
      logger.error({ timeoutMs, closeMs: CLOSE_MARGIN_MS }, 'closing took too long: exiting anyway');
      void this.finish(1);
    }, timeoutMs + CLOSE_MARGIN_MS);
    // No new connection; answers that have not started close their connection after them.
    for (const { res } of this.inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    const requestsDone = Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
      ),
    );
    try {
      const [, background] = await Promise.all([requestsDone, this.plan.background(timeoutMs)]);
      clearTimeout(cutOff);
      if (background.abandoned.length > 0) {
        this.abandoned = true;
        logger.warn({ jobs: background.abandoned, timeoutMs }, 'grace period over: jobs abandoned (they stay queued and run again later)');
      }
      if (background.processes?.length) {
        this.abandoned = true;
        logger.warn({ processes: background.processes, timeoutMs }, 'child processes did not stop cleanly');
      }
      await this.plan.close();
      clearTimeout(hardStop);
      await this.finish(this.abandoned ? 1 : 0);
    } catch (error) {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, 'shutdown failed');
      await this.finish(1);
    }
  }

  /**
   * Stops as on a first signal, then exits 1: the process cannot go on as it should (a cluster primary whose
   * api processes keep dying). Nothing more when a stop is under way already.
   */
  async fail(reason: string): Promise<void> {
    if (this.signalled) return;
    this.abandoned = true;
    this.plan.logger.error({ reason }, 'cannot go on: stopping');
    await this.stop();
  }

  /** The grace period is over: requests still in flight are named and their connections closed. */
  private abandonRequests(): void {
    const now = Date.now();
    const requests = [...this.inFlight].map(({ req, started }) => `${req.method} ${(req.url ?? '').split('?')[0]} (${now - started} ms)`);
    if (requests.length > 0) {
      this.abandoned = true;
      this.plan.logger.warn({ requests, timeoutMs: this.plan.timeoutMs }, 'grace period over: requests abandoned');
    }
    for (const server of this.servers) server.closeAllConnections();
  }

  private async finish(code: number): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    this.plan.logger.info({ code }, 'stopped');
    await this.plan.drainLogs(LOG_DRAIN_MS);
    this.exit(code);
  }

  private exit(code: number): void {
    this.exiting = true;
    (this.plan.exit ?? process.exit)(code);
  }
}
