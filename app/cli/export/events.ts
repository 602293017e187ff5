import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EventLog, RecordedEvent } from '../../../src/ports/event-log.ts';
import { feedEventId } from '../../../src/events/feed-items.ts';
import { publicData } from '../../../src/events/define.ts';
import { PositionCodec } from '../../../src/events/position.ts';
import { siblingModule } from '../../../src/module-worker.ts';
import { formatRows, joinChunks, type Chunk, type Column, type Format, type Layout, type Value } from './format.ts';

/*
 * The events of `npm run export -- events`: the log read in batches, each event as the back office's feed
 * gives it (src/events/feed.ts: its id, opaque position, data without private fields) and its tenant. Over the
 * embedded log's file, worker threads (worker.ts) read and format slices of the log side by side while the
 * main thread writes them in order; otherwise (EventStoreDB, small exports) it is all done in this thread.
 */

export const EVENT_COLUMNS: Column[] = [
  { name: 'Id', kind: 'string', unique: true },
  { name: 'Type', kind: 'string' },
  { name: 'Version', kind: 'int32' },
  { name: 'Stream', kind: 'string', statistics: false },
  { name: 'Revision', kind: 'int64' },
  { name: 'Position', kind: 'string', unique: true },
  { name: 'Time', kind: 'timestamp' },
  { name: 'Tenant', kind: 'string' },
  { name: 'Data', kind: 'json', unique: true },
];

/**
 * An event's NDJSON line, unrolled (the hot path of an export). Ids, type names, positions and times never need
 * escaping (a uuid, a catalogue's PascalCase name, base64url, RFC 3339); the stream and the tenant are escaped.
 */
const eventLine = (r: Value[]) =>
  `{"Id":"${r[0]}","Type":"${r[1]}","Version":${r[2]},"Stream":${JSON.stringify(r[3])},"Revision":${r[4]},"Position":"${r[5]}","Time":"${r[6]}","Tenant":${JSON.stringify(r[7])},"Data":${r[8]}}\n`;

export const EVENTS: Layout = { columns: EVENT_COLUMNS, ndjson: eventLine };

/** Which events, and how they are written: plain data, as it crosses to the worker threads. */
export interface EventSelection {
  /** The types read: those asked for, or every type of the catalogue (every event of the log is of one). */
  types: string[];
  tenant: string | null;
  /** The private fields of each type that has some (docs/events.md), left out unless `includePrivate`. */
  privateFields: Record<string, readonly string[]>;
  includePrivate: boolean;
  format: Format;
  /** The service's position secret (hex): each event's Position is its house's, as the feed gives it. */
  positionSecret: string;
}

/** Events read from the log at once. */
const BATCH = 5000;

/**
 * The rows of the selected events after `from` up to `to`, batch by batch, and how far the log was read.
 * Where the log filters by type (EventLog.readTypes) it is read for the selected types only.
 */
async function* eventRows(
  log: EventLog,
  selection: EventSelection,
  from: number,
  to: number,
): AsyncGenerator<{ rows: Value[][]; covered: number }> {
  const wanted = new Set(selection.types);
  const privateOf = new Map(
    selection.includePrivate ? [] : Object.entries(selection.privateFields).map(([type, fields]) => [type, { private: fields }]),
  );
  const tenant = selection.tenant;
  const positions = new PositionCodec(Buffer.from(selection.positionSecret, 'hex'));
  const row = (e: RecordedEvent): Value[] => {
    const hidden = privateOf.get(e.type);
    return [
      feedEventId(e.streamId, e.revision),
      e.type,
      e.version,
      e.streamId,
      e.revision,
      positions.forTenant(e.metadata.tenant ?? '').token(e.position),
      e.created,
      e.metadata.tenant ?? null,
      JSON.stringify(hidden ? publicData(hidden, e.data) : e.data),
    ];
  };
  let position = from;
  while (position < to) {
    let batch: RecordedEvent[];
    let covered: number;
    if (log.readTypes) {
      const read = await log.readTypes({ fromPosition: position, maxCount: BATCH, types: selection.types });
      batch = read.events;
      covered = read.position;
    } else {
      batch = await log.readAll({ fromPosition: position, maxCount: BATCH });
      covered = batch.length > 0 ? batch[batch.length - 1].position : position;
    }
    if (covered <= position) return;
    const rows: Value[][] = [];
    for (const e of batch) {
      if (e.position > to) break;
      if (wanted.has(e.type) && (tenant === null || e.metadata.tenant === tenant)) rows.push(row(e));
    }
    position = Math.min(covered, to);
    yield { rows, covered: position };
  }
}

