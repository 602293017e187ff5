// Where each projection running in this process stands, and the news of it for whoever follows: read-your-writes
// waiters follow positions, caches of answers (src/http/cache-versions.ts) follow changes of what is served.

import type { RecordedEvent } from '../ports/event-log.ts';

/** What a follower of the projector hears; every member optional. */
export interface ProgressListener {
  /** start() was called: the projections that run here follow (`changed` with where each stands), the rest run elsewhere. */
  started?(): void;
  /** A projection running here has reached `position` (in memory; its stored checkpoint may follow later). */
  advanced?(name: string, position: number): void;
  /**
   * What a projection running here serves is as of `position`: its last batch that changed something, with the
   * events it handled in it, or where it started (no events: anything may have changed).
   */
  changed?(name: string, position: number, events?: readonly RecordedEvent[]): void;
  /** Its checkpoint was moved by someone else (a rebuild's swap): what it serves changed, at no position of ours. */
  replaced?(name: string): void;
  /** stop() was called. */
  stopped?(): void;
}

export class Progress {
  /** The projections this process runs, and where each stands in memory. */
  readonly positions = new Map<string, number>();
  private listeners: ProgressListener[] = [];

  subscribe(listener: ProgressListener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  started(): void {
    for (const l of this.listeners) l.started?.();
  }

  /** A projection runs here from `position` (its stored checkpoint). */
  runs(name: string, position: number): void {
    this.positions.set(name, position);
    for (const l of this.listeners) l.changed?.(name, position);
  }

  advance(name: string, position: number): void {
    this.positions.set(name, position);
    for (const l of this.listeners) l.advanced?.(name, position);
  }

  changed(name: string, position: number, events: readonly RecordedEvent[]): void {
    for (const l of this.listeners) l.changed?.(name, position, events);
  }

  /** Its checkpoint moved to `position` elsewhere; the loop resumes from there. */
  replaced(name: string, position: number): void {
    for (const l of this.listeners) l.replaced?.(name);
    this.positions.set(name, position);
  }

  stopped(): void {
    for (const l of this.listeners) l.stopped?.();
  }
}
