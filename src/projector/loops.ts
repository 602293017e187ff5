// The background loop of each projection this process runs: from its checkpoint, catch up, then follow the log
// live one batch at a time, storing idle checkpoints and retrying after failures.
import type { EventLog, RecordedEvent } from '../ports/event-log.ts';
import { CheckpointConflictError } from '../ports/read-models.ts';
import { isEngineUnreachable } from '../errors.ts';
import { KeptDocuments, type Projection, type Reactor } from './projection.ts';
import type { Progress } from './progress.ts';
import type { CatchUp } from './catch-up.ts';
import { applyParked, liveSearchWriter, react, storedCheckpoint, type ProjectorDeps, type SearchWriter } from './apply.ts';
import { isParkable, Parking, type ParkingOptions } from './parking.ts';

/** The longest wait before a projection whose store was unreachable tries again. */
const UNREACHABLE_RETRY_MS = 1000;

/** How long a projection may leave irrelevant events out of its stored checkpoint. */
const IDLE_CHECKPOINT_MS = 1000;

export class Loops {
  private readonly loops: Array<Promise<void>> = [];
  private readonly stops: Array<() => Promise<void>> = [];
  /** Projections whose last batch failed, with the error (cleared by the next stored batch). */
  readonly failures = new Map<string, string>();
  /** What each projection running here has set aside (parking.ts). */
  private readonly parkings = new Map<string, Parking>();

  constructor(
    private readonly deps: ProjectorDeps,
    private readonly progress: Progress,
    private readonly catchUp: CatchUp,
    private readonly stopping: () => boolean,
    /** Tries and backoff before an event is parked (smaller in specs). */
    private readonly parkingOptions: ParkingOptions = {},
  ) {}

  /** Whether any loop was started in this process. */
  get count(): number {
    return this.loops.length;
  }

