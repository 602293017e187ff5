/**
 * The lot search index (SearchIndex port) on Typesense, with the `typesense` 3.x client.
 *
 *   const index = await TypesenseIndex.connect(process.env.TYPESENSE_URL, process.env.TYPESENSE_API_KEY,
 *     { partitions: LOT_SEARCH_PARTITION });
 *
 * connect checks at once that the server answers and takes the key (checkAccess), so a wrong URL or key stops
 * the start instead of failing every search. `readOnly` is for a process that only searches (the `api` role)
 * with a search-only key: ensureCollection then asks the server nothing, and writes are refused.
 *
 * `url` is a node URL (`http://typesense:8108`) or several, comma-separated. `partitions` is the embedded
 * index's option of the same name: a collection listed there keeps one document per id and value of the
 * field (the lot-search projection writes one document per lot and language under the lot id), and a
 * search of it must filter that field by equality. `prefix` is put before every name this index uses on
 * the server (aliases, collections, checkpoints), for several deployments or test runs on one server.
 *
 * Layout on the server (schema.ts, documents.ts):
 * - a port collection `lots` is an alias `<prefix>lots` to a physical collection, first `<prefix>lots_0`,
 *   after a rebuild `<prefix>lots_<epoch ms>`. Every tenant shares it; documents carry a tenant key that
 *   every search, export and delete filters on (filter.ts), so a tenant only ever reads its own;
 * - checkpoints are documents `{id: <projection>, position}` of the collection `<prefix>_checkpoints`.
 *   Typesense has no transactions: a batch's documents are written before its checkpoint, so a crash in
 *   between replays the batch, and the writes are idempotent (upserts and patches by id).
 *
 * Writes need the collection's spec (its searchable fields are folded, documents.ts): the process calls
 * ensureCollection first, as the projector's setup does; a write to a collection it does not know is
 * refused. Searches need nothing local. Upserts and updates are imports (`action=upsert|update`) of at
 * most `importChunk` documents each, checked line by line; an update without the partition value of a
 * partitioned collection first exports the ids of the documents holding the id (one per partition value). Deletes are a delete-by-filter on
 * the tenant and the ids' keys, which reaches every partition and ignores unknown ids. Filters on ids go
 * 50 ids at a time: export and delete take filter_by in the query string, which Typesense limits to 4,000
 * characters.
 *
 * Rebuilds (docs: "Collection alias", zero-downtime reindexing), as src/read-models/search-rebuild.ts
 * orders them: startRebuild creates a new physical collection from the spec given to ensureCollection in
 * this process; searches and live writes keep going to the alias meanwhile. finish(position) points the
 * alias at the new collection, then moves the
 * checkpoint, then drops the previous collection: a crash after the swap leaves the old checkpoint with
 * the new documents, and replaying from there is harmless; the other order could skip events.
 * Collections of rebuilds that crashed before finish or abort stay behind (named `<alias>_<epoch ms>`,
 * no alias pointing at them) and can be dropped by hand.
 *
 * A changed spec reaches the server at ensureCollection, as the embedded engines re-index theirs, in the
 * process that owns the index (`schemaOwner`: the one running the projections): its fields are altered in
 * place, or a new collection is built from its documents behind the alias (alignment.ts). Other processes
 * leave the server alone; their searches of a field it lacks yet fail with SearchIndexUnavailableError.
 *
 * Faults: imports go `importChunk` documents at a time, each bounded by `importTimeoutSeconds` (the client
 * never times an import out): a hung node fails the batch, which the projector tries again, instead of
 * holding it for ever. A call that finds the server away makes the following ones fail at once until a probe
 * gets an answer (availability.ts), so a hung server costs one wait, not one per request.
 */
