/**
 * Embedded adapter of the lot search index port (src/ports/search.ts), on MiniSearch 7.
 *
 *   const index = await MiniSearchIndex.open({ dir: 'data/search', partitions: { lots: 'Language' } });
 *
 * Layout: one MiniSearch engine per partition = (collection, tenant, value of the collection's partition
 * field, given by the `partitions` option). A search of a partitioned collection must name the partition
 * with an equality filter and reads only that engine; the identity rules of partitions are in
 * partitions.ts. The parts: terms.ts (tokenizing and folding), spec.ts (collection specs), engine.ts (one
 * partition's MiniSearch, documents and columns), match.ts (the AND query runner and its scores),
 * filters.ts, facets.ts, top-k.ts, search.ts (one request), snapshot.ts (one partition's file),
 * directory.ts (the folder and its manifest). This file keeps collections, checkpoints and durability;
 * rebuilds follow src/read-models/search-rebuild.ts.
 *
 * Matching rules: terms are folded by src/text/fold.ts ("Café" = "cafe", "Größe" = "grosse"); all terms
 * must match (AND); the last term also matches as a prefix (when >= 2 characters); terms of >= 4
 * characters match with typos: edit distance round(0.2 x length) capped to 1..2, plus one transposition
 * of adjacent letters ("chiar" -> "chair"). Fields in `queryBy` are boosted by position: first 3, last 1.
 *
 * Durability: the index is in memory; `flush()` writes each dirty partition (snapshot.ts) and then the
 * manifest listing them with the checkpoints (directory.ts). Flushes run every flushIntervalMs when there
 * are changes, after a finished rebuild, and on close(); `flush()` stays public for tools and tests. The
 * index part of a partition is copied synchronously, the documents are serialised in slices with the event
 * loop free in between. A snapshot that cannot be read is reported to onError and the index starts empty
 * with every checkpoint at 0, so the projectors replay it. One writing process per directory (there is no
 * lock file); other processes may open it `readOnly`.
 */
import type {
  SearchCollectionSpec,
  SearchDocument,
  SearchIndex,
  SearchRebuild,
  SearchRequest,
  SearchResult,
} from '../../../ports/search.ts';
import { searchRebuild } from '../../../read-models/search-rebuild.ts';
import { manifestPartitionField, SnapshotDirectory, type Manifest } from './directory.ts';
import { PartitionSet, type Partition } from './partitions.ts';
import { searchCollection } from './search.ts';
import { exportSnapshot, importSnapshot } from './snapshot.ts';
import { compileSpec, type CompiledSpec } from './spec.ts';
import { makePrivateFolderSync } from '../../../private-files.ts';

export interface MiniSearchIndexOptions {
  /** Folder for snapshots; null keeps everything in memory only. */
  dir: string | null;
  /**
   * Collections split into one engine per value of a field, e.g. `{ lots: 'Language' }`: a search then
   * reads one language's engine only, and an id is unique per value (one document per lot and language).
   */
  partitions?: Record<string, string>;
  /**
   * Loads the snapshot in `dir` but never writes the folder (no automatic flush, flush() and close() write
   * nothing, leftovers are left alone): for a process that keeps its own replica, fed from the log, beside
   * the one process that writes the folder.
   */
  readOnly?: boolean;
  /** Automatic flush of dirty state at most this often; default 30000, 0 = never automatically. */
  flushIntervalMs?: number;
  /** Called when an automatic flush fails or a snapshot cannot be loaded (default: console.error). */
  onError?: (error: unknown) => void;
}

interface Collection {
  compiled: CompiledSpec;
  live: PartitionSet;
  rebuilding: boolean;
}

export class MiniSearchIndex implements SearchIndex {
  private readonly files: SnapshotDirectory | null;
  private readonly readOnly: boolean;
  private readonly partitions: Record<string, string>;
  private readonly collections = new Map<string, Collection>();
  private checkpoints = new Map<string, number>();
  private generation = 0;
  /** Bumped on every change; `persisted` is the value the last committed manifest covers. */
  private changes = 0;
  private persisted = 0;
  private flushChain: Promise<void> = Promise.resolve();
  private flushesQueued = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly onError: (error: unknown) => void;
  /** How the snapshot was loaded (for diagnostics and tests). */
  readonly loadStats = { partitions: 0, documents: 0, rebuiltFromDocuments: 0, ms: 0 };

