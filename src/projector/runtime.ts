import type { EventLog, RecordedEvent } from '../ports/event-log.ts';
import type { DocumentStore, WriteTarget } from '../ports/read-models.ts';
import { CheckpointConflictError } from '../ports/read-models.ts';
import type { SearchIndex } from '../ports/search.ts';
import type { Logger } from '../logger.ts';
import { SearchBatch, UnitOfWork, type Projection } from './projection.ts';

export interface ProjectorDeps {
  log: EventLog;
  documents: DocumentStore;
  search: SearchIndex;
  logger: Logger;
}

type Waiter = { position: number; resolve: () => void };

/** Events read at once by catch-up and rebuilds. */
const REBUILD_BATCH = 5000;
/** Documents a rebuild keeps in memory between writes (each read once and written once while it stays). */
const REBUILD_DOCUMENTS = 50_000;

/** How long a projection may leave irrelevant events out of its stored checkpoint. */
const IDLE_CHECKPOINT_MS = 1000;

/** Applies one batch of events to a projection and moves its checkpoint (one transaction for documents). */
async function applyBatch(
  projection: Projection,
  deps: ProjectorDeps,
  events: RecordedEvent[],
  expected: number,
  target: WriteTarget | null,
  searchWriter?: {
    upsert: SearchIndex['upsert'];
    update: SearchIndex['update'];
    delete: SearchIndex['delete'];
    getCheckpoint?(): Promise<number>;
    setCheckpoint(position: number): Promise<void>;
  },
  onChange?: (changed: boolean) => void,
  /** Where the batch ends in the log (a filtered read may end past its last event). */
  end = events[events.length - 1].position,
): Promise<number> {
  const position = end;
  const handled = events.filter((e) => projection.handles.includes(e.type));
  // Called once the batch is stored, so a reader that sees the new version also sees the new data.
  const stored = (p: number) => (onChange?.(handled.length > 0), p);
  switch (projection.kind) {
    case 'documents': {
      const uow = new UnitOfWork(target!);
      for (const event of handled) {
        uow.current = event;
        await projection.apply(event, uow);
      }
      await target!.commit(uow.ops(), { projection: projection.name, expected, position });
      return stored(position);
    }
    case 'search': {
      const batch = new SearchBatch();
      for (const event of handled) projection.apply(event, batch);
      const writer = searchWriter!;
      const collection = projection.collection.name;
      // The index has no transaction: a checkpoint moved by someone else (a rebuild's alias swap) is noticed
      // before writing, and the loop resumes from it. (On Typesense a swap in the instant between this check
      // and the write is not caught: rebuild the index with the projector stopped for a guarantee.)
      if (writer.getCheckpoint) {
        const current = await writer.getCheckpoint();
        if (current !== expected) throw new CheckpointConflictError(projection.name, expected, current);
      }
      for (const op of batch.ops) {
        if (op.op === 'upsert') await writer.upsert(collection, op.tenant, op.docs);
        else if (op.op === 'update') await writer.update(collection, op.tenant, op.docs);
        else await writer.delete(collection, op.tenant, op.ids);
      }
      await writer.setCheckpoint(position);
      return stored(position);
    }
    case 'reactor': {
      for (const event of handled) await projection.react(event);
      await target!.commit([], { projection: projection.name, expected, position });
      return stored(position);
    }
  }
}

export interface ProjectionStatus {
  /** Where it stands in the log (the engine's position: a count on the embedded log, bytes on EventStoreDB). */
  position: number;
  caughtUp: boolean;
  /** Age of the oldest event it has not applied yet; 0 when caught up. */
  lagSeconds: number;
  /** Whether this process runs it, or follows another process's stored checkpoint. */
  runs: 'here' | 'elsewhere';
  error?: string;
}

/** How often a process follows the stored checkpoints of projections that run in another process. */
const REMOTE_POLL_MS = 25;
/** How often read-your-writes waits on projections of another process look at their stored checkpoints (one read serves all). */
const WAIT_POLL_MS = 5;

/**
 * Runs projections in the background: each from its own checkpoint, catching up and then following the
 * log live, batch by batch (the next batch is read only when the previous one is stored). A crash at any
 * moment loses nothing: a batch's writes and its checkpoint land together, and handlers are idempotent.
 */
