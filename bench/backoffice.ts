/**
 * The back office's interface under load, against the running bench service:
 *  - feed: one client reads tenant demo's whole feed in pages of 1,000 (keep-alive), events a second;
 *  - stream: 500 SSE subscribers on the one process; a watchlist PUT every 40 ms; for each event, the time from
 *    its PUT's 200 to its arrival at every subscriber (an arrival before the 200 counts 0);
 *  - webhooks: 10 webhooks to a local receiver, 1,000 events appended by one intake request; deliveries a second
 *    from the first to the last, and whether each webhook got its events in log order;
 *  - attached: the watchlist PUT load alone, then with 100 SSE subscribers and 5 webhooks (all types) attached.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { datasetEnv, type Dataset } from './dataset.ts';
import { load, watchRequests, type LoadOptions, type LoadResult, type Target } from './loads.ts';
import { runCli, say, sleep } from './processes.ts';
import type { ServiceClient } from './service-client.ts';
import { median } from './stats.ts';
import { subscribe as subscribeTo } from './sse.ts';

export const BENCH_BACKOFFICE_KEY = 'bench-backoffice-key-0123456789abcdef';

export interface BackOfficeResult {
  feed: Array<{ events: number; pages: number; seconds: number; eventsPerSecond: number }>;
  stream: { subscribers: number; events: number; samples: number; missing: number; p50: number; p99: number; max: number };
  webhooks: {
    webhooks: number;
    events: number;
    deliveries: number;
    seconds: number;
    perSecond: number;
    inOrder: boolean;
    duplicates: number;
  };
  attached: { alone: LoadResult[]; attached: LoadResult[]; subscribers: number; webhooks: number; deliveries: number };
}

/** Issues the bench's back-office key for tenant demo (through the intake CLI: appends one event). */
export async function importBackOfficeKey(dataset: Dataset): Promise<void> {
  const record = { kind: 'backOfficeKey', tenant: 'demo', keyId: 'bench', name: 'bench', key: BENCH_BACKOFFICE_KEY };
  const r = await runCli('app/cli/import.ts', ['-'], datasetEnv(dataset, { LOG_LEVEL: 'warn' }), JSON.stringify(record) + '\n');
  if (r.code !== 0) throw new Error(`issuing the bench back-office key failed (${r.code}): ${r.stdout} ${r.stderr}`);
}

const boHeaders = { Authorization: `Bearer ${BENCH_BACKOFFICE_KEY}` };