  /**
   * Opens the index. With a `dir`, the snapshot found there is loaded synchronously (CPU-bound either way)
   * and, unless read-only, leftovers of an interrupted flush are removed.
   */
  constructor(options: MiniSearchIndexOptions) {
    this.partitions = { ...options.partitions };
    this.onError = options.onError ?? ((e) => console.error('search index:', e));
    this.files = options.dir ? new SnapshotDirectory(options.dir) : null;
    this.readOnly = options.readOnly ?? false;
    if (options.dir) {
      if (!this.readOnly) makePrivateFolderSync(options.dir);
      this.load();
    }
    const interval = options.flushIntervalMs ?? 30000;
    if (this.files && !this.readOnly && interval > 0) {
      this.timer = setInterval(() => {
        if (this.flushesQueued === 0 && this.changes !== this.persisted) this.flush().catch(this.onError);
      }, interval);
      this.timer.unref();
    }
  }

  static async open(options: MiniSearchIndexOptions): Promise<MiniSearchIndex> {
    return new MiniSearchIndex(options);
  }

  private changed = (): void => {
    this.changes++;
  };

  private load(): void {
    const files = this.files!;
    const started = performance.now();
    let listed = new Set<string>();
    // A writer in another process may replace the generation between our reading its manifest and its
    // partition files (a read-only replica): read the new manifest then.
    for (let attempt = 1; ; attempt++) {
      const manifest = files.readManifest(this.onError);
      if (!manifest) break;
      listed = new Set(manifest.collections.flatMap((c) => c.partitions.map((p) => p.file)));
      try {
        this.loadManifest(files, manifest);
        break;
      } catch (e) {
        this.collections.clear();
        this.checkpoints.clear();
        this.loadStats.partitions = this.loadStats.documents = this.loadStats.rebuiltFromDocuments = 0;
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' && attempt < 3) continue;
        // The index is a projection: when its snapshot cannot be read, start empty with every checkpoint
        // at 0 so that the projectors replay from the start. The next flush replaces the files.
        this.onError(new Error(`search index: cannot load the snapshot in ${files.dir}, starting empty`, { cause: e }));
        this.changes++;
        break;
      }
    }
    // Whatever the manifest does not list is a leftover of an interrupted flush (or an old generation).
    if (!this.readOnly) files.removeLeftovers(listed);
    this.loadStats.ms = performance.now() - started;
    if (this.loadStats.rebuiltFromDocuments > 0) this.changes++;
  }

  private loadManifest(files: SnapshotDirectory, manifest: Manifest): void {
    this.generation = manifest.generation;
    for (const c of manifest.collections) {
      // Compiled as written: when the `partitions` option now says otherwise, ensureCollection re-indexes.
      const compiled = compileSpec(c.spec, manifestPartitionField(c));
      const set = new PartitionSet(compiled, this.changed);
      for (const p of c.partitions) {
        const { engine, fast } = importSnapshot(files.readPartition(p.file), compiled);
        // A partition rebuilt from its documents is rewritten in the current layout by the next flush.
        set.put({ tenant: p.tenant, value: p.value, engine, dirty: !fast, file: p.file });
        this.loadStats.partitions++;
        this.loadStats.documents += engine.size;
        if (!fast) this.loadStats.rebuiltFromDocuments++;
      }
      this.collections.set(compiled.spec.name, { compiled, live: set, rebuilding: false });
    }
    this.checkpoints = new Map(Object.entries(manifest.checkpoints));
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('search index is closed');
  }

  private collection(name: string): Collection {
    this.assertOpen();
    const c = this.collections.get(name);
    if (!c) throw new Error(`unknown search collection ${name}`);
    return c;
  }

  async ensureCollection(spec: SearchCollectionSpec): Promise<void> {
    this.assertOpen();
    const compiled = compileSpec(spec, this.partitions[spec.name] ?? null);
    const existing = this.collections.get(spec.name);
    if (!existing) {
      this.collections.set(spec.name, { compiled, live: new PartitionSet(compiled, this.changed), rebuilding: false });
      this.changes++;
      return;
    }
    if (existing.compiled.hash === compiled.hash) return;
    // The spec or the partitioning changed: re-index the stored documents under it (a projection rebuild
    // may still be due).
    existing.live = existing.live.reindex(compiled);
    existing.compiled = compiled;
  }

  async upsert(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.collection(collection).live.upsert(tenant, docs);
  }

  async update(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.collection(collection).live.update(tenant, docs);
  }

  async delete(collection: string, tenant: string, ids: string[]): Promise<void> {
    this.collection(collection).live.delete(tenant, ids);
  }

