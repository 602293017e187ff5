/**
 * Embedded adapter of the lot search index port (src/ports/search.ts) on SQLite's FTS5, in one file that
 * every process of a DATA_DIR shares: the process running the projectors writes it, `api` processes open
 * it `readOnly` and read what it wrote (WAL: readers never wait for the writer). The index lives in the
 * file and SQLite's page cache, not on the JS heap; each process keeps only the vocabularies it searched.
 *
 *   const index = await SqliteSearchIndex.open({ file: 'data/search/index.sqlite', partitions: { lots: 'Language' } });
 *
 * Partitions, identity and matching are the MiniSearch adapter's (../minisearch/index.ts: one partition
 * per tenant and partition value; folding, AND, prefixes, typos); ranking is in search.ts. The tables:
 * store.ts; the writes: writes.ts. A rebuild fills the next generation and swaps it in with its
 * checkpoint in one transaction (src/read-models/search-rebuild.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {
  SearchCollectionSpec,
  SearchDocument,
  SearchIndex,
  SearchRebuild,
  SearchRequest,
  SearchResult,
} from '../../../ports/search.ts';
import { searchRebuild } from '../../../read-models/search-rebuild.ts';
import { checkSearchRequest } from '../minisearch/filters.ts';
import { compileSpec, type CompiledSpec } from '../minisearch/spec.ts';
import { searchPartition, StatementCache, type PartitionRef } from './search.ts';
import { createBookkeeping, dropPartitionTables } from './store.ts';
import { Vocabularies } from './vocabulary.ts';
import { GenerationWriter } from './writes.ts';
import { makePrivateFolderSync, privateDatabaseFile } from '../../../private-files.ts';

export interface SqliteSearchIndexOptions {
  /** The database file; null keeps the index in memory (one process). */
  file: string | null;
  /** Collections split into one partition per value of a field, e.g. `{ lots: 'Language' }`. */
  partitions?: Record<string, string>;
  /** Reads the file another process writes: every write is refused, nothing is created or tidied. */
  readOnly?: boolean;
}

interface Collection {
  compiled: CompiledSpec;
  /** Writes of the live generation (writer only). */
  live: GenerationWriter | null;
  rebuilding: boolean;
}

interface StoredCollection {
  hash: string;
  spec: string;
  partition_field: string | null;
  generation: number;
}

export class SqliteSearchIndex implements SearchIndex {
  private db: Database.Database | null = null;
  private statements: StatementCache | null = null;
  private vocabularies: Vocabularies | null = null;
  private readonly collections = new Map<string, Collection>();
  private readonly storedSpecs = new Map<string, CompiledSpec>();
  /** The live generation each collection's last search read (a reader sees a writer's swap by it). */
  private readonly generations = new Map<string, number>();
  private readonly partitions: Record<string, string>;
  private readonly readOnly: boolean;
  private closed = false;

  constructor(private readonly options: SqliteSearchIndexOptions) {
    this.partitions = { ...options.partitions };
    this.readOnly = options.readOnly ?? false;
    if (!this.readOnly && options.file) makePrivateFolderSync(path.dirname(options.file));
    this.connect();
  }

  static async open(options: SqliteSearchIndexOptions): Promise<SqliteSearchIndex> {
    return new SqliteSearchIndex(options);
  }

