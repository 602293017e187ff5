/**
 * The calls the adapter makes to Typesense, as one small interface over the `typesense` 3.x client, so the
 * adapter can be run over a fake in tests. Failures throw the client's errors, which carry the HTTP status
 * as `httpStatus` (404 not found, 409 already exists); `statusOf` reads it.
 *
 * Endpoints (docs: API reference): POST, GET and PATCH /collections[/:c], DELETE /collections/:c, GET /aliases/:a,
 * PUT /aliases/:a, POST /collections/:c/documents/import?action=..., GET /collections/:c/documents/export,
 * DELETE /collections/:c/documents?filter_by=..., GET and POST /collections/:c/documents[/:id], and
 * POST /multi_search for searches: GET /search refuses query strings over 4,000 characters, which a long
 * `in` list reaches (typesense/typesense#558: "Use the /multi_search end-point for larger payloads").
 * Multi-search answers 200 with an `{error, code}` per failed search (src/core_api.cpp, post_multi_search);
 * that is thrown here like a failed single search.
 *
 * Time-outs: the client ends a request after `connectionTimeoutSeconds`, except an import, which it never
 * times out (node_modules/typesense lib/Typesense/Documents.js: `skipConnectionTimeout: true`, "imports are
 * syncronous and we want to let them take as long as it takes"). Imports and schema changes therefore take an
 * AbortSignal here, which the adapter fires after its own bound.
 */
import { createInterface } from 'node:readline';
import { Client } from 'typesense';
import type { ImportItemResult, TypesenseDocument } from './documents.ts';
import type { TypesenseSearchParams } from './params.ts';
import type { TypesenseSearchResponse } from './results.ts';
import type { FieldChange, LiveCollection, TypesenseCollectionSchema } from './schema.ts';

export type ImportAction = 'upsert' | 'update';

export interface ImportOptions {
  /** Ends the request (the adapter's time-out). */
  signal?: AbortSignal;
  /** `coerce_or_drop`: a value that does not fit its field is left out instead of failing the document (a copy). */
  dirtyValues?: 'coerce_or_drop';
}

export interface TypesenseApi {
  createCollection(schema: TypesenseCollectionSchema): Promise<void>;
  /** The collection (or the one an alias points at) as the server describes it. */
  retrieveCollection(name: string): Promise<LiveCollection>;
  /** Adds and drops fields of a collection (PATCH /collections/:c), answered once the server has altered it. */
  updateCollection(name: string, fields: FieldChange[], signal?: AbortSignal): Promise<void>;
  deleteCollection(name: string): Promise<void>;
  /** The collection an alias points at. */
  retrieveAlias(alias: string): Promise<string>;
  upsertAlias(alias: string, collection: string): Promise<void>;
  importDocuments(
    collection: string,
    docs: TypesenseDocument[],
    action: ImportAction,
    options?: ImportOptions,
  ): Promise<ImportItemResult[]>;
  /** The documents matching the filter, with these fields only. */
  exportDocuments(collection: string, filterBy: string, fields: string[]): Promise<Array<Record<string, unknown>>>;
  /** Every document of a collection, whole, read as a stream. */
  exportAll(collection: string): AsyncIterable<TypesenseDocument>;
  deleteDocuments(collection: string, filterBy: string): Promise<number>;
  retrieveDocument(collection: string, id: string): Promise<Record<string, unknown>>;
  upsertDocument(collection: string, doc: TypesenseDocument): Promise<void>;
  search(collection: string, params: TypesenseSearchParams): Promise<TypesenseSearchResponse>;
}

export class TypesenseStatusError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
  }
}

/** The HTTP status of a failed call (the client's errors and TypesenseStatusError), or undefined. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { httpStatus?: unknown } | null)?.httpStatus;
  return typeof status === 'number' ? status : undefined;
}

export interface TypesenseClientOptions {
  /** Per-request timeout in seconds (here 3; the client's default 5); imports and schema changes are bounded by the adapter. */
  connectionTimeoutSeconds?: number;
  /** Retries of a failed request on the next node (here 1; the client's default 3). */
  numRetries?: number;
}

/**
 * A client for one node URL or several comma-separated ones (a cluster), e.g. `http://typesense:8108`. With
 * several, the first is the client's `nearestNode`: every request goes to it while it answers, the others
 * only when it does not (node_modules/typesense lib/Typesense/ApiCall.js, getNextNode), instead of a round
 * robin over all of them. A cluster's nodes each answer reads from their own copy, which a follower brings up
 * to the leader's after it (Raft): the checkpoints read for read your writes and the searches they vouch for
 * then come from one node, and never go back in time (docs/architecture.md, "A Typesense cluster").
 */
