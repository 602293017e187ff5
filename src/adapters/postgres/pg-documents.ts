/**
 * The read-model store on PostgreSQL. Each collection copy is a table `rm_<name>_g<n>` (tenant, id, doc jsonb,
 * primary key (tenant, id)) reached through the alias table `rm_aliases` (name → physical copy, its declared
 * spec); declared indexes are expression indexes over (tenant, field expressions..., id) written by pg-filter.ts,
 * which compiles filters and sorts with the very same expressions. Checkpoints live in `rm_checkpoints`.
 *
 * A batch's writes and its checkpoint commit in one transaction, the checkpoint row moved first (row-locked,
 * optimistic on its position). A rebuild follows src/read-models/rebuild.ts: fresh copies, then the aliases and
 * the checkpoint swapped in one transaction with the checkpoint rows locked (pg-swap-steps.ts). Every read
 * checks, in the same statement, that the alias still names the copy it reads, so a swap made by another process
 * is followed at once, without an extra round trip.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type {
  Collection,
  CollectionSpec,
  Doc,
  DocumentStore,
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
import { runSwap, startRebuild, type RebuildCopy, type RebuildEngine } from '../../read-models/rebuild.ts';
import { inTransaction, openPart, unbounded, unboundedHere } from './pool.ts';
import { schemaIdent } from './migrate.ts';
import { countParked, deleteParked, readParked, writeParked } from './pg-parked-events.ts';
import { READ_MODEL_STEPS } from './pg-read-model-schema.ts';
import { swapStep } from './pg-swap-steps.ts';
import { lastWrites } from './pg-write-batch.ts';
import { fieldExpr, filterToSql } from './pg-filter.ts';
import { pageSql } from './pg-page-query.ts';

/** The store's own tables, re-exported where they were first declared. */
export { READ_MODEL_STEPS };

export interface PgDocumentStoreOptions {
  /** The schema the read models live in (default `bidder`). */
  schema?: string;
  /** Connections of the pool (default 8). */
  maxConnections?: number;
}

type Checkpoint = { projection: string; expected: number; position: number; parked?: readonly ParkedEvent[] };
type Lookup = { name: string; tenant: string; id: string; resolve: (doc: Doc | null) => void; reject: (error: unknown) => void };

/** The most look-ups by id in one statement. */
const MAX_LOOKUPS = 200;
const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,39}$/;
const UNDEFINED_TABLE = '42P01';
const hasCode = (error: unknown, code: string) => (error as { code?: unknown } | null)?.code === code;

export class PgDocumentStore implements DocumentStore {
  private readonly s: string;
  private readonly aliases = new Map<string, string>();
  private closed = false;
  /** Look-ups by id asked for since the event loop last went round, sent together (lookUp). */
  private lookups: Lookup[] = [];

  private constructor(
    private readonly pool: pg.Pool,
    private readonly owned: boolean,
    private readonly schema: string,
  ) {
    this.s = schemaIdent(schema);
  }

  /** Connects and migrates the store's own tables (schema default `bidder`). */
  static async open(url: string | pg.Pool, options: PgDocumentStoreOptions = {}): Promise<PgDocumentStore> {
    const schema = options.schema ?? 'bidder';
    const { pool, owned } = await openPart(url, options.maxConnections ?? 8, schema, 'read-models', READ_MODEL_STEPS);
    return new PgDocumentStore(pool, owned, schema);
  }

  private table(physical: string): string {
    return `${this.s}."${physical}"`;
  }

