import type { Doc, FieldCondition, Filter, IndexSpec, Scalar, SortSpec } from '../../ports/read-models.ts';
import { fieldSegments, filterParts, isOperatorCondition, operatorEntries } from '../../read-models/filter.ts';

/**
 * The port's filter language (a subset of MongoDB's, defined in src/read-models/filter.ts) compiled into the
 * query MongoDB runs, plus the mapping between the port's documents and their stored form. Pure functions:
 * the adapter sends exactly what these return, and the tests evaluate the same objects with a
 * MongoDB-semantics library.
 *
 * Stored form: `{ _id: '<tenant>\u0000<id>', _t: '<tenant>', ...fields }`. The tenant is a field (`_t`) so
 * every declared index can start with it, and part of the `_id` so the primary key is unique per tenant and
 * the port's `_id` conditions (equality, $in, ranges, sort) stay plain string comparisons on the `_id`
 * index. A string key is used rather than a sub-document `{ t, id }`: sub-document equality depends on field
 * order and turns ranges into object comparisons. NUL cannot occur in a tenant (checked), and all ids of a
 * tenant share the same prefix, so the order of stored keys within a tenant is the order of the port's ids.
 */

export const TENANT_FIELD = '_t';
const SEPARATOR = '\u0000';

/** A MongoDB query or pipeline stage: plain data, sent as is. */
export type MongoDocument = Record<string, unknown>;

export interface StoredDoc {
  _id: string;
  _t: string;
  [field: string]: unknown;
}

export function checkTenant(tenant: string): string {
  if (!tenant || tenant.includes(SEPARATOR)) throw new Error('invalid tenant');
  return tenant;
}

export function storedId(tenant: string, id: string): string {
  return `${checkTenant(tenant)}${SEPARATOR}${id}`;
}

/** A dotted path of the port (checked by the language), that is not the reserved tenant field. */
export function fieldPath(field: string): string {
  if (fieldSegments(field)[0] === TENANT_FIELD) throw new Error(`field ${TENANT_FIELD} is reserved for the tenant`);
  return field;
}

/**
 * The stored form of a port document. It goes through JSON as the embedded store's does, so both engines
 * hold the same values (a Date becomes its ISO string, undefined fields disappear instead of becoming null).
 */
export function toStored(tenant: string, doc: Doc): StoredDoc {
  if (TENANT_FIELD in doc) throw new Error(`field ${TENANT_FIELD} is reserved for the tenant`);
  const { _id, ...fields } = JSON.parse(JSON.stringify(doc)) as Doc;
  return { _id: storedId(tenant, _id), _t: tenant, ...fields };
}

export function fromStored<T extends Doc>(stored: StoredDoc): T {
  const { _id, _t, ...fields } = stored;
  return { _id: _id.slice(_t.length + SEPARATOR.length), ...fields } as T;
}

/** Values compared with `_id` are compared with the stored key (the embedded store compares them as text). */
function idValue(tenant: string, value: Scalar): Scalar {
  return typeof value === 'string' || typeof value === 'number' ? storedId(tenant, String(value)) : value;
}

const MATCH_NOTHING: MongoDocument = { _id: { $in: [] } };

