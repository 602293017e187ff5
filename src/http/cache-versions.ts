// Versions of what projections serve, for caches of their answers (response cache, derived values, the access
// directory): followed from the projector's news when a projection runs here, from its stored checkpoint when not,
// read again before a request is answered.
import type { RecordedEvent } from '../ports/event-log.ts';
import type { ProgressListener } from '../projector/progress.ts';

/** How often the stored checkpoints of projections that run in another process are read. */
const REMOTE_POLL_MS = 25;

/**
 * Subscribed to the projector (ProjectorRuntime.subscribe) before it starts. A version is one string: where
 * each named projection last changed when it runs here, its stored checkpoint when it runs in another process.
 * Null before the projector starts (tools without loops: nothing to follow).
 *
 * Stored checkpoints are read again every REMOTE_POLL_MS, and before a request is answered (`fresh()`): a
 * command answers once the stored checkpoints have reached its events (read your writes), so a request that
 * arrives after that answer, on any process, must see versions read after it arrived; otherwise a cached
 * answer of another process would show the state before the write (docs/architecture.md, "Caches across
 * processes").
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
  /** The read of the stored checkpoints running now, and the one that starts when it ends (one at a time). */
  private polling: Promise<void> | null = null;
  private nextPoll: Promise<void> | null = null;
  /** The followed projections (the keys of `remote`), as one array for the reads. */
  private followed: string[] = [];
  /** The stores' change mark when the running (or last) read began; null: unknown, the next request reads again. */
  private polledMark: string | null = null;
  /** Versions by tenant and auction (scoped): told of each change with the events that made it. */
  private readonly scopes: { names: readonly string[]; versions: ScopedVersions }[] = [];
  private readonly checkpoints: (names: readonly string[]) => Promise<Array<number | null>>;
  /** Followed projections whose checkpoint could not be read at the last poll after one was known. */
  private readonly unread = new Set<string>();
  private readonly handledBetween: (name: string, from: number, to: number) => Promise<readonly RecordedEvent[] | null>;
  private readonly changeMark: (names: readonly string[]) => string | null;

  constructor(stores: {
    /**
     * The stored checkpoints of the named projections, in that order (ProjectorRuntime.checkpoints); null for one
     * that cannot be read now (a search engine away): unknown, so no version that reads it is made until it is.
     */
    checkpoints: (names: readonly string[]) => Promise<Array<number | null>>;
    /** The events a projection handled between two positions (null: too many to read; anything changed). */
    handledBetween?: (name: string, from: number, to: number) => Promise<readonly RecordedEvent[] | null>;
    /**
     * A mark that moves whenever another process may have moved a stored checkpoint of the named projections, read
     * without I/O (ProjectorRuntime.changeMark); null: unknown, the checkpoints are read before every request.
     */
    changeMark?: (names: readonly string[]) => string | null;
  }) {
    this.checkpoints = stores.checkpoints;
    this.handledBetween = stores.handledBetween ?? (async () => null);
    this.changeMark = stores.changeMark ?? (() => null);
  }

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
   * Before a request is answered from anything these versions guard: null when the versions are as current as
   * the stores (no projection is followed from another process, or none of their stores changed since the last
   * read of their checkpoints began, and that read is done); else a promise resolved once a read of the stored
   * checkpoints that began after this call is done (one read serves every request that waits meanwhile).
   */
  fresh(): Promise<void> | null {
    if (this.closed || this.remote.size === 0) return null;
    if (this.unmoved()) return this.polling;
    return this.pollAfterNow();
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
    this.followed = [...this.remote.keys()];
    this.polledMark = null;
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => {
      if (!this.polling && !this.unmoved()) void this.startPoll();
    }, REMOTE_POLL_MS);
    this.timer.unref();
  }

  /** Whether no followed store has changed since the running (or last) read of the checkpoints began. */
  private unmoved(): boolean {
    return this.polledMark !== null && this.polledMark === this.changeMark(this.followed);
  }

  /** A read of the checkpoints that begins now, or when the running one ends (it may have begun before this call). */
  private pollAfterNow(): Promise<void> {
    if (!this.polling) return this.startPoll();
    return (this.nextPoll ??= this.polling.then(() => {
      this.nextPoll = null;
      return this.polling ?? this.startPoll();
    }));
  }

  private startPoll(): Promise<void> {
    this.polledMark = this.changeMark(this.followed);
    const run = this.poll().then(
      () => {
        if (this.polling === run) this.polling = null;
      },
      () => {
        // A store that does not answer now is read again at the next request or tick.
        this.polledMark = null;
        if (this.polling === run) this.polling = null;
      },
    );
    this.polling = run;
    return run;
  }

  /** Reads the stored checkpoints of the followed projections, and tells the scopes what moved them. */
  private async poll(): Promise<void> {
    const names = this.followed;
    const positions = await this.checkpoints(names);
    for (let i = 0; i < names.length; i++) {
      const [name, position] = [names[i], positions[i]];
      const before = this.remote.get(name);
      if (position === null) {
        // Unknown while unreadable: what it guards is answered afresh, and moved when it is read again.
        if (before !== undefined) this.unread.add(name);
        this.remote.set(name, undefined);
        continue;
      }
      if (this.unread.delete(name)) this.tellScopes(name, null);
      else if (before !== undefined && position !== before && this.scopes.some((s) => s.names.includes(name))) {
        // What moved it, for versions by tenant and auction; a checkpoint moved back (a rebuild) changed anything.
        this.tellScopes(name, position > before ? await this.handledBetween(name, before, position) : null);
      }
      this.remote.set(name, position);
    }
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
