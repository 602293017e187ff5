/**
 * Whether the Typesense server answers, as the adapter's calls find it, and the bound of a call the client
 * never times out (an import, a schema change).
 *
 * Once a call finds the server away (no answer in time, a refused or reset connection, a node's 5xx after the
 * client's retries: isEngineUnreachable), the calls that follow fail at once, without a request, until a
 * probe in the background gets an answer. Callers that poll (the checkpoints read before API requests,
 * /readyz, the search operation) then never each wait out the client's time-outs on a server that hangs: the
 * first call that finds it away does, once.
 */
import { isEngineUnreachable } from '../../errors.ts';

/** A call that got no answer within the adapter's bound (a node that accepts connections and never answers). */
export class TypesenseTimeoutError extends Error {
  override name = 'TypesenseTimeoutError';
  /** As a socket's time-out, so the service's one test of an unreachable engine (src/errors.ts) knows it. */
  readonly code = 'ETIMEDOUT';
}

/** A call not made: the server was found away and no probe has had an answer since (the cause says why). */
export class TypesenseAwayError extends Error {
  override name = 'TypesenseAwayError';
}

/** Runs `call` with an AbortSignal fired after `ms`, failing with TypesenseTimeoutError then. */
export async function bounded<T>(what: string, ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new TypesenseTimeoutError(`typesense: ${what} got no answer in ${ms / 1000} s`));
      controller.abort();
    }, ms);
  });
  try {
    return await Promise.race([call(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class Availability {
  /** Why the server is taken as away (the failure that found it so), or null while it answers. */
  private away: Error | null = null;
  private probing: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    /** A cheap read that resolves when the server answers (any answer: a 404 is one). */
    private readonly probe: () => Promise<void>,
    /** Between two probes while the server is away. */
    private readonly probeMs: number,
  ) {}

  /** The failure that found the server away, or null while it answers. */
  get reason(): Error | null {
    return this.away;
  }

  /** Runs a call unless the server is known away (then fails at once), and marks it away when the call finds it so. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.away)
      throw new TypesenseAwayError(`typesense is away (${this.away.message}); not asked again until it answers a probe`, {
        cause: this.away,
      });
    try {
      return await call();
    } catch (error) {
      if (isEngineUnreachable(error)) this.markAway(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }

  private markAway(error: Error): void {
    if (this.away || this.closed) return;
    this.away = error;
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    this.probing = setTimeout(() => {
      this.probe().then(
        () => {
          this.away = null;
          this.probing = null;
        },
        () => {
          if (!this.closed) this.scheduleProbe();
        },
      );
    }, this.probeMs);
    this.probing.unref();
  }

  close(): void {
    this.closed = true;
    if (this.probing) clearTimeout(this.probing);
    this.probing = null;
  }
}
