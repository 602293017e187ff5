// A projection rebuilt from position 0 into fresh collections (or a fresh index copy) while reads go on against
// the old ones, then swapped in with its checkpoint; the running loop resumes from the swapped checkpoint.
import type { WriteTarget } from '../ports/read-models.ts';
import type { SearchIndex } from '../ports/search.ts';
import { UnitOfWork, type Projection } from './projection.ts';
import type { CatchUp } from './catch-up.ts';
import { PAGE_SIZE, readPage, type ProjectorDeps } from './apply.ts';
import { isParkable, Parking, type ParkingOptions } from './parking.ts';
import { rebuildCheckpoint } from '../read-models/rebuild.ts';

/**
 * Documents a rebuild keeps in memory between writes (each read once and written once while it stays). A write is one
 * commit of the rebuild's target: on MongoDB it goes out in bounded batches outside any transaction (the copy is read
 * by nobody until the swap), so its size is bounded by memory, not by a transaction's lifetime.
 */
const REBUILD_DOCUMENTS = 50_000;

export interface RebuildOptions {
  /** Documents kept in memory between writes (REBUILD_DOCUMENTS; smaller in specs of the bounds themselves). */
  rebuildDocuments?: number;
  /** Events read at once (PAGE_SIZE; likewise). */
  rebuildBatch?: number;
  /** Tries and backoff before an event is parked (smaller in specs). */
  parking?: ParkingOptions;
}

export class Rebuilds {
  constructor(
    private readonly deps: ProjectorDeps,
    private readonly catchUp: CatchUp,
    private readonly options: RebuildOptions = {},
  ) {}

  /**
   * Rebuilds one projection from position 0 into fresh collections (or a fresh index copy), then swaps
   * them in. Reads go on against the old copy meanwhile; the live loop picks up from the swapped checkpoint.
   * What it cannot apply it parks (under its own checkpoint's name, leaving out what an operator skipped); the
   * swap puts that list in place of the live one: it is what a replay parks.
   */
  async rebuild(
    projection: Projection,
    onProgress?: (position: number, head: number) => void,
  ): Promise<{ events: number; position: number }> {
    let head = await this.deps.log.headPosition();
    const parking = () =>
      new Parking(this.deps.documents, this.deps.logger, projection.name, rebuildCheckpoint(projection.name), this.options.parking);
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
        readStream: (streamId: string) => this.deps.log.readStream(streamId),
      };
      const parked = await this.clearParked(rebuildCheckpoint(projection.name)).then(() => parking().load());
      try {
        let position = 0;
        do {
          position = await this.catchUp.run(projection, position, head, null, writer, parked, (p) => onProgress?.(p, head));
          head = await this.deps.log.headPosition();
        } while (position < head);
        await rebuild.finish(last);
        await this.moveParked(projection.name);
        return { events: last, position: last };
      } catch (error) {
        await rebuild.abort();
        await this.clearParked(rebuildCheckpoint(projection.name));
        throw error;
      }
    }
    const collections = projection.kind === 'documents' ? projection.collections.map((c) => c.name) : [];
    const target = await this.deps.documents.startRebuild(projection.name, collections);
    const parked = await parking().load();
    try {
      let position = 0;
      for (;;) {
        do {
          position =
            projection.kind === 'documents'
              ? await this.documents(projection, position, head, target, parked, (p) => onProgress?.(p, head))
              : await this.catchUp.run(projection, position, head, target, undefined, parked, (p) => onProgress?.(p, head));
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

  /**
   * A document projection rebuilt from `from` to `until` into fresh collections, its documents kept in one
   * unit of work across batches (read once, written once) up to REBUILD_DOCUMENTS of them, then written out
   * and the oldest let go; the checkpoint moves with each write. A page with a stream held, or one that fails,
   * is applied batch by batch from the last write instead (parking what fails), the unit of work started afresh.
   */
  private async documents(
    projection: Extract<Projection, { kind: 'documents' }>,
    from: number,
    until: number,
    target: WriteTarget,
    parking: Parking,
    onProgress?: (position: number) => void,
  ): Promise<number> {
    let uow = new UnitOfWork(target);
    const held = this.options.rebuildDocuments ?? REBUILD_DOCUMENTS;
    let position = from;
    let stored = from;
    const store = async () => {
      await target.commit(uow.flush(), { projection: projection.name, expected: stored, position });
      stored = position;
    };
    while (position < until) {
      const { events, end } = await readPage(this.deps.log, projection.handles, position, this.options.rebuildBatch ?? PAGE_SIZE);
      if (end <= position) break;
      try {
        if (parking.holds(events)) await store();
        else {
          for (const event of events) {
            if (!projection.handles.includes(event.type)) continue;
            uow.current = event;
            await projection.apply(event, uow);
          }
          position = end;
          if (uow.size > held || position >= until) {
            await store();
            uow.forget(Math.floor(held / 2));
          }
          onProgress?.(position);
          continue;
        }
      } catch (error) {
        // What the unit of work holds since the last write may be half applied: it is dropped, and read again.
        if (!isParkable(error)) throw error;
      }
      uow = new UnitOfWork(target);
      position = stored = await this.catchUp.run(projection, stored, end, target, undefined, parking);
      onProgress?.(position);
    }
    if (position > stored) await store();
    return position;
  }

  /** Forgets what a checkpoint's name set aside (a search index's rebuild, which has no swap of its own for it). */
  private async clearParked(checkpoint: string): Promise<void> {
    const events = await this.deps.documents.parkedEvents(checkpoint);
    if (events.length > 0)
      await this.deps.documents.unpark(
        checkpoint,
        events.map((e) => e.position),
      );
  }

  /** After a search index's swap: what its rebuild set aside replaces the live list, but for the skips (not atomic). */
  private async moveParked(projection: string): Promise<void> {
    const shadow = rebuildCheckpoint(projection);
    const live = await this.deps.documents.parkedEvents(projection);
    const skipped = new Set(live.filter((e) => e.state === 'skipped').map((e) => e.position));
    await this.deps.documents.unpark(
      projection,
      live.filter((e) => !skipped.has(e.position)).map((e) => e.position),
    );
    await this.deps.documents.park(
      projection,
      (await this.deps.documents.parkedEvents(shadow)).filter((e) => !skipped.has(e.position)),
    );
    await this.clearParked(shadow);
  }
}