/** A slice of the log, formatted batch by batch (its rows die young): the worker's answer. */
export async function formatSlice(log: EventLog, selection: EventSelection, from: number, to: number): Promise<Chunk> {
  const chunks: Chunk[] = [];
  for await (const batch of eventRows(log, selection, from, to)) chunks.push(formatRows(selection.format, EVENTS, batch.rows));
  return joinChunks(chunks);
}

/**
 * A worker thread reading slices. Compiled (`npm run build`), worker.js runs as it is. Under tsx, Node 20 gives a
 * worker none of the loader hooks of the thread that starts it, so the worker registers tsx's CommonJS hooks in
 * itself and requires worker.ts through them (this is why worker.ts and what it imports use no top-level await or
 * import.meta).
 */
function sliceWorker(workerData: { file: string; selection: EventSelection }): Worker {
  const module = siblingModule('./worker.ts', import.meta.url);
  if (!module.pathname.endsWith('.ts')) return new Worker(module, { workerData });
  const require = createRequire(import.meta.url);
  const code = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(fileURLToPath(module))});`;
  return new Worker(code, { eval: true, workerData });
}

/** Positions a worker thread reads and formats at once. */
const SLICE = 20_000;

export interface ChunkSource {
  log: EventLog;
  /** The embedded log's file, which worker threads open for themselves (null: EventStoreDB, read here). */
  file: string | null;
  /** Worker threads (0: all in this thread). */
  workers: number;
  selection: EventSelection;
  from: number;
  to: number;
  /** Ends the export after the chunk in flight. */
  stopping: () => boolean;
}

/** The selected events in (from, to] as formatted chunks, in log order, with how far each reaches. */
export async function* eventChunks(source: ChunkSource): AsyncGenerator<{ chunk: Chunk; covered: number }> {
  const { selection, from, to } = source;
  if (!source.file || source.workers === 0) {
    for await (const batch of eventRows(source.log, selection, from, to)) {
      yield { chunk: formatRows(selection.format, EVENTS, batch.rows), covered: batch.covered };
      if (source.stopping()) return;
    }
    return;
  }
  const slices: Array<[number, number]> = [];
  for (let a = from; a < to; a += SLICE) slices.push([a, Math.min(a + SLICE, to)]);
  const workers = Math.min(source.workers, slices.length);
  const results = new Map<number, Chunk | Error>();
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  let closing = false;
  const pool = Array.from({ length: workers }, () => {
    const worker = sliceWorker({ file: source.file!, selection });
    worker.on('message', (m: { index: number; chunk?: Chunk; error?: string }) => {
      results.set(m.index, m.chunk ?? new Error(m.error));
      wake?.();
    });
    worker.on('error', (error) => {
      failure ??= error;
      wake?.();
    });
    worker.on('exit', (code) => {
      if (!closing) failure ??= new Error(`an export worker thread stopped (exit code ${code})`);
      wake?.();
    });
    return worker;
  });
  // Each worker has at most two slices asked of it: the one it reads and the next (memory stays bounded).
  let sent = 0;
  let next = 0;
  const send = () => {
    for (; sent < slices.length && sent - next < workers * 2; sent++)
      pool[sent % workers].postMessage({ index: sent, from: slices[sent][0], to: slices[sent][1] });
  };
  try {
    send();
    while (next < slices.length) {
      if (failure) throw failure;
      const result = results.get(next);
      if (result === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      if (result instanceof Error) throw result;
      results.delete(next);
      const covered = slices[next][1];
      next += 1;
      send();
      yield { chunk: result, covered };
      if (source.stopping()) return;
    }
  } finally {
    closing = true;
    await Promise.all(pool.map((worker) => worker.terminate()));
  }
}