async function backOffice(client: ServiceClient, method: string, path: string, body?: unknown) {
  const res = await fetch(client.url(`/backoffice/v1${path}`), {
    method,
    headers: { ...boHeaders, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Reads the feed from `from` (the start by default) to its end, 1,000 a page: events, pages and seconds. */
async function readFeed(client: ServiceClient, from = '') {
  const started = performance.now();
  let after = from;
  let events = 0;
  let pages = 0;
  for (;;) {
    const page = await backOffice(client, 'GET', `/events?limit=1000${after ? `&after=${after}` : ''}`);
    events += page.Items.length;
    pages += 1;
    after = page.Next;
    if (!page.HasMore) break;
  }
  const seconds = (performance.now() - started) / 1000;
  return { events, pages, seconds, eventsPerSecond: events / seconds, next: after };
}

/** Opens `count` subscribers of tenant demo's event stream (`query`: its types and position). */
const subscribe = (client: ServiceClient, count: number, query: string, onEvent: (i: number, type: string, data: string) => void) =>
  subscribeTo(client.url(`/backoffice/v1/events/stream?${query}`), boHeaders, count, onEvent);

/** A receiver of webhook deliveries: path /hook/{n}; records each delivery's Revision per path. */
async function startReceiver() {
  const byHook = new Map<string, number[]>();
  let total = 0;
  let first = 0;
  let last = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      if (total === 0) first = now;
      last = now;
      total += 1;
      const item = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Position: string; Revision: number; Stream: string };
      const list = byHook.get(req.url!) ?? [];
      // Positions are opaque: the webhooks step's events are all of one stream, whose revisions follow the log's order.
      list.push(item.Revision);
      byHook.set(req.url!, list);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (n: number) => `http://127.0.0.1:${port}/hook/${n}`,
    total: () => total,
    window: () => (last - first) / 1000,
    byHook,
    reset() {
      byHook.clear();
      total = 0;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function deleteWebhooks(client: ServiceClient) {
  for (const hook of await backOffice(client, 'GET', '/webhooks')) await backOffice(client, 'DELETE', `/webhooks/${hook.Id}`);
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export async function backOfficeBench(
  client: ServiceClient,
  memberHeaders: Record<string, string>,
  loadOptions: LoadOptions,
  rounds: number,
  target: Target,
  /** The dataset's lots: the stream step's PUTs go to 1,000 lots 10,000 from the end (90,001+ of 100,000). */
  lots: number,
): Promise<BackOfficeResult> {
  await deleteWebhooks(client);
  const { feed, head } = await feedPages(client);
  const stream = await streamLatency(client, memberHeaders, head, lots);
  const receiver = await startReceiver();
  const webhooks = await webhookDeliveries(client, receiver);
  const attached = await attachedLoads(client, receiver, head, memberHeaders, loadOptions, rounds, target);
  return { feed, stream, webhooks, attached };
}

/** The whole feed read three times in pages of 1,000; the position after its last event. */
async function feedPages(client: ServiceClient): Promise<{ feed: BackOfficeResult['feed']; head: string }> {
  const feed: BackOfficeResult['feed'] = [];
  let head = '';
  for (let i = 0; i < 3; i++) {
    const pass = await readFeed(client);
    head = pass.next;
    feed.push({ events: pass.events, pages: pass.pages, seconds: pass.seconds, eventsPerSecond: pass.eventsPerSecond });
    say(
      `  feed: ${pass.events.toLocaleString('en-US')} events in ${pass.pages} pages, ${Math.round(pass.eventsPerSecond).toLocaleString('en-US')} events/s`,
    );
  }
  return { feed, head };
}

/** 500 SSE subscribers, a watchlist PUT every 40 ms: from each PUT's 200 to its event at every subscriber. */
async function streamLatency(
  client: ServiceClient,
  memberHeaders: Record<string, string>,
  head: string,
  lots: number,
): Promise<BackOfficeResult['stream']> {
  const SUBSCRIBERS = 500;
  const PUTS = 100;
  const okAt: number[] = [];
  const arrivals: number[][] = Array.from({ length: SUBSCRIBERS }, () => []);
  const close = await subscribe(client, SUBSCRIBERS, `types=LotWatched,WatchTypeChanged,LotUnwatched&after=${head}`, (i) =>
    arrivals[i].push(performance.now()),
  );
  await sleep(500);
  const firstLot = Math.max(1, lots - 9_999);
  const watch = async (n: number) => {
    const res = await fetch(client.url(`/v1/me/watchlist/${firstLot + (n % 1000)}`), {
      method: 'PUT',
      headers: memberHeaders,
      body: JSON.stringify({ Type: n % 2 ? 'favourite' : 'watch' }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  for (let n = 0; n < PUTS; n++) {
    const status = await watch(n);
    okAt.push(performance.now());
    if (status !== 200) throw new Error(`watchlist PUT: ${status}`);
    await sleep(40);
  }
  await sleep(1000);
  close();
  const stream = arrivalLatencies(arrivals, okAt, PUTS);
  say(
    `  stream: ${SUBSCRIBERS} subscribers x ${PUTS} events: p50 ${stream.p50.toFixed(1)} ms, p99 ${stream.p99.toFixed(1)} ms, missing ${stream.missing}`,
  );
  return stream;
}

/** Each subscriber's arrivals against the PUTs' 200s (an arrival before its 200 counts 0). */
function arrivalLatencies(arrivals: number[][], okAt: number[], puts: number): BackOfficeResult['stream'] {
  const latencies: number[] = [];
  let missing = 0;
  for (const got of arrivals) {
    missing += Math.max(0, puts - got.length);
    got.slice(0, puts).forEach((at, k) => latencies.push(Math.max(0, at - okAt[k])));
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return {
    subscribers: arrivals.length,
    events: puts,
    samples: latencies.length,
    missing,
    p50: pct(50),
    p99: pct(99),
    max: latencies.at(-1) ?? NaN,
  };
}

/** 10 webhooks, 1,000 events appended by one intake request: deliveries a second, and in log order or not. */
async function webhookDeliveries(client: ServiceClient, receiver: Receiver): Promise<BackOfficeResult['webhooks']> {
  const HOOKS = 10;
  const EVENTS = 1000;
  for (let n = 0; n < HOOKS; n++)
    await backOffice(client, 'POST', '/webhooks', { Url: receiver.url(n), Types: ['InterfaceTranslationsPublished'] });
  const stamp = Date.now();
  const lines = Array.from({ length: EVENTS }, (_, i) =>
    JSON.stringify({ kind: 'translations', tenant: 'demo', language: 'en', entries: { 'bench.webhooks': `${stamp}-${i}` } }),
  ).join('\n');
  const intake = await fetch(client.url('/backoffice/v1/intake'), {
    method: 'POST',
    headers: { ...boHeaders, 'Content-Type': 'application/x-ndjson' },
    body: lines,
  });
  if (intake.status !== 200) throw new Error(`intake: ${intake.status} ${await intake.text()}`);
  const deadline = Date.now() + 120_000;
  while (receiver.total() < HOOKS * EVENTS && Date.now() < deadline) await sleep(100);
  const inOrder = [...receiver.byHook.values()].every((positions) => positions.every((p, i) => i === 0 || p > positions[i - 1]));
  const duplicates = [...receiver.byHook.values()].reduce((sum, positions) => sum + positions.length - new Set(positions).size, 0);
  const webhooks = {
    webhooks: HOOKS,
    events: EVENTS,
    deliveries: receiver.total(),
    seconds: receiver.window(),
    perSecond: receiver.total() / receiver.window(),
    inOrder,
    duplicates,
  };
  say(
    `  webhooks: ${webhooks.deliveries} deliveries in ${webhooks.seconds.toFixed(1)} s: ${Math.round(webhooks.perSecond)}/s, in order ${inOrder}`,
  );
  await deleteWebhooks(client);
  receiver.reset();
  return webhooks;
}

/** The watchlist PUT load alone and with 100 subscribers and 5 webhooks attached, rounds interleaved. */
async function attachedLoads(
  client: ServiceClient,
  receiver: Receiver,
  head: string,
  memberHeaders: Record<string, string>,
  loadOptions: LoadOptions,
  rounds: number,
  target: Target,
): Promise<BackOfficeResult['attached']> {
  const alone: LoadResult[] = [];
  const attached: LoadResult[] = [];
  const requests = watchRequests();
  for (let round = 1; round <= rounds; round++) {
    alone.push(await load('watchlist PUT alone', round, client.url('/'), requests, memberHeaders, loadOptions, target));
    for (let n = 0; n < 5; n++) await backOffice(client, 'POST', '/webhooks', { Url: receiver.url(n) });
    // Streams from the end of the feed (live subscribers, not ones catching up from the log's start).
    head = (await readFeed(client, head)).next;
    const closeAttached = await subscribe(client, 100, `types=LotWatched,WatchTypeChanged&after=${head}`, () => undefined);
    const name = 'watchlist PUT, 100 streams and 5 webhooks attached';
    attached.push(await load(name, round, client.url('/'), requests, memberHeaders, loadOptions, target));
    closeAttached();
    await deleteWebhooks(client);
  }
  const result = { alone, attached, subscribers: 100, webhooks: 5, deliveries: receiver.total() };
  await receiver.close();
  say(
    `  attached: ${Math.round(median(attached.map((r) => r.rps)))} req/s against ${Math.round(median(alone.map((r) => r.rps)))} alone; ` +
      `${result.deliveries} deliveries meanwhile`,
  );
  return result;
}