import type { SearchCollectionSpec, SearchDocument, SearchIndex, SearchRebuild, SearchRequest, SearchResult } from '../../ports/search.ts';
import { SearchIndexUnavailableError } from '../../ports/search.ts';
import { isEngineUnreachable } from '../../errors.ts';
import { Availability, bounded } from './availability.ts';
import { clientApi, statusOf, typesenseClient, type ImportAction, type TypesenseApi, type TypesenseClientOptions } from './client.ts';
import {
  checkImport,
  partitionValueOf,
  typesenseId,
  updatePatch,
  upsertDocument,
  type CollectionLayout,
  type TypesenseDocument,
} from './documents.ts';
import { idsCondition, tenantCondition } from './filter.ts';
import { searchRebuild } from '../../read-models/search-rebuild.ts';
import { searchParams } from './params.ts';
import { emptyResult, toSearchResult } from './results.ts';
import { checkpointSchema, collectionSchema, DOC_ID } from './schema.ts';
import { alignCollection, type Alignment } from './alignment.ts';

export interface TypesenseIndexOptions extends TypesenseClientOptions {
  /** Collections kept as one document per id and value of a field, e.g. `{ lots: 'Language' }`. */
  partitions?: Record<string, string>;
  /** Put before every alias, collection and checkpoint name on the server (default none). */
  prefix?: string;
  /** Facet values returned per facet (default 10,000: all of them, as the port expects). */
  maxFacetValues?: number;
  /** Clock for the names of rebuilt collections (tests). */
  now?: () => number;
  /** Only searches and checkpoint reads (a search-only key): ensureCollection stays local, writes are refused. */
  readOnly?: boolean;
  /**
   * Whether ensureCollection brings a collection whose schema differs to the spec (default: unless readOnly).
   * One process should: the one running the projections (two versions of the service would alter it back and forth).
   */
  schemaOwner?: boolean;
  /** The bound of one import request (default 30 s; the client sets none). */
  importTimeoutSeconds?: number;
  /** Documents per import request (default 1,000): what one request must finish within its bound. */
  importChunk?: number;
  /** The bound of waiting for a schema alteration at ensureCollection (default 600 s). */
  alterTimeoutSeconds?: number;
  /** Between two probes of a server found away (default 2 s). */
  probeSeconds?: number;
}

/** The server refused the API key (401 or 403): a setting that cannot be used, not an outage. */
export class TypesenseKeyRefusedError extends Error {
  override name = 'TypesenseKeyRefusedError';
}

/** The node URLs without anything but scheme, host and port (a URL may carry credentials). */
function origins(url: string): string {
  return url
    .split(',')
    .map((u) => {
      try {
        return new globalThis.URL(u.trim()).origin;
      } catch {
        return '(an invalid URL)';
      }
    })
    .join(',');
}

/** Ids per export or delete filter: keeps filter_by well under Typesense's 4,000-character query string. */
const IDS_PER_FILTER = 50;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The same calls, each failing at once while the server is known away (availability.ts). */
function guarded(api: TypesenseApi, availability: Availability): TypesenseApi {
  const run = availability.run.bind(availability);
  return {
    createCollection: (schema) => run(() => api.createCollection(schema)),
    retrieveCollection: (name) => run(() => api.retrieveCollection(name)),
    updateCollection: (name, fields, signal) => run(() => api.updateCollection(name, fields, signal)),
    deleteCollection: (name) => run(() => api.deleteCollection(name)),
    retrieveAlias: (alias) => run(() => api.retrieveAlias(alias)),
    upsertAlias: (alias, collection) => run(() => api.upsertAlias(alias, collection)),
    importDocuments: (collection, docs, action, options) => run(() => api.importDocuments(collection, docs, action, options)),
    exportDocuments: (collection, filterBy, fields) => run(() => api.exportDocuments(collection, filterBy, fields)),
    exportAll: (collection) => api.exportAll(collection),
    deleteDocuments: (collection, filterBy) => run(() => api.deleteDocuments(collection, filterBy)),
    retrieveDocument: (collection, id) => run(() => api.retrieveDocument(collection, id)),
    upsertDocument: (collection, doc) => run(() => api.upsertDocument(collection, doc)),
    search: (collection, params) => run(() => api.search(collection, params)),
  };
}

async function ignoring(status: number, call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (statusOf(error) !== status) throw error;
  }
}

