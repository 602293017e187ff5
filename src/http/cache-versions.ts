// Versions of what projections serve, for caches of their answers (response cache, derived values, the access
// directory): followed from the projector's news when a projection runs here, from its stored checkpoint when not.
import type { ProgressListener } from '../projector/progress.ts';

/** How often the stored checkpoints of projections that run in another process are read. */
const REMOTE_POLL_MS = 25;

/**
 * Subscribed to the projector (ProjectorRuntime.subscribe) before it starts. A version is one string: where
 * each named projection last changed when it runs here, its stored checkpoint (polled every REMOTE_POLL_MS)
 * when it runs in another process. Null before the projector starts (tools without loops: nothing to follow).
 */
export class ProjectionVersions implements ProgressListener {
  private following = false;
  private closed = false;
  /** Moves whenever a position a version reads changes: the versions made before are then made again. */
  private stamp = 0;
  /** Per projection running here, the position of the last batch that changed it. */
  private readonly lastChange = new VersionedMap<string, number>(() => this.stamp++);
  /** Stored checkpoints of the projections another process runs, as last polled (only those asked about). */
  private readonly remote = new VersionedMap<string, number | undefined>(() => this.stamp++);
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** A projection's stored checkpoint, by name. */
    private readonly checkpoint: (name: string) => Promise<number>,
  ) {}

  started(): void {
    this.following = true;
  }

  changed(name: string, position: number): void {
    this.lastChange.set(name, position);
  }

  replaced(name: string): void {
    this.lastChange.set(name, -Date.now());
  }

  stopped(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * The current version of the named projections, as a function asked on every cached request: the version
   * is made again only when a position it reads has moved.
   */
  of(names: readonly string[]): () => string | null {
    let known: { stamp: number; version: string | null } | null = null;
    return () => {
      if (!this.following) return null;
      if (known && known.stamp === this.stamp) return known.version;
      const stamp = this.stamp;
      const version = this.make(names);
      known = { stamp, version };
      return version;
    };
  }

  private make(names: readonly string[]): string | null {
    let version = '';
    let complete = true;
    for (const name of names) {
      const position = this.lastChange.get(name) ?? this.remote.get(name);
      if (position === undefined) {
        // Runs elsewhere and not followed yet: followed from the next poll on, uncached until then.
        if (!this.lastChange.has(name) && !this.remote.has(name)) this.follow(name);
        complete = false;
      }
      version += `${position};`;
    }
    return complete ? version : null;
  }

  private follow(name: string): void {
    this.remote.set(name, undefined);
    if (this.timer || this.closed) return;
    const poll = async () => {
      for (const name of this.remote.keys()) this.remote.set(name, await this.checkpoint(name));
    };
    this.timer = setInterval(() => void poll().catch(() => undefined), REMOTE_POLL_MS);
    this.timer.unref();
  }
}

/** A Map that calls `changed` when a key is set to a value it did not hold (the versions' stamp). */
class VersionedMap<K, V> extends Map<K, V> {
  constructor(private readonly changed: () => void) {
    super();
  }

  override set(key: K, value: V): this {
    if (!super.has(key) || super.get(key) !== value) this.changed?.();
    return super.set(key, value);
  }
}
