// The projector as callers see it: its parts (loops, catch-up, read-your-writes waiters, status, rebuilds)
// composed over one list of projections, with their progress published to whoever subscribes (response caches).
import type { Projection } from './projection.ts';
import { Progress, type ProgressListener } from './progress.ts';
import { CatchUp } from './catch-up.ts';
import { Loops } from './loops.ts';
import { Waiters } from './waiters.ts';
import { projectionStatus, type ProjectionStatus } from './status.ts';
import { Rebuilds, type RebuildOptions } from './rebuild.ts';
import { liveSearchWriter, PAGE_SIZE, readPage, storedCheckpoint, type ProjectorDeps } from './apply.ts';
import type { RecordedEvent } from '../ports/event-log.ts';
import { Parking } from './parking.ts';
import { ParkedOperations } from './parked.ts';

export type { ProjectorDeps } from './apply.ts';
export type { ProjectionStatus } from './status.ts';
export type { ProgressListener } from './progress.ts';
export type { ParkedTally, RetryOutcome } from './parked.ts';

/**
 * Runs projections in the background: each from its own checkpoint, catching up and then following the
 * log live, batch by batch (the next batch is read only when the previous one is stored). A crash at any
 * moment loses nothing: a batch's writes and its checkpoint land together, and handlers are idempotent.
 */
export class ProjectorRuntime {
  private readonly progress = new Progress();
  private readonly catchUps: CatchUp;
  private readonly loops: Loops;
  private readonly waiters: Waiters;
  private readonly rebuilds: Rebuilds;
  private stopped = false;
  private readonly byName = new Map<string, Projection>();
  /** What the projections set aside (parking.ts), for an operator: list, retry, skip (`npm run parked`). */
  readonly parked: ParkedOperations;

  constructor(
    private readonly deps: ProjectorDeps,
    readonly projections: Projection[],
    /** A rebuild's bounds, and the tries before an event is parked (smaller in specs of the bounds themselves). */
    private readonly options: RebuildOptions = {},
  ) {
    for (const p of projections) {
      if (this.byName.has(p.name)) throw new Error(`duplicate projection ${p.name}`);
      this.byName.set(p.name, p);
    }
    const stopping = () => this.stopped;
    this.catchUps = new CatchUp(deps, this.progress, stopping, options.rebuildBatch ?? PAGE_SIZE);
    this.loops = new Loops(deps, this.progress, this.catchUps, stopping, options.parking);
    this.waiters = new Waiters(
      this.progress,
      // A search index that cannot be read now has reached nothing (no command waits on one: readModelsOf).
      async (names) => (await this.checkpoints(names)).map((position) => position ?? 0),
      () => this.loops.count > 0,
      (names) => this.changeMark(names),
    );
    this.rebuilds = new Rebuilds(deps, this.catchUps, options);
    this.parked = new ParkedOperations(
      deps,
      (name) => this.get(name),
      (name) => this.rebuild(name),
      options.parking,
    );
  }

  get(name: string): Projection {
    const projection = this.byName.get(name);
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
    return storedCheckpoint(this.deps, projection);
  }

  /**
   * The stored checkpoints of the named projections, in that order (one read of each store that can); null for a
   * search projection whose index cannot be read now (a search engine away), which fails nothing else.
   */
  async checkpoints(names: readonly string[]): Promise<Array<number | null>> {
    const projections = names.map((name) => this.get(name));
    const documents = projections.filter((p) => p.kind !== 'search').map((p) => p.name);
    const stored = new Map<string, number>();
    if (documents.length > 1 && this.deps.documents.getCheckpoints) {
      const positions = await this.deps.documents.getCheckpoints(documents);
      documents.forEach((name, i) => stored.set(name, positions[i]));
    }
    return Promise.all(
      projections.map((p) => stored.get(p.name) ?? (p.kind === 'search' ? this.checkpoint(p).catch(() => null) : this.checkpoint(p))),
    );
  }

