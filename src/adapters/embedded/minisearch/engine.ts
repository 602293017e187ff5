/**
 * The engine of one partition: a MiniSearch 7 instance (the term index) with, beside it, the documents by
 * shortId (kept whole for partial updates and snapshots; MiniSearch's storeFields would only duplicate them
 * and is not used), each searchable field's length per document, and the columns of the other fields.
 *
 * The query runner (match.ts) and the snapshots (snapshot.ts) work on MiniSearch's protected fields (typed
 * in its .d.ts); this class is the one place that reaches them, through the accessors below, and it checks
 * once that the installed MiniSearch lays them out as expected.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import MiniSearch, { type Options } from 'minisearch';
import type { SearchDocument } from '../../../ports/search.ts';
import { foldText } from '../../../text/fold.ts';
import { growColumn, makeColumns, setColumns, type Column } from './columns.ts';
import type { CompiledSpec } from './spec.ts';

/** shortId -> term frequency. */
export type DocTermFreqs = Map<number, number>;
/** fieldId -> postings: what MiniSearch's index holds per term. */
export type FieldTermData = Map<number, DocTermFreqs>;

/** The installed MiniSearch version: a snapshot written under another one is re-indexed from its documents. */
export const MINISEARCH_VERSION = (() => {
  try {
    const entry = createRequire(import.meta.url).resolve('minisearch'); // .../minisearch/dist/<kind>/index.*
    const file = join(dirname(entry), '..', '..', 'package.json');
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    return pkg.name === 'minisearch' && pkg.version ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
})();

let internalsChecked = false;

export class Engine extends MiniSearch<SearchDocument> {
  /** shortId -> current document (undefined once discarded). */
  byShort: Array<SearchDocument | undefined> = [];
  /** Per fieldId, shortId -> number of distinct tokens (MiniSearch's field length). */
  lengths: Uint32Array[];
  readonly fieldNames: string[];
  readonly columns: Column[];
  private readonly columnByName = new Map<string, Column>();
  private capacity = 1024;

  constructor(readonly compiled: CompiledSpec) {
    super(engineOptions(compiled.searchable));
    this.fieldNames = compiled.searchable;
    this.lengths = this.fieldNames.map(() => new Uint32Array(this.capacity));
    this.columns = makeColumns(compiled, this.capacity);
    for (const c of this.columns) this.columnByName.set(c.name, c);
    if (!internalsChecked) {
      // Fail loudly if another MiniSearch version laid its protected fields out differently.
      const ok =
        typeof this._index?.atPrefix === 'function' &&
        typeof this._index?.fuzzyGet === 'function' &&
        this._documentIds instanceof Map &&
        this._idToShortId instanceof Map &&
        this._fieldLength instanceof Map &&
        Array.isArray(this._avgFieldLength) &&
        typeof this._nextId === 'number' &&
        typeof this._fieldIds === 'object';
      if (!ok) {
        throw new Error(`minisearch ${MINISEARCH_VERSION}: unexpected internals; this adapter was written for 7.x`);
      }
      internalsChecked = true;
    }
  }

  get size(): number {
    return this.documentCount;
  }

  column(name: string): Column | undefined {
    return this.columnByName.get(name);
  }

  get(id: string): SearchDocument | undefined {
    const s = this._idToShortId.get(id);
    return s === undefined ? undefined : this.byShort[s];
  }

  fieldId(name: string): number {
    return this._fieldIds[name];
  }

  docs(): SearchDocument[] {
    const out: SearchDocument[] = [];
    for (const s of this._documentIds.keys()) {
      const d = this.byShort[s];
      if (d) out.push(d);
    }
    return out;
  }

  private ensureCapacity(s: number): void {
    if (s < this.capacity) return;
    const size = Math.max(s + 1, this.capacity * 2);
    this.lengths = this.lengths.map((a) => grownU32(a, size));
    for (const c of this.columns) growColumn(c, size);
    this.capacity = size;
  }

  insert(doc: SearchDocument): void {
    this.add(doc);
    const s = this._idToShortId.get(doc.id)!;
    this.ensureCapacity(s);
    this.byShort[s] = doc;
    const fl = this._fieldLength.get(s);
    for (let f = 0; f < this.lengths.length; f++) this.lengths[f][s] = fl?.[f] ?? 0;
    setColumns(this.columns, s, doc);
  }

  removeId(id: string): void {
    const s = this._idToShortId.get(id);
    if (s === undefined) return;
    this.discard(id);
    this.byShort[s] = undefined;
  }

  /** Replaces the stored document without re-indexing (only non-searchable fields changed). */
  setStored(doc: SearchDocument): void {
    const s = this._idToShortId.get(doc.id);
    if (s === undefined) return;
    this.byShort[s] = doc;
    setColumns(this.columns, s, doc);
  }

  // --- MiniSearch's internals, for the query runner and the snapshots ---------------------------------------

  /** Term -> postings (a radix tree with atPrefix and fuzzyGet). */
  get termIndex() {
    return this._index;
  }

  /** The shortIds of the documents MiniSearch holds (discarded ones may linger until it vacuums). */
  shortIds(): IterableIterator<number> {
    return this._documentIds.keys();
  }

  /** One past the largest shortId handed out. */
  get nextShortId(): number {
    return this._nextId;
  }

  get fieldIds(): Record<string, number> {
    return this._fieldIds;
  }

  /** Average length of each field (by fieldId), for BM25. */
  get avgFieldLength(): number[] {
    return this._avgFieldLength;
  }

  /** Restores MiniSearch's counters from a snapshot; then restoreDocument and restoreTerm fill it in. */
  restoreLayout(layout: {
    documentCount: number;
    nextId: number;
    fieldIds: Record<string, number>;
    avgFieldLength: number[];
  }): void {
    this._documentCount = layout.documentCount;
    this._nextId = layout.nextId;
    this._fieldIds = layout.fieldIds;
    this._avgFieldLength = layout.avgFieldLength;
    this._dirtCount = 0;
    this.ensureCapacity(layout.nextId);
    this.byShort = new Array(layout.nextId);
  }

  restoreDocument(s: number, doc: SearchDocument, fieldLengths: number[]): void {
    this.byShort[s] = doc;
    this._documentIds.set(s, doc.id);
    this._idToShortId.set(doc.id, s);
    for (let f = 0; f < fieldLengths.length; f++) this.lengths[f][s] = fieldLengths[f];
    this._fieldLength.set(s, fieldLengths);
    setColumns(this.columns, s, doc);
  }

  restoreTerm(term: string, data: FieldTermData): void {
    this._index.set(term, data);
  }
}

function engineOptions(fields: string[]): Options<SearchDocument> {
  return {
    idField: 'id',
    fields,
    storeFields: [],
    processTerm: (term) => foldText(term),
    stringifyField: (value) => (Array.isArray(value) ? value.join(' ') : String(value)),
  };
}

function grownU32(a: Uint32Array, size: number): Uint32Array {
  const b = new Uint32Array(size);
  b.set(a);
  return b;
}