  async search(collection: string, tenant: string, request: SearchRequest): Promise<SearchResult> {
    return this.searchSync(collection, tenant, request);
  }

  /** Synchronous search (the port's search just wraps it). */
  searchSync(collection: string, tenant: string, request: SearchRequest): SearchResult {
    return searchCollection(this.collection(collection).live, tenant, request);
  }

  async getCheckpoint(projection: string): Promise<number> {
    this.assertOpen();
    return this.checkpoints.get(projection) ?? 0;
  }

  /** Every checkpoint kept with the index (for a process that keeps a copy of them: thread.ts). */
  checkpointEntries(): Array<[string, number]> {
    return [...this.checkpoints];
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    this.assertOpen();
    if (this.checkpoints.get(projection) === position) return;
    this.checkpoints.set(projection, position);
    this.changes++;
  }

  async startRebuild(collection: string, projection: string): Promise<SearchRebuild> {
    const c = this.collection(collection);
    if (c.rebuilding) throw new Error(`collection ${collection} is already being rebuilt`);
    c.rebuilding = true;
    // Changes to the fresh copy are not persisted until finish(), so they do not count as changes.
    const fresh = new PartitionSet(c.compiled, () => undefined);
    return searchRebuild(`the rebuild of ${collection}`, {
      assertOpen: () => this.assertOpen(),
      upsert: (tenant, docs) => fresh.upsert(tenant, docs),
      update: (tenant, docs) => fresh.update(tenant, docs),
      delete: (tenant, ids) => fresh.delete(tenant, ids),
      swap: (position) => {
        c.rebuilding = false;
        if (fresh.compiled.hash !== c.compiled.hash) {
          throw new Error(`collection ${collection} changed during the rebuild`);
        }
        const live = new PartitionSet(c.compiled, this.changed);
        for (const p of fresh.all()) live.put({ ...p, dirty: true, file: null });
        c.live = live;
        this.checkpoints.set(projection, position);
        this.changes++;
      },
      settle: () => this.flush(),
      discard: () => {
        c.rebuilding = false;
      },
    });
  }

  /**
   * Writes the dirty partitions and the checkpoints to `dir` (no-op in memory and read-only mode).
   * Serialised. Not part of the port: the index flushes on its interval, after a rebuild and on close;
   * tools and tests call it.
   */
  flush(): Promise<void> {
    if (this.readOnly) return Promise.resolve();
    this.flushesQueued++;
    const run = this.flushChain.then(() => this.flushNow()).finally(() => this.flushesQueued--);
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private async flushNow(): Promise<void> {
    const files = this.files;
    if (!files || this.changes === this.persisted) return;
    const startedAt = this.changes;
    const generation = this.generation + 1;
    // The checkpoints as of now: partitions written below are at least this new (later events may be in
    // them too, which a replay tolerates).
    const manifest = files.newManifest(generation, Object.fromEntries(this.checkpoints));
    const plan = [...this.collections.values()].map((c) => ({ compiled: c.compiled, partitions: [...c.live.all()] }));
    const written: Array<{ p: Partition; file: string }> = [];
    const attempted: Partition[] = [];
    try {
      for (const { compiled, partitions } of plan) {
        const entry: Manifest['collections'][number] = {
          spec: compiled.spec,
          partitionField: compiled.partitionField,
          partitions: [],
        };
        manifest.collections.push(entry);
        for (const p of partitions) {
          let file = p.file;
          if (p.dirty || file === null) {
            p.dirty = false;
            attempted.push(p);
            file = files.partitionFile(compiled.spec.name, p.tenant, p.value, generation);
            await files.writePartition(file, await exportSnapshot(p.engine));
            written.push({ p, file });
            await new Promise((resolve) => setImmediate(resolve));
          }
          entry.partitions.push({ tenant: p.tenant, value: p.value, file, documents: p.engine.size });
        }
      }
      await files.commit(manifest);
    } catch (e) {
      for (const p of attempted) p.dirty = true;
      throw e;
    }
    this.generation = generation;
    this.persisted = startedAt;
    for (const { p, file } of written) p.file = file;
    // Remove files of older generations that the committed manifest no longer lists.
    const listed = new Set(manifest.collections.flatMap((c) => c.partitions.map((p) => p.file)));
    for (const c of this.collections.values()) for (const p of c.live.all()) if (p.file) listed.add(p.file);
    await files.removeUnlisted(listed);
  }

  /** Stops the automatic flush, flushes and closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    this.closed = true;
  }
}
