import type fs from 'node:fs';
import zlib from 'node:zlib';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';

import { csvField, isPacked, type Chunk, type Format, type Kind, type Layout } from './format.ts';

/*
 * Where `npm run export` (app/cli/export.ts) writes its formatted rows (format.ts): a file or standard output,
 * as NDJSON or CSV bytes, or Parquet row groups.
 */

/** Where the bytes go: a file (the temporary one) or standard output. */
export interface Output {
  write(bytes: Uint8Array): Promise<void>;
  /** Everything written (a file synced to disk and closed). */
  close(): Promise<void>;
  readonly bytes: number;
}

export function fileOutput(handle: fs.promises.FileHandle): Output {
  let written = 0;
  return {
    get bytes() {
      return written;
    },
    async write(bytes) {
      written += bytes.length;
      let offset = 0;
      while (offset < bytes.length) offset += (await handle.write(bytes, offset, bytes.length - offset)).bytesWritten;
    },
    async close() {
      await handle.sync();
      await handle.close();
    },
  };
}

/** Standard output closed by its reader (`| head`): the export ends there, quietly. */
export class OutputClosed extends Error {}

export function stdoutOutput(): Output {
  let failed: Error | null = null;
  let written = 0;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    failed = error.code === 'EPIPE' ? new OutputClosed('standard output was closed') : error;
  });
  return {
    get bytes() {
      return written;
    },
    async write(bytes) {
      if (failed) throw failed;
      written += bytes.length;
      if (!process.stdout.write(bytes))
        await new Promise<void>((resolve) => {
          const done = () => {
            process.stdout.off('drain', done);
            process.stdout.off('error', done);
            resolve();
          };
          process.stdout.on('drain', done);
          process.stdout.on('error', done);
        });
      if (failed) throw failed;
    },
    async close() {
      if (failed) throw failed;
    },
  };
}

/** Formatted rows in, one file of a format out. */
export interface TableWriter {
  write(chunk: Chunk): Promise<void>;
  end(): Promise<void>;
}

/** Rows of a Parquet row group (about what a Parquet export holds in memory at most). */
export const ROW_GROUP = 50_000;

const PARQUET_TYPE: Record<Kind, Omit<SchemaElement, 'name'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  json: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  int32: { type: 'INT32' },
  int64: { type: 'INT64' },
  double: { type: 'DOUBLE' },
  boolean: { type: 'BOOLEAN' },
  timestamp: {
    type: 'INT64',
    converted_type: 'TIMESTAMP_MILLIS',
    logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
  },
};

/**
 * Parquet (hyparquet-writer): a row group every ROW_GROUP rows, written out and let go as soon as it is full,
 * the footer at the end. Gzip (level 1, Node's zlib): faster here than the writer's own Snappy in JavaScript, and
 * smaller; every Parquet reader has it. `json` columns are UTF-8 strings holding JSON and `timestamp` columns
 * TIMESTAMP(MILLIS, UTC): DuckDB, pandas and Spark open them as they are.
 */
function parquetWriter(layout: Layout, output: Output): TableWriter {
  const { columns } = layout;
  // The writer's buffer: handed to the output after each row group and emptied (its offset goes on).
  const bytes = new ByteWriter(1 << 20);
  const flush = async () => {
    if (bytes.index === 0) return;
    await output.write(new Uint8Array(bytes.buffer.slice(0, bytes.index)));
    bytes.index = 0;
  };
  const schema: SchemaElement[] = [
    { name: 'root', num_children: columns.length },
    ...columns.map((c) => ({ name: c.name, repetition_type: 'OPTIONAL' as const, ...PARQUET_TYPE[c.kind] })),
  ];
  const parquet = new ParquetWriter({
    writer: Object.assign(bytes, { flush, finish: flush }),
    schema,
    codec: 'GZIP',
    compressors: { GZIP: (input: Uint8Array) => zlib.gzipSync(input, { level: 1 }) },
    createdBy: 'bidder-api npm run export',
  });
  let group: unknown[][] = columns.map(() => []);
  /** Writes the first `size` rows held as a row group, keeping the others. */
  const writeGroup = async (size: number) => {
    if (size === 0) return;
    const data = group.map((values) => (values.length === size ? values : values.slice(0, size)));
    group = group.map((values) => (values.length === size ? [] : values.slice(size)));
    const columnData = columns.map((c, i) => ({
      name: c.name,
      data: data[i] as never,
      ...(c.unique ? { encoding: 'PLAIN' as const, statistics: false } : c.statistics === false ? { statistics: false } : {}),
    }));
    await parquet.write({ columnData, rowGroupSize: size });
  };
  return {
    async write(chunk) {
      for (let i = 0; i < columns.length; i++) {
        const into = group[i];
        const column = chunk.columns![i];
        if (!isPacked(column)) for (const v of column) into.push(v);
        else
          // The UTF-8 of each text: a view of the packed bytes (the writer takes bytes as they are).
          for (let r = 0, start = 0; r < column.ends.length; start = column.ends[r++])
            into.push(column.nulls?.[r] ? null : column.bytes.subarray(start, column.ends[r]));
      }
      // Row groups of exactly ROW_GROUP rows (the last one: what is left), however the rows came.
      while (group[0].length >= ROW_GROUP) await writeGroup(ROW_GROUP);
    },
    async end() {
      await writeGroup(group[0].length);
      await parquet.finish();
    },
  };
}

export function tableWriter(format: Format, layout: Layout, output: Output): TableWriter {
  if (format === 'parquet') return parquetWriter(layout, output);
  // CSV: a header line first (also when there are no rows).
  let header: Uint8Array | null =
    format === 'csv' ? new TextEncoder().encode(layout.columns.map((c) => csvField(c.name)).join(',') + '\r\n') : null;
  const writeHeader = async () => {
    if (header) await output.write(header);
    header = null;
  };
  return {
    async write(chunk) {
      await writeHeader();
      if (chunk.bytes!.length > 0) await output.write(chunk.bytes!);
    },
    end: writeHeader,
  };
}
