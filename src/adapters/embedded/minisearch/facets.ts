/**
 * Facet counts over the filtered matches of a search: per value, how many matches carry it; most frequent
 * first, then by value (numerically for int fields). Fields with a dictionary-coded column count into an
 * array indexed by code; `string[]` fields are read from the documents into a Map.
 */
import type { SearchDocument, SearchResult } from '../../../ports/search.ts';
import type { Column, Scalar } from './columns.ts';
import type { Engine } from './engine.ts';
import { isIntField, type CompiledSpec } from './spec.ts';

interface CodedFacet {
  name: string;
  col: Column;
  codes: Int32Array;
  counts: Int32Array;
}

interface MapFacet {
  name: string;
  counts: Map<Scalar, number>;
}

export class FacetCounts {
  private readonly coded: CodedFacet[] = [];
  private readonly mapped: MapFacet[] = [];
  private readonly byShort: Array<SearchDocument | undefined>;

  constructor(
    private readonly compiled: CompiledSpec,
    engine: Engine,
    private readonly facetBy: string[],
  ) {
    this.byShort = engine.byShort;
    for (const name of facetBy) {
      const col = engine.column(name);
      if (col?.codes) this.coded.push({ name, col, codes: col.codes, counts: new Int32Array(col.values.length) });
      else this.mapped.push({ name, counts: new Map() });
    }
  }

  /** Counts the shortIds `cands[0..found)`. */
  add(cands: Int32Array, found: number): void {
    for (const f of this.coded) {
      const codes = f.codes;
      const counts = f.counts;
      for (let k = 0; k < found; k++) {
        const code = codes[cands[k]];
        if (code >= 0) counts[code]++;
      }
    }
    const byShort = this.byShort;
    for (const f of this.mapped) {
      for (let k = 0; k < found; k++) {
        const v = byShort[cands[k]]![f.name];
        if (v === undefined || v === null) continue;
        for (const x of Array.isArray(v) ? new Set(v) : [v]) f.counts.set(x, (f.counts.get(x) ?? 0) + 1);
      }
    }
  }

  /** The counts in the port's shape, one entry per requested facet field. */
  result(): SearchResult['facets'] {
    const out: SearchResult['facets'] = {};
    for (const f of this.facetBy) {
      const numeric = isIntField(this.compiled.fields.get(f)!);
      const entries: Array<{ key: Scalar; count: number }> = [];
      const cf = this.coded.find((x) => x.name === f);
      if (cf) {
        for (let code = 0; code < cf.counts.length; code++) {
          if (cf.counts[code] > 0) entries.push({ key: cf.col.values[code], count: cf.counts[code] });
        }
      } else {
        for (const [key, cnt] of this.mapped.find((x) => x.name === f)!.counts) entries.push({ key, count: cnt });
      }
      entries.sort((a, b) => {
        if (a.count !== b.count) return b.count - a.count;
        if (numeric) return (a.key as number) - (b.key as number);
        const x = String(a.key);
        const y = String(b.key);
        return x < y ? -1 : x > y ? 1 : 0;
      });
      out[f] = entries.map((e) => ({ value: String(e.key), count: e.count }));
    }
    return out;
  }
}