  /** Starts the loops of these projections in the background, each from its stored checkpoint. */
  async start(projections: Projection[]): Promise<void> {
    this.progress.started();
    for (const projection of projections) {
      const parking = new Parking(this.deps.documents, this.deps.logger, projection.name, projection.name, {
        ...this.parkingOptions,
        stopping: this.stopping,
      });
      this.parkings.set(projection.name, await parking.load());
      this.progress.runs(projection.name, await storedCheckpoint(this.deps, projection));
    }
    // Far behind (a first build), the projections catch up together, each page of the log read once; then
    // each follows the log on its own.
    const together = this.catchUp
      .together(projections, (p) => this.parkings.get(p.name)!)
      .catch((error) =>
        this.deps.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'catching up together stopped; each projection goes on alone',
        ),
      );
    for (const projection of projections) this.loops.push(together.then(() => this.loop(projection)));
  }

  /**
   * Where the loop starts again (after each failure too): its stored checkpoint (a store that was unreachable, a
   * checkpoint moved), what it set aside (a rebuild's swap, an operator's retry or skip, may have changed it), then,
   * when behind (a first build, a long stop), the events of its types alone in large pages until the head.
   */
  private async resume(projection: Projection, searchWriter: SearchWriter, parking: Parking): Promise<number> {
    const stored = await storedCheckpoint(this.deps, projection);
    await parking.load();
    return this.catchUp.from(projection, stored, searchWriter, parking);
  }

  /** A live batch applied after `from` (its parked streams set aside): the checkpoint it stored. */
  private apply(
    projection: Projection,
    events: RecordedEvent[],
    from: number,
    { searchWriter, parking, kept }: { searchWriter: SearchWriter; parking: Parking; kept: KeptDocuments | undefined },
  ): Promise<number> {
    return applyParked(parking, this.deps.documents, projection, events, from, this.deps.documents.live(), {
      searchWriter,
      onChange: (handled, at) => {
        if (handled.length > 0) this.progress.changed(projection.name, at, handled);
      },
      end: events[events.length - 1].position,
      kept,
    });
  }

  private async loop(projection: Projection): Promise<void> {
    const searchWriter = liveSearchWriter(this.deps, projection);
    const kept = projection.kind === 'documents' && projection.keepDocuments ? new KeptDocuments(projection.keepDocuments) : undefined;
    const parking = this.parkings.get(projection.name)!;
    let backoff = 100;
    while (!this.stopping()) {
      let stored = 0;
      let lastStore: number;
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
            if (this.stopping() || pending <= stored) return;
            // The position stored, not `pending` after the await: batches that came meanwhile are not stored yet.
            const position = pending;
            if (projection.kind === 'search') await storeSearchCheckpoint(projection.name, searchWriter, stored, position);
            else await this.deps.documents.live().commit([], { projection: projection.name, expected: stored, position });
            stored = position;
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
        stored = pending = await this.resume(projection, searchWriter, parking);
        lastStore = Date.now();
        if (this.stopping()) break;
        subscription = this.deps.log.subscribeToAll({ fromPosition: stored, batchSize: 2000 });
        for await (const events of subscription) {
          if (this.stopping()) break;
          const batchEnd = events[events.length - 1].position;
          const relevant = events.some((e) => projection.handles.includes(e.type));
          // A reactor's batch is reacted to at once, and its checkpoint stored like an idle one: nobody reads
          // your writes from a reactor, and its jobs are keyed, so events replayed after a crash add nothing.
          if ((!relevant || projection.kind === 'reactor') && Date.now() - lastStore < IDLE_CHECKPOINT_MS) {
            let reacted = true;
            if (relevant && projection.kind === 'reactor') {
              // A batch with a held stream, or one that fails, goes the parking way below (stored with its checkpoint).
              const reacting = work.then(() => !parking.holds(events) && reactAtOnce(projection, events));
              work = reacting.catch(() => undefined);
              reacted = await reacting;
              if (reacted) this.failures.delete(projection.name);
            }
            if (reacted) {
              pending = batchEnd;
              idle ??= setTimeout(storeIdle, IDLE_CHECKPOINT_MS);
              this.progress.advance(projection.name, batchEnd);
              continue;
            }
          }
          // From `stored` as it is when the batch runs (an idle checkpoint queued before it may move it).
          const batch = work.then(() => this.apply(projection, events, stored, { searchWriter, parking, kept }));
          work = batch.catch(() => undefined);
          stored = pending = await batch;
          lastStore = Date.now();
          this.progress.advance(projection.name, stored);
          this.failures.delete(projection.name);
          backoff = 100;
        }
      } catch (error) {
        kept?.clear();
        if (idle) clearTimeout(idle);
        await subscription?.unsubscribe();
        if (this.stopping()) break;
        if (await this.recovered(projection, error, backoff)) continue;
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }

  /**
   * After the loop failed: a checkpoint moved elsewhere is resumed from at once (true); any other failure is
   * recorded and logged, and the loop waits `backoff` before it tries again (false).
   */
  private async recovered(projection: Projection, error: unknown, backoff: number): Promise<boolean> {
    if (error instanceof CheckpointConflictError) {
      this.progress.replaced(projection.name, error.actual);
      this.deps.logger.info({ projection: projection.name }, 'checkpoint moved elsewhere (rebuild swap?); resuming from it');
      return true;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.failures.set(projection.name, message);
    // An engine away (a database restarting) or out of room (a full disk, logged once by the storage's
    // record) is tried again often, so the projection follows soon after its return; any other failure backs
    // off further, up to 10 s.
    const full = this.deps.storage?.refused(error, 'projection') ?? false;
    const unreachable = full || isEngineUnreachable(error);
    if (full) this.deps.logger.debug({ projection: projection.name, err: message }, 'projection store full; retrying');
    else if (unreachable) this.deps.logger.warn({ projection: projection.name, err: message }, 'projection store unreachable; retrying');
    else this.deps.logger.error({ projection: projection.name, err: message }, 'projection failed; retrying');
    await new Promise((r) => setTimeout(r, unreachable ? Math.min(backoff, UNREACHABLE_RETRY_MS) : backoff));
    return false;
  }

  /** Ends every loop (the projector is stopping): subscriptions closed, the batch in flight let finish. */
  async stop(): Promise<void> {
    await Promise.all(this.stops.map((s) => s()));
    await Promise.allSettled(this.loops);
  }
}

/** An idle checkpoint in a search index, unless it moved meanwhile (a rebuild's swap: the next batch notices). */
async function storeSearchCheckpoint(name: string, writer: SearchWriter, expected: number, position: number): Promise<void> {
  const current = writer.getCheckpoint ? await writer.getCheckpoint() : expected;
  if (current !== expected) throw new CheckpointConflictError(name, expected, current);
  await writer.setCheckpoint(position);
}

/** A reactor's batch reacted to at once; false when an event of it fails in a way that may be its own (then parked). */
async function reactAtOnce(projection: Reactor, events: RecordedEvent[]): Promise<boolean> {
  try {
    await react(projection, events);
    return true;
  } catch (error) {
    if (isParkable(error)) return false;
    throw error;
  }
}
