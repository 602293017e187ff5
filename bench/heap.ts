/**
 * The service's V8 heap, as its own GET /metrics says it (prom-client's `nodejs_heap_size_used_bytes`, under
 * whatever prefix), for each of its processes that can be reached, with the VmRSS of every node process of the
 * service from /proc. Each scrape is made on a new connection, and the process that holds that connection's
 * socket (its inode in /proc/net/tcp, found among /proc/PID/fd of the service's processes) is the one that
 * answered. Two ways:
 *
 *   on the service's port (API_PROCESSES=1: the one process; a cluster's `api` workers share it, so it is
 *   scraped until each has answered, and the primary, which answers on no port, is not read);
 *   on metrics ports (a cluster started with METRICS_PORT: the primary on it, the api processes on the
 *   ports after it, as app/main.ts does): each port once, the primary included.
 */
import fs from 'node:fs';
import http from 'node:http';
import { descendantsOf, memoryOf, sleep } from './processes.ts';
import { OPERATOR_TOKEN } from './dataset.ts';

export interface HeapReading {
  /** The processes read over /metrics: their pid (null if the socket's owner was not found) and heap used. */
  processes: Array<{ pid: number | null; heapUsedBytes: number; rssBytes: number | null }>;
  /** The service's node processes: the one spawned and its node descendants. */
  tree: number[];
  /** Processes of the tree whose heap could not be read (the cluster's primary: it answers on no port). */
  unread: number[];
  /** Heap used summed over the processes read. */
  heapUsedBytes: number;
  /** VmRSS summed over those processes. */
  rssBytes: number;
  /** VmRSS of each process of `tree`, in its order (the primary first). */
  rssOfTree: number[];
}

/** The node processes among `pids` (a tsx process has an esbuild child of its own: not the service's). */
function nodeProcesses(pids: number[]): number[] {
  const node = fs.realpathSync(process.execPath);
  return pids.filter((p) => {
    try {
      return fs.readlinkSync(`/proc/${p}/exe`) === node;
    } catch {
      return false;
    }
  });
}

/** The service's node processes: the one spawned, then its node descendants (a cluster's `api` workers). */
export const serviceProcesses = (pid: number) => [pid, ...nodeProcesses(descendantsOf(pid))];

const HEAP_USED = /^[a-zA-Z_:]*nodejs_heap_size_used_bytes(?:\{[^}]*\})?\s+(\S+)/gm;

/** One GET on a connection of its own: the body, and the pid of the process that held the connection. */
async function scrape(
  port: number,
  candidates: number[],
  path = '/metrics',
): Promise<{ pid: number | null; text: string; status: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    return await new Promise((resolve, reject) => {
      const headers = { Authorization: `Bearer ${OPERATOR_TOKEN}` };
      const req = http.get({ host: '127.0.0.1', port, path, agent, headers, timeout: 5000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          // The connection is still open (keep-alive): find whose it is before letting it go.
          const localPort = req.socket?.localPort;
          resolve({ pid: localPort ? ownerOf(port, localPort, candidates) : null, text, status: res.statusCode ?? 0 });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('GET /metrics timed out')));
      req.on('error', reject);
    });
  } finally {
    agent.destroy();
  }
}

/** The pid among `candidates` holding the server side of the connection from 127.0.0.1:clientPort to `port`. */
function ownerOf(port: number, clientPort: number, candidates: number[]): number | null {
  let inode: string | null = null;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const local = parseInt(f[1].slice(f[1].lastIndexOf(':') + 1), 16);
      const remote = parseInt(f[2].slice(f[2].lastIndexOf(':') + 1), 16);
      if (local === port && remote === clientPort && f[9] !== '0') inode = f[9];
    }
  }
  if (!inode) return null;
  const link = `socket:[${inode}]`;
  for (const pid of candidates) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

function heapUsedIn(text: string): number {
  let sum = NaN;
  for (const m of text.matchAll(HEAP_USED)) sum = (Number.isNaN(sum) ? 0 : sum) + Number(m[1]);
  return sum;
}

function reading(tree: number[], byPid: Map<number | null, number>): HeapReading {
  const processes = [...byPid].map(([p, heapUsedBytes]) => ({
    pid: p,
    heapUsedBytes,
    rssBytes: p === null ? null : (memoryOf(p)?.vmRssBytes ?? null),
  }));
  const rssOfTree = tree.map((p) => memoryOf(p)?.vmRssBytes ?? 0);
  return {
    processes,
    tree,
    unread: tree.filter((p) => !byPid.has(p)),
    heapUsedBytes: processes.reduce((s, p) => s + p.heapUsedBytes, 0),
    rssBytes: rssOfTree.reduce((s, r) => s + r, 0),
    rssOfTree,
  };
}

/**
 * The heap of the service spawned as `pid`. With `metricsPort`: GET /metrics once on it and on one port after it
 * for each other node process of the service. Without: on `port`, on new connections until each of the service's
 * processes but the spawned one has answered (a cluster), or the spawned one has (one process), or after
 * `attempts` scrapes.
 */
export async function readHeap(port: number, pid: number, metricsPort?: number, attempts?: number): Promise<HeapReading> {
  const tree = serviceProcesses(pid);
  const workers = tree.slice(1);
  const byPid = new Map<number | null, number>();
  const record = (r: { pid: number | null; text: string; status: number }) => {
    const heap = r.status === 200 ? heapUsedIn(r.text) : NaN;
    if (Number.isFinite(heap)) byPid.set(r.pid, heap);
    return Number.isFinite(heap);
  };
  if (metricsPort !== undefined) {
    for (let i = 0; i < tree.length; i++) await scrape(metricsPort + i, tree).then(record, () => false);
    return reading(tree, byPid);
  }
  const max = attempts ?? Math.max(4, 6 * tree.length);
  for (let i = 0; i < max; i++) {
    let r;
    try {
      r = await scrape(port, tree);
    } catch {
      await sleep(50);
      continue;
    }
    if (!record(r)) break;
    const done = workers.length > 0 ? workers.every((w) => byPid.has(w)) : byPid.has(pid);
    if (done) break;
  }
  return reading(tree, byPid);
}

/**
 * After /readyz answers 200 on a cluster, waits (at most `timeoutMs`) until every node process of the service
 * but the spawned one answers GET /healthz on the port; the pids that answered and the milliseconds waited.
 */
export async function waitForAllAnswering(port: number, pid: number, timeoutMs: number) {
  const started = performance.now();
  const answered = new Set<number | null>();
  for (;;) {
    const tree = serviceProcesses(pid);
    const workers = tree.slice(1);
    try {
      answered.add((await scrape(port, tree, '/healthz')).pid);
    } catch {
      // a worker starting
    }
    const done = workers.length > 0 ? workers.every((w) => answered.has(w)) : answered.has(pid);
    if (done || performance.now() - started > timeoutMs)
      return {
        processes: tree.length,
        answering: [...answered].filter((p) => p !== null),
        ms: performance.now() - started,
        complete: done,
      };
    await sleep(100);
  }
}
