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
import type SearchableMap from 'minisearch/SearchableMap';
import type { SearchDocument } from '../../../ports/search.ts';
import { foldText } from '../../../text/fold.ts';
import { growColumn, makeColumns, setColumns, type Column } from './columns.ts';
import { Postings } from './postings.ts';
import type { CompiledSpec } from './spec.ts';
import { TOKEN_SPLIT } from './terms.ts';

/** shortId -> term frequency (typed pairs instead of MiniSearch's Map: postings.ts). */
export type DocTermFreqs = Postings;
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
    this.keepFieldLengths(s);
    setColumns(this.columns, s, doc);
  }

  /**
   * Moves MiniSearch's field lengths of a document (an array per document in a Map) into `lengths`, typed
   * arrays the runner reads anyway: removeId hands them back to MiniSearch for its running averages.
   */
  private keepFieldLengths(s: number): void {
    const fl = this._fieldLength.get(s);
    for (let f = 0; f < this.lengths.length; f++) this.lengths[f][s] = fl?.[f] ?? 0;
    this._fieldLength.delete(s);
  }

  /**
   * Adds documents whose ids the engine does not hold, in order, in one pass: the engine ends exactly as
   * after `insert` of each in turn (the same shortIds, field lengths and running averages, postings in the
   * same order, new terms put in the term index in the order they first occur, so its tree has the same
   * shape), but each token costs a Map lookup instead of a walk of the term index's tree.
   */
  insertAll(docs: SearchDocument[]): void {
    const fields = this.fieldNames;
    const fieldIds = this.fieldIds;
    const termIndex = this.termIndex;
    const batch = new Map<string, FieldTermData>();
    const created: string[] = [];
    const folded = new Map<string, string>();
    // Per field of a document: raw tokens and their counts, then folded terms and theirs (first occurrence order).
    const raw = new Map<string, number>();
    const tf = new Map<string, number>();
    for (const doc of docs) {
      if (this._idToShortId.has(doc.id)) throw new Error(`search index: insertAll of ${doc.id}, which it holds`);
      // MiniSearch's addDocumentId.
      const s = this._nextId;
      this._idToShortId.set(doc.id, s);
      this._documentIds.set(s, doc.id);
      this._documentCount += 1;
      this._nextId += 1;
      for (const field of fields) {
        const value = doc[field];
        if (value == null) continue;
        raw.clear();
        for (const token of stringifyField(value).split(TOKEN_SPLIT)) raw.set(token, (raw.get(token) ?? 0) + 1);
        const fieldId = fieldIds[field];
        // MiniSearch's field length: the unique raw tokens, the empty ones included.
        addFieldLength(this._fieldLength, this._avgFieldLength, s, fieldId, this._documentCount - 1, raw.size);
        tf.clear();
        for (const [token, n] of raw) {
          let term = folded.get(token);
          if (term === undefined) folded.set(token, (term = foldText(token)));
          if (term) tf.set(term, (tf.get(term) ?? 0) + n);
        }
        // MiniSearch's addTerm, once per term with its count (this document is new to every posting list).
        for (const [term, n] of tf) {
          let data = batch.get(term);
          if (data === undefined) {
            data = termIndex.get(term);
            if (data === undefined) {
              data = new Map();
              created.push(term);
            }
            batch.set(term, data);
          }
          const postings = data.get(fieldId);
          if (postings === undefined) data.set(fieldId, new Postings().set(s, n));
          else postings.set(s, n);
        }
      }
      this.ensureCapacity(s);
      this.byShort[s] = doc;
      this.keepFieldLengths(s);
      setColumns(this.columns, s, doc);
    }
    for (const term of created) termIndex.set(term, batch.get(term)!);
  }

  removeId(id: string): void {
    const s = this._idToShortId.get(id);
    if (s === undefined) return;
    // MiniSearch's discard takes the document's field lengths out of its averages.
    this._fieldLength.set(
      s,
      this.lengths.map((l) => l[s]),
    );
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
  get termIndex(): SearchableMap<FieldTermData> {
    // Typed by MiniSearch with Map postings; this engine puts Postings there (addTerm below, insertAll, snapshots).
    return this._index as unknown as SearchableMap<FieldTermData>;
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
  restoreLayout(layout: { documentCount: number; nextId: number; fieldIds: Record<string, number>; avgFieldLength: number[] }): void {
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
    setColumns(this.columns, s, doc);
  }

  restoreTerm(term: string, data: FieldTermData): void {
    this.termIndex.set(term, data);
  }
}

// MiniSearch's addTerm (used by add()) with Postings for a new posting list instead of a Map; declared
// private in MiniSearch's types, so replaced on the prototype rather than overridden in the class.
(Engine.prototype as unknown as { addTerm: (fieldId: number, s: number, term: string) => void }).addTerm = function (
  this: Engine,
  fieldId: number,
  s: number,
  term: string,
): void {
  const index = this.termIndex;
  let data = index.get(term);
  if (data === undefined) index.set(term, (data = new Map()));
  const postings = data.get(fieldId);
  if (postings === undefined) data.set(fieldId, new Postings().set(s, 1));
  else postings.set(s, (postings.get(s) ?? 0) + 1);
};

const stringifyField = (value: unknown) => (Array.isArray(value) ? value.join(' ') : String(value));

/** MiniSearch's addFieldLength: the field's length, and its running average over the documents so far. */
function addFieldLength(
  fieldLength: Map<number, number[]>,
  avg: number[],
  s: number,
  fieldId: number,
  count: number,
  length: number,
): void {
  let lengths = fieldLength.get(s);
  if (lengths == null) fieldLength.set(s, (lengths = []));
  lengths[fieldId] = length;
  const average = avg[fieldId] || 0;
  avg[fieldId] = (average * count + length) / (count + 1);
}

function engineOptions(fields: string[]): Options<SearchDocument> {
  return {
    idField: 'id',
    fields,
    storeFields: [],
    processTerm: (term) => foldText(term),
    stringifyField,
  };
}

function grownU32(a: Uint32Array, size: number): Uint32Array {
  const b = new Uint32Array(size);
  b.set(a);
  return b;
}
