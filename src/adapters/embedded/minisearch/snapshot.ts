/**
 * The file format of one partition: a compact binary dump of its MiniSearch index next to its documents.
 *
 * Why not MiniSearch's own JSON: parsing it and rebuilding the index from it (or re-adding the documents) is
 * too slow for the index's reopen target (docs/performance.md). This format (terms as JSON, shortIds, field
 * lengths and posting lists as 32-bit integers) loads straight into the engine. It depends on MiniSearch's
 * internal layout, so the header records the layout, the MiniSearch version, the byte order and the spec
 * hash; when any differs, the engine is rebuilt from the stored documents with `add`, which is always
 * correct, only slower (the next flush rewrites the file).
 *
 * Layout: "MSIDXv01", header length (u32 LE), header JSON, then five sections each padded to 4 bytes:
 * documents (JSON array), terms (JSON array), shortIds (i32), field lengths (u32, document-major), postings
 * (i32: per term [fieldCount, (fieldId, n, (shortId, tf) x n) x fieldCount]).
 */
import { endianness } from 'node:os';
import type { SearchDocument } from '../../../ports/search.ts';
import { Engine, MINISEARCH_VERSION, type FieldTermData } from './engine.ts';
import { Postings } from './postings.ts';
import type { CompiledSpec } from './spec.ts';

/** Bump when the layout written by exportSnapshot changes. */
const SNAPSHOT_LAYOUT = 1;
const SNAPSHOT_MAGIC = 'MSIDXv01';
/** Documents are serialised this many at a time, with the event loop free in between. */
const DOC_SLICE = 5000;

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

function pad4(n: number): number {
  return (n + 3) & ~3;
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The documents still held, in short-id order, with their short ids. */
function heldDocuments(engine: Engine): { shortIds: number[]; docs: SearchDocument[] } {
  const shortIds: number[] = [];
  const docs: SearchDocument[] = [];
  const byShort = engine.byShort;
  for (const s of engine.shortIds()) {
    const d = byShort[s];
    if (!d) continue;
    shortIds.push(s);
    docs.push(d);
  }
  return { shortIds, docs };
}

/** The documents' field lengths, document by document, field by field. */
function fieldLengthsOf(engine: Engine, shortIds: number[]): Uint32Array {
  const nFields = engine.fieldNames.length;
  const fieldLengths = new Uint32Array(shortIds.length * nFields);
  for (let f = 0; f < nFields; f++) {
    const lens = engine.lengths[f];
    for (let i = 0; i < shortIds.length; i++) fieldLengths[i * nFields + f] = lens[shortIds[i]];
  }
  return fieldLengths;
}

/**
 * Postings of the documents still held (discarded ones are left out), packed: per term its field count, then per
 * field its id, its posting count and (short id, term frequency) pairs. `length`: the ints used.
 */
function packedPostings(engine: Engine): { terms: string[]; ints: Int32Array; length: number } {
  const byShort = engine.byShort;
  const index = engine.termIndex;
  const terms: string[] = [];
  let room = 0;
  for (const data of index.values()) {
    room += 1;
    for (const freqs of data.values()) room += 2 + freqs.size * 2;
  }
  const ints = new Int32Array(room);
  let at = 0;
  for (const [term, data] of index) {
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
  return { terms, ints, length: at };
}

/** The documents as a JSON array written slice by slice, the event loop free between slices. */
async function documentChunks(docs: SearchDocument[]): Promise<Buffer[]> {
  const docChunks: Buffer[] = [];
  for (let i = 0; i < docs.length || i === 0; i += DOC_SLICE) {
    if (i > 0) await yieldToLoop();
    const json = JSON.stringify(docs.slice(i, i + DOC_SLICE));
    const inner = json.slice(1, -1);
    const lead = i === 0 ? '[' : inner.length > 0 ? ',' : '';
    const tail = i + DOC_SLICE >= docs.length ? ']' : '';
    docChunks.push(Buffer.from(lead + inner + tail));
  }
  return docChunks;
}

/** The snapshot's bytes: the magic, the header's length and JSON, then each section, each padded to 4 bytes. */
function framed(header: SnapshotHeader, sections: Buffer[][]): Buffer[] {
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
 * Writes a snapshot in two steps: the index part is copied synchronously (a consistent view), then the
 * documents - immutable objects, captured by reference in the same step - are serialised in slices with
 * the event loop free in between.
 */
export async function exportSnapshot(engine: Engine): Promise<Buffer[]> {
  const { shortIds, docs } = heldDocuments(engine);
  const fieldLengths = fieldLengthsOf(engine, shortIds);
  const { terms, ints, length } = packedPostings(engine);
  const headerBase = {
    layout: SNAPSHOT_LAYOUT,
    minisearch: MINISEARCH_VERSION,
    byteOrder: endianness(),
    fields: engine.fieldNames,
    specHash: engine.compiled.hash,
    documentCount: docs.length,
    nextId: engine.nextShortId,
    fieldIds: { ...engine.fieldIds },
    avgFieldLength: [...engine.avgFieldLength],
  };
  const termsBuf = Buffer.from(JSON.stringify(terms));
  const shortBuf = Buffer.from(Int32Array.from(shortIds).buffer);
  const lenBuf = Buffer.from(fieldLengths.buffer, 0, fieldLengths.byteLength);
  const postBuf = Buffer.from(ints.buffer, 0, length * 4);

  const docChunks = await documentChunks(docs);
  const docsLen = docChunks.reduce((n, b) => n + b.length, 0);
  const header: SnapshotHeader = {
    ...headerBase,
    sections: [docsLen, termsBuf.length, shortBuf.length, lenBuf.length, postBuf.length],
  };
  return framed(header, [docChunks, [termsBuf], [shortBuf], [lenBuf], [postBuf]]);
}

/**
 * Loads a snapshot. Returns the engine and whether the compact index could be used (false: rebuilt from
 * the documents).
 */
export function importSnapshot(buf: Buffer, compiled: CompiledSpec): { engine: Engine; fast: boolean } {
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

  engine.restoreLayout(header);
  for (let i = 0; i < docs.length; i++) {
    const fl: number[] = new Array(nFields);
    for (let f = 0; f < nFields; f++) fl[f] = lens[i * nFields + f];
    engine.restoreDocument(shortIds[i], docs[i], fl);
  }
  let p = 0;
  for (const term of terms) {
    const fieldCount = post[p++];
    const data: FieldTermData = new Map();
    for (let k = 0; k < fieldCount; k++) {
      const fieldId = post[p++];
      const n = post[p++];
      data.set(fieldId, Postings.fromPairs(post.subarray(p, p + 2 * n)));
      p += 2 * n;
    }
    engine.restoreTerm(term, data);
  }
  if (p !== post.length) throw new Error('corrupt snapshot postings');
  return { engine, fast: true };
}
