import type { Writable } from 'node:stream';

/**
 * Log lines to a stream (standard output) in batches, never blocking and never holding the process open.
 *
 * Lines are joined and handed to the stream in writes of at least `minBytes`, or every `flushMs`. The stream
 * is Node's own `process.stdout`: on a pipe or socket it writes without blocking from the event loop (no
 * thread-pool write that a reader who stopped reading could hold, and that the exit would then wait for), on
 * a file it writes synchronously. A reader that is gone (EPIPE) ends the output; a reader that is slow costs
 * at most `maxPendingBytes` of memory, beyond which lines are dropped and counted.
 */
export class BatchedOutput {
  private held: string[] = [];
  private heldBytes = 0;
  private readonly timer: NodeJS.Timeout;
  /** The stream failed (its reader left): nothing more is written. */
  broken = false;
  /** Lines dropped because the stream did not keep up. */
  dropped = 0;

  constructor(
    private readonly out: Writable,
    private readonly options: { minBytes: number; flushMs: number; maxPendingBytes: number },
  ) {
    out.on('error', () => {
      this.broken = true;
      this.held = [];
      this.heldBytes = 0;
    });
    this.timer = setInterval(() => this.flush(), options.flushMs);
    this.timer.unref();
  }

  /** pino's destination interface: one serialised line. */
  write(line: string): void {
    if (this.broken) return;
    if (this.heldBytes + this.out.writableLength > this.options.maxPendingBytes) {
      this.dropped++;
      return;
    }
    this.held.push(line);
    this.heldBytes += line.length;
    if (this.heldBytes >= this.options.minBytes) this.flush();
  }

  /** Hands what is held to the stream (which may still be writing it). */
  flush(): void {
    if (this.held.length === 0 || this.broken || this.out.destroyed) return;
    const chunk = this.held.length === 1 ? this.held[0] : this.held.join('');
    this.held = [];
    this.heldBytes = 0;
    this.out.write(chunk);
  }

  /**
   * Resolves once the stream has written everything (true), or after `timeoutMs` (false: a reader that does
   * not read). The lines still pending are then lost with the process, which is not held for them.
   */
  drain(timeoutMs: number): Promise<boolean> {
    this.flush();
    if (this.broken || this.out.destroyed || this.out.writableLength === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (drained: boolean) => {
        clearTimeout(timer);
        this.out.off('drain', onDrain);
        this.out.off('error', onError);
        resolve(drained);
      };
      const onDrain = () => done(true);
      const onError = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.out.once('drain', onDrain);
      this.out.once('error', onError);
    });
  }

  /** Stops the periodic flush (the process is exiting). */
  close(): void {
    clearInterval(this.timer);
  }
}
