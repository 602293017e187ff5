import { parentPort, workerData } from 'node:worker_threads';
import { SqliteEventLog } from '../../../src/adapters/embedded/sqlite-event-log.ts';
import { formatSlice, type EventSelection } from './events.ts';
import { transferables } from './format.ts';

/**
 * A worker thread of `npm run export -- events` (events.ts): opens the embedded log's file for itself and
 * answers each slice asked of it, in the order asked, with the slice's events formatted (NDJSON or CSV bytes, or
 * Parquet's columns, their texts packed as UTF-8), the buffers handed over without a copy.
 */
const { file, selection } = workerData as { file: string; selection: EventSelection };
const log = new SqliteEventLog(file);
const port = parentPort!;
let queue = Promise.resolve();

port.on('message', (ask: { index: number; from: number; to: number }) => {
  queue = queue.then(async () => {
    try {
      const chunk = await formatSlice(log, selection, ask.from, ask.to);
      port.postMessage({ index: ask.index, chunk }, transferables(chunk));
    } catch (error) {
      port.postMessage({ index: ask.index, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
});
