/**
 * Search filters: checked against the collection's spec, then compiled into predicates over one
 * partition's columns (typed arrays by shortId), so that filtering 100k matches reads no document.
 */
import type { SearchFieldSpec, SearchFilter, SearchRequest } from '../../../ports/search.ts';
import type { Scalar } from './columns.ts';
import type { Engine } from './engine.ts';
import { isIntField, type CompiledSpec } from './spec.ts';

/** Tests the document with this shortId. */
export type Predicate = (s: number) => boolean;

const FILTER_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte', 'in']);

/** Query strings carry numbers and booleans as text: compare them as the field's type. */
function coerce(field: SearchFieldSpec, v: Scalar): Scalar {
  if (isIntField(field) && typeof v === 'string' && v.trim() !== '' && !isNaN(Number(v))) return Number(v);
  if (field.type === 'bool' && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}

/** Throws on a filter the collection cannot evaluate (unknown field or operator, range on a non-number). */
export function validateFilter(c: CompiledSpec, filter: SearchFilter): void {
  for (const [name, cond] of Object.entries(filter)) {
    const field = c.fields.get(name);
    if (!field) throw new Error(`collection ${c.spec.name}: cannot filter on unknown field ${name}`);
    if (cond === null || cond === undefined) throw new Error(`filter on ${name} has no value`);
    if (typeof cond !== 'object') continue;
    for (const k of Object.keys(cond)) {
      if (!FILTER_OPERATORS.has(k)) throw new Error(`filter on ${name}: unknown operator ${k}`);
    }
    const ranged = cond.gt !== undefined || cond.gte !== undefined || cond.lt !== undefined || cond.lte !== undefined;
    if (ranged && !isIntField(field)) throw new Error(`filter on ${name}: ranges need a number field`);
    if (cond.in !== undefined && !Array.isArray(cond.in)) throw new Error(`filter on ${name}: "in" needs an array`);
  }
}

/**
 * Checks a search request against the collection (paging, fields, facets, the partition field's equality,
 * the filter); answers the partition value it reads ('' when the collection has no partition field).
 */
export function checkSearchRequest(c: CompiledSpec, request: SearchRequest): string {
  const collection = c.spec.name;
  const { page, perPage } = request;
  if (!Number.isInteger(page) || page < 1) throw new Error('search page must be an integer >= 1');
  if (!Number.isInteger(perPage) || perPage < 0) throw new Error('search perPage must be an integer >= 0');
  if (request.queryBy.length === 0) throw new Error('search needs at least one queryBy field');
  for (const f of request.queryBy) {
    if (!c.fields.get(f)?.searchable) throw new Error(`collection ${collection}: ${f} is not a searchable field`);
  }
  for (const f of request.facetBy ?? []) {
    if (!c.fields.get(f)?.facet) throw new Error(`collection ${collection}: ${f} is not a facet field`);
  }
  const filter = request.filter ?? {};
  let value = '';
  const pf = c.partitionField;
  if (pf !== null) {
    const v = filter[pf];
    if (v === undefined || v === null || typeof v === 'object') {
      throw new Error(`collection ${collection}: a search must filter ${pf} by equality`);
    }
    value = String(v);
  }
  validateFilter(c, filter);
  return value;
}

/** The boost of the field at `index` of `queryBy`'s `count`: first 3, last 1, evenly between. */
export const fieldBoost = (index: number, count: number) => (count === 1 ? 1 : 1 + (2 * (count - 1 - index)) / (count - 1));

/**
 * Compiles a (validated) filter against the columns of one partition. `skip` names a field every document
 * of the partition already satisfies (the partition field).
 */
export function compileFilter(c: CompiledSpec, engine: Engine, filter: SearchFilter, skip: string | null): Predicate[] {
  const preds: Predicate[] = [];
  const byShort = engine.byShort;
  for (const [name, cond] of Object.entries(filter)) {
    if (name === skip) continue;
    const field = c.fields.get(name)!;
    const col = engine.column(name);
    if (typeof cond !== 'object') {
      const want = coerce(field, cond);
      if (col?.codes) {
        const code = col.dict.get(want);
        const codes = col.codes;
        preds.push(code === undefined ? () => false : (s) => codes[s] === code);
      } else if (col?.num) {
        const num = col.num;
        preds.push(typeof want === 'number' ? (s) => num[s] === want : () => false);
      } else {
        preds.push((s) => {
          const v = byShort[s]![name];
          return v === want || (Array.isArray(v) && v.includes(want as string));
        });
      }
      continue;
    }
    const { gt, gte, lt, lte } = cond;
    if (gt !== undefined || gte !== undefined || lt !== undefined || lte !== undefined) {
      const num = col!.num!; // validated: an int field, so it has a number column
      const a = gt ?? -Infinity;
      const b = gte ?? -Infinity;
      const x = lt ?? Infinity;
      const y = lte ?? Infinity;
      preds.push((s) => {
        const v = num[s]; // NaN (missing) fails every comparison
        return v > a && v >= b && v < x && v <= y;
      });
    }
    if (cond.in !== undefined) {
      const wanted = cond.in.map((v) => coerce(field, v));
      if (col?.codes) {
        const codes = col.codes;
        const mask = new Uint8Array(col.values.length);
        for (const v of wanted) {
          const code = col.dict.get(v);
          if (code !== undefined) mask[code] = 1;
        }
        preds.push((s) => {
          const code = codes[s];
          return code >= 0 && mask[code] === 1;
        });
      } else if (col?.num) {
        const num = col.num;
        const set = new Set(wanted.filter((v) => typeof v === 'number'));
        preds.push((s) => set.has(num[s]));
      } else {
        const set = new Set(wanted);
        preds.push((s) => {
          const v = byShort[s]![name];
          if (Array.isArray(v)) return v.some((e) => set.has(e));
          return v !== undefined && v !== null && set.has(v);
        });
      }
    }
  }
  return preds;
}
