// The worker thread MiniSearchThread starts by default: the index and nothing else.
import { parentPort, workerData } from 'node:worker_threads';
import { serveIndex } from './thread-worker.ts';

if (parentPort) serveIndex(parentPort, (workerData as { index: Parameters<typeof serveIndex>[1] }).index);
