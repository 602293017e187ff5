// The DocumentStore port's filter language defined once: its operators, field paths and structure, checked
// here, so that each adapter's compiler (SQLite, PostgreSQL, MongoDB) translates exactly the same language.
import type { FieldCondition, Filter, Scalar } from '../ports/read-models.ts';

/** A condition written with operators (`{ $gte: 2, $lt: 5 }`), as opposed to a plain value (equality). */
export type OperatorCondition = Exclude<FieldCondition, Scalar>;

export const FIELD_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$exists', '$contains'] as const;
export type FieldOperator = (typeof FIELD_OPERATORS)[number];

// The list above and the port's type name the same operators: adding one to either without the other fails to compile.
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const operatorsListed: SameKeys<FieldOperator, keyof OperatorCondition> = true;
void operatorsListed;

/** One operator of a condition with its operand, typed by the operator. */
export type OperatorEntry = { [K in FieldOperator]: [K, Exclude<OperatorCondition[K], undefined>] }[FieldOperator];

/** One part of a filter: a conjunction or disjunction of filters, or a condition on one field. */
export type FilterPart =
  { kind: '$and'; filters: Filter[] } | { kind: '$or'; filters: Filter[] } | { kind: 'field'; field: string; condition: FieldCondition };

const KNOWN_OPERATORS: ReadonlySet<string> = new Set(FIELD_OPERATORS);
const FIELD_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The segments of a dotted field path, checked: letters, digits, `_` and `-` only, and no sub-path of `_id`. */
export function fieldSegments(field: string): string[] {
  const segments = field.split('.');
  if (!segments.every((s) => FIELD_SEGMENT.test(s))) throw new Error(`invalid field path: ${field}`);
  if (segments[0] === '_id' && segments.length > 1) throw new Error(`invalid field path: ${field}`);
  return segments;
}

export function isOperatorCondition(condition: FieldCondition): condition is OperatorCondition {
  return condition !== null && typeof condition === 'object';
}

/** The operators of a condition in their written order, undefined ones left out; an operator the language lacks is refused. */
export function operatorEntries(condition: OperatorCondition): OperatorEntry[] {
  const entries: OperatorEntry[] = [];
  for (const [op, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    if (!KNOWN_OPERATORS.has(op)) throw new Error(`unsupported operator ${op}`);
    if (op === '$in' && !Array.isArray(operand)) throw new Error('$in takes an array of values');
    entries.push([op, operand] as OperatorEntry);
  }
  return entries;
}

/** The parts of a filter in their written order, undefined ones left out. Every other key is a field path. */
export function filterParts(filter: Filter): FilterPart[] {
  const parts: FilterPart[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value)) throw new Error(`${key} takes an array of filters`);
      parts.push({ kind: key, filters: value as Filter[] });
    } else {
      parts.push({ kind: 'field', field: key, condition: value as FieldCondition });
    }
  }
  return parts;
}

/** What a SQL dialect writes for a filter: a field's condition, and its literals for true and false. */
export interface SqlDialect {
  condition(field: string, condition: FieldCondition): string;
  true: string;
  false: string;
}

/** A filter as a SQL boolean expression: its parts ANDed, `$and`/`$or` parenthesised, an empty list as its unit. */
export function filterSql(filter: Filter, dialect: SqlDialect): string {
  const parts: string[] = [];
  for (const part of filterParts(filter)) {
    if (part.kind === 'field') {
      parts.push(dialect.condition(part.field, part.condition));
    } else {
      const subs = part.filters.map((f) => `(${filterSql(f, dialect)})`);
      if (subs.length === 0) parts.push(part.kind === '$and' ? dialect.true : dialect.false);
      else parts.push(`(${subs.join(part.kind === '$and' ? ' AND ' : ' OR ')})`);
    }
  }
  return parts.length ? parts.join(' AND ') : dialect.true;
}
