/**
 * Requests sent at a fixed rate beside a load (not as fast as the service answers): request i is due at
 * start + i / perSecond whatever the answers before it, until stopped. Each answer's status and latency is kept.
 * At most MAX_IN_FLIGHT wait for their answers at once: a request due beyond them is not sent and counts as
 * `skipped` (an overloaded service would otherwise queue without end, and every load beside it with it).
 */
import { once } from 'node:events';
import { moduleWorker } from '../src/module-worker.ts';
import { sleep } from './processes.ts';
import { percentile } from './stats.ts';

const MAX_IN_FLIGHT = 64;

export interface PacedResult {
  perSecond: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
}

export interface Paced {
  stop(): Promise<PacedResult>;
}

/** Calls `send(i)` about `perSecond` times a second (i from 0), each within 10 s, until stopped. */
export function paced(perSecond: number, send: (i: number, signal: AbortSignal) => Promise<Response>): Paced {
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let sent = 0;
  let stopped = false;
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  const loop = (async () => {
    while (!stopped) {
      const i = sent++;
      if (pending.size >= MAX_IN_FLIGHT) statuses.skipped = (statuses.skipped ?? 0) + 1;
      else {
        const at = performance.now();
        const p = send(i, AbortSignal.timeout(10_000))
          .then(async (r) => {
            await r.arrayBuffer();
            latencies.push(performance.now() - at);
            statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          })
          .catch(() => {
            statuses.error = (statuses.error ?? 0) + 1;
          });
        pending.add(p);
        void p.finally(() => pending.delete(p));
      }
      await sleep(Math.max(0, started + ((i + 1) * 1000) / perSecond - performance.now()));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(pending);
      latencies.sort((a, b) => a - b);
      return {
        perSecond: (sent - (statuses.skipped ?? 0)) / ((performance.now() - started) / 1000),
        statuses,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
      };
    },
  };
}

export interface PacedRequest {
  method: string;
  path: string;
  body?: string;
}

/** `paced` over the given requests (in turn) in a worker thread of its own (bench/paced-worker.ts). */
export function pacedInThread(url: string, perSecond: number, requests: PacedRequest[], headers: Record<string, string>): Paced {
  const worker = moduleWorker(new URL('./paced-worker.ts', import.meta.url), { workerData: { url, perSecond, requests, headers } });
  // A bench that fails before stop() exits instead of waiting on the thread.
  worker.unref();
  return {
    async stop() {
      worker.postMessage('stop');
      const [result] = (await once(worker, 'message')) as [PacedResult];
      await worker.terminate();
      return result;
    },
  };
}
