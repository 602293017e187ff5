/**
 * The embedded read-model store: SQLite with one table per collection, documents kept as JSONB, and the
 * declared indexes created as expression indexes over (tenant, json_extract(doc, field)...), so a page
 * query is an index range scan, never a scan of the collection.
 *
 * Filters (the language of src/read-models/filter.ts) are compiled into SQL by sqlite-filter.ts, whose
 * json_extract expressions are the index definitions' own, which is what lets SQLite use them.
 *
 * Collections are reached through aliases (name → physical table), so a projection can be rebuilt into a
 * fresh table and swapped in atomically while reads go on against the old one: the protocol is
 * src/read-models/rebuild.ts, this file gives its SQLite steps.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type {
  Collection,
  CollectionSpec,
  Doc,
  DocumentStore,
  Filter,
  FindOptions,
  ParkedCount,
  ParkedEvent,
  RebuildTarget,
  Scalar,
  TenantScope,
  WriteOp,
  WriteTarget,
} from '../../ports/read-models.ts';
import { CheckpointConflictError } from '../../ports/read-models.ts';
import {
  runSwapSync,
  startRebuild,
  type RebuildCopy,
  type RebuildEngine,
  type SwapReply,
  type SwapStep,
} from '../../read-models/rebuild.ts';
import { fieldExpr, filterToSql } from './sqlite-filter.ts';
import { privateDatabaseFile } from '../../private-files.ts';
import { countParked, deleteParked, readParked, writeParked } from './sqlite-parked-events.ts';
import { READ_MODEL_TABLES } from './sqlite-read-model-schema.ts';
import { mapForReads } from './sqlite-mmap.ts';

/** Swaps made by any store of this process: the others re-read their aliases at their next read. */
let swapsHere = 0;

interface AliasRow {
  name: string;
  physical: string;
  generation: number;
  spec: string;
}

export class SqliteDocumentStore implements DocumentStore {
  readonly db: Database.Database;
  private readonly aliases = new Map<string, AliasRow>();
  private readonly statements = new Map<string, Database.Statement>();
  private closed = false;
  private writtenSinceOptimize = false;
  private readonly optimizer: NodeJS.Timeout;

  constructor(file: string, options: { mmapBytes?: number } = {}) {
    this.db = new Database(privateDatabaseFile(file));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // Several processes share the file (api, projector, a rebuild): writers wait for each other rather than fail.
    this.db.pragma('busy_timeout = 30000');
    this.db.pragma('cache_size = -65536');
    mapForReads(this.db, options.mmapBytes);
    this.db.exec(READ_MODEL_TABLES);
    this.loadAliases();
    this.db.pragma('analysis_limit = 1000');
    this.db.pragma('optimize = 0x10002');
    // Keep the planner's statistics fresh (it picks the index that serves a page's order from them).
    this.optimizer = setInterval(() => this.maintain(), 60_000).unref();
  }

  /** SQLite housekeeping: refresh the planner's statistics of tables that changed (cheap, bounded). */
  async maintain(): Promise<void> {
    if (this.closed || !this.writtenSinceOptimize) return;
    this.writtenSinceOptimize = false;
    this.db.pragma('optimize');
  }

  private loadAliases() {
    this.aliases.clear();
    for (const row of this.db.prepare('SELECT * FROM rm_aliases').all() as AliasRow[]) this.aliases.set(row.name, row);
    this.schemaVersion = this.schemaVersionStatement.get() as number;
  }

  /** Prepared once: db.pragma() prepares a statement on every call, and this one runs on every read and write. */
  private get schemaVersionStatement(): Database.Statement {
    return (this.schemaVersionQuery ??= this.db.prepare('PRAGMA schema_version').pluck());
  }
  private schemaVersionQuery: Database.Statement | null = null;

  /** The schema version the aliases were read at: a rebuild's swap in any process (tables created, dropped) moves it. */
  private schemaVersion = -1;