/** The clauses of one field condition; more than one when two port operators map to the same MongoDB one. */
function conditionClauses(tenant: string, field: string, condition: FieldCondition): MongoDocument[] {
  const path = fieldPath(field);
  const value = (v: Scalar) => (path === '_id' ? idValue(tenant, v) : v);
  if (!isOperatorCondition(condition)) return [{ [path]: value(condition) }];
  const operators: MongoDocument[] = [];
  const add = (op: string, operand: unknown) => {
    const free = operators.find((o) => !(op in o));
    if (free) free[op] = operand;
    else operators.push({ [op]: operand });
  };
  for (const [op, operand] of operatorEntries(condition)) {
    switch (op) {
      case '$eq':
      case '$ne':
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        add(op, value(operand));
        break;
      case '$in':
        add('$in', operand.map(value));
        break;
      case '$exists':
        // The port's $exists means "present and not null"; MongoDB's {$ne: null} / {$eq: null} mean exactly
        // that (and its own $exists would count a stored null as present).
        add(operand ? '$ne' : '$eq', null);
        break;
      case '$contains':
        // A literal substring: every regex metacharacter escaped, no flags (the port's text is matched as is).
        add('$regex', String(operand).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
        break;
    }
  }
  return operators.map((o) => ({ [path]: o }));
}

function filterClauses(tenant: string, filter: Filter): MongoDocument[] {
  const clauses: MongoDocument[] = [];
  for (const part of filterParts(filter)) {
    if (part.kind === '$and') {
      // MongoDB rejects an empty $and; the port means "true". The parts join the enclosing conjunction.
      for (const f of part.filters) clauses.push(...filterClauses(tenant, f));
    } else if (part.kind === '$or') {
      if (part.filters.length === 0) {
        clauses.push(MATCH_NOTHING); // an empty $or is "false" in the port; MongoDB rejects it
      } else {
        const subs = part.filters.map((f) => combine(filterClauses(tenant, f)));
        clauses.push(subs.length === 1 ? subs[0] : { $or: subs });
      }
    } else {
      clauses.push(...conditionClauses(tenant, part.field, part.condition));
    }
  }
  return clauses;
}

/** Merges clauses into one query document, moving a clause into $and only when its key is already taken. */
function combine(clauses: MongoDocument[], base: MongoDocument = {}): MongoDocument {
  const query: MongoDocument = { ...base };
  const and: MongoDocument[] = [];
  for (const clause of clauses) {
    const [key] = Object.keys(clause);
    if (Object.keys(clause).length === 1 && !(key in query)) query[key] = clause[key];
    else and.push(clause);
  }
  if (and.length) query.$and = [...((query.$and as MongoDocument[] | undefined) ?? []), ...and];
  return query;
}

/** The MongoDB query for a port filter in one tenant: the tenant is always its first condition. */
export function toMongoQuery(tenant: string, filter: Filter): MongoDocument {
  return combine(filterClauses(tenant, filter), { [TENANT_FIELD]: checkTenant(tenant) });
}

/**
 * The MongoDB sort for a port sort, as ordered pairs (an object would reorder integer-like keys). Ties are
 * broken by `_id` in the direction of the last key, so pages are stable; every declared index ends with
 * `_id` for the same reason, so the sort is still read from the index. (The embedded store breaks ties by
 * insertion order instead.)
 */
export function toMongoSort(sort: SortSpec | undefined): Array<[string, 1 | -1]> | undefined {
  if (!sort?.length) return undefined;
  const pairs = sort.map(([field, direction]): [string, 1 | -1] => [fieldPath(field), direction === -1 ? -1 : 1]);
  if (!pairs.some(([field]) => field === '_id')) pairs.push(['_id', pairs[pairs.length - 1][1]]);
  return pairs;
}

/** countBy as one aggregation: the most frequent values first, then by value (null/absent first). */
export function countByPipeline(tenant: string, filter: Filter, field: string): MongoDocument[] {
  return [
    { $match: toMongoQuery(tenant, filter) },
    { $group: { _id: `$${fieldPath(field)}`, count: { $sum: 1 } } },
    { $sort: { count: -1, _id: 1 } },
  ];
}

export function fromCountBy(tenant: string, field: string, rows: MongoDocument[]): Array<{ value: Scalar; count: number }> {
  const prefix = storedId(tenant, '');
  return rows.map((row) => {
    let value = (row._id ?? null) as Scalar;
    if (field === '_id' && typeof value === 'string') value = value.slice(prefix.length);
    return { value, count: row.count as number };
  });
}

/** Keys of a declared index: the tenant first; non-unique indexes end with `_id` (the sort's tie-break). */
export function indexKeys(index: IndexSpec): Array<[string, 1]> {
  const keys: Array<[string, 1]> = [[TENANT_FIELD, 1], ...index.fields.map((f): [string, 1] => [fieldPath(f), 1])];
  if (!index.unique && !index.fields.includes('_id')) keys.push(['_id', 1]);
  return keys;
}

/** Every BSON type a stored field may hold but null (stored documents come through JSON: no dates, no binaries). */
export const PRESENT_TYPES = ['string', 'number', 'bool', 'object', 'array'] as const;

/**
 * Options of a declared index. A unique one indexes only the documents whose fields all hold a value, neither
 * missing nor null (the port's `$exists`): MongoDB would index a missing field as null and refuse a second
 * document without it, and `$exists: true` would still count an explicit null, where SQLite and PostgreSQL take
 * any number of both. A partial index may filter on `$type` (`_checkValidFilterExpressions`,
 * src/mongo/db/catalog/index_catalog_impl.cpp), not on `$ne: null`.
 */
export function indexOptions(index: IndexSpec): { unique: boolean; partialFilterExpression?: Record<string, { $type: string[] }> } {
  if (!index.unique) return { unique: false };
  return {
    unique: true,
    partialFilterExpression: Object.fromEntries(index.fields.map((f) => [fieldPath(f), { $type: [...PRESENT_TYPES] }])),
  };
}
