/**
 * Columns of the non-text fields of one partition, indexed by MiniSearch's shortId: filters and facets read
 * these typed arrays instead of the documents, so filtering and counting a large match set reads no document.
 */
import type { SearchDocument } from '../../../ports/search.ts';
import { isIntField, type CompiledSpec } from './spec.ts';

export type Scalar = string | number | boolean;

/**
 * Numbers for int fields (NaN = missing); dictionary codes for facet, string and bool fields (-1 = missing,
 * `values[code]` the value). `string[]` fields have no column: they are read from the documents.
 */
export interface Column {
  name: string;
  num: Float64Array | null;
  codes: Int32Array | null;
  dict: Map<Scalar, number>;
  values: Scalar[];
}

export function makeColumns(compiled: CompiledSpec, capacity: number): Column[] {
  return compiled.spec.fields
    .filter((f) => !f.searchable && f.type !== 'string[]')
    .map((f) => {
      const isNum = isIntField(f);
      return {
        name: f.name,
        num: isNum ? new Float64Array(capacity).fill(NaN) : null,
        codes: !isNum || f.facet ? new Int32Array(capacity).fill(-1) : null,
        dict: new Map<Scalar, number>(),
        values: [],
      };
    });
}

/** Makes room for shortIds below `size` (new slots missing). */
export function growColumn(c: Column, size: number): void {
  if (c.num) c.num = grownF64(c.num, size, NaN);
  if (c.codes) c.codes = grownI32(c.codes, size, -1);
}

/** Stores the document's values at shortId `s`. */
export function setColumns(columns: Column[], s: number, doc: SearchDocument): void {
  for (const c of columns) {
    const v = doc[c.name];
    if (c.num) c.num[s] = typeof v === 'number' ? v : NaN;
    if (c.codes) {
      if (v === undefined || v === null || Array.isArray(v)) {
        c.codes[s] = -1;
      } else {
        let code = c.dict.get(v);
        if (code === undefined) {
          code = c.values.length;
          c.values.push(v);
          c.dict.set(v, code);
        }
        c.codes[s] = code;
      }
    }
  }
}

function grownF64(a: Float64Array, size: number, fill: number): Float64Array {
  const b = new Float64Array(size).fill(fill);
  b.set(a);
  return b;
}

function grownI32(a: Int32Array, size: number, fill: number): Int32Array {
  const b = new Int32Array(size).fill(fill);
  b.set(a);
  return b;
}
