/**
 * Lot search index port, shaped after Typesense: a collection schema with typed fields, documents whose
 * `id` is the aggregate id, upserts and partial updates by id, and a search with `q`, `query_by`-like
 * fields, a structured filter (the Typesense adapter renders it as `filter_by`), facets and paging.
 *
 * Tenancy is enforced by the adapter: every call names the tenant, and a search only ever sees the
 * documents of that tenant. A document's `id` is unique within its collection and tenant: an upsert with
 * the same id replaces it. How an engine lays documents out is the adapter's configuration, not part of
 * this port (the embedded index can split a collection into one engine per value of a field, e.g. per
 * Language, and then keeps one document per id and value: its `partitions` option). Adapters persist on
 * their own: there is no flush.
 */

/**
 * The index cannot answer a search now, and should soon: its server is away, or its collection does not hold
 * yet what this process declared (a new field, before the process that owns the index has added it). The
 * service answers it 503 with Retry-After, never 500.
 */
export class SearchIndexUnavailableError extends Error {
  override name = 'SearchIndexUnavailableError';
}

export interface SearchFieldSpec {
  name: string;
  type: 'string' | 'int32' | 'int64' | 'bool' | 'string[]';
  /** Full-text searched field (Typesense: a string field named in query_by). */
  searchable?: boolean;
  /** Usable in facet_by. */
  facet?: boolean;
}

export interface SearchCollectionSpec {
  name: string;
  fields: SearchFieldSpec[];
}

export interface SearchDocument {
  id: string;
  [field: string]: string | number | boolean | string[] | null | undefined;
}

/** Equality, ranges and `in` over non-text fields; all conditions must hold. */
export type SearchFilter = Record<
  string,
  string | number | boolean | { gt?: number; gte?: number; lt?: number; lte?: number; in?: Array<string | number> }
>;

export interface SearchRequest {
  q: string;
  /** Searchable fields to match, in priority order (earlier fields weigh more). */
  queryBy: string[];
  filter?: SearchFilter;
  facetBy?: string[];
  /** 1-based. */
  page: number;
  perPage: number;
}

export interface SearchHit {
  id: string;
  score: number;
}

export interface SearchResult {
  found: number;
  hits: SearchHit[];
  facets: Record<string, Array<{ value: string; count: number }>>;
}

export interface SearchIndex {
  ensureCollection(spec: SearchCollectionSpec): Promise<void>;
  /** Insert or replace whole documents (Typesense: import with action=upsert), item by item. */
  upsert(collection: string, tenant: string, docs: SearchDocument[]): Promise<void>;
  /** Merge fields into existing documents (Typesense: action=update); unknown ids are ignored. */
  update(collection: string, tenant: string, docs: SearchDocument[]): Promise<void>;
  delete(collection: string, tenant: string, ids: string[]): Promise<void>;
  search(collection: string, tenant: string, request: SearchRequest): Promise<SearchResult>;
  /** Projection checkpoint kept with the index, so a restart resumes where the index is. */
  getCheckpoint(projection: string): Promise<number>;
  /** As DocumentStore.changeMark: moves whenever another process committed to the index (null: not readable yet). */
  changeMark?(): number | null;
  setCheckpoint(projection: string, position: number): Promise<void>;
  /**
   * Rebuilds the collection into a fresh copy while searches and live writes go on against the live one
   * (the protocol: src/read-models/search-rebuild.ts).
   */
  startRebuild(collection: string, projection: string): Promise<SearchRebuild>;
  close(): Promise<void>;
}

export interface SearchRebuild {
  upsert(tenant: string, docs: SearchDocument[]): Promise<void>;
  update(tenant: string, docs: SearchDocument[]): Promise<void>;
  delete(tenant: string, ids: string[]): Promise<void>;
  /** Alias swap: the rebuilt copy becomes the live one, with its checkpoint. */
  finish(position: number): Promise<void>;
  abort(): Promise<void>;
}
