// A projection rebuilt from position 0 into fresh collections (or a fresh index copy) while reads go on against
// the old ones, then swapped in with its checkpoint; the running loop resumes from the swapped checkpoint.
import type { WriteTarget } from '../ports/read-models.ts';
import type { SearchIndex } from '../ports/search.ts';
import { UnitOfWork, type Projection } from './projection.ts';
import type { CatchUp } from './catch-up.ts';
import { PAGE_SIZE, readPage, type ProjectorDeps } from './apply.ts';

/** Documents a rebuild keeps in memory between writes (each read once and written once while it stays). */
const REBUILD_DOCUMENTS = 50_000;

export interface RebuildOptions {
  /** Documents kept in memory between writes (REBUILD_DOCUMENTS; smaller in specs of the bounds themselves). */
  rebuildDocuments?: number;
  /** Events read at once (PAGE_SIZE; likewise). */
  rebuildBatch?: number;
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
   */
  async rebuild(
    projection: Projection,
    onProgress?: (position: number, head: number) => void,
  ): Promise<{ events: number; position: number }> {
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
        readStream: (streamId: string) => this.deps.log.readStream(streamId),
      };
      try {
        let position = 0;
        do {
          position = await this.catchUp.run(projection, position, head, null, writer, (p) => onProgress?.(p, head));
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
              ? await this.documents(projection, position, head, target, (p) => onProgress?.(p, head))
              : await this.catchUp.run(projection, position, head, target, undefined, (p) => onProgress?.(p, head));
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
   * and the oldest let go; the checkpoint moves with each write.
   */
  private async documents(
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
      const { events, end } = await readPage(this.deps.log, projection.handles, position, this.options.rebuildBatch ?? PAGE_SIZE);
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
}