  /** Runs `fn` in a transaction, again when PostgreSQL reports a deadlock or serialization failure. */
  private transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }

  /** Serializes this schema's DDL across processes (CREATE ... IF NOT EXISTS is not safe when run concurrently). */
  private async ddlLock(client: pg.PoolClient): Promise<void> {
    // DDL (an index built on a full copy) and the wait for another process's may take longer than a request's statement.
    await unboundedHere(client);
    await client.query(unbounded('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}.read-models`]));
  }

  private async createPhysical(client: pg.PoolClient, physical: string): Promise<void> {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${this.table(physical)} (
         tenant text COLLATE "C" NOT NULL, id text COLLATE "C" NOT NULL, doc jsonb NOT NULL, PRIMARY KEY (tenant, id))`,
    );
  }

  /**
   * Creates the declared indexes of a copy, named by a hash of their definition, and drops those no longer
   * declared. Non-unique indexes end with id, the sorts' tie-break, so a page's order is read from the index.
   */
  private async createIndexes(client: pg.PoolClient, physical: string, spec: CollectionSpec): Promise<void> {
    const wanted = new Set<string>();
    for (const index of spec.indexes ?? []) {
      const columns = ['tenant', ...index.fields.map((f) => `(${fieldExpr(f)})`)];
      if (!index.unique && !index.fields.includes('_id')) columns.push('id');
      // A unique index holds only the documents whose fields hold a value: a missing or null one (JSON `null` is not
      // SQL NULL) clashes with nothing, as in SQLite.
      const present = index.fields.map((f) => `${fieldExpr(f)} <> 'null'::jsonb`).join(' AND ');
      const where = index.unique && !index.fields.includes('_id') ? ` WHERE ${present}` : '';
      const definition = `${index.unique ? 'UNIQUE ' : ''}(${columns.join(', ')})${where}`;
      const name = `${physical}_x${createHash('sha256').update(definition).digest('hex').slice(0, 10)}`;
      wanted.add(name);
      await client.query(
        unbounded(
          `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${name}" ON ${this.table(physical)} ${definition.replace(/^UNIQUE /, '')}`,
        ),
      );
    }
    const { rows } = await client.query<{ indexname: string }>(
      'SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND starts_with(indexname, $3)',
      [this.schema, physical, `${physical}_x`],
    );
    for (const { indexname } of rows) if (!wanted.has(indexname)) await client.query(`DROP INDEX IF EXISTS ${this.s}."${indexname}"`);
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    if (!COLLECTION_NAME.test(spec.name)) throw new Error(`invalid collection name ${spec.name}`);
    for (const index of spec.indexes ?? []) index.fields.forEach(fieldExpr); // checks the paths before any DDL
    const physical = await this.transaction(async (client) => {
      await this.ddlLock(client);
      const { rows } = await client.query<{ physical: string }>(
        `INSERT INTO ${this.s}.rm_aliases (name, physical, allocated, spec) VALUES ($1, $2, 1, $3)
         ON CONFLICT (name) DO UPDATE SET spec = excluded.spec RETURNING physical`,
        [spec.name, `rm_${spec.name}_g1`, JSON.stringify(spec)],
      );
      await this.createPhysical(client, rows[0].physical);
      await this.createIndexes(client, rows[0].physical, spec);
      return rows[0].physical;
    });
    this.aliases.set(spec.name, physical);
  }

  async collectionSpec(name: string): Promise<CollectionSpec | null> {
    const { rows } = await this.pool.query<{ spec: CollectionSpec }>(`SELECT spec FROM ${this.s}.rm_aliases WHERE name = $1`, [name]);
    return rows[0]?.spec ?? null;
  }

  private async loadAliases(): Promise<void> {
    const { rows } = await this.pool.query<{ name: string; physical: string }>(`SELECT name, physical FROM ${this.s}.rm_aliases`);
    this.aliases.clear();
    for (const row of rows) this.aliases.set(row.name, row.physical);
  }

  /**
   * Runs `value(table)`, a scalar subquery over the copy the alias `name` names, in one statement with a read of
   * the alias itself: when another process swapped the collection meanwhile (the alias names another copy, or
   * the old one is already dropped), the alias is read again and the query run on the new copy.
   */
  private async read<R>(name: string, value: (table: string, params: unknown[]) => string, params: unknown[]): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      let physical = this.aliases.get(name);
      if (physical === undefined) {
        await this.loadAliases();
        physical = this.aliases.get(name);
        if (physical === undefined) throw new Error(`unknown collection ${name}`);
      }
      const all = [name, ...params];
      try {
        const { rows } = await this.pool.query<{ physical: string; value: R }>(
          `SELECT physical, (${value(this.table(physical), all)}) AS value FROM ${this.s}.rm_aliases WHERE name = $1`,
          all,
        );
        if (rows[0]?.physical === physical) return rows[0].value;
        if (!rows[0]) this.aliases.delete(name);
        else this.aliases.set(name, rows[0].physical);
      } catch (error) {
        if (!hasCode(error, UNDEFINED_TABLE) || attempt >= 5) throw error;
        await this.loadAliases();
      }
      if (attempt >= 5) throw new Error(`collection ${name} keeps moving`);
    }
  }

  forTenant(tenant: string): TenantScope {
    return { tenant, collection: <T extends Doc>(name: string) => this.collection<T>(name, tenant) };
  }

  private collection<T extends Doc>(name: string, tenant: string): Collection<T> {
    // $1 is the alias, $2 the tenant; the filter's values follow.
    const where = (filter: Parameters<typeof filterToSql>[0], params: unknown[]) => `tenant = $2 AND ${filterToSql(filter, params)}`;
    return {
      findById: (id) => this.findById<T>(name, tenant, id),
      findOne: async (filter) =>
        this.read<T | null>(name, (table, params) => `SELECT doc FROM ${table} WHERE ${where(filter, params)} LIMIT 1`, [tenant]),
      find: async (filter, options: FindOptions = {}) =>
        this.read<T[]>(name, (table, params) => pageSql(table, where(filter, params), options, params), [tenant]),
      countDocuments: async (filter) => {
        // Whether one id is there (a lot's existence): a look-up by id, sent with the others of the moment.
        const ids = Object.keys(filter);
        if (ids.length === 1 && ids[0] === '_id' && typeof filter._id === 'string')
          return (await this.findById(name, tenant, filter._id)) ? 1 : 0;
        return Number(
          await this.read<string>(name, (table, params) => `SELECT count(*) FROM ${table} WHERE ${where(filter, params)}`, [tenant]),
        );
      },
      countBy: async (filter, field) => {
        const expr = fieldExpr(field);
        const rows = await this.read<Array<{ value: Scalar; count: number }>>(
          name,
          (table, params) =>
            `SELECT coalesce(jsonb_agg(jsonb_build_object('value', value, 'count', count) ORDER BY count DESC, value), '[]'::jsonb)
             FROM (SELECT ${expr} AS value, count(*) AS count FROM ${table} WHERE ${where(filter, params)} GROUP BY 1) AS groups`,
          [tenant],
        );
        return rows.map(({ value, count }) => ({ value: value ?? null, count: Number(count) }));
      },
    };
  }

  /**
   * A document by id. The look-ups asked for in the same round of the event loop (one request's Promise.all, and
   * every other request's and projection's whose I/O came in the same poll phase: setImmediate, as the group commit
   * waits, not a microtask, which would join only one request's) go out as one statement.
   */
  private findById<T extends Doc>(name: string, tenant: string, id: string): Promise<T | null> {
    return new Promise<T | null>((resolve, reject) => {
      if (this.lookups.length === 0 || this.lookups.length >= MAX_LOOKUPS) {
        const batch: Lookup[] = [];
        this.lookups = batch;
        setImmediate(() => void this.lookUp(batch));
      }
      this.lookups.push({ name, tenant, id, resolve: resolve as Lookup['resolve'], reject });
    });
  }

  /** One document by id, in a statement of its own. */
  private findOne<T extends Doc>(name: string, tenant: string, id: string): Promise<T | null> {
    return this.read<T | null>(name, (table) => `SELECT doc FROM ${table} WHERE tenant = $2 AND id = $3`, [tenant, id]);
  }

  /**
   * The look-ups queued in this turn, in one statement that also reads the aliases it went through: a look-up whose
   * collection another process swapped meanwhile (or whose copy is gone) is made again on its own (findOne).
   */
  private async lookUp(batch: Lookup[]): Promise<void> {
    if (this.lookups === batch) this.lookups = [];
    const distinct = new Map<string, Lookup[]>();
    for (const l of batch) {
      const key = JSON.stringify([l.name, l.tenant, l.id]);
      distinct.set(key, [...(distinct.get(key) ?? []), l]);
    }
    const groups = [...distinct.values()];
    const alone = (ls: Lookup[]) =>
      this.findOne(ls[0].name, ls[0].tenant, ls[0].id).then(
        (d) => ls.forEach((l) => l.resolve(d)),
        (e) => ls.forEach((l) => l.reject(e)),
      );
    const unknown = groups.filter((ls) => !this.aliases.has(ls[0].name));
    const known = groups.filter((ls) => this.aliases.has(ls[0].name));
    for (const ls of unknown) void alone(ls);
    if (known.length < 2) {
      for (const ls of known) void alone(ls);
      return;
    }
    const names = [...new Set(known.map((ls) => ls[0].name))];
    const used = names.map((name) => this.aliases.get(name)!);
    const params: unknown[] = [names];
    const docs = known.map(([l]) => {
      params.push(l.tenant, l.id);
      return `(SELECT doc FROM ${this.table(this.aliases.get(l.name)!)} WHERE tenant = $${params.length - 1} AND id = $${params.length})`;
    });
    let rows: Array<{ physicals: Array<{ name: string; physical: string }>; docs: Array<Doc | null> }>;
    try {
      ({ rows } = await this.pool.query(
        `SELECT (SELECT json_agg(json_build_object('name', name, 'physical', physical)) FROM ${this.s}.rm_aliases WHERE name = ANY($1::text[])) AS physicals,
           jsonb_build_array(${docs.join(', ')}) AS docs`,
        params,
      ));
    } catch (error) {
      // A copy dropped by a swap meanwhile: each on its own, through the alias as it now stands.
      if (hasCode(error, UNDEFINED_TABLE)) for (const ls of known) void alone(ls);
      else for (const ls of known) ls.forEach((l) => l.reject(error));
      return;
    }
    const now = new Map((rows[0].physicals ?? []).map((a) => [a.name, a.physical]));
    const moved = new Set(names.filter((name, i) => now.get(name) !== used[i]));
    known.forEach((ls, i) => {
      if (moved.has(ls[0].name)) void alone(ls);
      else ls.forEach((l) => l.resolve(rows[0].docs[i]));
    });
  }

  async getCheckpoint(projection: string): Promise<number> {
    return (await this.getCheckpoints([projection]))[0];
  }

  async getCheckpoints(projections: readonly string[]): Promise<number[]> {
    const { rows } = await this.pool.query<{ projection: string; position: string }>(
      `SELECT projection, position FROM ${this.s}.rm_checkpoints WHERE projection = ANY($1::text[])`,
      [[...projections]],
    );
    const stored = new Map(rows.map((row) => [row.projection, Number(row.position)]));
    return projections.map((name) => stored.get(name) ?? 0);
  }

  /**
   * Moves checkpoint `name` from `expected` to `position`, locking its row until the transaction ends: a
   * concurrent commit of the same projection, or a rebuild's swap, waits for it and then finds it moved.
   */
  private async moveCheckpoint(client: pg.PoolClient, name: string, checkpoint: Checkpoint): Promise<void> {
    const { projection, expected, position } = checkpoint;
    const { rowCount } =
      expected === 0
        ? await client.query(
            `INSERT INTO ${this.s}.rm_checkpoints AS c (projection, position) VALUES ($1, $2) ON CONFLICT (projection)
             DO UPDATE SET position = excluded.position, updated = now() WHERE c.position = 0`,
            [name, position],
          )
        : await client.query(`UPDATE ${this.s}.rm_checkpoints SET position = $3, updated = now() WHERE projection = $1 AND position = $2`, [
            name,
            expected,
            position,
          ]);
    if (rowCount === 1) return;
    const { rows } = await client.query<{ position: string }>(`SELECT position FROM ${this.s}.rm_checkpoints WHERE projection = $1`, [
      name,
    ]);
    throw new CheckpointConflictError(projection, expected, Number(rows[0]?.position ?? 0));
  }

  /**
   * Applies a batch to the copies: only the last write of each document counts (a put replaces it whole), so
   * each copy gets one DELETE and one upsert, whatever the batch's length.
   */
  private async applyOps(client: pg.PoolClient, ops: WriteOp[], physicalOf: (name: string) => string): Promise<void> {
    for (const [name, { deletes, puts }] of lastWrites(ops)) {
      const table = this.table(physicalOf(name));
      if (deletes.length) {
        await client.query(`DELETE FROM ${table} t USING jsonb_array_elements($1::jsonb) AS d WHERE t.tenant = d->>0 AND t.id = d->>1`, [
          JSON.stringify(deletes),
        ]);
      }
      if (puts.length) {
        await client.query(
          `INSERT INTO ${table} (tenant, id, doc) SELECT p->>0, p->>1, p->2 FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(p, n) ORDER BY n
           ON CONFLICT (tenant, id) DO UPDATE SET doc = excluded.doc`,
          [JSON.stringify(puts)],
        );
      }
    }
  }

  /** A live batch without parked events in one statement (rm_commit); with some, in a transaction of several. */
  private async commitLive(ops: WriteOp[], checkpoint: Checkpoint): Promise<void> {
    if (checkpoint.parked?.length) return this.commitLiveInTransaction(ops, checkpoint);
    const writes = [...lastWrites(ops)].map(([c, { deletes, puts }]) => ({ c, d: deletes, p: puts }));
    const { rows } = await this.pool.query<{ r: { conflict?: string | number; tables?: Record<string, string> } }>(
      `SELECT ${this.s}.rm_commit($1, $2, $3, $4::jsonb) AS r`,
      [checkpoint.projection, checkpoint.expected, checkpoint.position, JSON.stringify(writes)],
    );
    const answer = rows[0].r;
    if (answer.conflict !== undefined)
      throw new CheckpointConflictError(checkpoint.projection, checkpoint.expected, Number(answer.conflict));
    for (const [name, table] of Object.entries(answer.tables ?? {})) this.aliases.set(name, table);
  }

  private async commitLiveInTransaction(ops: WriteOp[], checkpoint: Checkpoint): Promise<void> {
    const names = [...new Set(ops.map((op) => op.collection))];
    const physical = await this.transaction(async (client) => {
      await this.moveCheckpoint(client, checkpoint.projection, checkpoint);
      await writeParked(client, this.s, checkpoint.projection, checkpoint.parked ?? []);
      // Read after the checkpoint's row is locked: a swap of these collections either committed before
      // (its aliases are seen here) or waits for this transaction.
      const { rows } = await client.query<{ name: string; physical: string }>(
        `SELECT name, physical FROM ${this.s}.rm_aliases WHERE name = ANY($1::text[])`,
        [names],
      );
      const current = new Map(rows.map((row) => [row.name, row.physical]));
      await this.applyOps(client, ops, (name) => {
        const table = current.get(name);
        if (table === undefined) throw new Error(`unknown collection ${name}`);
        return table;
      });
      return current;
    });
    for (const [name, table] of physical) this.aliases.set(name, table);
  }

  private liveTarget: WriteTarget | null = null;

  live(): WriteTarget {
    this.liveTarget ??= {
      get: (collection, tenant, id) => this.findById(collection, tenant, id),
      commit: (ops, checkpoint) => this.commitLive(ops, checkpoint),
    };
    return this.liveTarget;
  }

  async startRebuild(projection: string, collections: string[]): Promise<RebuildTarget> {
    return startRebuild(this.rebuildEngine, projection, collections);
  }

  /** The PostgreSQL steps of the rebuild protocol (src/read-models/rebuild.ts): copies are tables `rm_<name>_g<n>`. */
  private readonly rebuildEngine: RebuildEngine<RebuildCopy & { spec: CollectionSpec }> = {
    createCopy: (name) =>
      this.transaction(async (client) => {
        await this.ddlLock(client);
        // A generation no other copy had, even one of a concurrent rebuild.
        const { rows } = await client.query<{ allocated: number; spec: CollectionSpec }>(
          `UPDATE ${this.s}.rm_aliases SET allocated = allocated + 1 WHERE name = $1 RETURNING allocated, spec`,
          [name],
        );
        if (!rows[0]) throw new Error(`unknown collection ${name}`);
        const physical = `rm_${name}_g${rows[0].allocated}`;
        await client.query(`DROP TABLE IF EXISTS ${this.table(physical)}`);
        await this.createPhysical(client, physical);
        return { name, physical, spec: rows[0].spec };
      }),
    indexCopy: ({ physical, spec }) =>
      this.transaction(async (client) => {
        await this.ddlLock(client);
        await this.createIndexes(client, physical, spec);
      }),
    dropCopy: async ({ physical }) => {
      await this.pool.query(`DROP TABLE IF EXISTS ${this.table(physical)}`);
    },
    deleteCheckpoint: async (checkpoint) => {
      await this.pool.query(`DELETE FROM ${this.s}.rm_checkpoints WHERE projection = $1`, [checkpoint]);
      await this.pool.query(`DELETE FROM ${this.s}.rm_parked WHERE projection = $1`, [checkpoint]);
    },
    target: (physicalOf, name) => ({
      get: async (collection, tenant, id) => {
        const { rows } = await this.pool.query<{ doc: Doc }>(
          `SELECT doc FROM ${this.table(physicalOf(collection))} WHERE tenant = $1 AND id = $2`,
          [tenant, id],
        );
        return rows[0]?.doc ?? null;
      },
      commit: (ops, checkpoint) =>
        this.transaction(async (client) => {
          await this.moveCheckpoint(client, name, checkpoint);
          await writeParked(client, this.s, name, checkpoint.parked ?? []);
          await this.applyOps(client, ops, physicalOf);
        }),
    }),
    swap: (steps) => this.transaction((client) => runSwap(steps(), (step) => swapStep(client, this.s, step))),
    swapped: async (replaced, copies) => {
      for (const { name, physical } of copies) this.aliases.set(name, physical);
      // Readers of the replaced copies hold their lock until their statement ends; the DROP waits for them, and
      // a reader coming later finds the table gone and reads the alias again.
      for (const physical of replaced) await this.pool.query(`DROP TABLE IF EXISTS ${this.table(physical)}`);
      for (const { physical } of copies)
        await this.transaction(async (client) => {
          await unboundedHere(client);
          await client.query(unbounded(`ANALYZE ${this.table(physical)}`));
        });
    },
  };

  async parkedEvents(projection: string): Promise<ParkedEvent[]> {
    return readParked(this.pool, this.s, projection);
  }

  async parkedCounts(): Promise<ParkedCount[]> {
    return countParked(this.pool, this.s);
  }

  async park(projection: string, events: readonly ParkedEvent[]): Promise<void> {
    await writeParked(this.pool, this.s, projection, events);
  }

  async unpark(projection: string, positions: readonly number[]): Promise<void> {
    await deleteParked(this.pool, this.s, projection, positions);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.owned) await this.pool.end();
  }
}
