/**
 * The calls the adapter makes to Typesense, as one small interface over the `typesense` 3.x client, so the
 * adapter can be run over a fake in tests. Failures throw the client's errors, which carry the HTTP status
 * as `httpStatus` (404 not found, 409 already exists); `statusOf` reads it.
 *
 * Endpoints (docs: API reference): POST /collections, DELETE /collections/:c, GET /aliases/:a,
 * PUT /aliases/:a, POST /collections/:c/documents/import?action=..., GET /collections/:c/documents/export,
 * DELETE /collections/:c/documents?filter_by=..., GET and POST /collections/:c/documents[/:id], and
 * POST /multi_search for searches: GET /search refuses query strings over 4,000 characters, which a long
 * `in` list reaches (typesense/typesense#558: "Use the /multi_search end-point for larger payloads").
 * Multi-search answers 200 with an `{error, code}` per failed search; that is thrown here like a failed
 * single search.
 */
import { Client } from 'typesense';
import type { ImportItemResult, TypesenseDocument } from './documents.ts';
import type { TypesenseSearchParams } from './params.ts';
import type { TypesenseSearchResponse } from './results.ts';
import type { TypesenseCollectionSchema } from './schema.ts';

export type ImportAction = 'upsert' | 'update';

export interface TypesenseApi {
  createCollection(schema: TypesenseCollectionSchema): Promise<void>;
  deleteCollection(name: string): Promise<void>;
  /** The collection an alias points at. */
  retrieveAlias(alias: string): Promise<string>;
  upsertAlias(alias: string, collection: string): Promise<void>;
  importDocuments(collection: string, docs: TypesenseDocument[], action: ImportAction): Promise<ImportItemResult[]>;
  /** The documents matching the filter, with these fields only. */
  exportDocuments(collection: string, filterBy: string, fields: string[]): Promise<Array<Record<string, unknown>>>;
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
  /** Per-request timeout in seconds (here 3; the client's default 5). Imports are never timed out by the client. */
  connectionTimeoutSeconds?: number;
  /** Retries of a failed request on the next node (here 1; the client's default 3). */
  numRetries?: number;
}

/** A client for one node URL or several comma-separated ones (a cluster), e.g. `http://typesense:8108`. */
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
    async deleteCollection(name) {
      await client.collections(name).delete();
    },
    async retrieveAlias(alias) {
      return (await client.aliases(alias).retrieve()).collection_name;
    },
    async upsertAlias(alias, collection) {
      await client.aliases().upsert(alias, { collection_name: collection });
    },
    async importDocuments(collection, documents, action) {
      // throwOnFail: false: every line is checked by the caller (checkImport), 404s of updates included.
      return docs(collection).import(documents, { action, throwOnFail: false });
    },
    async exportDocuments(collection, filterBy, fields) {
      const jsonl = await docs(collection).export({ filter_by: filterBy, include_fields: fields.join(',') });
      return jsonl
        .split('\n')
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
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