  /**
   * A mark that moves whenever another process may have moved a stored checkpoint of the named projections, read
   * without I/O (their stores' changeMark, once per store); null when a store has none (the checkpoints must be read).
   */
  changeMark(names: readonly string[]): string | null {
    let documents = false;
    let search = false;
    for (const name of names) {
      if (this.get(name).kind === 'search') search = true;
      else documents = true;
    }
    const d = documents ? this.deps.documents.changeMark?.() : 0;
    const s = search ? this.deps.search.changeMark?.() : 0;
    return d === undefined || d === null || s === undefined || s === null ? null : `${d}:${s}`;
  }

  /**
   * The events a projection handled after `from` up to `to` (what moved its stored checkpoint there, for followers
   * in another process); null when they are more than `max`: the follower then takes anything as changed.
   */
  async handledBetween(name: string, from: number, to: number, max = 5000): Promise<RecordedEvent[] | null> {
    const handles = this.get(name).handles;
    const { events, end } = await readPage(this.deps.log, handles, from, max);
    if (end < to && events.length >= max) return null;
    return events.filter((e) => e.position <= to && handles.includes(e.type));
  }

  /**
   * Follows the projector: where the projections running here stand and when what they serve changes
   * (caches of answers subscribe before start()). Returns the unsubscribe.
   */
  subscribe(listener: ProgressListener): () => void {
    return this.progress.subscribe(listener);
  }

  /**
   * Starts the loops of the named projections (default: all) in the background. The others run in another
   * process (the `projector` role): their followers read their stored checkpoints.
   */
  async start(names: readonly string[] = this.projections.map((p) => p.name)): Promise<void> {
    await this.loops.start(this.projections.filter((p) => names.includes(p.name)));
  }

  /** The projections this process runs. */
  get running(): string[] {
    return [...this.progress.positions.keys()];
  }

  /**
   * Read your writes: resolves true once every named projection has reached `position`, false after
   * timeoutMs. Projections that run in another process are followed through their stored checkpoints.
   */
  async waitFor(position: number, names: string[], timeoutMs = 5000): Promise<boolean> {
    return this.waiters.waitFor(position, names, timeoutMs);
  }

  /** For /readyz and /metrics (see status.ts); of the search projections alone for the search operations' gate. */
  async status(which: 'all' | 'search' = 'all'): Promise<Record<string, ProjectionStatus>> {
    const projections = which === 'all' ? this.projections : this.projections.filter((p) => p.kind === 'search');
    return projectionStatus(this.deps, projections, this.progress.positions, this.loops.failures);
  }

  /** Runs every projection until it has reached the log's head (used when no background loop runs). */
  async catchUp(): Promise<void> {
    const head = await this.deps.log.headPosition();
    if (this.loops.count > 0) {
      await this.waitFor(
        head,
        this.projections.map((p) => p.name),
        600_000,
      );
      return;
    }
    for (const projection of this.projections) {
      await this.catchUps.run(
        projection,
        await this.checkpoint(projection),
        head,
        this.deps.documents.live(),
        liveSearchWriter(this.deps, projection),
        await new Parking(this.deps.documents, this.deps.logger, projection.name, projection.name, this.options.parking).load(),
      );
    }
  }

  /**
   * Runs one projection (run by no loop) from its stored checkpoint up to `to` exactly, page by page with its
   * checkpoint; `stop()` ends it at a page boundary. Returns where it stands (`npm run project`).
   */
  async catchUpTo(
    name: string,
    to: number,
    options: { stop?: () => boolean; onProgress?: (position: number) => void } = {},
  ): Promise<number> {
    const projection = this.get(name);
    return this.catchUps.upTo(projection, await this.checkpoint(projection), to, options);
  }

  /** Rebuilds one projection into a fresh copy and swaps it in (see rebuild.ts). */
  async rebuild(name: string, onProgress?: (position: number, head: number) => void): Promise<{ events: number; position: number }> {
    return this.rebuilds.rebuild(this.get(name), onProgress);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.progress.stopped();
    this.waiters.stop();
    await this.loops.stop();
    this.waiters.clear();
  }
}
