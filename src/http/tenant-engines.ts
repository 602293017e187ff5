import type { Readable } from 'node:stream';
import type { FileStore, OpenedFile, StoredFile } from '../ports/files.ts';
import type { SearchIndex, SearchRequest, SearchResult } from '../ports/search.ts';
import type { GeneratedFiles } from '../generated-files.ts';

/**
 * The engines that name a tenant on every call, bound to the caller's tenant once per request (as
 * `DocumentStore.forTenant` binds the read models): a handler has no tenant argument to get wrong, so it
 * cannot reach another tenant's index or files by accident.
 */

/** The search index, read-only: projections write it. */
export interface TenantSearch {
  search(collection: string, request: SearchRequest): Promise<SearchResult>;
}

export interface TenantFiles {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** See FileStore.putStream: stored complete or not at all. */
  putStream(key: string, stream: Readable, contentType: string, maxBytes: number): Promise<{ size: number }>;
  get(key: string): Promise<StoredFile | null>;
  open(key: string): Promise<OpenedFile | null>;
  delete(key: string): Promise<void>;
}

/** Files made from read models on first request (GeneratedFiles.open). */
export interface TenantGeneratedFiles {
  open(file: { key: string; family: string; contentType: string }, generate: () => Promise<Buffer>): Promise<OpenedFile>;
}

export function tenantSearch(index: Pick<SearchIndex, 'search'>, tenant: string): TenantSearch {
  return { search: (collection, request) => index.search(collection, tenant, request) };
}

export function tenantFiles(files: FileStore, tenant: string): TenantFiles {
  return {
    put: (key, bytes, contentType) => files.put(tenant, key, bytes, contentType),
    putStream: (key, stream, contentType, maxBytes) => files.putStream(tenant, key, stream, contentType, maxBytes),
    get: (key) => files.get(tenant, key),
    open: (key) => files.open(tenant, key),
    delete: (key) => files.delete(tenant, key),
  };
}

export function tenantGeneratedFiles(generated: GeneratedFiles, tenant: string): TenantGeneratedFiles {
  return { open: (file, generate) => generated.open(tenant, file, generate) };
}