export class ProjectorRuntime {
  private readonly positions = new Map<string, number>();
  /** Stored checkpoints of the projections another process runs, as last polled (cache versions). */
  private readonly remote = new VersionedMap<string, number | undefined>(() => this.versionStamp++);
  private remoteTimer: NodeJS.Timeout | null = null;
  private started = false;
  /** Per projection, the position of the last batch that changed it (a cache version for its readers). */
  private readonly lastChange = new VersionedMap<string, number>(() => this.versionStamp++);
  /** Moves whenever a position cacheVersion reads changes: the versions it made before are then recomputed. */
  private versionStamp = 0;
  private readonly versions = new WeakMap<readonly string[], { stamp: number; version: string | null }>();
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly loops: Array<Promise<void>> = [];
  private readonly stops: Array<() => Promise<void>> = [];
  private stopped = false;
  private readonly failures = new Map<string, string>();

  constructor(
    private readonly deps: ProjectorDeps,
    readonly projections: Projection[],
    /** A rebuild's bounds (REBUILD_DOCUMENTS, REBUILD_BATCH; smaller in specs of the bounds themselves). */
    private readonly options: { rebuildDocuments?: number; rebuildBatch?: number } = {},
  ) {
    const names = new Set<string>();
    for (const p of projections) {
      if (names.has(p.name)) throw new Error(`duplicate projection ${p.name}`);
      names.add(p.name);
    }
  }

