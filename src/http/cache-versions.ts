// Versions of what projections serve, for caches of their answers (response cache, derived values, the access
// directory): followed from the projector's news when a projection runs here, from its stored checkpoint when not.
import type { RecordedEvent } from '../ports/event-log.ts';
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
  /** Versions by tenant and auction (scoped): told of each change with the events that made it. */
  private readonly scopes: { names: readonly string[]; versions: ScopedVersions }[] = [];

  constructor(
    /** A projection's stored checkpoint, by name. */
    private readonly checkpoint: (name: string) => Promise<number>,
    /** The events a projection handled between two positions (null: too many to read; anything changed). */
    private readonly handledBetween: (name: string, from: number, to: number) => Promise<readonly RecordedEvent[] | null> = async () =>
      null,
  ) {}

  started(): void {
    this.following = true;
  }

  changed(name: string, position: number, events?: readonly RecordedEvent[]): void {
    this.tellScopes(name, events ?? null);
    this.lastChange.set(name, position);
  }

  replaced(name: string): void {
    this.tellScopes(name, null);
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

  /**
   * The version of the named projections for one tenant's answers, by tenant and auction (see ScopedVersions):
   * null while `of(names)` is (before the projector starts, or a remote checkpoint is followed).
   */
  scoped(names: readonly string[]): (tenant: string, auction?: number) => string | null {
    const versions = new ScopedVersions();
    this.scopes.push({ names, versions });
    const ready = this.of(names);
    return (tenant, auction) => (ready() === null ? null : versions.version(tenant, auction));
  }

  private tellScopes(name: string, events: readonly RecordedEvent[] | null): void {
    for (const scope of this.scopes) if (scope.names.includes(name)) scope.versions.changed(events);
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
      for (const name of this.remote.keys()) {
        const before = this.remote.get(name);
        const position = await this.checkpoint(name);
        if (before !== undefined && position !== before && this.scopes.some((s) => s.names.includes(name))) {
          // What moved it, for versions by tenant and auction; a checkpoint moved back (a rebuild) changed anything.
          this.tellScopes(name, position > before ? await this.handledBetween(name, before, position) : null);
        }
        this.remote.set(name, position);
      }
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

/**
 * Versions of one tenant's answers, kept apart by auction: an answer that depends on one auction alone (and on
 * the tenant's settings, categories, translations…) keeps its version while other auctions change, e.g. a lot
 * page while bids arrive on another auction's lots; an answer over the tenant (lists, search) moves with any
 * change in it. A change is placed by its events' data, as the events name them: `tenant`, `auctionId`,
 * `lotId` (a lot's auction as last seen here). What cannot be placed moves more: a lot not seen yet, or one seen
 * in another auction, moves the whole tenant; an event without a tenant, or a change told without its
 * events, moves every tenant.
 */
export class ScopedVersions {
  /** Moves every version (a change of unknown extent). */
  private epoch = 0;
  private tick = 0;
  private readonly tenants = new Map<string, TenantVersions>();
  /** `${tenant}\n${lotId}` → the lot's auction, as the events last said (bounded: forgotten all at once). */
  private readonly lotAuctions = new Map<string, number>();

  constructor(private readonly maxLots = 200_000) {}

  version(tenant: string, auction?: number): string {
    const t = this.tenants.get(tenant);
    // A tenant nothing was placed in yet reads as one with nothing changed (the same string once it has).
    if (!t) return `${this.epoch}.0.0`;
    return `${this.epoch}.${t.base}.${auction === undefined ? t.any : (t.auctions.get(auction) ?? 0)}`;
  }

  changed(events: readonly RecordedEvent[] | null): void {
    if (events === null) {
      this.epoch++;
      return;
    }
    for (const event of events) this.place(event.data);
  }

  private place(data: Record<string, unknown>): void {
    const tenant = data.tenant;
    if (typeof tenant !== 'string') {
      this.epoch++;
      return;
    }
    let t = this.tenants.get(tenant);
    if (!t) this.tenants.set(tenant, (t = { base: 0, any: 0, auctions: new Map() }));
    const tick = ++this.tick;
    t.any = tick;
    let auction = typeof data.auctionId === 'number' ? data.auctionId : undefined;
    if (typeof data.lotId === 'number') {
      const lot = `${tenant}\n${data.lotId}`;
      const known = this.lotAuctions.get(lot);
      if (auction === undefined) auction = known;
      else if (known !== auction) {
        // A lot first seen here, or moved: the answers of whichever auction held it before move too.
        if (this.lotAuctions.size >= this.maxLots) this.lotAuctions.clear();
        this.lotAuctions.set(lot, auction);
        auction = undefined;
      }
    }
    if (auction === undefined) t.base = tick;
    else t.auctions.set(auction, tick);
  }
}

interface TenantVersions {
  /** The last change not placed in one auction. */
  base: number;
  /** The last change of any kind. */
  any: number;
  /** The last change placed in each auction. */
  auctions: Map<number, number>;
}
