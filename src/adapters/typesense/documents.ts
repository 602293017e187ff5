/**
 * Port documents as Typesense documents, and the check of an import's answer.
 *
 * Identity: a Typesense id is unique in its collection, which holds every tenant, so it is built from the
 * tenant, the port's id and, in a partitioned collection, the partition value:
 * `enc(tenant):enc(id)[:enc(value)]` with encodeURIComponent (which encodes `:`), so distinct triples never
 * share an id. A partitioned collection (the adapter's `partitions` option, e.g. `{ lots: 'Language' }`)
 * keeps one document per id and value, as the embedded index does: the lot-search projection writes one
 * document per lot and language under the lot's id.
 *
 * Text: the searchable fields are folded with the service's one rule (src/text/fold.ts) before they are
 * sent, and so is the query (params.ts): Typesense then only sees folded text on both sides, so "Größe",
 * "Ærø" and "Łódź" match as they do everywhere else in the service, whatever Typesense's own
 * transliteration makes of them. The documents on the server are an index, never read back as content
 * (a search returns ids only).
 *
 * Imports (docs: API > Documents > "Index multiple documents"): the endpoint answers HTTP 200 with one
 * `{success, error, code}` line per document, in order, "so always be sure to check the API response for
 * any `{success: false, ...}` records". Every failed line fails the call, naming the first failures;
 * except that `action=update` "fails if a document with the given id does not exist" (code 404), and the
 * port ignores updates of unknown ids.
 */
import type { SearchDocument } from '../../ports/search.ts';
import { foldText } from '../../text/fold.ts';
import { DOC_ID, DOC_KEY, key, RESERVED_FIELDS, TENANT_KEY } from './schema.ts';

export type TypesenseDocument = Record<string, unknown> & { id: string };

export interface ImportItemResult {
  success: boolean;
  error?: string;
  code?: number;
}

/** What the adapter needs to know of a collection to write its documents. */
export interface CollectionLayout {
  /** The field whose value makes a document distinct besides its id (the `partitions` option), or null. */
  partitionField: string | null;
  /** The full-text fields, folded before they are sent. */
  searchable: ReadonlySet<string>;
}

export function typesenseId(tenant: string, id: string, partitionValue: string | null): string {
  const parts = [tenant, id, ...(partitionValue === null ? [] : [partitionValue])];
  return parts.map(encodeURIComponent).join(':');
}

/** The partition value a document or patch names, or null when it names none. */
export function partitionValueOf(doc: SearchDocument, field: string | null): string | null {
  if (field === null) return null;
  const v = doc[field];
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) throw new Error(`typesense: document ${doc.id} has a list as its partition field ${field}`);
  return String(v);
}

function folded(value: SearchDocument[string]): SearchDocument[string] {
  if (typeof value === 'string') return foldText(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? foldText(v) : v));
  return value;
}

function fieldsOf(doc: SearchDocument, layout: CollectionLayout, drop: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(doc)) {
    if (name === 'id' || name === drop || value === undefined) continue;
    if (RESERVED_FIELDS.has(name)) throw new Error(`typesense: document ${doc.id} uses the reserved field ${name}`);
    out[name] = layout.searchable.has(name) ? folded(value) : value;
  }
  return out;
}

function checkId(doc: SearchDocument): void {
  if (typeof doc.id !== 'string' || doc.id.length === 0) throw new Error('typesense: a document needs a string id');
}

/** A whole document for `action=upsert`; a partitioned collection needs the partition value. */
export function upsertDocument(tenant: string, doc: SearchDocument, layout: CollectionLayout): TypesenseDocument {
  checkId(doc);
  const pf = layout.partitionField;
  const value = partitionValueOf(doc, pf);
  if (pf !== null && value === null) throw new Error(`typesense: document ${doc.id} needs a value of ${pf}`);
  return {
    ...fieldsOf(doc, layout, null),
    id: typesenseId(tenant, doc.id, value),
    [TENANT_KEY]: key(tenant),
    [DOC_KEY]: key(doc.id),
    [DOC_ID]: doc.id,
  };
}

/**
 * A patch for `action=update` of the document with this Typesense id: the port's fields only (null clears
 * an optional field), never the partition field (a document cannot move partitions by an update).
 */
export function updatePatch(tsId: string, patch: SearchDocument, layout: CollectionLayout): TypesenseDocument {
  checkId(patch);
  return { ...fieldsOf(patch, layout, layout.partitionField), id: tsId };
}

/** Throws when an import failed for some document (404 of an update excepted), naming the first three. */
export function checkImport(results: ImportItemResult[], docs: TypesenseDocument[], action: 'upsert' | 'update', collection: string): void {
  if (results.length !== docs.length) {
    throw new Error(`typesense ${action} into ${collection}: ${results.length} results for ${docs.length} documents`);
  }
  const failed = results.map((r, i) => ({ r, id: docs[i].id })).filter(({ r }) => !r.success && !(action === 'update' && r.code === 404));
  if (failed.length === 0) return;
  const first = failed
    .slice(0, 3)
    .map(({ r, id }) => `${id}: ${r.code ?? '?'} ${r.error ?? 'failed'}`)
    .join('; ');
  const counts = `${failed.length} of ${docs.length} documents failed`;
  throw new Error(`typesense ${action} into ${collection}: ${counts} (${first})`);
}
