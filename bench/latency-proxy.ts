/**
 * A TCP proxy that holds every chunk for a one-way delay in each direction, order kept: a network between the
 * service and PostgreSQL or Redis on a machine whose kernel has no `netem`. Timers wake no finer than a
 * millisecond, so the last millisecond of a wait is spun (setImmediate) while chunks are on their way: the proxy
 * uses CPU of its own while traffic flows, none when idle. Every connection's queue is bounded (the reading side
 * pauses past QUEUE_LIMIT bytes); close() ends the listener and every connection.
 *
 * As a process (the bench): `tsx bench/latency-proxy.ts` with ONE_WAY_MS and TARGETS=host:port,host:port prints
 * one JSON line {"ports":[...]} (a listening port on 127.0.0.1 per target, same order) and runs until SIGTERM.
 */
import net from 'node:net';

/** Bytes a direction of a connection may hold before its sender is paused. */
const QUEUE_LIMIT = 4 * 1024 * 1024;

export interface LatencyProxy {
  /** The port on 127.0.0.1 that leads to the target. */
  port: number;
  close(): Promise<void>;
}

interface Held {
  due: bigint;
  chunk: Buffer;
}

/** One direction of a connection: `from`'s chunks written to `to` once `delay` has passed, in order. */
function delayedPipe(from: net.Socket, to: net.Socket, delayNs: bigint): void {
  const queue: Held[] = [];
  let queued = 0;
  let waking = false;
  const flush = () => {
    waking = false;
    const now = process.hrtime.bigint();
    while (queue.length > 0 && queue[0].due <= now) {
      const held = queue.shift()!;
      queued -= held.chunk.length;
      if (!to.destroyed) to.write(held.chunk);
    }
    if (queued < QUEUE_LIMIT && from.isPaused()) from.resume();
    if (queue.length > 0) wake();
    else if (from.readableEnded && !to.destroyed) to.end();
  };
  const wake = () => {
    if (waking) return;
    waking = true;
    const waitMs = Number(queue[0].due - process.hrtime.bigint()) / 1e6;
    // A timer for all but the last millisecond, then spin to the due time.
    if (waitMs > 2) setTimeout(flush, Math.floor(waitMs - 1));
    else setImmediate(flush);
  };
  from.on('data', (chunk: Buffer) => {
    queue.push({ due: process.hrtime.bigint() + delayNs, chunk });
    queued += chunk.length;
    if (queued >= QUEUE_LIMIT) from.pause();
    wake();
  });
  from.on('end', () => {
    if (queue.length === 0 && !to.destroyed) to.end();
  });
}

/** Listens on 127.0.0.1 (a free port) and leads every connection to `target` through the delay, both ways. */
export async function startLatencyProxy(target: { host: string; port: number }, oneWayMs: number): Promise<LatencyProxy> {
  const delayNs = BigInt(Math.round(oneWayMs * 1e6));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    // Either end gone: the other goes too.
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    delayedPipe(client, upstream, delayNs);
    delayedPipe(upstream, client, delayNs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A URL whose host and port are the proxy's (postgres://user@127.0.0.1:<port>/db, redis://127.0.0.1:<port>). */
export function throughProxy(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

/** host:port of a URL (the default port of its scheme when it has none). */
export function targetOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  const fallback = u.protocol.startsWith('redis') ? 6379 : 5432;
  return { host: u.hostname, port: u.port ? Number(u.port) : fallback };
}

async function main(): Promise<void> {
  const oneWayMs = Number(process.env.ONE_WAY_MS);
  if (!(oneWayMs >= 0)) throw new Error('ONE_WAY_MS must be a number of milliseconds ≥ 0');
  const targets = (process.env.TARGETS ?? '').split(',').filter(Boolean);
  const proxies = await Promise.all(
    targets.map((t) => {
      const [host, port] = t.split(':');
      return startLatencyProxy({ host, port: Number(port) }, oneWayMs);
    }),
  );
  process.stdout.write(`${JSON.stringify({ ports: proxies.map((p) => p.port) })}\n`);
  const stop = async () => {
    await Promise.all(proxies.map((p) => p.close()));
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