  get(name: string): Projection {
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`unknown projection ${name}`);
    return projection;
  }

  /** Declares collections and indexes. */
  async setup(): Promise<void> {
    for (const p of this.projections) {
      if (p.kind === 'documents') for (const c of p.collections) await this.deps.documents.ensureCollection(c);
      if (p.kind === 'search') await this.deps.search.ensureCollection(p.collection);
    }
  }

  async checkpoint(projection: Projection): Promise<number> {
    return projection.kind === 'search'
      ? this.deps.search.getCheckpoint(projection.name)
      : this.deps.documents.getCheckpoint(projection.name);
  }

  /**
   * Starts the loops of the named projections (default: all) in the background. The others run in another
   * process (the `projector` role): this one follows their stored checkpoints.
   */
  async start(names: readonly string[] = this.projections.map((p) => p.name)): Promise<void> {
    this.started = true;
    const running: Projection[] = [];
    for (const projection of this.projections) {
      if (!names.includes(projection.name)) continue;
      const position = await this.checkpoint(projection);
      this.positions.set(projection.name, position);
      this.lastChange.set(projection.name, position);
      running.push(projection);
    }
    // Far behind (a first build), the projections catch up together, each page of the log read once; then
    // each follows the log on its own.
    const together = this.catchUpTogether(running).catch((error) =>
      this.deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'catching up together stopped; each projection goes on alone'),
    );
    for (const projection of running) this.loops.push(together.then(() => this.loop(projection)));
    if (this.projections.some((p) => !names.includes(p.name))) {
      // Only the projections a cache has asked about (cacheVersion) are followed.
      const poll = async () => {
        for (const name of this.remote.keys()) this.remote.set(name, await this.checkpoint(this.get(name)));
      };
      this.remoteTimer = setInterval(() => void poll().catch(() => undefined), REMOTE_POLL_MS);
      this.remoteTimer.unref();
    }
  }

  /** The projections this process runs. */
  get running(): string[] {
    return [...this.positions.keys()];
  }

  /** Writes of a search projection to the live index, with its checkpoint kept there. */
  private searchWriter(projection: Projection) {
    const search = this.deps.search;
    return {
      upsert: search.upsert.bind(search),
      update: search.update.bind(search),
      delete: search.delete.bind(search),
      getCheckpoint: () => search.getCheckpoint(projection.name),
      setCheckpoint: (position: number) => search.setCheckpoint(projection.name, position),
    };
  }

  private async loop(projection: Projection): Promise<void> {
    const searchWriter = this.searchWriter(projection);
    let backoff = 100;
    while (!this.stopped) {
      let stored = await this.checkpoint(projection);
      let lastStore = Date.now();
      // Writes of this loop, one after another: a batch, or the idle checkpoint below.
      let work: Promise<unknown> = Promise.resolve();
      let pending = stored;
      let idle: NodeJS.Timeout | null = null;
      // A batch with nothing for this projection only moves its position in memory; the stored checkpoint
      // follows at most IDLE_CHECKPOINT_MS later, also when no further event comes (other processes, e.g.
      // an `api` answering /readyz, follow the stored one). Replaying such events after a crash changes nothing.
      const storeIdle = () => {
        idle = null;
        work = work
          .then(async () => {
            if (this.stopped || pending <= stored || projection.kind === 'search') return;
            await this.deps.documents.live().commit([], { projection: projection.name, expected: stored, position: pending });
            stored = pending;
            lastStore = Date.now();
          })
          .catch(() => undefined); // a moved checkpoint shows up as a conflict on the next batch
      };
      let subscription: ReturnType<EventLog['subscribeToAll']> | null = null;
      this.stops.push(async () => {
        if (idle) clearTimeout(idle);
        await subscription?.unsubscribe();
      });
      try {
        // Behind (a first build, a long stop): the events of this projection's types alone, in large pages,
        // until the head; then the log live.
        stored = pending = await this.catchUpFrom(projection, stored, searchWriter);
        lastStore = Date.now();
        if (this.stopped) break;
        subscription = this.deps.log.subscribeToAll({ fromPosition: stored, batchSize: 2000 });
        for await (const events of subscription) {
          if (this.stopped) break;
          const batchEnd = events[events.length - 1].position;
          const relevant = events.some((e) => projection.handles.includes(e.type));
          if (!relevant && projection.kind !== 'search' && Date.now() - lastStore < IDLE_CHECKPOINT_MS) {
            pending = batchEnd;
            idle ??= setTimeout(storeIdle, IDLE_CHECKPOINT_MS);
            this.advance(projection.name, batchEnd);
            continue;
          }
          const batch = work.then(() =>
            applyBatch(projection, this.deps, events, stored, this.deps.documents.live(), searchWriter, (changed) => {
              if (changed) this.lastChange.set(projection.name, batchEnd);
            }),
          );
          work = batch.catch(() => undefined);
          stored = pending = await batch;
          lastStore = Date.now();
          this.advance(projection.name, stored);
          this.failures.delete(projection.name);
          backoff = 100;
        }
      } catch (error) {
        if (idle) clearTimeout(idle);
        await subscription?.unsubscribe();
        if (this.stopped) break;
        if (error instanceof CheckpointConflictError) {
          this.lastChange.set(projection.name, -Date.now());
          this.positions.set(projection.name, error.actual);
          this.deps.logger.info({ projection: projection.name }, 'checkpoint moved elsewhere (rebuild swap?); resuming from it');
          continue;
        }
        const message = error instanceof Error ? error.message : String(error);
        this.failures.set(projection.name, message);
        this.deps.logger.error({ projection: projection.name, err: message }, 'projection failed; retrying');
        await new Promise((r) => setTimeout(r, backoff));
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }

  private advance(name: string, position: number) {
    this.positions.set(name, position);
    const waiting = this.waiters.get(name);
    if (!waiting?.length) return;
    const still: Waiter[] = [];
    for (const w of waiting) (w.position <= position ? w.resolve() : still.push(w));
    this.waiters.set(name, still);
  }

  /**
   * Read your writes: resolves true once every named projection has reached `position`, false after
   * timeoutMs. Projections that run in another process are followed through their stored checkpoints.
   */
  async waitFor(position: number, names: string[], timeoutMs = 5000): Promise<boolean> {
    if (position <= 0) return true;
    const deadline = Date.now() + timeoutMs;
    for (const name of names) {
      const local = this.positions.get(name);
      if (local !== undefined && local >= position) continue;
      if (local !== undefined && this.loops.length > 0) {
        const reached = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
          const list = this.waiters.get(name) ?? [];
          list.push({ position, resolve: () => (clearTimeout(timer), resolve(true)) });
          this.waiters.set(name, list);
        });
        if (!reached) return false;
        continue;
      }
      if ((await this.checkpoint(this.get(name))) >= position) continue;
      const reached = await new Promise<boolean>((resolve) => {
        const waiter = { position, resolve: () => (clearTimeout(timer), resolve(true)) };
        const timer = setTimeout(() => {
          const list = this.remoteWaiters.get(name);
          if (list) this.remoteWaiters.set(name, list.filter((w) => w !== waiter));
          resolve(false);
        }, Math.max(0, deadline - Date.now()));
        this.remoteWaiters.set(name, [...(this.remoteWaiters.get(name) ?? []), waiter]);
        this.remoteWaitTimer ??= setTimeout(this.pollRemoteWaiters, WAIT_POLL_MS);
      });
      if (!reached) return false;
    }
    return true;
  }

  /** Waiters on projections that run elsewhere: one checkpoint read per projection and poll serves them all. */
  private readonly remoteWaiters = new Map<string, Waiter[]>();
  private remoteWaitTimer: NodeJS.Timeout | null = null;

  private readonly pollRemoteWaiters = async () => {
    try {
      for (const [name, list] of this.remoteWaiters) {
        if (list.length === 0) {
          this.remoteWaiters.delete(name);
          continue;
        }
        const stored = await this.checkpoint(this.get(name));
        const still = (this.remoteWaiters.get(name) ?? []).filter((w) => (w.position <= stored ? (w.resolve(), false) : true));
        if (still.length) this.remoteWaiters.set(name, still);
        else this.remoteWaiters.delete(name);
      }
    } catch {
      // a store that does not answer now may answer at the next poll; each waiter has its own deadline
    }
    this.remoteWaitTimer = this.remoteWaiters.size > 0 && !this.stopped ? setTimeout(this.pollRemoteWaiters, WAIT_POLL_MS) : null;
  };

  /**
   * A version of what the named projections serve, as one string, for caches of their answers: where each
   * last changed when it runs here, its stored checkpoint (polled every REMOTE_POLL_MS) when it runs in
   * another process. Null before start() (tools without loops: nothing to follow).
   */
  cacheVersion(names: readonly string[]): string | null {
    if (!this.started) return null;
    // Asked on every catalogue request: made again only when a position it reads has moved.
    const known = this.versions.get(names);
    if (known && known.stamp === this.versionStamp) return known.version;
    const stamp = this.versionStamp;
    const version = this.makeVersion(names);
    this.versions.set(names, { stamp, version });
    return version;
  }

  private makeVersion(names: readonly string[]): string | null {
    let version = '';
    let complete = true;
    for (const name of names) {
      const position = this.lastChange.get(name) ?? this.remote.get(name);
      if (position === undefined) {
        // Runs elsewhere and not followed yet: followed from the next poll on, uncached until then.
        if (!this.positions.has(name) && !this.remote.has(name)) this.remote.set(name, undefined);
        complete = false;
      }
      version += `${position};`;
    }
    return complete ? version : null;
  }

  /**
   * For /readyz and /metrics. A projection is caught up when it (here, or its stored checkpoint, which
   * another process may have moved) has reached the log's head. Positions are compared, never subtracted:
   * on EventStoreDB they are byte offsets, so lag is told in seconds (the age of the oldest unapplied event).
   */
  async status(): Promise<Record<string, ProjectionStatus>> {
    const head = await this.deps.log.headPosition();
    const result: Record<string, ProjectionStatus> = {};
    for (const p of this.projections) {
      const local = this.positions.get(p.name);
      const stored = await this.checkpoint(p);
      const position = Math.max(local ?? 0, stored);
      const caughtUp = position >= head;
      let lagSeconds = 0;
      if (!caughtUp) {
        const [next] = await this.deps.log.readAll({ fromPosition: position, maxCount: 1 });
        if (next) lagSeconds = Math.max(0, (Date.now() - Date.parse(next.created)) / 1000);
      }
      result[p.name] = {
        position,
        caughtUp,
        lagSeconds,
        runs: local === undefined ? 'elsewhere' : 'here',
        ...(this.failures.has(p.name) ? { error: 'failing' } : {}),
      };
    }
    return result;
  }

  /** Runs every projection until it has reached the log's head (used when no background loop runs). */
  async catchUp(): Promise<void> {
    const head = await this.deps.log.headPosition();
    if (this.loops.length > 0) {
      await this.waitFor(head, this.projections.map((p) => p.name), 600_000);
      return;
    }
    for (const projection of this.projections) {
      await this.runFrom(projection, await this.checkpoint(projection), head, this.deps.documents.live(), this.searchWriter(projection));
    }
  }

  private async runFrom(
    projection: Projection,
    from: number,
    until: number,
    target: WriteTarget | null,
    searchWriter: Parameters<typeof applyBatch>[5],
    onProgress?: (position: number) => void,
  ): Promise<number> {
    let position = from;
    while (position < until) {
      const { events, end } = await this.read(projection.handles, position, this.options.rebuildBatch ?? REBUILD_BATCH);
      if (end <= position) break;
      position = await applyBatch(projection, this.deps, events, position, target, searchWriter, undefined, end);
      onProgress?.(position);
    }
    return position;
  }

  /**
   * The projections this process runs, caught up together from the furthest behind of them to the head:
   * each page of their types is read (and parsed) once and each projection applies its own events of it,
   * written with its checkpoint like a live batch. Only where the log can filter by type; a failure stops
   * it, and each projection's loop then catches up alone.
   */
  private async catchUpTogether(projections: Projection[]): Promise<void> {
    if (!this.deps.log.readTypes || projections.length < 2) return;
    const types = [...new Set(projections.flatMap((p) => p.handles))];
    const at = new Map(projections.map((p) => [p, this.positions.get(p.name) ?? 0]));
    const writers = new Map(projections.map((p) => [p, this.searchWriter(p)]));
    while (!this.stopped) {
      const from = Math.min(...at.values());
      const { events, end } = await this.read(types, from, REBUILD_BATCH);
      if (end <= from) return;
      for (const projection of projections) {
        const position = at.get(projection)!;
        if (position >= end) continue;
        const mine = events.filter((e) => e.position > position && projection.handles.includes(e.type));
        const stored = await applyBatch(
          projection,
          this.deps,
          mine,
          position,
          this.deps.documents.live(),
          writers.get(projection),
          (changed) => {
            if (changed) this.lastChange.set(projection.name, end);
          },
          end,
        );
        at.set(projection, stored);
        this.advance(projection.name, stored);
      }
      if (events.length < REBUILD_BATCH) return;
    }
  }

  /**
   * Catches a running projection up from `from` in pages of its own types (where the log can filter them:
   * EventLog.readTypes; else nothing is done here and the live subscription reads everything), each page
   * written with its checkpoint like a live batch; returns where it stands, at the head as of its last read.
   */
  private async catchUpFrom(projection: Projection, from: number, searchWriter: ReturnType<ProjectorRuntime['searchWriter']>): Promise<number> {
    if (!this.deps.log.readTypes) return from;
    let position = from;
    while (!this.stopped) {
      const { events, end } = await this.read(projection.handles, position, REBUILD_BATCH);
      if (end <= position) break;
      position = await applyBatch(
        projection,
        this.deps,
        events,
        position,
        this.deps.documents.live(),
        searchWriter,
        (changed) => {
          if (changed) this.lastChange.set(projection.name, end);
        },
        end,
      );
      this.advance(projection.name, position);
      if (events.length < REBUILD_BATCH) break;
    }
    return position;
  }

  /**
   * The next page of the log for a projection: only the types it handles where the log can filter them
   * (EventLog.readTypes), and where that page ends in the log.
   */
  private async read(types: readonly string[], from: number, maxCount: number): Promise<{ events: RecordedEvent[]; end: number }> {
    const log = this.deps.log;
    if (log.readTypes) {
      const { events, position } = await log.readTypes({ fromPosition: from, maxCount, types });
      return { events, end: position };
    }
    const events = await log.readAll({ fromPosition: from, maxCount });
    return { events, end: events.length > 0 ? events[events.length - 1].position : from };
  }

  /**
   * A document projection rebuilt from `from` to `until` into fresh collections, its documents kept in one
   * unit of work across batches (read once, written once) up to REBUILD_DOCUMENTS of them, then written out
   * and the oldest let go; the checkpoint moves with each write.
   */
  private async rebuildDocuments(
    projection: Extract<Projection, { kind: 'documents' }>,
    from: number,
    until: number,
    target: WriteTarget,
    onProgress?: (position: number) => void,
  ): Promise<number> {
    const uow = new UnitOfWork(target);
    const held = this.options.rebuildDocuments ?? REBUILD_DOCUMENTS;
    let position = from;
    let stored = from;
    const store = async () => {
      await target.commit(uow.flush(), { projection: projection.name, expected: stored, position });
      stored = position;
    };
    while (position < until) {
      const { events, end } = await this.read(projection.handles, position, this.options.rebuildBatch ?? REBUILD_BATCH);
      if (end <= position) break;
      for (const event of events) {
        if (!projection.handles.includes(event.type)) continue;
        uow.current = event;
        await projection.apply(event, uow);
      }
      position = end;
      if (uow.size > held) {
        await store();
        uow.forget(Math.floor(held / 2));
      }
      onProgress?.(position);
    }
    if (position > stored) await store();
    return position;
  }

  /**
   * Rebuilds one projection from position 0 into fresh collections (or a fresh index copy), then swaps
   * them in. Reads go on against the old copy meanwhile; the live loop picks up from the swapped checkpoint.
   */
  async rebuild(name: string, onProgress?: (position: number, head: number) => void): Promise<{ events: number; position: number }> {
    const projection = this.get(name);
    let head = await this.deps.log.headPosition();
    if (projection.kind === 'search') {
      const rebuild = await this.deps.search.startRebuild(projection.collection.name, projection.name);
      let last = 0;
      const writer = {
        upsert: (_c: string, tenant: string, docs: Parameters<SearchIndex['upsert']>[2]) => rebuild.upsert(tenant, docs),
        update: (_c: string, tenant: string, docs: Parameters<SearchIndex['update']>[2]) => rebuild.update(tenant, docs),
        delete: (_c: string, tenant: string, ids: string[]) => rebuild.delete(tenant, ids),
        setCheckpoint: async (position: number) => {
          last = position;
        },
      };
      try {
        let position = 0;
        do {
          position = await this.runFrom(projection, position, head, null, writer, (p) => onProgress?.(p, head));
          head = await this.deps.log.headPosition();
        } while (position < head);
        await rebuild.finish(last);
        return { events: last, position: last };
      } catch (error) {
        await rebuild.abort();
        throw error;
      }
    }
    const collections = projection.kind === 'documents' ? projection.collections.map((c) => c.name) : [];
    const target = await this.deps.documents.startRebuild(projection.name, collections);
    try {
      let position = 0;
      for (;;) {
        do {
          position =
            projection.kind === 'documents'
              ? await this.rebuildDocuments(projection, position, head, target, (p) => onProgress?.(p, head))
              : await this.runFrom(projection, position, head, target, undefined, (p) => onProgress?.(p, head));
          head = await this.deps.log.headPosition();
        } while (position < head);
        // The swap waits until the rebuilt copy is at least where a running projector has brought the live
        // one, so nobody reads a copy that lacks a write they have already seen.
        if (await target.finish()) break;
        head = Math.max(head, await this.deps.documents.getCheckpoint(projection.name));
      }
      return { events: position, position };
    } catch (error) {
      await target.abort();
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.remoteTimer) clearInterval(this.remoteTimer);
    if (this.remoteWaitTimer) clearTimeout(this.remoteWaitTimer);
    await Promise.all(this.stops.map((s) => s()));
    await Promise.allSettled(this.loops);
    for (const list of this.waiters.values()) list.length = 0;
  }
}

/** A Map that calls `changed` when a key is set to a value it did not hold (the cache versions' stamp). */
class VersionedMap<K, V> extends Map<K, V> {
  constructor(private readonly changed: () => void) {
    super();
  }

  override set(key: K, value: V): this {
    if (!super.has(key) || super.get(key) !== value) this.changed?.();
    return super.set(key, value);
  }
}
