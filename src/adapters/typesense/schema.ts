/**
 * The port's collection spec as a Typesense collection schema (docs: API > Collections > "Create a
 * collection", field parameters and `token_separators`).
 *
 * Besides the port's fields every document carries three fields of the adapter:
 * - `tenant_key`: a key of the tenant (see `key()`), the field every search, export and delete filters on;
 * - `doc_key`: the same kind of key of the port's document id, to find every document of an id;
 * - `doc_id`: the port's id as given, returned with each hit and sorted on to break ties (string sorting
 *   needs `sort: true`, docs: API > Search > "Sorting on strings").
 * Typesense's own `id` is built by documents.ts. Keys instead of the raw values because Typesense filters a
 * string field token by token, lower-cased and with accents and punctuation dropped (filter_by on `:=`,
 * source: filter_result_iterator.cpp tokenizes the filter value): tenants "Shop-1" and "shop1" would
 * match each other. A key is 32 lower-case hex digits, one token that normalises to itself.
 */
import { createHash } from 'node:crypto';
import type { SearchCollectionSpec, SearchFieldSpec } from '../../ports/search.ts';

export const TENANT_KEY = 'tenant_key';
export const DOC_KEY = 'doc_key';
export const DOC_ID = 'doc_id';
/** Names a spec cannot use: the adapter's fields and Typesense's `id`. */
export const RESERVED_FIELDS: ReadonlySet<string> = new Set([TENANT_KEY, DOC_KEY, DOC_ID, 'id']);

/**
 * ASCII punctuation (Unicode category P): Typesense splits words on these as well as on spaces, so that
 * "oak-chair" is indexed as "oak" and "chair" the way the embedded index and the query side (params.ts)
 * split them. Without them Typesense drops the character and indexes "oakchair". Typesense takes single
 * bytes here, so punctuation outside ASCII is dropped inside words instead.
 */
export const TOKEN_SEPARATORS: readonly string[] = [...'!"#%&\'()*,-./:;?@[\\]_{}'];

/**
 * Field names: letters, digits and `_`. Typesense reads a field name in a schema as a regular expression
 * (docs: "name can be a RegEx") and names appear unquoted in filter_by, so nothing else is let through.
 */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkFieldName(name: string): string {
  if (!FIELD_NAME.test(name)) throw new Error(`typesense: field name ${JSON.stringify(name)} is not [A-Za-z0-9_]`);
  return name;
}

export interface TypesenseField {
  name: string;
  type: 'string' | 'int32' | 'int64' | 'bool' | 'string[]';
  facet: boolean;
  optional: boolean;
  sort?: boolean;
}

export interface TypesenseCollectionSchema {
  name: string;
  fields: TypesenseField[];
  token_separators?: string[];
}

/** 32 hex digits of SHA-256: a tenant or id as one filterable token (128 bits: no collisions to fear). */
export function key(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 32);
}

function portField(f: SearchFieldSpec): TypesenseField {
  checkFieldName(f.name);
  if (RESERVED_FIELDS.has(f.name)) throw new Error(`typesense: field name ${f.name} is reserved by the adapter`);
  const numeric = f.type === 'int32' || f.type === 'int64';
  // optional: the port's documents may leave a field out or set it to null. Numbers sort (docs: `sort`
  // defaults to true for numbers; said explicitly); strings are indexed for query_by without a flag.
  return { name: f.name, type: f.type, facet: !!f.facet, optional: true, ...(numeric ? { sort: true } : {}) };
}

/** The schema of one physical collection holding `spec` (the alias carries the spec's name). */
export function collectionSchema(spec: SearchCollectionSpec, physicalName: string): TypesenseCollectionSchema {
  const seen = new Set<string>();
  for (const f of spec.fields) {
    if (seen.has(f.name)) throw new Error(`typesense: collection ${spec.name} declares ${f.name} twice`);
    seen.add(f.name);
  }
  return {
    name: physicalName,
    fields: [
      { name: TENANT_KEY, type: 'string', facet: false, optional: false },
      { name: DOC_KEY, type: 'string', facet: false, optional: false },
      { name: DOC_ID, type: 'string', facet: false, optional: false, sort: true },
      ...spec.fields.map(portField),
    ],
    token_separators: [...TOKEN_SEPARATORS],
  };
}

/**
 * A collection as the server describes it (GET /collections/:name, which resolves an alias: `name` is then the
 * physical collection's; typesense/typesense src/collection.cpp, get_summary_json). Only what is compared.
 */
export interface LiveCollection {
  name: string;
  fields: Array<{ name: string; type: string; facet?: boolean; optional?: boolean; sort?: boolean; index?: boolean }>;
  token_separators?: string[];
}

/** A change of fields as PATCH /collections/:name takes it: a field to add, or `{name, drop: true}`. */
export type FieldChange = TypesenseField | { name: string; drop: true };

/** Typesense's `sort` when none is given: true for numbers and booleans, false for strings (src/field.cpp). */
function sortOf(f: { type: string; sort?: boolean }): boolean {
  return f.sort ?? ['int32', 'int64', 'float', 'bool'].includes(f.type);
}

function sameField(live: LiveCollection['fields'][number], wanted: TypesenseField): boolean {
  return (
    live.type === wanted.type &&
    (live.facet ?? false) === wanted.facet &&
    (live.optional ?? false) === wanted.optional &&
    sortOf(live) === sortOf(wanted) &&
    live.index !== false
  );
}

/**
 * The fields changes that make the live collection hold the wanted schema's fields, in the form Typesense's
 * schema alteration takes (src/collection.cpp, validate_alter_payload): a field it lacks is added, one it no
 * longer needs dropped, one that differs dropped and added again in the same change ("To change this field,
 * drop it first before adding it back"); `id` cannot be altered and is never named. Empty: the fields match.
 */
export function fieldChanges(live: LiveCollection, wanted: TypesenseCollectionSchema): FieldChange[] {
  const changes: FieldChange[] = [];
  const liveByName = new Map(live.fields.map((f) => [f.name, f]));
  for (const f of live.fields) {
    const want = wanted.fields.find((w) => w.name === f.name);
    if (f.name !== 'id' && (!want || !sameField(f, want))) changes.push({ name: f.name, drop: true });
  }
  for (const f of wanted.fields) {
    const had = liveByName.get(f.name);
    if (!had || !sameField(had, f)) changes.push({ ...f });
  }
  return changes;
}

/** Whether the live collection splits words as the wanted schema does: no schema change alters that. */
export function sameSeparators(live: LiveCollection, wanted: TypesenseCollectionSchema): boolean {
  const a = [...(live.token_separators ?? [])].sort();
  const b = [...(wanted.token_separators ?? [])].sort();
  return a.length === b.length && a.every((c, i) => c === b[i]);
}

/** The collection of projection checkpoints: one document per projection, its id the projection's name. */
export function checkpointSchema(name: string): TypesenseCollectionSchema {
  return { name, fields: [{ name: 'position', type: 'int64', facet: false, optional: false }] };
}
