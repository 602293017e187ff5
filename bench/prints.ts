/**
 * `npm run bench -- --only prints`: the catalogue PDF of auction 1 (2,000 lots in the generated dataset): a
 * first request, 50 concurrent first requests for another language (they must get identical bytes from one
 * generation), and repeated requests; the .xlsx export of the same auction; the service's memory around
 * them. The bench deletes generated files before the service starts, so "first" is a real first request.
 */
import { memoryOf, say, type Memory } from './processes.ts';
import type { ServiceClient } from './service-client.ts';
import { fmt, median } from './stats.ts';

export interface PrintsResult {
  auctionLots: number;
  pdfFirst: { ms: number; bytes: number; status: number };
  pdfConcurrentFirst: { requests: number; msAll: number; distinctBodies: number; statuses: number[] };
  pdfRepeated: { medianMs: number; minMs: number; maxMs: number; requests: number };
  export: { medianMs: number; minMs: number; maxMs: number; bytes: number; requests: number; status: number };
  memoryAfter: Memory | null;
  memoryBefore: Memory | null;
}

export async function prints(client: ServiceClient, anon: string, pid: number): Promise<PrintsResult> {
  const headers = { Authorization: `Bearer ${anon}` };
  const auction = await client.call('GET', '/v1/auctions/1', headers);
  const memoryBefore = memoryOf(pid);
  say(`prints: auction 1 has ${auction.body?.LotCount} lots`);
  const first = await client.download('/v1/auctions/1/catalogue?lang=sv', headers);
  if (first.status !== 200 || !first.bytes.subarray(0, 5).equals(Buffer.from('%PDF-')))
    throw new Error(`catalogue PDF: ${first.status} ${first.contentType}`);
  say(`  catalogue PDF (sv), first request: ${fmt(first.ms)} ms, ${fmt(first.bytes.length / 1024)} KB`);
  const concurrentStarted = performance.now();
  const concurrent = await Promise.all(Array.from({ length: 50 }, () => client.download('/v1/auctions/1/catalogue?lang=de', headers)));
  const msAll = performance.now() - concurrentStarted;
  const distinct = new Set(concurrent.map((r) => r.bytes.toString('base64'))).size;
  say(
    `  50 concurrent first requests (de): all answered in ${fmt(msAll)} ms, ${distinct} distinct bodies, statuses ${[...new Set(concurrent.map((r) => r.status))]}`,
  );
  const repeated: number[] = [];
  for (let i = 0; i < 20; i++) repeated.push((await client.download('/v1/auctions/1/catalogue?lang=sv', headers)).ms);
  say(
    `  repeated request: median ${fmt(median(repeated), 1)} ms (min ${fmt(Math.min(...repeated), 1)}, max ${fmt(Math.max(...repeated), 1)})`,
  );
  const exports: Array<{ ms: number; bytes: number; status: number }> = [];
  for (let i = 0; i < 5; i++) {
    const r = await client.download('/v1/auctions/1/export', { ...headers, 'Accept-Language': 'sv' });
    exports.push({ ms: r.ms, bytes: r.bytes.length, status: r.status });
  }
  const exportMs = exports.map((e) => e.ms);
  say(
    `  .xlsx export: median ${fmt(median(exportMs))} ms (min ${fmt(Math.min(...exportMs))}, max ${fmt(Math.max(...exportMs))}), ${fmt(exports[0].bytes / 1024)} KB`,
  );
  const memoryAfter = memoryOf(pid);
  return {
    auctionLots: auction.body?.LotCount ?? 0,
    pdfFirst: { ms: first.ms, bytes: first.bytes.length, status: first.status },
    pdfConcurrentFirst: {
      requests: concurrent.length,
      msAll,
      distinctBodies: distinct,
      statuses: [...new Set(concurrent.map((r) => r.status))],
    },
    pdfRepeated: { medianMs: median(repeated), minMs: Math.min(...repeated), maxMs: Math.max(...repeated), requests: repeated.length },
    export: {
      medianMs: median(exportMs),
      minMs: Math.min(...exportMs),
      maxMs: Math.max(...exportMs),
      bytes: exports[0].bytes,
      requests: exports.length,
      status: exports[0].status,
    },
    memoryBefore,
    memoryAfter,
  };
}
