// The DocumentStore's filter language (src/read-models/filter.ts) compiled into PostgreSQL's SQL over the `doc`
// jsonb column, as sqlite-filter.ts does for SQLite; pg-documents.ts runs what it returns. Values are always
// parameters. A field is `coalesce(doc->'f', 'null')`, so absent and null are one value as in MongoDB, and
// values compare as jsonb: 1 and '1' differ, ranges match only values of the operand's type.
import type { FieldCondition, Filter, Scalar, SortSpec } from '../../ports/read-models.ts';
import { fieldSegments, filterSql, isOperatorCondition, operatorEntries } from '../../read-models/filter.ts';

/** A field's SQL expression, written exactly as in the index definitions (pg-documents.ts), which is what lets PostgreSQL use them. */
export function fieldExpr(field: string): string {
  if (field === '_id') return 'id';
  return `coalesce(${fieldPath(field)}, 'null'::jsonb)`;
}

/** A field's `jsonb` value as stored: SQL NULL when the document has no such field. */
export function fieldPath(field: string): string {
  const segments = fieldSegments(field); // letters, digits, `_` and `-` only: safe inside a literal
  return segments.length === 1 ? `doc->'${segments[0]}'` : `doc #> '{${segments.join(',')}}'`;
}

/** Adds a parameter, answering its placeholder. */
function param(params: unknown[], value: unknown, cast: string): string {
  params.push(value);
  return `$${params.length}::${cast}`;
}

const json = (value: Scalar) => JSON.stringify(value);
/** An operand compared with `_id` (text): numbers as their text, as MongoDB and SQLite compare them. */
const idText = (value: Scalar): string | null => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);

const RANGE = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

function idCondition(op: string, value: unknown, params: unknown[]): string {
  switch (op) {
    case '$eq': {
      const text = idText(value as Scalar);
      return text === null ? 'false' : `id = ${param(params, text, 'text')}`;
    }
    case '$ne': {
      const text = idText(value as Scalar);
      return text === null ? 'true' : `id <> ${param(params, text, 'text')}`;
    }
    case '$in': {
      const texts = (value as Scalar[]).map(idText).filter((t): t is string => t !== null);
      return texts.length ? `id = ANY(${param(params, texts, 'text[]')})` : 'false';
    }
    case '$exists':
      return value ? 'true' : 'false';
    case '$contains':
      return `strpos(id, ${param(params, String(value), 'text')}) > 0`;
    default:
      return `id ${RANGE[op as keyof typeof RANGE]} ${param(params, String(value), 'text')}`;
  }
}

function conditionSql(field: string, condition: FieldCondition, params: unknown[]): string {
  const entries: Array<[string, unknown]> = isOperatorCondition(condition) ? operatorEntries(condition) : [['$eq', condition]];
  const expr = fieldExpr(field);
  const parts = entries.map(([op, value]) => {
    if (field === '_id') return idCondition(op, value, params);
    switch (op) {
      case '$eq':
        return `${expr} = ${param(params, json(value as Scalar), 'jsonb')}`;
      case '$ne':
        return `${expr} <> ${param(params, json(value as Scalar), 'jsonb')}`;
      case '$in': {
        const values = value as Scalar[];
        return values.length ? `${expr} = ANY(${param(params, values.map(json), 'jsonb[]')})` : 'false';
      }
      case '$exists':
        return value ? `${expr} <> 'null'::jsonb` : `${expr} = 'null'::jsonb`;
      case '$contains':
        return `(jsonb_typeof(${expr}) = 'string' AND strpos(${expr} #>> '{}', ${param(params, String(value), 'text')}) > 0)`;
      default: {
        // MongoDB compares within a type: a number bound never matches strings or null (jsonb orders them below numbers).
        const type = typeof value === 'number' ? 'number' : 'string';
        return `(jsonb_typeof(${expr}) = '${type}' AND ${expr} ${RANGE[op as keyof typeof RANGE]} ${param(params, json(value as Scalar), 'jsonb')})`;
      }
    }
  });
  return parts.length ? parts.join(' AND ') : 'true';
}

/** The PostgreSQL compiler of the port's filter language; `params` holds the values, the SQL names them `$n`. */
export function filterToSql(filter: Filter, params: unknown[]): string {
  return filterSql(filter, { condition: (field, condition) => conditionSql(field, condition, params), true: 'true', false: 'false' });
}

/**
 * ORDER BY for a port sort: jsonb order puts null (and absent, which is null here) first ascending and last
 * descending, as MongoDB does; ties are broken by id in the direction of the last key, so pages are stable.
 * Two differences remain, both for fields whose values mix types or need a byte order: jsonb orders strings
 * before numbers (MongoDB the reverse), and compares strings in the database's collation (ids are `COLLATE "C"`;
 * create the database with a C or ucs_basic collation to have MongoDB's byte order for fields too).
 */
export function sortToSql(sort: SortSpec | undefined): string {
  if (!sort?.length) return '';
  const direction = (d: 1 | -1) => (d === -1 ? 'DESC' : 'ASC');
  const keys = sort.map(([field, d]) => `${fieldExpr(field)} ${direction(d)}`);
  if (!sort.some(([field]) => field === '_id')) keys.push(`id ${direction(sort[sort.length - 1][1])}`);
  return keys.join(', ');
}