  /** Opens the database; a reader whose file the writer has not created yet tries again on its next call. */
  private connect(): Database.Database | null {
    if (this.db) return this.db;
    const file = this.options.file ?? ':memory:';
    if (this.readOnly && (file === ':memory:' || !fs.existsSync(file))) return null;
    const db = new Database(this.readOnly ? file : privateDatabaseFile(file));
    db.pragma('busy_timeout = 5000');
    if (this.readOnly) {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'collections'").get()) {
        db.close();
        return null;
      }
    } else {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      createBookkeeping(db);
    }
    this.db = db;
    this.statements = new StatementCache(db);
    this.vocabularies = new Vocabularies(db);
    return db;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('search index is closed');
  }

  private assertWritable(): Database.Database {
    this.assertOpen();
    if (this.readOnly) throw new Error('search index is read-only in this process');
    return this.db!;
  }

  /** A collection this process ensured, or else one the file holds (as the MiniSearch snapshot's are known). */
  private collection(name: string): Collection {
    this.assertOpen();
    let c = this.collections.get(name);
    if (c) return c;
    const row = this.connect() ? this.stored(name) : undefined;
    if (!row) throw new Error(`unknown search collection ${name}`);
    const compiled = this.storedSpec(row);
    c = { compiled, live: this.readOnly ? null : new GenerationWriter(this.db!, compiled, row.generation), rebuilding: false };
    this.collections.set(name, c);
    return c;
  }

  private stored(name: string): StoredCollection | undefined {
    return this.statements?.get('SELECT hash, spec, partition_field, generation FROM collections WHERE name = ?').get(name) as
      StoredCollection | undefined;
  }

  async ensureCollection(spec: SearchCollectionSpec): Promise<void> {
    this.assertOpen();
    const compiled = compileSpec(spec, this.partitions[spec.name] ?? null);
    if (this.readOnly) {
      this.collections.set(spec.name, { compiled, live: null, rebuilding: false });
      return;
    }
    const db = this.db!;
    const row = this.stored(spec.name);
    if (!row) {
      db.prepare('INSERT INTO collections (name, hash, spec, partition_field, generation) VALUES (?, ?, ?, ?, 1)').run(
        spec.name,
        compiled.hash,
        JSON.stringify(spec),
        compiled.partitionField,
      );
      this.collections.set(spec.name, { compiled, live: new GenerationWriter(db, compiled, 1), rebuilding: false });
      return;
    }
    // Partitions of other generations are leftovers of a rebuild that did not finish.
    for (const p of db
      .prepare('SELECT pid FROM partitions WHERE collection = ? AND generation <> ?')
      .all(spec.name, row.generation) as Array<{ pid: number }>)
      dropPartitionTables(db, p.pid);
    if (row.hash === compiled.hash) {
      this.collections.set(spec.name, { compiled, live: new GenerationWriter(db, compiled, row.generation), rebuilding: false });
      return;
    }
    // The spec or the partitioning changed: re-index the stored documents under it (a projection rebuild
    // may still be due).
    const old = new GenerationWriter(db, compileSpec(JSON.parse(row.spec), row.partition_field), row.generation);
    const next = new GenerationWriter(db, compiled, row.generation + 1);
    db.transaction(() => {
      for (const { tenant, docs } of old.documents()) next.upsert(tenant, docs);
      db.prepare('UPDATE collections SET hash = ?, spec = ?, partition_field = ?, generation = ? WHERE name = ?').run(
        compiled.hash,
        JSON.stringify(spec),
        compiled.partitionField,
        next.generation,
        spec.name,
      );
      this.dropGeneration(spec.name, row.generation);
    })();
    this.collections.set(spec.name, { compiled, live: next, rebuilding: false });
  }

  /** Forgets the prepared statements and vocabularies of tables that may be gone. */
  private dropKept(): void {
    this.statements?.clear();
    this.vocabularies?.clear();
  }

  private dropGeneration(collection: string, generation: number): void {
    const db = this.db!;
    for (const p of db.prepare('SELECT pid FROM partitions WHERE collection = ? AND generation = ?').all(collection, generation) as Array<{
      pid: number;
    }>) {
      dropPartitionTables(db, p.pid);
      this.vocabularies?.forget(p.pid);
    }
    this.statements?.clear();
  }

  private writeLive(collection: string, write: (w: GenerationWriter) => void): void {
    const db = this.assertWritable();
    const live = this.collection(collection).live!;
    db.transaction(() => write(live))();
  }

  async upsert(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.writeLive(collection, (w) => w.upsert(tenant, docs));
  }

  async update(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.writeLive(collection, (w) => w.update(tenant, docs));
  }

  async delete(collection: string, tenant: string, ids: string[]): Promise<void> {
    this.writeLive(collection, (w) => w.delete(tenant, ids));
  }

  async search(collection: string, tenant: string, request: SearchRequest): Promise<SearchResult> {
    return this.searchSync(collection, tenant, request);
  }

  /** Synchronous search (the port's search just wraps it). */
  searchSync(collection: string, tenant: string, request: SearchRequest): SearchResult {
    const c = this.collection(collection);
    const db = this.connect();
    const row = db ? this.stored(collection) : undefined;
    if (row && this.generations.get(collection) !== row.generation) {
      // Another generation is live (a rebuild was swapped in): what was kept for the one before goes.
      if (this.generations.has(collection)) this.dropKept();
      this.generations.set(collection, row.generation);
    }
    const compiled = row && row.hash !== c.compiled.hash ? this.storedSpec(row) : c.compiled;
    const value = checkSearchRequest(compiled, request);
    const partition = row
      ? (this.statements!.get(
          'SELECT pid, version FROM partitions WHERE collection = ? AND generation = ? AND tenant = ? AND value = ?',
        ).get(collection, row.generation, tenant, value) as PartitionRef | undefined)
      : undefined;
    const tools = this.statements && this.vocabularies ? { statements: this.statements, vocabularies: this.vocabularies } : null;
    return searchPartition(compiled, partition, request, tools);
  }

  /** Documents in the live generation of a collection, over all tenants and partitions (diagnostics). */
  documentCount(collection: string): number {
    const db = this.connect();
    const row = db ? this.stored(collection) : undefined;
    if (!db || !row) return 0;
    const pids = db.prepare('SELECT pid FROM partitions WHERE collection = ? AND generation = ?').all(collection, row.generation) as Array<{
      pid: number;
    }>;
    return pids.reduce((n, p) => n + (db.prepare(`SELECT count(*) AS n FROM d${p.pid}`).get() as { n: number }).n, 0);
  }

  private storedSpec(row: StoredCollection): CompiledSpec {
    let c = this.storedSpecs.get(row.hash);
    if (!c) this.storedSpecs.set(row.hash, (c = compileSpec(JSON.parse(row.spec), row.partition_field)));
    return c;
  }

  async getCheckpoint(projection: string): Promise<number> {
    this.assertOpen();
    // Polled by other processes' read-your-writes waits: a statement prepared once.
    const row = this.connect()
      ? (this.statements!.get('SELECT position FROM checkpoints WHERE projection = ?').get(projection) as { position: number } | undefined)
      : undefined;
    return row?.position ?? 0;
  }

  /** SQLite's data_version of the shared file (see DocumentStore.changeMark); null before the file exists. */
  changeMark(): number | null {
    if (this.closed || !this.connect()) return null;
    return this.statements!.get('PRAGMA data_version').pluck().get() as number;
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    this.assertWritable()
      .prepare(
        'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
      )
      .run(projection, position);
  }

  async startRebuild(collection: string, projection: string): Promise<SearchRebuild> {
    const db = this.assertWritable();
    const c = this.collection(collection);
    if (c.rebuilding) throw new Error(`collection ${collection} is already being rebuilt`);
    c.rebuilding = true;
    const live = c.live!;
    const fresh = new GenerationWriter(db, c.compiled, live.generation + 1);
    const write = (fn: () => void) => db.transaction(fn)();
    return searchRebuild(`the rebuild of ${collection}`, {
      assertOpen: () => this.assertOpen(),
      upsert: (tenant, docs) => write(() => fresh.upsert(tenant, docs)),
      update: (tenant, docs) => write(() => fresh.update(tenant, docs)),
      delete: (tenant, ids) => write(() => fresh.delete(tenant, ids)),
      swap: (position) => {
        c.rebuilding = false;
        if (fresh.compiled.hash !== c.compiled.hash) throw new Error(`collection ${collection} changed during the rebuild`);
        write(() => {
          db.prepare('UPDATE collections SET generation = ? WHERE name = ?').run(fresh.generation, collection);
          db.prepare(
            'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
          ).run(projection, position);
        });
        c.live = fresh;
      },
      settle: async () => {
        write(() => this.dropGeneration(collection, live.generation));
        // Merges the index segments a bulk fill leaves behind, for faster queries.
        for (const p of db
          .prepare('SELECT pid FROM partitions WHERE collection = ? AND generation = ?')
          .all(collection, fresh.generation) as Array<{
          pid: number;
        }>)
          db.exec(`INSERT INTO t${p.pid} (t${p.pid}) VALUES ('optimize')`);
      },
      discard: () => {
        c.rebuilding = false;
        write(() => this.dropGeneration(collection, fresh.generation));
      },
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.db && !this.readOnly) this.db.pragma('optimize');
    this.db?.close();
    this.db = null;
  }
}