export class TypesenseIndex implements SearchIndex {
  private readonly partitions: Record<string, string>;
  private readonly prefix: string;
  private readonly maxFacetValues: number | undefined;
  private readonly now: () => number;
  private readonly specs = new Map<string, { spec: SearchCollectionSpec; layout: CollectionLayout }>();
  private checkpointsReady: Promise<void> | null = null;
  private closed = false;
  private readonly readOnly: boolean;
  private readonly schemaOwner: boolean;
  private readonly importTimeoutMs: number;
  private readonly importChunk: number;
  private readonly alignment: Alignment;
  private readonly availability: Availability;
  /** The calls to the server, each failing at once while it is known away. */
  private readonly server: TypesenseApi;

  static async connect(url: string, apiKey: string, options: TypesenseIndexOptions = {}): Promise<TypesenseIndex> {
    const index = new TypesenseIndex(clientApi(typesenseClient(url, apiKey, options)), options);
    await index.checkAccess(`Typesense at ${origins(url)}`);
    return index;
  }

  constructor(
    private readonly api: TypesenseApi,
    options: TypesenseIndexOptions = {},
  ) {
    this.partitions = { ...options.partitions };
    this.prefix = options.prefix ?? '';
    this.maxFacetValues = options.maxFacetValues;
    this.now = options.now ?? Date.now;
    this.readOnly = options.readOnly ?? false;
    this.schemaOwner = !this.readOnly && (options.schemaOwner ?? true);
    this.importTimeoutMs = (options.importTimeoutSeconds ?? 30) * 1000;
    this.importChunk = options.importChunk ?? 1000;
    this.availability = new Availability(() => this.probe(), (options.probeSeconds ?? 2) * 1000);
    this.server = guarded(api, this.availability);
    this.alignment = {
      server: this.server,
      now: this.now,
      alterTimeoutMs: (options.alterTimeoutSeconds ?? 600) * 1000,
      importChunk: this.importChunk,
      copy: (target, docs) => this.importChecked(target, docs, 'upsert', 'coerce_or_drop'),
    };
  }

  /** Resolves when the server answers (the probe of availability.ts): a read of a checkpoint no projection has. */
  private async probe(): Promise<void> {
    await ignoring(404, this.api.retrieveDocument(this.checkpointCollection, '_access_check'));
  }

  /**
   * That the server answers and takes the key: a read of a checkpoint no projection has. A 404 (no such
   * document, or no checkpoints collection yet) says both; the admin key and a search key with
   * `documents:get` may read it. Typesense answers a refused key with 401 ("Forbidden - a valid
   * `x-typesense-api-key` header must be sent."), and the client throws a server it cannot reach after its retries.
   */
  async checkAccess(where = 'Typesense'): Promise<void> {
    try {
      await this.api.retrieveDocument(this.checkpointCollection, '_access_check');
    } catch (error) {
      const status = statusOf(error);
      if (status === 404) return;
      const reason = error instanceof Error ? error.message : String(error);
      if (status === 401 || status === 403) throw new TypesenseKeyRefusedError(`${where} refused the API key (${status}: ${reason})`);
      throw new Error(`${where} cannot be reached: ${reason}`, { cause: error });
    }
  }

  private assertWritable(): void {
    if (this.readOnly) throw new Error('typesense index is read-only in this process (a search-only key)');
  }

  /** The alias of a port collection. */
  aliasOf(collection: string): string {
    return `${this.prefix}${collection}`;
  }

  get checkpointCollection(): string {
    return `${this.prefix}_checkpoints`;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('typesense index is closed');
  }

  private partitionField(collection: string): string | null {
    return this.partitions[collection] ?? null;
  }

  /** Writes need the spec (which fields to fold): ensureCollection in this process comes first. */
  private layout(collection: string): CollectionLayout {
    const known = this.specs.get(collection);
    if (!known) throw new Error(`typesense: unknown collection ${collection} (ensureCollection comes first)`);
    return known.layout;
  }