  /**
   * Follows a swap made by another process (`npm run rebuild` beside the service): SQLite bumps the schema
   * version on every CREATE or DROP, which plain writes never do, so this check is one header read.
   */
  private refreshAliases() {
    if ((this.schemaVersionStatement.get() as number) !== this.schemaVersion) {
      this.loadAliases();
      this.statements.clear();
      this.writeStatements.clear();
    }
  }

  /**
   * The check above once per turn of the event loop for reads (a request's look-ups share it), and after any
   * swap made in this process: within a turn nothing from outside (an answer, a request) can tell a reader that
   * another process swapped, and the rebuild drops the old copies before it says it is done.
   */
  private refreshAliasesForReads() {
    if (this.aliasesChecked === swapsHere) return;
    this.refreshAliases();
    if (this.aliasesChecked === -1) setImmediate(this.forgetCheck);
    this.aliasesChecked = swapsHere;
  }
  /** The swaps counter as of this turn's check; -1: not checked in this turn. */
  private aliasesChecked = -1;
  private readonly forgetCheck = () => {
    this.aliasesChecked = -1;
  };

  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.statements.size > 1000) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs a read on the current copies, re-resolving aliases once if another process swapped one under us. */
  private withAliases<T>(fn: () => T): T {
    this.refreshAliasesForReads();
    return this.withKnownAliases(fn);
  }

  /** Runs a read on the copies the aliases last named (re-resolving them if one of those is gone). */
  private withKnownAliases<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof Error && /no such table/.test(error.message)) {
        this.loadAliases();
        this.statements.clear();
        this.writeStatements.clear();
        return fn();
      }
      throw error;
    }
  }

  private physical(name: string): string {
    const alias = this.aliases.get(name);
    if (!alias) throw new Error(`unknown collection ${name}`);
    return alias.physical;
  }

  private createPhysical(physical: string, spec: CollectionSpec, withIndexes = true) {
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${physical} (
      tenant TEXT NOT NULL, id TEXT NOT NULL, doc BLOB NOT NULL, UNIQUE (tenant, id))`);
    if (withIndexes) this.createIndexes(physical, spec);
  }

  /**
   * Creates the declared indexes of a copy, named by a hash of their definition, then drops those no longer
   * declared: an index whose fields or uniqueness changed between starts reaches an existing copy (as on
   * PostgreSQL), and a unique index is never absent while its replacement is built.
   */
  private createIndexes(physical: string, spec: CollectionSpec) {
    const wanted = new Set<string>();
    for (const index of spec.indexes ?? []) {
      const definition = `${index.unique ? 'UNIQUE ' : ''}(${['tenant', ...index.fields.map(fieldExpr)].join(', ')})`;
      const name = `${physical}_x${createHash('sha256').update(definition).digest('hex').slice(0, 10)}`;
      wanted.add(name);
      this.db.exec(
        `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${name} ON ${physical} ${definition.replace(/^UNIQUE /, '')}`,
      );
    }
    const existing = this.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
      .all(physical) as Array<{ name: string }>;
    for (const { name } of existing) if (!wanted.has(name)) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    if (!/^[a-z][a-z0-9_]*$/.test(spec.name)) throw new Error(`invalid collection name ${spec.name}`);
    this.db
      .transaction(() => {
        const existing = this.db.prepare('SELECT * FROM rm_aliases WHERE name = ?').get(spec.name) as AliasRow | undefined;
        const physical = existing?.physical ?? `rm_${spec.name}_g1`;
        this.createPhysical(physical, spec);
        this.db
          .prepare(
            `INSERT INTO rm_aliases (name, physical, generation, spec) VALUES (?, ?, 1, ?)
           ON CONFLICT (name) DO UPDATE SET spec = excluded.spec`,
          )
          .run(spec.name, physical, JSON.stringify(spec));
      })
      .immediate();
    this.loadAliases();
  }

  async collectionSpec(name: string): Promise<CollectionSpec | null> {
    const row = this.db.prepare('SELECT spec FROM rm_aliases WHERE name = ?').get(name) as { spec: string } | undefined;
    return row ? (JSON.parse(row.spec) as CollectionSpec) : null;
  }

  forTenant(tenant: string): TenantScope {
    return { tenant, collection: <T extends Doc>(name: string) => this.collection<T>(name, tenant) };
  }

  private collection<T extends Doc>(name: string, tenant: string): Collection<T> {
    const parse = (row: { doc: string } | undefined): T | null => (row ? (JSON.parse(row.doc) as T) : null);
    const where = (filter: Filter, params: Array<string | number | null>) => {
      params.push(tenant);
      return `tenant = ? AND ${filterToSql(filter, params)}`;
    };
    return {
      findById: async (id) =>
        this.withAliases(() =>
          parse(
            this.prepare(`SELECT json(doc) AS doc FROM ${this.physical(name)} WHERE tenant = ? AND id = ?`).get(tenant, id) as
              { doc: string } | undefined,
          ),
        ),
      findOne: async (filter) =>
        this.withAliases(() => {
          const params: Array<string | number | null> = [];
          const sql = `SELECT json(doc) AS doc FROM ${this.physical(name)} WHERE ${where(filter, params)} LIMIT 1`;
          return parse(this.prepare(sql).get(...params) as { doc: string } | undefined);
        }),
      find: async (filter, options: FindOptions = {}) =>
        this.withAliases(() => {
          const params: Array<string | number | null> = [];
          const table = this.physical(name);
          let order = '';
          if (options.sort?.length) {
            const direction = (d: 1 | -1) => (d === -1 ? 'DESC' : 'ASC');
            const last = options.sort[options.sort.length - 1][1];
            order = ` ORDER BY ${options.sort.map(([f, d]) => `${fieldExpr(f)} ${direction(d)}`).join(', ')}, rowid ${direction(last)}`;
          }
          const condition = where(filter, params);
          if (options.limit === undefined && !options.skip) {
            const sql = `SELECT json(doc) AS doc FROM ${table} WHERE ${condition}${order}`;
            return (this.prepare(sql).all(...params) as Array<{ doc: string }>).map((row) => JSON.parse(row.doc) as T);
          }
          // A page: first the page's rowids (from the index alone where it covers filter and order), then
          // only those documents, so no document outside the page is turned into JSON text to be dropped.
          params.push(options.limit ?? -1, options.skip ?? 0);
          const rowids = (
            this.prepare(`SELECT rowid AS r FROM ${table} WHERE ${condition}${order} LIMIT ? OFFSET ?`).all(...params) as Array<{
              r: number;
            }>
          ).map((row) => row.r);
          if (rowids.length === 0) return [];
          const rows = this.prepare(
            `SELECT rowid AS r, json(doc) AS doc FROM ${table} WHERE rowid IN (SELECT value FROM json_each(?))`,
          ).all(JSON.stringify(rowids)) as Array<{ r: number; doc: string }>;
          const byRowid = new Map(rows.map((row) => [row.r, row.doc]));
          return rowids.flatMap((r) => {
            const doc = byRowid.get(r);
            return doc === undefined ? [] : [JSON.parse(doc) as T];
          });
        }),
      countDocuments: async (filter) =>
        this.withAliases(() => {
          const params: Array<string | number | null> = [];
          const sql = `SELECT count(*) AS n FROM ${this.physical(name)} WHERE ${where(filter, params)}`;
          return (this.prepare(sql).get(...params) as { n: number }).n;
        }),
      countBy: async (filter, field) =>
        this.withAliases(() => {
          const params: Array<string | number | null> = [];
          const expr = fieldExpr(field);
          const sql = `SELECT ${expr} AS value, count(*) AS count FROM ${this.physical(name)} WHERE ${where(filter, params)} GROUP BY 1 ORDER BY 2 DESC, 1`;
          return this.prepare(sql).all(...params) as Array<{ value: Scalar; count: number }>;
        }),
    };
  }

  async getCheckpoint(projection: string): Promise<number> {
    return this.checkpointOf(projection);
  }

  /** One statement for all: followers in `api` processes read them before requests (src/http/cache-versions.ts). */
  async getCheckpoints(projections: readonly string[]): Promise<number[]> {
    const stored = new Map(this.prepare('SELECT projection, position FROM rm_checkpoints').raw(true).all() as Array<[string, number]>);
    return projections.map((name) => stored.get(name) ?? 0);
  }

  /** SQLite's data_version: moves when another connection commits (a header read, asked before every request of an `api`). */
  changeMark(): number {
    return (this.dataVersionQuery ??= this.db.prepare('PRAGMA data_version').pluck()).get() as number;
  }
  private dataVersionQuery: Database.Statement | null = null;

  private target(resolve: (name: string) => string, checkpointName: (p: string) => string): WriteTarget {
    const commitTransaction = this.db.transaction(
      (ops: WriteOp[], checkpoint: { projection: string; expected: number; position: number; parked?: readonly ParkedEvent[] }) => {
        // Inside the write lock: a swap committed by another process just before is seen here.
        this.refreshAliases();
        const name = checkpointName(checkpoint.projection);
        const current = this.checkpointOf(name);
        if (current !== checkpoint.expected) throw new CheckpointConflictError(checkpoint.projection, checkpoint.expected, current);
        this.applyOps(ops, resolve);
        if (ops.length) this.writtenSinceOptimize = true;
        this.writeCheckpoint(name, checkpoint.position);
        for (const event of checkpoint.parked ?? []) this.writeParked(name, event);
      },
    );
    return {
      // A projector's read within its batch needs no check of the aliases (a header read per document): the
      // batch's commit checks them inside its write lock, and a swap made meanwhile moved the checkpoint, so
      // the commit fails (CheckpointConflictError) and the batch is read again from the new copy.
      get: async (collection, tenant, id) => {
        const row = this.withKnownAliases(
          () =>
            this.prepare(`SELECT json(doc) AS doc FROM ${resolve(collection)} WHERE tenant = ? AND id = ?`).get(tenant, id) as
              { doc: string } | undefined,
        );
        return row ? (JSON.parse(row.doc) as Doc) : null;
      },
      commit: async (ops, checkpoint) => {
        commitTransaction.immediate(ops, checkpoint);
      },
    };
  }

  private applyOps(ops: WriteOp[], resolve: (name: string) => string) {
    for (const op of ops) {
      const writes = this.writesOf(resolve(op.collection));
      if (op.op === 'put') writes.put.run(op.tenant, op.doc._id, JSON.stringify(op.doc));
      else writes.delete.run(op.tenant, op.id);
    }
  }

  /** The write statements of a physical table, prepared once (statements are dropped when a swap moves aliases). */
  private writesOf(table: string): { put: Database.Statement; delete: Database.Statement } {
    let writes = this.writeStatements.get(table);
    if (!writes) {
      writes = {
        put: this.db.prepare(
          `INSERT INTO ${table} (tenant, id, doc) VALUES (?, ?, jsonb(?)) ON CONFLICT (tenant, id) DO UPDATE SET doc = excluded.doc`,
        ),
        delete: this.db.prepare(`DELETE FROM ${table} WHERE tenant = ? AND id = ?`),
      };
      this.writeStatements.set(table, writes);
    }
    return writes;
  }
  private readonly writeStatements = new Map<string, { put: Database.Statement; delete: Database.Statement }>();

  private liveTarget: WriteTarget | null = null;

  live(): WriteTarget {
    this.liveTarget ??= this.target(
      (name) => this.physical(name),
      (p) => p,
    );
    return this.liveTarget;
  }

  async startRebuild(projection: string, collections: string[]): Promise<RebuildTarget> {
    this.loadAliases();
    return startRebuild(this.rebuildEngine, projection, collections);
  }

  /** The SQLite steps of the rebuild protocol (src/read-models/rebuild.ts): copies are tables `rm_<name>_g<n>`. */
  private readonly rebuildEngine: RebuildEngine<RebuildCopy> = {
    createCopy: async (name) => {
      const alias = this.aliases.get(name);
      if (!alias) throw new Error(`unknown collection ${name}`);
      const physical = `rm_${name}_g${alias.generation + 1}`;
      this.db.exec(`DROP TABLE IF EXISTS ${physical}`);
      this.createPhysical(physical, JSON.parse(alias.spec) as CollectionSpec, false);
      return { name, physical };
    },
    indexCopy: async ({ name, physical }) => this.createIndexes(physical, JSON.parse(this.aliases.get(name)!.spec) as CollectionSpec),
    dropCopy: async ({ physical }) => {
      this.db.exec(`DROP TABLE IF EXISTS ${physical}`);
    },
    deleteCheckpoint: async (checkpoint) => this.deleteCheckpoint(checkpoint),
    target: (physicalOf, checkpoint) => this.target(physicalOf, () => checkpoint),
    // The write lock (IMMEDIATE) is taken before the steps read the checkpoints.
    swap: async (steps) => this.db.transaction(() => runSwapSync(steps(), (step) => this.swapStep(step))).immediate(),
    swapped: async (replaced, copies) => {
      swapsHere++;
      this.loadAliases();
      this.statements.clear();
      this.writeStatements.clear();
      for (const table of replaced) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
      for (const { physical } of copies) this.db.exec(`ANALYZE ${physical}`);
    },
  };

  private swapStep(step: SwapStep): SwapReply {
    switch (step.step) {
      case 'readCheckpoint':
        return this.checkpointOf(step.checkpoint);
      case 'pointAlias': {
        const alias = this.db.prepare('SELECT * FROM rm_aliases WHERE name = ?').get(step.name) as AliasRow;
        this.db.prepare('UPDATE rm_aliases SET physical = ?, generation = generation + 1 WHERE name = ?').run(step.physical, step.name);
        return alias.physical;
      }
      case 'writeCheckpoint':
        return this.writeCheckpoint(step.checkpoint, step.position);
      case 'moveParked':
        this.db.prepare(`DELETE FROM rm_parked WHERE projection = ? AND state <> 'skipped'`).run(step.to);
        this.db
          .prepare(
            `INSERT INTO rm_parked SELECT ?, position, type, stream, tenant, state, error, attempts, first_at, last_at
             FROM rm_parked WHERE projection = ? AND true ON CONFLICT (projection, position) DO NOTHING`,
          )
          .run(step.to, step.from);
        return;
      case 'deleteCheckpoint':
        return this.deleteCheckpoint(step.checkpoint);
    }
  }

  async parkedEvents(projection: string): Promise<ParkedEvent[]> {
    return readParked(this.prepareFn, projection);
  }

  async parkedCounts(): Promise<ParkedCount[]> {
    return countParked(this.prepareFn);
  }

  async park(projection: string, events: readonly ParkedEvent[]): Promise<void> {
    this.db.transaction(() => {
      for (const event of events) this.writeParked(projection, event);
    })();
  }

  async unpark(projection: string, positions: readonly number[]): Promise<void> {
    deleteParked(this.prepareFn, projection, positions);
  }

  /** One parked event, replacing the one at its position (sqlite-parked-events.ts). */
  private writeParked(projection: string, e: ParkedEvent): void {
    writeParked(this.prepareFn, projection, e);
  }
  /** prepare() as a function of its own, for sqlite-parked-events.ts. */
  private readonly prepareFn = (sql: string) => this.prepare(sql);

  private checkpointOf(projection: string): number {
    return (
      (this.prepare('SELECT position FROM rm_checkpoints WHERE projection = ?').get(projection) as { position: number } | undefined)
        ?.position ?? 0
    );
  }

  private deleteCheckpoint(projection: string): void {
    this.db.prepare('DELETE FROM rm_checkpoints WHERE projection = ?').run(projection);
    this.db.prepare('DELETE FROM rm_parked WHERE projection = ?').run(projection);
  }

  private writeCheckpoint(projection: string, position: number): void {
    this.prepare(
      `INSERT INTO rm_checkpoints (projection, position, updated) VALUES (?, ?, ?)
       ON CONFLICT (projection) DO UPDATE SET position = excluded.position, updated = excluded.updated`,
    ).run(projection, position, new Date().toISOString());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.optimizer);
    this.db.close();
  }
}
