// The thread of pacedInThread (bench/paced.ts): sends the given requests at the given rate until told to stop,
// on an event loop of its own, so the bench's loads in the main thread do not delay them or their timings.
import { parentPort, workerData } from 'node:worker_threads';
import { paced, type PacedRequest } from './paced.ts';

const { url, perSecond, requests, headers } = workerData as {
  url: string;
  perSecond: number;
  requests: PacedRequest[];
  headers: Record<string, string>;
};
const sender = paced(perSecond, (i, signal) => {
  const r = requests[i % requests.length];
  const type: Record<string, string> = r.body !== undefined ? { 'Content-Type': 'application/json' } : {};
  return fetch(new URL(r.path, url), { method: r.method, headers: { ...headers, ...type }, body: r.body, signal });
});
parentPort!.once('message', () => {
  void sender.stop().then((result) => parentPort!.postMessage(result));
});
