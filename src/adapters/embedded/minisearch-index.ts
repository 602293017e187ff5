/**
 * Embedded adapter of the lot search index port (src/ports/search.ts), on MiniSearch 7.
 *
 * Layout: one MiniSearch instance ("engine") per partition = (collection, tenant, value of the collection's
 * `partitionField`). A search must name the partition with an equality filter and only ever reads that
 * engine, so tenant isolation holds by construction.
 *
 * Measured with `npx tsx --expose-gc bench/search-load.ts` (100,000 lots x 3 languages = 300,000 documents,
 * three partitions of 100k; title 5 words, description 25 words, Zipf-distributed over 4,000 words per
 * language; queries of 1-2 words, 20 % with a typo, 20 % ending in a prefix; Node 20, 2 vCPU, quiet machine):
 *   build (upsert in batches of 1,000)   16 s (18,500 docs/s)
 *   memory after build                   heapUsed 551 MB, rss 763 MB
 *   flush (3 partitions, 182 MB)         1.4 s, longest event-loop block 220-290 ms
 *   reopen in a fresh process            1.65 s (heapUsed 507 MB, rss 666 MB)        target <= 5 s
 *   search, 2,000 queries, perPage 20,   p50 0.6 ms, p90 3.3 ms, p99 6.6 ms, max 10 ms  target p99 <= 10 ms
 *     filter Language + EndTime range,   (mean found 7,429; 321 queries found > 10,000, up to 98,788)
 *     facets CategoryId + AuctionId
 * With other processes busy on the same 2 vCPUs the same run gave reopen 2-5.7 s and p99 7-14 ms;
 * `--repeat 5` (fastest of 5 runs per query) filters that noise out: p99 5.6 ms.
 *
 * Choices that those figures led to:
 * - Snapshot format. Measured on one 100k partition: MiniSearch's own JSON (`JSON.stringify(ms)` +
 *   `loadJSON`) loads in ~1.6 s (0.74 s JSON.parse + 0.89 s loadJS) plus 0.17 s for the documents; re-adding
 *   the documents (`addAll`) takes ~4 s. JSON is the faster of the two, but 3 x 1.8 s still misses
 *   "reopen <= 5 s", so the snapshot is a compact binary dump of the same MiniSearch index (terms and
 *   posting lists as Int32Array, field lengths, ids) next to the documents as JSON, loaded straight into
 *   the engine's protected (typed in MiniSearch's .d.ts) fields: ~0.5 s per 100k partition. It depends on
 *   MiniSearch's internal layout, so the file records the layout and the MiniSearch version, and when they
 *   differ (or the byte order, or the collection spec) the engine is rebuilt from the stored documents
 *   with `add`, which is always correct, only slower; the next flush rewrites the file.
 * - Query execution. MiniSearch's `search()` builds an object per matching document, calls the `filter`
 *   callback on each and sorts all of them: a query for a common word (90k matches) took 300-500 ms. The
 *   engine therefore runs the query itself over MiniSearch's index, with MiniSearch's BM25 formula and
 *   term weights (prefix 0.375, fuzzy 0.45) and AND semantics: scores accumulate in typed arrays, the
 *   rarest term goes first (later terms look candidates up when that is cheaper than scanning), filters
 *   and facets read typed columns, and only the top page x perPage hits are kept, in a heap. A term
 *   expands to at most 50 prefix/typo candidates, the most frequent (like Typesense's max_candidates), so
 *   "found" may leave out documents that only match a rare 51st expansion. Measured on this benchmark:
 *   MiniSearch's search() + filter callback p99 260-300 ms; own runner reading filters and facets from the
 *   documents p99 35 ms (~400 ns per match, mostly Map-based facet counting); with typed columns 6.6 ms.
 * - Filters and facets read per-partition columns (numbers for int fields, dictionary codes for string,
 *   bool and facet fields) filled from the documents, which are kept whole per partition (shortId ->
 *   document) for partial updates and snapshots; MiniSearch's storeFields would only duplicate them and
 *   is not used. An update that changes no searchable field does not touch the text index.
 *
 * Identity: an id is unique within a partition, not across it: the same lot id is one document per
 * language. upsert replaces the document of that id in the partition its partition value names; update
 * reaches the partition named by the patch or, without a partition value, every partition of the tenant
 * holding the id; delete removes the id from every partition of the tenant.
 *
 * Matching rules: terms are lower-cased and diacritic-folded ("Café" = "cafe", "Größe" = "grosse"); all
 * terms must match (AND); the last term also matches as a prefix (when >= 2 characters); terms of >= 4
 * characters match with typos: edit distance round(0.2 x length) capped to 1..2, plus one transposition
 * of adjacent letters ("chiar" -> "chair"). Fields in `queryBy` are boosted by position: first 3, last 1.
 *
 * Durability: `flush()` writes each dirty partition to `<hash>.<generation>.part` (temp file, fsync,
 * rename), then `manifest.json` (same way) listing the partition files of this generation and the
 * checkpoints as they were when the flush started, then deletes the files no longer listed. A reader only
 * ever trusts the manifest, so it sees partitions at least as new as the checkpoint beside them. Files
 * that the manifest does not list (a crashed flush's leftovers, temp files) are deleted on open; a
 * snapshot that cannot be read is reported to onError and the index starts empty with every checkpoint
 * at 0, so the projectors replay it. Partitions are written one at a time: the index part of a partition
 * is copied synchronously (100-300 ms for 100k documents), the documents are serialised in slices of
 * 5,000 with the event loop free in between. Automatic flushes run every flushIntervalMs when there are
 * changes; close() flushes a last time. One process per directory (there is no lock file).
 */
import { mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { open as openFile, readdir, rename, unlink } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { endianness } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import MiniSearch, { type Options } from 'minisearch';
import type {
  SearchCollectionSpec,
  SearchDocument,
  SearchFieldSpec,
  SearchFilter,
  SearchHit,
  SearchIndex,
  SearchRebuild,
  SearchRequest,
  SearchResult,
} from '../../ports/search.ts';

export interface MiniSearchIndexOptions {
  /** Folder for snapshots; null keeps everything in memory only. */
  dir: string | null;
  /** Automatic flush of dirty state at most this often; default 30000, 0 = never automatically. */
  flushIntervalMs?: number;
  /** Called when an automatic flush fails or a snapshot cannot be loaded (default: console.error). */
  onError?: (error: unknown) => void;
}

// ---------------------------------------------------------------------------------------------------------
// Text processing

const FOLD_EXTRA: Record<string, string> = {
  ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i',
};
const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;
const FOLD_EXTRA_RE = /[ßæœøłđðþı]/g;

/** Lower-cases and folds diacritics: "Café" -> "cafe", "Ölstuga" -> "olstuga", "Größe" -> "grosse". */
export function foldTerm(term: string): string {
  const lower = term.toLowerCase();
  if (!NON_ASCII.test(lower)) return lower;
  return lower.normalize('NFD').replace(COMBINING_MARKS, '').replace(FOLD_EXTRA_RE, (c) => FOLD_EXTRA[c] ?? c);
}

const TOKEN_SPLIT = /[\n\r\p{Z}\p{P}]+/u; // MiniSearch's default tokenizer

function tokenizeQuery(q: string): string[] {
  return q.split(TOKEN_SPLIT).map(foldTerm).filter((t) => t.length > 0);
}

// Scoring constants, the MiniSearch defaults.
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const FUZZY_RATIO = 0.2;
const MIN_FUZZY_LENGTH = 4;
const MAX_FUZZY = 2;
const MIN_PREFIX_LENGTH = 2;
/** Prefix and typo candidates considered per query term (Typesense: max_candidates). */
const MAX_EXPANSIONS = 50;

// ---------------------------------------------------------------------------------------------------------
// Engine: a MiniSearch instance plus a dense shortId -> document table, compact snapshots and a query runner

type DocTermFreqs = Map<number, number>;
type FieldTermData = Map<number, DocTermFreqs>;

/** Bump when the layout written by exportSnapshot changes. */
const SNAPSHOT_LAYOUT = 1;

/** The installed MiniSearch version: a snapshot written under another one is re-indexed from its documents. */
const MINISEARCH_VERSION = (() => {
  try {
    const entry = createRequire(import.meta.url).resolve('minisearch'); // .../minisearch/dist/<kind>/index.*
    const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', '..', 'package.json'), 'utf8')) as { name?: string; version?: string };
    return pkg.name === 'minisearch' && pkg.version ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
})();
const SNAPSHOT_MAGIC = 'MSIDXv01';

interface SnapshotHeader {
  layout: number;
  minisearch: string;
  byteOrder: string;
  fields: string[];
  specHash: string;
  documentCount: number;
  nextId: number;
  fieldIds: Record<string, number>;
  avgFieldLength: number[];
  /** Byte lengths of the sections, in order: docs (JSON), terms (JSON), shortIds, fieldLengths, postings. */
  sections: number[];
}

interface QueryTerm {
  term: string;
  prefix: boolean;
  fuzzy: number;
}

interface Derived {
  data: FieldTermData;
  weight: number;
  /** Postings over all fields (document frequency, roughly). */
  df: number;
}

interface FieldBoost {
  fieldId: number;
  boost: number;
}

type Scalar = string | number | boolean;

/**
 * Column of a non-text field, by shortId: numbers for int fields (NaN = missing), dictionary codes for
 * facet, string and bool fields (-1 = missing). Filters and facets read these instead of the documents.
 */
interface Column {
  name: string;
  num: Float64Array | null;
  codes: Int32Array | null;
  dict: Map<Scalar, number>;
  values: Scalar[];
}

// Scratch buffers shared by all engines: a search runs synchronously, start to end.
let scoreBuf = new Float64Array(1024);
let markBuf = new Uint32Array(1024);
let candBuf = new Int32Array(1024);
let stamp = 1;

function ensureScratch(size: number): void {
  if (scoreBuf.length < size) {
    const n = Math.max(size, scoreBuf.length * 2);
    scoreBuf = new Float64Array(n);
    candBuf = new Int32Array(n);
    const marks = new Uint32Array(n);
    marks.set(markBuf);
    markBuf = marks;
  }
}

function takeStamps(count: number): number {
  if (stamp + count >= 0xfffffff0) {
    markBuf.fill(0);
    stamp = 1;
  }
  const base = stamp;
  stamp += count;
  return base;
}

function pad4(n: number): number {
  return (n + 3) & ~3;
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

function grownU32(a: Uint32Array, size: number): Uint32Array {
  const b = new Uint32Array(size);
  b.set(a);
  return b;
}

let internalsChecked = false;

class Engine extends MiniSearch<SearchDocument> {
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
    this.columns = compiled.spec.fields
      .filter((f) => !f.searchable && f.type !== 'string[]')
      .map((f) => {
        const isNum = f.type === 'int32' || f.type === 'int64';
        return {
          name: f.name,
          num: isNum ? new Float64Array(this.capacity).fill(NaN) : null,
          codes: !isNum || f.facet ? new Int32Array(this.capacity).fill(-1) : null,
          dict: new Map<Scalar, number>(),
          values: [],
        };
      });
    for (const c of this.columns) this.columnByName.set(c.name, c);
    if (!internalsChecked) {
      // The query runner and the snapshots use MiniSearch's protected fields (typed in its .d.ts): fail
      // loudly if another MiniSearch version laid them out differently.
      const ok =
        typeof this._index?.atPrefix === 'function' &&
        typeof this._index?.fuzzyGet === 'function' &&
        this._documentIds instanceof Map &&
        this._idToShortId instanceof Map &&
        this._fieldLength instanceof Map &&
        Array.isArray(this._avgFieldLength) &&
        typeof this._nextId === 'number' &&
        typeof this._fieldIds === 'object';
      if (!ok) throw new Error(`minisearch ${MINISEARCH_VERSION}: unexpected internals; this adapter was written for minisearch 7.x`);
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
    for (const c of this.columns) {
      if (c.num) c.num = grownF64(c.num, size, NaN);
      if (c.codes) c.codes = grownI32(c.codes, size, -1);
    }
    this.capacity = size;
  }

  private setColumns(s: number, doc: SearchDocument): void {
    for (const c of this.columns) {
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

  insert(doc: SearchDocument): void {
    this.add(doc);
    const s = this._idToShortId.get(doc.id)!;
    this.ensureCapacity(s);
    this.byShort[s] = doc;
    const fl = this._fieldLength.get(s);
    for (let f = 0; f < this.lengths.length; f++) this.lengths[f][s] = fl?.[f] ?? 0;
    this.setColumns(s, doc);
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
    this.setColumns(s, doc);
  }

  // --- snapshot ------------------------------------------------------------------------------------------

  /**
   * Writes a snapshot in two steps: the index part is copied synchronously (a consistent view, ~150 ms for
   * 100k documents), then the documents - immutable objects, captured by reference in the same step - are
   * serialised in slices with the event loop free in between.
   */
  async exportSnapshot(): Promise<Buffer[]> {
    const shortIds: number[] = [];
    const docs: SearchDocument[] = [];
    const byShort = this.byShort;
    for (const s of this._documentIds.keys()) {
      const d = byShort[s];
      if (!d) continue;
      shortIds.push(s);
      docs.push(d);
    }
    const nFields = this.fieldNames.length;
    const fieldLengths = new Uint32Array(shortIds.length * nFields);
    for (let f = 0; f < nFields; f++) {
      const lens = this.lengths[f];
      for (let i = 0; i < shortIds.length; i++) fieldLengths[i * nFields + f] = lens[shortIds[i]];
    }
    // Postings: per term [nFields, (fieldId, n, (shortId, tf) x n) x nFields]; discarded docs left out.
    const terms: string[] = [];
    let room = 0;
    for (const data of this._index.values()) {
      room += 1;
      for (const freqs of data.values()) room += 2 + freqs.size * 2;
    }
    const ints = new Int32Array(room);
    let at = 0;
    for (const [term, data] of this._index) {
      const start = at++;
      let fieldCount = 0;
      for (const [fieldId, freqs] of data) {
        const head = at;
        at += 2;
        let pos = at;
        freqs.forEach((tf, s) => {
          if (byShort[s] === undefined) return;
          ints[pos++] = s;
          ints[pos++] = tf;
        });
        const n = (pos - at) / 2;
        if (n === 0) {
          at = head;
          continue;
        }
        at = pos;
        ints[head] = fieldId;
        ints[head + 1] = n;
        fieldCount++;
      }
      if (fieldCount === 0) {
        at = start;
        continue;
      }
      ints[start] = fieldCount;
      terms.push(term);
    }
    const headerBase = {
      layout: SNAPSHOT_LAYOUT,
      minisearch: MINISEARCH_VERSION,
      byteOrder: endianness(),
      fields: this.fieldNames,
      specHash: this.compiled.hash,
      documentCount: docs.length,
      nextId: this._nextId,
      fieldIds: { ...this._fieldIds },
      avgFieldLength: [...this._avgFieldLength],
    };
    const termsBuf = Buffer.from(JSON.stringify(terms));
    const shortBuf = Buffer.from(Int32Array.from(shortIds).buffer);
    const lenBuf = Buffer.from(fieldLengths.buffer, 0, fieldLengths.byteLength);
    const postBuf = Buffer.from(ints.buffer, 0, at * 4);

    // Documents: a JSON array written slice by slice.
    const docChunks: Buffer[] = [];
    const SLICE = 5000;
    for (let i = 0; i < docs.length || i === 0; i += SLICE) {
      if (i > 0) await yieldToLoop();
      const json = JSON.stringify(docs.slice(i, i + SLICE));
      const inner = json.slice(1, -1);
      const lead = i === 0 ? '[' : inner.length > 0 ? ',' : '';
      const tail = i + SLICE >= docs.length ? ']' : '';
      docChunks.push(Buffer.from(lead + inner + tail));
    }
    const docsLen = docChunks.reduce((n, b) => n + b.length, 0);

    const sections: Buffer[][] = [docChunks, [termsBuf], [shortBuf], [lenBuf], [postBuf]];
    const header: SnapshotHeader = { ...headerBase, sections: [docsLen, termsBuf.length, shortBuf.length, lenBuf.length, postBuf.length] };
    const headerJson = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(pad4(8 + 4 + headerJson.length));
    prefix.write(SNAPSHOT_MAGIC, 0, 'latin1');
    prefix.writeUInt32LE(headerJson.length, 8);
    headerJson.copy(prefix, 12);
    const out: Buffer[] = [prefix];
    sections.forEach((chunks, i) => {
      out.push(...chunks);
      const len = header.sections[i];
      if (pad4(len) > len) out.push(Buffer.alloc(pad4(len) - len));
    });
    return out;
  }

  /**
   * Loads a snapshot. Returns the engine and whether the compact index could be used (false: rebuilt from
   * the documents).
   */
  static importSnapshot(buf: Buffer, compiled: CompiledSpec): { engine: Engine; fast: boolean } {
    if (buf.length < 12 || buf.toString('latin1', 0, 8) !== SNAPSHOT_MAGIC) throw new Error('not a snapshot file');
    const headerLen = buf.readUInt32LE(8);
    const header = JSON.parse(buf.toString('utf8', 12, 12 + headerLen)) as SnapshotHeader;
    let off = pad4(12 + headerLen);
    const section: Array<[number, number]> = [];
    for (const len of header.sections) {
      section.push([off, len]);
      off += pad4(len);
    }
    if (section.length !== 5 || off !== buf.length) throw new Error('truncated snapshot file');
    const docs = JSON.parse(buf.toString('utf8', section[0][0], section[0][0] + section[0][1])) as SearchDocument[];
    if (docs.length !== header.documentCount) throw new Error('snapshot document count mismatch');
    const engine = new Engine(compiled);
    const fields = compiled.searchable;
    const usable =
      header.layout === SNAPSHOT_LAYOUT &&
      header.minisearch === MINISEARCH_VERSION &&
      MINISEARCH_VERSION !== 'unknown' &&
      header.byteOrder === endianness() &&
      header.specHash === compiled.hash &&
      JSON.stringify(header.fields) === JSON.stringify(fields);
    if (!usable) {
      for (const d of docs) engine.insert(d);
      return { engine, fast: false };
    }
    // Typed-array views need 4-byte aligned offsets; a Buffer from readFile may start anywhere.
    const base = buf.byteOffset % 4 === 0 ? buf : Buffer.from(buf);
    const view = (i: number) => new Int32Array(base.buffer, base.byteOffset + section[i][0], section[i][1] / 4);
    const shortIds = view(2);
    const lens = new Uint32Array(base.buffer, base.byteOffset + section[3][0], section[3][1] / 4);
    const post = view(4);
    const terms = JSON.parse(buf.toString('utf8', section[1][0], section[1][0] + section[1][1])) as string[];
    const nFields = fields.length;

    engine._documentCount = header.documentCount;
    engine._nextId = header.nextId;
    engine._fieldIds = header.fieldIds;
    engine._avgFieldLength = header.avgFieldLength;
    engine._dirtCount = 0;
    engine.ensureCapacity(header.nextId);
    const byShort: Array<SearchDocument | undefined> = new Array(header.nextId);
    engine.byShort = byShort;
    for (let i = 0; i < docs.length; i++) {
      const s = shortIds[i];
      const d = docs[i];
      byShort[s] = d;
      engine._documentIds.set(s, d.id);
      engine._idToShortId.set(d.id, s);
      const fl: number[] = new Array(nFields);
      for (let f = 0; f < nFields; f++) {
        const l = lens[i * nFields + f];
        fl[f] = l;
        engine.lengths[f][s] = l;
      }
      engine._fieldLength.set(s, fl);
      engine.setColumns(s, d);
    }
    let p = 0;
    for (const term of terms) {
      const fieldCount = post[p++];
      const data: FieldTermData = new Map();
      for (let k = 0; k < fieldCount; k++) {
        const fieldId = post[p++];
        const n = post[p++];
        const freqs: DocTermFreqs = new Map();
        for (let j = 0; j < n; j++) {
          freqs.set(post[p], post[p + 1]);
          p += 2;
        }
        data.set(fieldId, freqs);
      }
      engine._index.set(term, data);
    }
    if (p !== post.length) throw new Error('corrupt snapshot postings');
    return { engine, fast: true };
  }

  // --- query ---------------------------------------------------------------------------------------------

  /**
   * Expands a query term into the index terms it matches, with MiniSearch's weights: the term itself, then
   * (like Typesense's max_candidates) at most MAX_EXPANSIONS prefix and typo candidates, the most frequent.
   */
  private derive(q: QueryTerm): Derived[] {
    const found = new Map<string, Derived>();
    const df = (data: FieldTermData) => {
      let n = 0;
      for (const m of data.values()) n += m.size;
      return n;
    };
    const len = q.term.length;
    if (q.prefix) {
      for (const [term, data] of this._index.atPrefix(q.term)) {
        const distance = term.length - len;
        if (distance === 0) continue;
        found.set(term, { data, weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), df: df(data) });
      }
    }
    if (q.fuzzy > 0) {
      for (const [term, [data, distance]] of this._index.fuzzyGet(q.term, q.fuzzy)) {
        if (distance === 0 || found.has(term)) continue;
        found.set(term, { data, weight: (FUZZY_WEIGHT * term.length) / (term.length + distance), df: df(data) });
      }
      // Adjacent transpositions count as one typo (Levenshtein counts two).
      for (let i = 0; i + 1 < len; i++) {
        if (q.term[i] === q.term[i + 1]) continue;
        const t = q.term.slice(0, i) + q.term[i + 1] + q.term[i] + q.term.slice(i + 2);
        if (t === q.term || found.has(t)) continue;
        const data = this._index.get(t);
        if (data) found.set(t, { data, weight: (FUZZY_WEIGHT * t.length) / (t.length + 1), df: df(data) });
      }
    }
    let derived = [...found.values()];
    if (derived.length > MAX_EXPANSIONS) derived = derived.sort((a, b) => b.df - a.df).slice(0, MAX_EXPANSIONS);
    const exact = this._index.get(q.term);
    if (exact) derived.unshift({ data: exact, weight: 1, df: df(exact) });
    return derived;
  }

  /**
   * Runs an AND query: leaves the matching shortIds in candBuf[0..n) and their scores in scoreBuf[shortId]
   * and returns n. Scores are MiniSearch's: the sum over query terms and matched index terms of
   * term weight x field boost x BM25(k=1.2, b=0.7, d=0.5).
   */
  run(terms: QueryTerm[], boosts: FieldBoost[]): number {
    if (terms.length === 0 || this.documentCount === 0) return 0;
    const expanded: Array<{ derived: Derived[]; cost: number }> = [];
    for (const t of terms) {
      const derived = this.derive(t);
      let cost = 0;
      for (const d of derived) for (const b of boosts) cost += d.data.get(b.fieldId)?.size ?? 0;
      if (cost === 0) return 0; // AND: one term matches nothing
      expanded.push({ derived, cost });
    }
    expanded.sort((a, b) => a.cost - b.cost); // rarest first: the candidate set only shrinks

    ensureScratch(this._nextId + 1);
    const scores = scoreBuf;
    const marks = markBuf;
    const cands = candBuf;
    const byShort = this.byShort;
    const total = this.documentCount;
    const base = takeStamps(expanded.length);
    let n = 0;

    for (let i = 0; i < expanded.length; i++) {
      const { derived, cost } = expanded[i];
      const cur = base + i;
      const prev = cur - 1;
      const lookups = n * derived.length * boosts.length;
      for (const d of derived) {
        for (const b of boosts) {
          const freqs = d.data.get(b.fieldId);
          if (!freqs || freqs.size === 0) continue;
          const df = freqs.size;
          const w = d.weight * b.boost * Math.log(1 + (total - df + 0.5) / (df + 0.5));
          const c1 = BM25_K * (1 - BM25_B);
          const c2 = (BM25_K * BM25_B) / (this._avgFieldLength[b.fieldId] || 1);
          const lens = this.lengths[b.fieldId];
          if (i === 0) {
            freqs.forEach((tf, s) => {
              if (byShort[s] === undefined) return;
              if (marks[s] !== cur) {
                marks[s] = cur;
                scores[s] = 0;
                cands[n++] = s;
              }
              scores[s] += w * (BM25_D + (tf * (BM25_K + 1)) / (tf + c1 + c2 * lens[s]));
            });
          } else if (lookups < cost) {
            for (let k = 0; k < n; k++) {
              const s = cands[k];
              const tf = freqs.get(s);
              if (tf === undefined) continue;
              marks[s] = cur;
              scores[s] += w * (BM25_D + (tf * (BM25_K + 1)) / (tf + c1 + c2 * lens[s]));
            }
          } else {
            freqs.forEach((tf, s) => {
              const m = marks[s];
              if (m !== prev && m !== cur) return;
              marks[s] = cur;
              scores[s] += w * (BM25_D + (tf * (BM25_K + 1)) / (tf + c1 + c2 * lens[s]));
            });
          }
        }
      }
      if (i > 0) {
        let m = 0;
        for (let k = 0; k < n; k++) if (marks[cands[k]] === cur) cands[m++] = cands[k];
        n = m;
      }
      if (n === 0) return 0;
    }
    return n;
  }
}

function engineOptions(fields: string[]): Options<SearchDocument> {
  return {
    idField: 'id',
    fields,
    storeFields: [],
    processTerm: (term) => foldTerm(term),
    stringifyField: (value) => (Array.isArray(value) ? value.join(' ') : String(value)),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Top-k selection: a binary min-heap on (score asc, id desc) holding the best k hits

interface Scored {
  s: number;
  id: string;
  score: number;
}

/** a ranks after b (worse): lower score, or same score and greater id. */
function worse(a: Scored, b: Scored): boolean {
  return a.score < b.score || (a.score === b.score && a.id > b.id);
}

class TopK {
  private heap: Scored[] = [];
  constructor(
    private readonly k: number,
    private readonly idOf: (s: number) => string,
  ) {}

  offer(s: number, score: number): void {
    const h = this.heap;
    if (this.k <= 0) return;
    if (h.length < this.k) {
      h.push({ s, id: this.idOf(s), score });
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(h[i], h[parent])) break;
        [h[i], h[parent]] = [h[parent], h[i]];
        i = parent;
      }
      return;
    }
    const top = h[0];
    if (score < top.score) return;
    const id = this.idOf(s);
    if (score === top.score && id > top.id) return;
    h[0] = { s, id, score };
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && worse(h[l], h[m])) m = l;
      if (r < h.length && worse(h[r], h[m])) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }

  /** Best first. */
  sorted(): Scored[] {
    return [...this.heap].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Collections and partitions

interface Partition {
  tenant: string;
  value: string;
  engine: Engine;
  /** Changed since it was last written. */
  dirty: boolean;
  /** File (in dir) holding its last written state, listed by the committed or an upcoming manifest. */
  file: string | null;
}

interface CompiledSpec {
  spec: SearchCollectionSpec;
  hash: string;
  fields: Map<string, SearchFieldSpec>;
  searchable: string[];
  partitionField: string | null;
}

function compileSpec(spec: SearchCollectionSpec): CompiledSpec {
  if (!spec.name) throw new Error('search collection needs a name');
  const fields = new Map<string, SearchFieldSpec>();
  for (const f of spec.fields) {
    if (f.name === 'id') throw new Error(`collection ${spec.name}: "id" is implicit, do not declare it`);
    if (fields.has(f.name)) throw new Error(`collection ${spec.name}: field ${f.name} declared twice`);
    if (f.searchable && f.type !== 'string' && f.type !== 'string[]') {
      throw new Error(`collection ${spec.name}: searchable field ${f.name} must be string or string[]`);
    }
    fields.set(f.name, f);
  }
  const searchable = spec.fields.filter((f) => f.searchable).map((f) => f.name);
  if (searchable.length === 0) throw new Error(`collection ${spec.name}: no searchable field`);
  if (spec.partitionField !== undefined && !fields.has(spec.partitionField)) {
    throw new Error(`collection ${spec.name}: partitionField ${spec.partitionField} is not a field`);
  }
  const canonical = JSON.stringify({
    name: spec.name,
    fields: spec.fields.map((f) => ({ name: f.name, type: f.type, searchable: !!f.searchable, facet: !!f.facet })),
    partitionField: spec.partitionField ?? null,
  });
  return {
    spec,
    hash: createHash('sha256').update(canonical).digest('hex').slice(0, 16),
    fields,
    searchable,
    partitionField: spec.partitionField ?? null,
  };
}

/** The partitions of one collection: tenant -> partition value -> partition. */
class PartitionSet {
  readonly tenants = new Map<string, Map<string, Partition>>();

  constructor(
    readonly compiled: CompiledSpec,
    private readonly onChange: () => void,
  ) {}

  *all(): IterableIterator<Partition> {
    for (const byValue of this.tenants.values()) yield* byValue.values();
  }

  get(tenant: string, value: string): Partition | undefined {
    return this.tenants.get(tenant)?.get(value);
  }

  private obtain(tenant: string, value: string): Partition {
    let byValue = this.tenants.get(tenant);
    if (!byValue) this.tenants.set(tenant, (byValue = new Map()));
    let p = byValue.get(value);
    if (!p) {
      p = { tenant, value, engine: new Engine(this.compiled), dirty: true, file: null };
      byValue.set(value, p);
    }
    return p;
  }

  /** Adds a loaded partition. */
  put(p: Partition): void {
    let byValue = this.tenants.get(p.tenant);
    if (!byValue) this.tenants.set(p.tenant, (byValue = new Map()));
    byValue.set(p.value, p);
  }

  private valueOf(doc: SearchDocument): string {
    const pf = this.compiled.partitionField;
    if (pf === null) return '';
    const v = doc[pf];
    if (v === undefined || v === null || Array.isArray(v)) {
      throw new Error(`collection ${this.compiled.spec.name}: document ${doc.id} needs a scalar ${pf}`);
    }
    return String(v);
  }

  /**
   * The partitions a patch or a delete reaches: an id is unique within a partition (the same lot id lives
   * once per language), so without a partition value every partition of the tenant holding the id.
   */
  private holding(tenant: string, id: string, value: string | null): Partition[] {
    const byValue = this.tenants.get(tenant);
    if (!byValue) return [];
    if (value !== null) {
      const p = byValue.get(value);
      return p?.engine.has(id) ? [p] : [];
    }
    const out: Partition[] = [];
    for (const p of byValue.values()) if (p.engine.has(id)) out.push(p);
    return out;
  }

  private touch(p: Partition): void {
    p.dirty = true;
    this.onChange();
  }

  /** Inserts, or replaces the document with the same id in the same partition. */
  upsert(tenant: string, docs: SearchDocument[]): void {
    const values = docs.map((d) => {
      checkDoc(d);
      return this.valueOf(d);
    });
    docs.forEach((doc, i) => {
      const target = this.obtain(tenant, values[i]);
      target.engine.removeId(doc.id);
      target.engine.insert(cleanDoc(doc));
      this.touch(target);
    });
  }

  /**
   * Merges the fields of each patch into the document with its id: in the partition the patch names, or in
   * every partition of the tenant that holds the id when the patch has no partition value. Unknown ids are
   * ignored; the partition value itself cannot be changed by an update (upsert and delete instead).
   */
  update(tenant: string, docs: SearchDocument[]): void {
    docs.forEach(checkDoc);
    const pf = this.compiled.partitionField;
    for (const patch of docs) {
      const named = pf === null ? '' : patch[pf];
      const value = named === undefined || named === null ? null : String(named);
      for (const p of this.holding(tenant, patch.id, value)) {
        const old = p.engine.get(patch.id)!;
        const merged: SearchDocument = { ...old };
        for (const [k, v] of Object.entries(patch)) if (v !== undefined) merged[k] = Array.isArray(v) ? [...v] : v;
        if (pf !== null) merged[pf] = old[pf];
        const textChanged = this.compiled.searchable.some((f) => textOf(old[f]) !== textOf(merged[f]));
        if (textChanged) {
          p.engine.removeId(patch.id);
          p.engine.insert(merged);
        } else {
          p.engine.setStored(merged);
        }
        this.touch(p);
      }
    }
  }

  /** Deletes the ids from every partition of the tenant; unknown ids are ignored. */
  delete(tenant: string, ids: string[]): void {
    for (const id of ids) {
      for (const p of this.holding(tenant, id, null)) {
        p.engine.removeId(id);
        this.touch(p);
      }
    }
  }

  /** Re-indexes every partition under a new spec, from the stored documents. */
  reindex(compiled: CompiledSpec): PartitionSet {
    const next = new PartitionSet(compiled, this.onChange);
    for (const p of this.all()) {
      const engine = new Engine(compiled);
      for (const d of p.engine.docs()) engine.insert(d);
      next.put({ tenant: p.tenant, value: p.value, engine, dirty: true, file: null });
    }
    this.onChange();
    return next;
  }
}

function checkDoc(d: SearchDocument): void {
  if (!d || typeof d.id !== 'string' || d.id.length === 0) throw new Error('search document needs a string id');
}

function cleanDoc(d: SearchDocument): SearchDocument {
  const out: SearchDocument = { id: d.id };
  for (const [k, v] of Object.entries(d)) if (v !== undefined) out[k] = Array.isArray(v) ? [...v] : v;
  return out;
}

function textOf(v: SearchDocument[string]): string {
  if (v === undefined || v === null) return '';
  return Array.isArray(v) ? v.join('\u0000') : String(v);
}

// ---------------------------------------------------------------------------------------------------------
// Filters

/** Tests the document with this shortId. */
type Predicate = (s: number) => boolean;

const FILTER_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte', 'in']);

function isIntField(field: SearchFieldSpec): boolean {
  return field.type === 'int32' || field.type === 'int64';
}

function coerce(field: SearchFieldSpec, v: Scalar): Scalar {
  if (isIntField(field) && typeof v === 'string' && v.trim() !== '' && !isNaN(Number(v))) return Number(v);
  if (field.type === 'bool' && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}

/** Throws on a filter the collection cannot evaluate (unknown field or operator, range on a non-number). */
function validateFilter(c: CompiledSpec, filter: SearchFilter): void {
  for (const [name, cond] of Object.entries(filter)) {
    const field = c.fields.get(name);
    if (!field) throw new Error(`collection ${c.spec.name}: cannot filter on unknown field ${name}`);
    if (cond === null || cond === undefined) throw new Error(`filter on ${name} has no value`);
    if (typeof cond !== 'object') continue;
    for (const k of Object.keys(cond)) if (!FILTER_OPERATORS.has(k)) throw new Error(`filter on ${name}: unknown operator ${k}`);
    const ranged = cond.gt !== undefined || cond.gte !== undefined || cond.lt !== undefined || cond.lte !== undefined;
    if (ranged && !isIntField(field)) throw new Error(`filter on ${name}: ranges need a number field`);
    if (cond.in !== undefined && !Array.isArray(cond.in)) throw new Error(`filter on ${name}: "in" needs an array`);
  }
}

/** Compiles a (validated) filter against the columns of one partition. */
function compileFilter(c: CompiledSpec, engine: Engine, filter: SearchFilter, skip: string | null): Predicate[] {
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

// ---------------------------------------------------------------------------------------------------------
// Files

const MANIFEST = 'manifest.json';
const PART_SUFFIX = '.part';
const MANIFEST_FORMAT = 1;

interface Manifest {
  format: number;
  generation: number;
  checkpoints: Record<string, number>;
  collections: Array<{
    spec: SearchCollectionSpec;
    partitions: Array<{ tenant: string; value: string; file: string; documents: number }>;
  }>;
}

function partitionHash(collection: string, tenant: string, value: string): string {
  return createHash('sha256').update(`${collection}\u0000${tenant}\u0000${value}`).digest('hex').slice(0, 24);
}

async function writeAtomic(file: string, chunks: Array<Buffer | string>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fh = await openFile(tmp, 'w');
  try {
    for (const c of chunks) await fh.writeFile(c);
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  await rename(tmp, file);
}

async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await openFile(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms cannot fsync a directory; the renames are still atomic.
  } finally {
    await fh?.close();
  }
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

// ---------------------------------------------------------------------------------------------------------
// The adapter

interface Collection {
  compiled: CompiledSpec;
  live: PartitionSet;
  rebuilding: boolean;
}

export class MiniSearchIndex implements SearchIndex {
  private readonly dir: string | null;
  private readonly collections = new Map<string, Collection>();
  private checkpoints = new Map<string, number>();
  private generation = 0;
  /** Bumped on every change; `persisted` is the value the last committed manifest covers. */
  private changes = 0;
  private persisted = 0;
  private flushChain: Promise<void> = Promise.resolve();
  private flushesQueued = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly onError: (error: unknown) => void;
  /** How the snapshot was loaded (for diagnostics and tests). */
  readonly loadStats = { partitions: 0, documents: 0, rebuiltFromDocuments: 0, ms: 0 };

  /**
   * Opens the index. With a `dir`, the snapshot found there is loaded synchronously (CPU-bound either way;
   * ~2 s for 300k documents) and leftovers of an interrupted flush are removed.
   */
  constructor(options: MiniSearchIndexOptions) {
    this.dir = options.dir;
    this.onError = options.onError ?? ((e) => console.error('search index:', e));
    if (this.dir) {
      mkdirSync(this.dir, { recursive: true });
      this.load(this.dir);
    }
    const interval = options.flushIntervalMs ?? 30000;
    if (this.dir && interval > 0) {
      this.timer = setInterval(() => {
        if (this.flushesQueued === 0 && this.changes !== this.persisted) this.flush().catch(this.onError);
      }, interval);
      this.timer.unref();
    }
  }

  static async open(options: MiniSearchIndexOptions): Promise<MiniSearchIndex> {
    return new MiniSearchIndex(options);
  }

  private changed = (): void => {
    this.changes++;
  };

  private load(dir: string): void {
    const started = performance.now();
    let manifest: Manifest | null = null;
    try {
      manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Manifest;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.onError(new Error(`search index: unreadable manifest in ${dir}, starting empty`, { cause: e }));
      }
    }
    if (manifest && manifest.format !== MANIFEST_FORMAT) {
      this.onError(new Error(`search index: unknown manifest format ${manifest.format}, starting empty`));
      manifest = null;
    }
    const keep = new Set<string>([MANIFEST]);
    if (manifest) {
      try {
        this.generation = manifest.generation;
        for (const c of manifest.collections) {
          const compiled = compileSpec(c.spec);
          const set = new PartitionSet(compiled, this.changed);
          for (const p of c.partitions) {
            keep.add(p.file);
            const buf = readFileSync(join(dir, p.file));
            const { engine, fast } = Engine.importSnapshot(buf, compiled);
            // A partition rebuilt from its documents is rewritten in the current layout by the next flush.
            set.put({ tenant: p.tenant, value: p.value, engine, dirty: !fast, file: p.file });
            this.loadStats.partitions++;
            this.loadStats.documents += engine.size;
            if (!fast) this.loadStats.rebuiltFromDocuments++;
          }
          this.collections.set(compiled.spec.name, { compiled, live: set, rebuilding: false });
        }
        this.checkpoints = new Map(Object.entries(manifest.checkpoints));
      } catch (e) {
        // The index is a projection: when its snapshot cannot be read, start empty with every checkpoint
        // at 0 so that the projectors replay from the start. The next flush replaces the files.
        this.onError(new Error(`search index: cannot load the snapshot in ${dir}, starting empty`, { cause: e }));
        this.collections.clear();
        this.checkpoints.clear();
        this.loadStats.partitions = this.loadStats.documents = this.loadStats.rebuiltFromDocuments = 0;
        this.changes++;
      }
    }
    // Whatever the manifest does not list is a leftover of an interrupted flush (or an old generation).
    for (const name of readdirSync(dir)) {
      if (keep.has(name)) continue;
      if (name.endsWith(PART_SUFFIX) || name.includes('.tmp-')) {
        try {
          unlinkSync(join(dir, name));
        } catch {
          // ignore
        }
      }
    }
    this.loadStats.ms = performance.now() - started;
    if (this.loadStats.rebuiltFromDocuments > 0) this.changes++;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('search index is closed');
  }

  private collection(name: string): Collection {
    this.assertOpen();
    const c = this.collections.get(name);
    if (!c) throw new Error(`unknown search collection ${name}`);
    return c;
  }

  async ensureCollection(spec: SearchCollectionSpec): Promise<void> {
    this.assertOpen();
    const compiled = compileSpec(spec);
    const existing = this.collections.get(spec.name);
    if (!existing) {
      this.collections.set(spec.name, { compiled, live: new PartitionSet(compiled, this.changed), rebuilding: false });
      this.changes++;
      return;
    }
    if (existing.compiled.hash === compiled.hash) return;
    // The spec changed: re-index the stored documents under it (a projection rebuild may still be due).
    existing.live = existing.live.reindex(compiled);
    existing.compiled = compiled;
  }

  async upsert(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.collection(collection).live.upsert(tenant, docs);
  }

  async update(collection: string, tenant: string, docs: SearchDocument[]): Promise<void> {
    this.collection(collection).live.update(tenant, docs);
  }

  async delete(collection: string, tenant: string, ids: string[]): Promise<void> {
    this.collection(collection).live.delete(tenant, ids);
  }

  async search(collection: string, tenant: string, request: SearchRequest): Promise<SearchResult> {
    return this.searchSync(collection, tenant, request);
  }

  /** Synchronous search (the port's search just wraps it). */
  searchSync(collection: string, tenant: string, request: SearchRequest): SearchResult {
    const c = this.collection(collection);
    const compiled = c.compiled;
    const { page, perPage } = request;
    if (!Number.isInteger(page) || page < 1) throw new Error('search page must be an integer >= 1');
    if (!Number.isInteger(perPage) || perPage < 0) throw new Error('search perPage must be an integer >= 0');
    if (request.queryBy.length === 0) throw new Error('search needs at least one queryBy field');
    for (const f of request.queryBy) {
      if (!compiled.fields.get(f)?.searchable) throw new Error(`collection ${collection}: ${f} is not a searchable field`);
    }
    const facetBy = request.facetBy ?? [];
    for (const f of facetBy) {
      if (!compiled.fields.get(f)?.facet) throw new Error(`collection ${collection}: ${f} is not a facet field`);
    }
    const filter = request.filter ?? {};
    let value = '';
    const pf = compiled.partitionField;
    if (pf !== null) {
      const v = filter[pf];
      if (v === undefined || v === null || typeof v === 'object') {
        throw new Error(`collection ${collection}: a search must filter ${pf} by equality`);
      }
      value = String(v);
    }
    validateFilter(compiled, filter);

    const result: SearchResult = { found: 0, hits: [], facets: {} };
    for (const f of facetBy) result.facets[f] = [];
    const partition = c.live.get(tenant, value);
    const terms = tokenizeQuery(request.q);
    if (!partition || terms.length === 0) return result;

    const engine = partition.engine;
    const preds = compileFilter(compiled, engine, filter, pf);
    const n = request.queryBy.length;
    const boosts: FieldBoost[] = request.queryBy.map((f, i) => ({
      fieldId: engine.fieldId(f),
      boost: n === 1 ? 1 : 1 + (2 * (n - 1 - i)) / (n - 1),
    }));
    // Facets over dictionary-coded columns count into an array; others (string[]) into a Map.
    const coded = facetBy.map((f) => {
      const col = engine.column(f);
      return col?.codes ? { name: f, col, codes: col.codes, counts: new Int32Array(col.values.length) } : null;
    });
    const codedFacets = coded.filter((x) => x !== null);
    const mapFacets = facetBy.filter((_, i) => coded[i] === null).map((name) => ({ name, counts: new Map<Scalar, number>() }));
    const byShort = engine.byShort;
    const top = new TopK(page * perPage, (s) => byShort[s]!.id);

    const count = engine.run(queryTerms(terms), boosts);
    const cands = candBuf;
    const scores = scoreBuf;
    // One tight loop per concern: filter (compacting the candidates in place), facets, top-k.
    let found = count;
    for (const pred of preds) {
      let m = 0;
      for (let k = 0; k < found; k++) {
        const s = cands[k];
        if (pred(s)) cands[m++] = s;
      }
      found = m;
    }
    for (const f of codedFacets) {
      const codes = f.codes;
      const counts = f.counts;
      for (let k = 0; k < found; k++) {
        const code = codes[cands[k]];
        if (code >= 0) counts[code]++;
      }
    }
    for (const f of mapFacets) {
      for (let k = 0; k < found; k++) {
        const v = byShort[cands[k]]![f.name];
        if (v === undefined || v === null) continue;
        for (const x of Array.isArray(v) ? new Set(v) : [v]) f.counts.set(x, (f.counts.get(x) ?? 0) + 1);
      }
    }
    for (let k = 0; k < found; k++) {
      const s = cands[k];
      top.offer(s, scores[s]);
    }
    result.found = found;
    result.hits = top
      .sorted()
      .slice((page - 1) * perPage)
      .map((h): SearchHit => ({ id: h.id, score: h.score }));

    for (const f of facetBy) {
      const numeric = isIntField(compiled.fields.get(f)!);
      const entries: Array<{ key: Scalar; count: number }> = [];
      const cf = codedFacets.find((x) => x.name === f);
      if (cf) {
        for (let code = 0; code < cf.counts.length; code++) {
          if (cf.counts[code] > 0) entries.push({ key: cf.col.values[code], count: cf.counts[code] });
        }
      } else {
        for (const [key, cnt] of mapFacets.find((x) => x.name === f)!.counts) entries.push({ key, count: cnt });
      }
      entries.sort((a, b) => {
        if (a.count !== b.count) return b.count - a.count;
        if (numeric) return (a.key as number) - (b.key as number);
        const x = String(a.key);
        const y = String(b.key);
        return x < y ? -1 : x > y ? 1 : 0;
      });
      result.facets[f] = entries.map((e) => ({ value: String(e.key), count: e.count }));
    }
    return result;
  }

  async getCheckpoint(projection: string): Promise<number> {
    this.assertOpen();
    return this.checkpoints.get(projection) ?? 0;
  }

  async setCheckpoint(projection: string, position: number): Promise<void> {
    this.assertOpen();
    if (this.checkpoints.get(projection) === position) return;
    this.checkpoints.set(projection, position);
    this.changes++;
  }

  async startRebuild(collection: string, projection: string): Promise<SearchRebuild> {
    const c = this.collection(collection);
    if (c.rebuilding) throw new Error(`collection ${collection} is already being rebuilt`);
    c.rebuilding = true;
    // Changes to the fresh copy are not persisted until finish(), so they do not count as changes.
    const fresh = new PartitionSet(c.compiled, () => undefined);
    let done = false;
    const check = () => {
      if (done) throw new Error('rebuild already finished or aborted');
      this.assertOpen();
    };
    return {
      upsert: async (tenant, docs) => {
        check();
        fresh.upsert(tenant, docs);
      },
      update: async (tenant, docs) => {
        check();
        fresh.update(tenant, docs);
      },
      delete: async (tenant, ids) => {
        check();
        fresh.delete(tenant, ids);
      },
      finish: async (position) => {
        check();
        done = true;
        c.rebuilding = false;
        if (fresh.compiled.hash !== c.compiled.hash) throw new Error(`collection ${collection} changed during the rebuild`);
        const live = new PartitionSet(c.compiled, this.changed);
        for (const p of fresh.all()) live.put({ ...p, dirty: true, file: null });
        c.live = live;
        this.checkpoints.set(projection, position);
        this.changes++;
        await this.flush();
      },
      abort: async () => {
        if (done) return;
        done = true;
        c.rebuilding = false;
      },
    };
  }

  /** Writes the dirty partitions and the checkpoints to `dir` (no-op in memory mode). Serialised. */
  flush(): Promise<void> {
    this.flushesQueued++;
    const run = this.flushChain.then(() => this.flushNow()).finally(() => this.flushesQueued--);
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private async flushNow(): Promise<void> {
    const dir = this.dir;
    if (!dir || this.changes === this.persisted) return;
    const startedAt = this.changes;
    const generation = this.generation + 1;
    // The checkpoints as of now: partitions written below are at least this new (later events may be in
    // them too, which a replay tolerates).
    const checkpoints = Object.fromEntries(this.checkpoints);
    const plan = [...this.collections.values()].map((c) => ({ compiled: c.compiled, partitions: [...c.live.all()] }));
    const manifest: Manifest = { format: MANIFEST_FORMAT, generation, checkpoints, collections: [] };
    const written: Array<{ p: Partition; file: string }> = [];
    const attempted: Partition[] = [];
    try {
      for (const { compiled, partitions } of plan) {
        const entry: Manifest['collections'][number] = { spec: compiled.spec, partitions: [] };
        manifest.collections.push(entry);
        for (const p of partitions) {
          let file = p.file;
          if (p.dirty || file === null) {
            p.dirty = false;
            attempted.push(p);
            file = `${partitionHash(compiled.spec.name, p.tenant, p.value)}.${generation}${PART_SUFFIX}`;
            const chunks = await p.engine.exportSnapshot();
            await writeAtomic(join(dir, file), chunks);
            written.push({ p, file });
            await yieldToLoop();
          }
          entry.partitions.push({ tenant: p.tenant, value: p.value, file, documents: p.engine.size });
        }
      }
      await fsyncDir(dir);
      await writeAtomic(join(dir, MANIFEST), [JSON.stringify(manifest)]);
      await fsyncDir(dir);
    } catch (e) {
      for (const p of attempted) p.dirty = true;
      throw e;
    }
    this.generation = generation;
    this.persisted = startedAt;
    for (const { p, file } of written) p.file = file;
    // Remove files of older generations that the committed manifest no longer lists.
    const listed = new Set(manifest.collections.flatMap((c) => c.partitions.map((p) => p.file)));
    for (const c of this.collections.values()) for (const p of c.live.all()) if (p.file) listed.add(p.file);
    for (const name of await readdir(dir)) {
      if (name.endsWith(PART_SUFFIX) && !listed.has(name)) await unlink(join(dir, name)).catch(() => undefined);
    }
  }

  /** Stops the automatic flush, flushes and closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
    this.closed = true;
  }
}

/** Dedupes query terms; the last term is also a prefix; terms of >= 4 characters tolerate typos. */
function queryTerms(terms: string[]): QueryTerm[] {
  const out = new Map<string, QueryTerm>();
  terms.forEach((term, i) => {
    const prefix = i === terms.length - 1 && term.length >= MIN_PREFIX_LENGTH;
    const fuzzy = term.length >= MIN_FUZZY_LENGTH ? Math.min(MAX_FUZZY, Math.max(1, Math.round(term.length * FUZZY_RATIO))) : 0;
    const seen = out.get(term);
    if (seen) seen.prefix ||= prefix;
    else out.set(term, { term, prefix, fuzzy });
  });
  return [...out.values()];
}