  async ensureCollection(spec: SearchCollectionSpec): Promise<void> {
    this.assertOpen();
    const pf = this.partitionField(spec.name);
    if (pf !== null) {
      const field = spec.fields.find((f) => f.name === pf);
      if (!field || field.type === 'string[]') {
        throw new Error(`typesense: collection ${spec.name} is partitioned by ${pf}, not a scalar field of it`);
      }
    }
    const physical = `${this.aliasOf(spec.name)}_0`;
    const schema = collectionSchema(spec, physical); // validates the spec before anything is sent
    const searchable = new Set(spec.fields.filter((f) => f.searchable).map((f) => f.name));
    this.specs.set(spec.name, { spec, layout: { partitionField: pf, searchable } });
    if (this.readOnly) return; // the writing process creates it; searches need nothing local
    const alias = this.aliasOf(spec.name);
    try {
      await this.server.retrieveAlias(alias);
      if (this.schemaOwner) await alignCollection(this.alignment, alias, spec);
      return;
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
    // A fixed first name: processes starting together create the same collection (409 for all but one)
    // and point the alias at it, instead of each leaving a collection of its own.
    await ignoring(409, this.server.createCollection(schema));
    await this.server.upsertAlias(alias, physical);
  }

  /** One import request per `importChunk` documents, each bounded by importTimeoutMs, every line checked. */
  private async importChecked(
    target: string,
    items: TypesenseDocument[],
    action: ImportAction,
    dirtyValues?: 'coerce_or_drop',
  ): Promise<void> {
    for (const chunk of chunks(items, this.importChunk)) {
      const results = await this.availability.run(() =>
        bounded(`an import of ${chunk.length} documents into ${target}`, this.importTimeoutMs, (signal) =>
          this.api.importDocuments(target, chunk, action, { signal, ...(dirtyValues ? { dirtyValues } : {}) }),
        ),
      );
      checkImport(results, chunk, action, target);
    }
  }

  async upsert(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.assertOpen();
    this.assertWritable();
    await this.upsertInto(this.aliasOf(collection), collection, tenant, docs);
  }

  async update(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.assertOpen();
    this.assertWritable();
    await this.updateIn(this.aliasOf(collection), collection, tenant, docs);
  }

  async delete(collection: string, tenant: string, ids: string[]): Promise<void> {
    this.assertOpen();
    this.assertWritable();
    await this.deleteFrom(this.aliasOf(collection), collection, tenant, ids);
  }

  async search(collection: string, tenant: string, request: SearchRequest): Promise<SearchResult> {
    this.assertOpen();
    const facetBy = request.facetBy ?? [];
    const params = searchParams(tenant, request, {
      partitionField: this.partitionField(collection),
      maxFacetValues: this.maxFacetValues,
    });
    if (params === null) return emptyResult(facetBy);
    try {
      return toSearchResult(await this.server.search(this.aliasOf(collection), params), facetBy);
    } catch (error) {
      // 404: a field (or the collection) the server does not hold yet ("Could not find a facet field named …",
      // src/collection.cpp; "… filter field …", src/filter.cpp), until the owner brings it to the spec.
      if (statusOf(error) === 404 || isEngineUnreachable(error)) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new SearchIndexUnavailableError(`typesense cannot search ${collection} now: ${reason}`, { cause: error });
      }
      throw error;
    }
  }

  async getCheckpoint(projection: string): Promise<number> {
    this.assertOpen();
    try {
      const doc = await this.server.retrieveDocument(this.checkpointCollection, projection);
      const position = Number(doc.position);
      if (!Number.isSafeInteger(position)) throw new Error(`typesense: checkpoint of ${projection} is not a number`);
      return position;
    } catch (error) {
      if (statusOf(error) === 404) return 0; // no such checkpoint, or no checkpoint collection yet
      throw error;
    }
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    this.assertOpen();
    this.assertWritable();
    if (!Number.isSafeInteger(position) || position < 0) {
      throw new Error(`typesense: checkpoint ${position} is not a position`);
    }
    await this.ensureCheckpoints();
    await this.server.upsertDocument(this.checkpointCollection, { id: projection, position });
  }

