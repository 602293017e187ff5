/**
 * The port's SearchFilter as a Typesense `filter_by` string, with the tenant always ANDed first
 * (docs: API > Search > filter_by):
 * - equality `F:=v` (`:=` is the documented exact match of a string field; for numbers and booleans
 *   filter.cpp skips the `=`: "optional `:=` operator, which has no meaning for non-string fields");
 * - ranges `F:>n`, `F:>=n`, `F:<n`, `F:<=n` ("simple comparison operators");
 * - `in` as `F:[1,2]` for numbers and `F:=[\`a\`,\`b\`]` for strings ("country: [USA, UK]" is an OR);
 * - conditions joined with ` && ` ("separate multiple conditions with the && operator").
 *
 * String values go between backticks, the documented way to write a literal holding `,`, `&&`, `(`, `[`
 * or spaces ("use the backtick character to denote a string literal"). There is no documented escape for
 * a backtick itself, so values that Typesense would read as something else are refused:
 * - a backtick (it would end the literal; the tokenizer in filter.cpp toggles on every backtick);
 * - a trailing backslash (split_to_values in string_utils.cpp takes "\`" as an escaped backtick);
 * - a value ending in `*` (read as a prefix filter) or wrapped in double quotes (a phrase filter), which
 *   filter.cpp does for list values once split_to_values has removed the backticks;
 * - an empty value ("Filter value cannot be empty").
 * Typesense compares string filter values token by token, case- and accent-insensitively; the tenant and
 * ids are therefore filtered through keys (schema.ts), never as raw strings.
 */
import type { SearchFilter } from '../../ports/search.ts';
import { checkFieldName, DOC_KEY, key, RESERVED_FIELDS, TENANT_KEY } from './schema.ts';

type Scalar = string | number | boolean;

/** A filter value as Typesense filter syntax: integers bare, booleans bare, strings between backticks. */
export function literal(value: Scalar): string {
  if (typeof value === 'number') {
    // The port's numeric fields are int32/int64: an integer renders the same in every notation.
    if (!Number.isSafeInteger(value)) throw new Error(`typesense filter: ${value} is not an integer`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  if (value.length === 0) throw new Error('typesense filter: a string value cannot be empty');
  if (value.includes('`')) throw new Error('typesense filter: a string value cannot contain a backtick');
  if (value.endsWith('\\')) throw new Error('typesense filter: a string value cannot end with a backslash');
  if (value.endsWith('*')) throw new Error('typesense filter: a string value cannot end with * (a prefix filter)');
  if (value.length > 1 && value.startsWith('"') && value.endsWith('"')) {
    throw new Error('typesense filter: a string value cannot be wrapped in double quotes (a phrase filter)');
  }
  return `\`${value}\``;
}

function list(field: string, values: Array<string | number>): string {
  // Numbers bare in brackets (docs: `num_employees:[10, 100]`), strings as exact-match literals.
  if (values.every((v) => typeof v === 'number')) return `${field}:[${values.map(literal).join(',')}]`;
  return `${field}:=[${values.map(literal).join(',')}]`;
}

/** `tenant_key:=\`…\``: the condition every search, export and delete of a tenant starts with. */
export function tenantCondition(tenant: string): string {
  return `${TENANT_KEY}:=${literal(key(tenant))}`;
}

/** The documents of these port ids (every partition of each), as one `in` condition over their keys. */
export function idsCondition(ids: string[]): string {
  return `${DOC_KEY}:=[${ids.map((id) => literal(key(id))).join(',')}]`;
}

/**
 * The conditions of a port filter, in the filter's key order. Returns null when a condition can match
 * nothing (an empty `in`), which Typesense has no syntax for: the caller answers "no hits" itself.
 */
export function filterConditions(filter: SearchFilter): string[] | null {
  const out: string[] = [];
  for (const [name, condition] of Object.entries(filter)) {
    checkFieldName(name);
    if (RESERVED_FIELDS.has(name)) throw new Error(`typesense filter: ${name} cannot be filtered on`);
    if (condition === null || condition === undefined) throw new Error(`typesense filter: ${name} has no value`);
    if (typeof condition !== 'object') {
      out.push(`${name}:=${literal(condition)}`);
      continue;
    }
    const { gt, gte, lt, lte, in: values, ...rest } = condition;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw new Error(`typesense filter: ${name} has unknown operators ${unknown.join(', ')}`);
    if (values !== undefined) {
      if (values.length === 0) return null;
      out.push(list(name, values));
    }
    if (gt !== undefined) out.push(`${name}:>${literal(gt)}`);
    if (gte !== undefined) out.push(`${name}:>=${literal(gte)}`);
    if (lt !== undefined) out.push(`${name}:<${literal(lt)}`);
    if (lte !== undefined) out.push(`${name}:<=${literal(lte)}`);
  }
  return out;
}

/** The whole filter_by of a tenant's search, or null when it matches nothing. */
export function filterBy(tenant: string, filter: SearchFilter = {}): string | null {
  const conditions = filterConditions(filter);
  return conditions === null ? null : [tenantCondition(tenant), ...conditions].join(' && ');
}
