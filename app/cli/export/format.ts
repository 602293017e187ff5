/*
 * The formats of `npm run export` (app/cli/export.ts): rows (arrays of values in column order) formatted as
 * NDJSON, CSV (RFC 4180) or Parquet's columns. Apart from the writing (tables.ts) so that worker threads can
 * format (events.ts) while the main thread writes in order; this module loads no library.
 */

export const FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

/** How a column's values are kept, and what Parquet type they get. */
export type Kind = 'string' | 'json' | 'int32' | 'int64' | 'double' | 'boolean' | 'timestamp';

export interface Column {
  name: string;
  kind: Kind;
  /**
   * Parquet: a column of (nearly) unique values (ids, positions, JSON data) gets neither statistics nor a
   * dictionary (they would cost time and serve no reader), and its text is turned into UTF-8 where the rows are
   * formatted (a worker thread), packed in one buffer.
   */
  unique?: true;
  /** Parquet: no min/max statistics (many distinct texts: comparing them costs more than they serve). */
  statistics?: false;
}

/** A value of a row: `json` columns hold JSON text, `timestamp` columns RFC 3339 text. */
export type Value = string | number | boolean | null;

/** What is exported: its columns, and how a row is an NDJSON line when not the plain object of its columns. */
export interface Layout {
  columns: Column[];
  ndjson?: (row: Value[]) => string;
}

/** The UTF-8 of a column's texts one after the other: value i is `bytes[ends[i - 1] .. ends[i])`, or null where `nulls[i]`. */
export interface Packed {
  bytes: Uint8Array;
  ends: Uint32Array;
  nulls: Uint8Array | null;
}

/**
 * Rows formatted for the output: NDJSON or CSV lines as bytes, or Parquet's columns (values as the writer takes
 * them, or packed). Its buffers are its own (handed from a worker thread without a copy: `transferables`).
 */
export type Chunk =
  { rows: number; bytes: Uint8Array; columns?: undefined } | { rows: number; columns: Array<unknown[] | Packed>; bytes?: undefined };

export const isPacked = (column: unknown[] | Packed): column is Packed => !Array.isArray(column);

/** The buffers of a chunk, for postMessage's transfer list. */
export function transferables(chunk: Chunk): ArrayBuffer[] {
  if (chunk.bytes) return [chunk.bytes.buffer as ArrayBuffer];
  return chunk.columns
    .filter(isPacked)
    .flatMap((p) => [p.bytes.buffer, p.ends.buffer, ...(p.nulls ? [p.nulls.buffer] : [])] as ArrayBuffer[]);
}

/** Packs the texts of column `i` of the rows (see Packed). */
function pack(rows: Value[][], i: number): Packed {
  const ends = new Uint32Array(rows.length);
  let nulls: Uint8Array | null = null;
  let size = 0;
  for (let r = 0; r < rows.length; r++) {
    const v = rows[r][i];
    if (v === null) (nulls ??= new Uint8Array(rows.length))[r] = 1;
    else size += Buffer.byteLength(v as string);
    ends[r] = size;
  }
  const bytes = new Uint8Array(size);
  const into = Buffer.from(bytes.buffer, 0, size);
  let offset = 0;
  for (let r = 0; r < rows.length; r++) {
    const v = rows[r][i];
    if (v !== null) offset += into.write(v as string, offset);
  }
  return { bytes, ends, nulls };
}

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. */
export function csvField(v: Value): string {
  if (v === null) return '';
  const s = typeof v === 'string' ? v : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** An NDJSON line of a row: the object of its columns, `json` columns nested as they are. */
function objectLine(columns: Column[]): (row: Value[]) => string {
  const keys = columns.map((c, i) => `${i > 0 ? ',' : '{'}${JSON.stringify(c.name)}:`);
  const as = columns.map((c) =>
    c.kind === 'json'
      ? (v: Value) => v as string
      : c.kind === 'int32' || c.kind === 'int64' || c.kind === 'double' || c.kind === 'boolean'
        ? (v: Value) => String(v)
        : (v: Value) => JSON.stringify(v),
  );
  return (row) => {
    let line = '';
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      line += keys[i] + (v === null ? 'null' : as[i](v));
    }
    return line + '}\n';
  };
}

/** Each value as the Parquet writer takes it. */
const PARQUET_VALUE: Record<Kind, (v: Value) => unknown> = {
  string: (v) => v,
  json: (v) => v,
  int32: (v) => v,
  int64: (v) => (v === null ? null : BigInt(v as number)),
  double: (v) => v,
  boolean: (v) => v,
  timestamp: (v) => (v === null ? null : Date.parse(v as string)),
};

const encoder = new TextEncoder();

/** Formats rows for the output (in a worker thread or not). */
export function formatRows(format: Format, layout: Layout, rows: Value[][]): Chunk {
  if (format === 'parquet') {
    const convert = layout.columns.map((c) => PARQUET_VALUE[c.kind]);
    const columns = layout.columns.map((c, i) => {
      if (c.unique && (c.kind === 'string' || c.kind === 'json')) return pack(rows, i);
      const values = new Array<unknown>(rows.length);
      for (let r = 0; r < rows.length; r++) values[r] = convert[i](rows[r][i]);
      return values;
    });
    return { rows: rows.length, columns };
  }
  const lines = new Array<string>(rows.length);
  if (format === 'csv') for (let r = 0; r < rows.length; r++) lines[r] = rows[r].map(csvField).join(',') + '\r\n';
  else {
    const line = layout.ndjson ?? objectLine(layout.columns);
    for (let r = 0; r < rows.length; r++) lines[r] = line(rows[r]);
  }
  return { rows: rows.length, bytes: encoder.encode(lines.join('')) };
}

/** Chunks of one format as one. */
export function joinChunks(chunks: Chunk[]): Chunk {
  const rows = chunks.reduce((n, c) => n + c.rows, 0);
  if (chunks.length === 1) return chunks[0];
  if (chunks.length === 0 || chunks[0].bytes) {
    const bytes = new Uint8Array(chunks.reduce((n, c) => n + (c.bytes?.length ?? 0), 0));
    let offset = 0;
    for (const c of chunks) {
      bytes.set(c.bytes!, offset);
      offset += c.bytes!.length;
    }
    return { rows, bytes };
  }
  return {
    rows,
    columns: chunks[0].columns!.map((first, i) => {
      const parts = chunks.map((c) => c.columns![i]);
      return isPacked(first) ? joinPacked(parts as Packed[], rows) : (parts as unknown[][]).flat();
    }),
  };
}

function joinPacked(parts: Packed[], rows: number): Packed {
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.bytes.length, 0));
  const ends = new Uint32Array(rows);
  const nulls = parts.some((p) => p.nulls) ? new Uint8Array(rows) : null;
  let offset = 0;
  let row = 0;
  for (const p of parts) {
    bytes.set(p.bytes, offset);
    for (let r = 0; r < p.ends.length; r++) ends[row + r] = p.ends[r] + offset;
    if (nulls && p.nulls) nulls.set(p.nulls, row);
    offset += p.bytes.length;
    row += p.ends.length;
  }
  return { bytes, ends, nulls };
}
