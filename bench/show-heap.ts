/** A heap reading (bench/heap.ts) as the bench prints it. */
import type { HeapReading } from './heap.ts';
import { fmt } from './stats.ts';

export const MiB = (bytes: number) => fmt(bytes / 1048576);

/**
 * "312 MiB; VmRSS 700 MiB" or "612 MiB, the sum over 3 of 3 processes (198 + 207 + 207); VmRSS 1,400 MiB (all 3:
 * the primary 500 + 450 + 450)".
 */
export function showHeap(h: HeapReading): string {
  if (!h.processes.length) return `not read (no /metrics answer); VmRSS ${MiB(h.rssBytes)} MiB`;
  const each = h.rssOfTree.map((r, i) => `${i === 0 ? 'the primary ' : ''}${MiB(r)}`).join(' + ');
  const rss = `VmRSS ${MiB(h.rssBytes)} MiB${h.tree.length > 1 ? ` (all ${h.tree.length}: ${each})` : ''}`;
  if (h.tree.length === 1 && h.processes.length === 1) return `${MiB(h.heapUsedBytes)} MiB; ${rss}`;
  const unread = h.unread.map((p) => (p === h.tree[0] ? `the primary ${p}` : String(p)));
  return (
    `${MiB(h.heapUsedBytes)} MiB, the sum over ${h.processes.length} of ${h.tree.length} processes ` +
    `(${h.processes.map((p) => MiB(p.heapUsedBytes)).join(' + ')}${unread.length ? `; not read: ${unread.join(', ')}` : ''}); ${rss}`
  );
}