export function typesenseClient(url: string, apiKey: string, options: TypesenseClientOptions = {}): Client {
  const nodes = url
    .split(',')
    .map((u) => u.trim().replace(/\/+$/, ''))
    .filter((u) => u.length > 0)
    .map((u) => ({ url: u }));
  if (nodes.length === 0) throw new Error('typesense: no node URL given');
  if (!apiKey) throw new Error('typesense: no API key given');
  return new Client({
    nodes,
    ...(nodes.length > 1 ? { nearestNode: nodes[0] } : {}),
    apiKey,
    // Bounded for a node that is away: the client's defaults (5 s, 3 retries) hold a request for over 20 s
    // before its ECONNREFUSED or timeout, answered 503 (src/errors.ts); these hold it for about 6 s.
    connectionTimeoutSeconds: options.connectionTimeoutSeconds ?? 3,
    numRetries: options.numRetries ?? 1,
  });
}

export function clientApi(client: Client): TypesenseApi {
  const docs = (collection: string) => client.collections<Record<string, unknown>>(collection).documents();
  return {
    async createCollection(schema) {
      // Fresh object literals: the client's field type has an index signature that interfaces do not satisfy.
      await client.collections().create({ ...schema, fields: schema.fields.map((f) => ({ ...f })) });
    },
    async retrieveCollection(name) {
      const c = await client.collections(name).retrieve();
      return { name: c.name, fields: c.fields ?? [], token_separators: c.token_separators ?? [] };
    },
    async updateCollection(name, fields, signal) {
      // Not the client's update (PATCH with its request time-out, then sent again to meet "Another collection
      // update operation is in progress"): the alteration is answered when done, which takes its time.
      await client.apiCall.performRequest('patch', `/collections/${encodeURIComponent(name)}`, {
        bodyParameters: { fields },
        skipConnectionTimeout: true,
        abortSignal: signal ?? null,
      });
    },
    async deleteCollection(name) {
      await client.collections(name).delete();
    },
    async retrieveAlias(alias) {
      return (await client.aliases(alias).retrieve()).collection_name;
    },
    async upsertAlias(alias, collection) {
      await client.aliases().upsert(alias, { collection_name: collection });
    },
    async importDocuments(collection, documents, action, options = {}) {
      // As the client's import sends it (Documents.js), with the caller's AbortSignal, which its import takes
      // none of. Every line is checked by the caller (checkImport), 404s of updates included.
      const answer = await client.apiCall.performRequest<string>(
        'post',
        `/collections/${encodeURIComponent(collection)}/documents/import`,
        {
          queryParameters: { action, ...(options.dirtyValues ? { dirty_values: options.dirtyValues } : {}) },
          bodyParameters: documents.map((d) => JSON.stringify(d)).join('\n'),
          additionalHeaders: { 'Content-Type': 'text/plain' },
          skipConnectionTimeout: true,
          abortSignal: options.signal ?? null,
        },
      );
      return String(answer)
        .split('\n')
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line) as ImportItemResult);
    },
    async exportDocuments(collection, filterBy, fields) {
      const jsonl = await docs(collection).export({ filter_by: filterBy, include_fields: fields.join(',') });
      return jsonl
        .split('\n')
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    async *exportAll(collection) {
      const lines = createInterface({ input: await docs(collection).exportStream(), crlfDelay: Infinity });
      for await (const line of lines) if (line.trim().length > 0) yield JSON.parse(line) as TypesenseDocument;
    },
    async deleteDocuments(collection, filterBy) {
      return (await docs(collection).delete({ filter_by: filterBy })).num_deleted;
    },
    async retrieveDocument(collection, id) {
      return client.collections<Record<string, unknown>>(collection).documents(id).retrieve();
    },
    async upsertDocument(collection, doc) {
      await docs(collection).upsert(doc);
    },
    async search(collection, params) {
      const response = await client.multiSearch.perform({ searches: [{ collection, ...params }] });
      const first = response.results[0] as TypesenseSearchResponse & { error?: string; code?: number };
      if (first.error !== undefined || first.code !== undefined) {
        const message = `typesense search of ${collection}: ${first.code ?? '?'} ${first.error ?? ''}`;
        throw new TypesenseStatusError(message, first.code ?? 500);
      }
      return first;
    },
  };
}