  private ensureCheckpoints(): Promise<void> {
    const create = () => this.server.createCollection(checkpointSchema(this.checkpointCollection));
    this.checkpointsReady ??= ignoring(409, create()).catch((error: unknown) => {
      this.checkpointsReady = null; // try again on the next call
      throw error;
    });
    return this.checkpointsReady;
  }

  async startRebuild(collection: string, projection: string): Promise<SearchRebuild> {
    this.assertOpen();
    this.assertWritable();
    const spec = this.specs.get(collection)?.spec;
    if (!spec) throw new Error(`typesense: ensureCollection(${collection}) must come before its rebuild`);
    const alias = this.aliasOf(collection);
    const physical = `${alias}_${this.now()}`;
    await this.server.createCollection(collectionSchema(spec, physical));
    let previous: string | null = null;
    return searchRebuild(`typesense: the rebuild of ${collection}`, {
      assertOpen: () => this.assertOpen(),
      upsert: (tenant, docs) => this.upsertInto(physical, collection, tenant, docs),
      update: (tenant, docs) => this.updateIn(physical, collection, tenant, docs),
      delete: (tenant, ids) => this.deleteFrom(physical, collection, tenant, ids),
      swap: async () => {
        try {
          previous = await this.server.retrieveAlias(alias);
        } catch (error) {
          if (statusOf(error) !== 404) throw error;
        }
        await this.server.upsertAlias(alias, physical);
      },
      settle: async (position) => {
        await this.setCheckpoint(projection, position);
        if (previous !== null && previous !== physical) await ignoring(404, this.server.deleteCollection(previous));
      },
      discard: () => ignoring(404, this.server.deleteCollection(physical)),
    });
  }

  async close(): Promise<void> {
    // The client keeps no connections or timers that need closing; the probe of a server away is stopped.
    this.closed = true;
    this.availability.close();
  }

  private async upsertInto(target: string, collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    if (docs.length === 0) return;
    const layout = this.layout(collection);
    await this.importChecked(
      target,
      docs.map((d) => upsertDocument(tenant, d, layout)),
      'upsert',
    );
  }

  private async updateIn(target: string, collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    if (docs.length === 0) return;
    const layout = this.layout(collection);
    const pf = layout.partitionField;
    // Patches without a partition value reach every document of their id: look those up first, then send
    // every patch in the order given (two patches of one id in a batch must apply in order).
    const unnamed = pf === null ? [] : docs.filter((d) => partitionValueOf(d, pf) === null).map((d) => d.id);
    const holders = unnamed.length > 0 ? await this.holders(target, tenant, unnamed) : new Map<string, string[]>();
    const items: TypesenseDocument[] = [];
    for (const d of docs) {
      const value = partitionValueOf(d, pf);
      const ids = pf === null || value !== null ? [typesenseId(tenant, d.id, value)] : (holders.get(d.id) ?? []);
      for (const id of ids) items.push(updatePatch(id, d, layout));
    }
    await this.importChecked(target, items, 'update');
  }

  /** The Typesense ids of the tenant's documents with these port ids, by port id. */
  private async holders(target: string, tenant: string, ids: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const chunk of chunks([...new Set(ids)], IDS_PER_FILTER)) {
      const filter = `${tenantCondition(tenant)} && ${idsCondition(chunk)}`;
      for (const doc of await this.server.exportDocuments(target, filter, ['id', DOC_ID])) {
        const portId = doc[DOC_ID];
        if (typeof portId !== 'string' || typeof doc.id !== 'string') continue;
        const list = out.get(portId) ?? [];
        list.push(doc.id);
        out.set(portId, list);
      }
    }
    return out;
  }

  private async deleteFrom(target: string, collection: string, tenant: string, ids: string[]): Promise<void> {
    this.layout(collection);
    for (const chunk of chunks([...new Set(ids)], IDS_PER_FILTER)) {
      await this.server.deleteDocuments(target, `${tenantCondition(tenant)} && ${idsCondition(chunk)}`);
    }
  }
}
