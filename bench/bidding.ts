/**
 * Timed bidding under load, against the running bench service. A timed auction of its own in tenant
 * demo and a house of its own for the storm (extension window 5 s) are imported through the intake CLI before
 * the service starts (bench/run.ts); member tokens are issued with the service's own secret (500 scrypt
 * sign-ins would take minutes).
 *  - hot: one lot a round, 50 connections, each request another member's higher maximum (read your writes);
 *  - spread: 1,000 lots, 50 connections, each lot's maxima rising;
 *  - page: the lot page (auction 1) alone, then with 200 bids a second arriving on the timed auction;
 *  - streams: 1,000 subscribers of the timed auction's stream, a bid every 20 ms; from each bid's 200 to its
 *    arrival at every subscriber (an arrival before the 200 counts 0);
 *  - storm: 500 members bid on one lot in its last 10 s: every answer 200 or a 4xx, the extensions as the
 *    public bids ask, and the lot as answered equal to a replay of its stream.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AutocannonRequest } from 'autocannon';
import { hashPassword } from '../src/security/passwords.ts';
import { TokenService } from '../src/security/tokens.ts';
import { ringKeys } from '../src/security/signing-keys.ts';
import type { KeyRing } from '../src/ports/key-ring.ts';
import { SqliteEventLog } from '../src/adapters/embedded/sqlite-event-log.ts';
import { foldStream } from '../src/command-runner.ts';
import { biddingDecider } from '../commands/bidding/index.ts';
import { lotStreamId } from '../commands/lots/index.ts';
import { API_KEY, datasetEnv, type Dataset } from './dataset.ts';
import { load, lotPageRequests, type LoadOptions, type LoadResult, type Target } from './loads.ts';
import { cpuSecondsOf, runCli, say, sleep } from './processes.ts';
import type { ServiceClient } from './service-client.ts';
import { subscribe } from './sse.ts';
import { median } from './stats.ts';

const STORM_TENANT = 'benchstorm';
const STORM_API_KEY = 'bench-storm-api-key-0123456789';
const STORM_BACKOFFICE_KEY = 'bench-storm-backoffice-key-0123456789abcdef';
const STORM_WINDOW_SECONDS = 5;
const MEMBERS = 50;
const STORM_MEMBERS = 500;
const SPREAD_LOTS = 1000;
const MAX_ROUNDS = 10;
/** Between two maxima on one lot: above the demo table's largest increment (2,500). */
const STEP = 5000;
const START = 10_000;

/** What one run imports: ids of its own, so runs never meet. */
export interface BiddingFixture {
  auctionId: number;
  spreadLots: number[];
  hotLots: number[];
  streamLot: number;
  members: number[];
  stormAuctionId: number;
  stormLotId: number;
  stormMembers: number[];
}

export interface BiddingResult {
  hot: LoadResult[];
  spread: LoadResult[];
  page: { alone: LoadResult[]; withBids: LoadResult[]; bidsPerSecond: number[] };
  streams: { subscribers: number; bids: number; samples: number; missing: number; p50: number; p99: number; max: number };
  storm: {
    members: number;
    answers: Record<string, number>;
    seconds: number;
    publicBids: number;
    extensions: number;
    expectedExtensions: number;
    finalEndTime: string | null;
    expectedEndTime: string | null;
    closed: boolean;
    equalToReplay: boolean;
    lateBids: number;
    differences: string[];
  };
}

/** Imports the run's timed auction, lots, members and registrations (the service stopped). */
export async function importBiddingFixture(dataset: Dataset): Promise<BiddingFixture> {
  const run = Math.floor(Date.now() / 1000) % 100_000;
  const auctionId = 1_000_000 + run;
  const lotBase = 100_000_000 + run * 2_000;
  const fixture: BiddingFixture = {
    auctionId,
    spreadLots: Array.from({ length: SPREAD_LOTS }, (_, i) => lotBase + i),
    hotLots: Array.from({ length: MAX_ROUNDS }, (_, i) => lotBase + SPREAD_LOTS + i),
    streamLot: lotBase + SPREAD_LOTS + MAX_ROUNDS,
    members: Array.from({ length: MEMBERS }, (_, i) => 1_500_000_000 + run * 1_000 + i),
    stormAuctionId: auctionId,
    stormLotId: lotBase + SPREAD_LOTS + MAX_ROUNDS + 1,
    stormMembers: Array.from({ length: STORM_MEMBERS }, (_, i) => 1_500_000_000 + run * 1_000 + MEMBERS + i),
  };
  const now = Date.now();
  const at = new Date(now).toISOString();
  const passwordHash = await hashPassword('bench timed bidding member');
  const auction = (tenant: string) => ({
    kind: 'auction',
    tenant,
    auctionId,
    auctionType: 1,
    texts: { en: { title: `Bench timed sale ${run}`, description: 'Timed bidding under load.' } },
    startTime: new Date(now - 3600_000).toISOString(),
    endTime: new Date(now + 6 * 3600_000).toISOString(),
    currency: 'EUR',
    requiresTermsAcceptance: false,
    bidding: 'timed',
  });
  const lot = (tenant: string, lotId: number, n: number) =>
    lotRecord(tenant, auctionId, lotId, n + 1, `Bench lot ${n + 1}`, new Date(now + 6 * 3600_000).toISOString());
  const member = (tenant: string, memberId: number) => [
    {
      kind: 'member',
      tenant,
      memberId,
      email: `timed-${memberId}@example.com`,
      passwordHash,
      firstName: 'Timed',
      lastName: String(memberId),
      language: 'en',
      signedUpAt: at,
      confirmed: true,
      roles: ['bidder'],
    },
    { kind: 'registrationDecision', tenant, memberId, auctionId, status: 'approved', at },
  ];
  const records: unknown[] = [
    {
      kind: 'tenant',
      tenant: STORM_TENANT,
      name: 'Bench storm house',
      languages: ['en'],
      defaultLanguage: 'en',
      currency: 'EUR',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'storm@example.com',
      extensionWindowSeconds: STORM_WINDOW_SECONDS,
    },
    { kind: 'apiKey', key: STORM_API_KEY, name: 'bench storm', tenants: [STORM_TENANT] },
    { kind: 'backOfficeKey', tenant: STORM_TENANT, keyId: 'bench-storm', name: 'bench storm', key: STORM_BACKOFFICE_KEY },
    auction('demo'),
    auction(STORM_TENANT),
    ...[...fixture.spreadLots, ...fixture.hotLots, fixture.streamLot].map((id, n) => lot('demo', id, n)),
    ...fixture.members.flatMap((id) => member('demo', id)),
    ...fixture.stormMembers.flatMap((id) => member(STORM_TENANT, id)),
  ];
  const r = await runCli(
    'app/cli/import.ts',
    ['-'],
    datasetEnv(dataset, { LOG_LEVEL: 'warn' }),
    records.map((x) => JSON.stringify(x)).join('\n') + '\n',
  );
  if (r.code !== 0)
    throw new Error(`importing the bidding fixture failed (${r.code}): ${r.stdout.slice(0, 2000)} ${r.stderr.slice(-2000)}`);
  return fixture;
}

/** An intake `lot` record of a timed lot starting at START. */
function lotRecord(tenant: string, auctionId: number, lotId: number, lotNumber: number, title: string, endTime: string) {
  return {
    kind: 'lot',
    tenant,
    lotId,
    auctionId,
    lotNumber,
    categoryId: null,
    texts: { en: { title, description: 'A lot bid on by the bench.' } },
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: 'EUR',
    startingPrice: START,
    estimateLow: null,
    estimateHigh: null,
    endTime,
    combiId: null,
    ownerId: null,
  };
}

/** Member tokens signed with the service's own key (its key ring, read from its DATA_DIR once it has started). */
export function memberTokens(dataset: Dataset, tenant: string, members: number[]): string[] {
  const ring = JSON.parse(fs.readFileSync(path.join(dataset.dataDir, 'secrets', 'keys.json'), 'utf8')) as KeyRing;
  const tokens = new TokenService(ringKeys(ring));
  return members.map((id) => tokens.issue('member', tenant, String(id)).Token);
}

const bidBody = (lotId: number, amount: number) => JSON.stringify({ LotId: lotId, MaxAmount: amount });

/** Request n: member n mod 50 on `lotOf(n)`, each lot's maxima rising by STEP in the order the requests are made. */
export function bidRequests(tokens: string[], lotOf: (n: number) => number): AutocannonRequest[] {
  let n = 0;
  const sent = new Map<number, number>();
  return [
    {
      method: 'POST',
      setupRequest: (req) => {
        const i = n++;
        const lotId = lotOf(i);
        const count = (sent.get(lotId) ?? 0) + 1;
        sent.set(lotId, count);
        return {
          ...req,
          method: 'POST',
          path: '/v1/me/bids',
          headers: { ...req.headers, Authorization: `Bearer ${tokens[(i * 7) % tokens.length]}` },
          body: bidBody(lotId, START + count * STEP),
        };
      },
    },
  ];
}

export async function biddingBench(
  client: ServiceClient,
  dataset: Dataset,
  fixture: BiddingFixture,
  catalogueHeaders: Record<string, string>,
  options: LoadOptions,
  rounds: number,
  target: Target,
): Promise<BiddingResult> {
  const tokens = memberTokens(dataset, 'demo', fixture.members);
  const headers = { ...catalogueHeaders, 'Content-Type': 'application/json' };
  delete (headers as Record<string, string>).Authorization;
  const result: BiddingResult = {
    hot: [],
    spread: [],
    page: { alone: [], withBids: [], bidsPerSecond: [] },
    streams: { subscribers: 0, bids: 0, samples: 0, missing: 0, p50: NaN, p99: NaN, max: NaN },
    storm: null as unknown as BiddingResult['storm'],
  };
  const spread = bidRequests(tokens, (n) => fixture.spreadLots[(n * 13) % SPREAD_LOTS]);
  for (let round = 1; round <= Math.min(rounds, MAX_ROUNDS); round++) {
    const hotLot = fixture.hotLots[round - 1];
    result.hot.push(
      await load(
        'POST /v1/me/bids, one hot lot',
        round,
        client.url('/'),
        bidRequests(tokens, () => hotLot),
        headers,
        options,
        target,
      ),
    );
    result.spread.push(await load('POST /v1/me/bids, 1,000 lots', round, client.url('/'), spread, headers, options, target));
    // The bid loads leave work behind (outbid mails: up to one per lot and member): the page pair starts once
    // the service is idle again, so that both of its loads meet the same background.
    await settle(target.pid);
    result.page.alone.push(
      await load('GET /v1/lots page (bidding step, alone)', round, client.url('/'), lotPageRequests(), catalogueHeaders, options, target),
    );
    // On this round's hot lot, far above its load's maxima: every bid a public one on the timed auction.
    const bidder = pacedBidder(client, tokens, hotLot, 200);
    result.page.withBids.push(
      await load(
        'GET /v1/lots page, 200 bids a second meanwhile',
        round,
        client.url('/'),
        lotPageRequests(),
        catalogueHeaders,
        options,
        target,
      ),
    );
    const paced = await bidder.stop();
    result.page.bidsPerSecond.push(paced.perSecond);
    say(`  bids meanwhile: ${paced.perSecond.toFixed(0)} a second, statuses ${JSON.stringify(paced.statuses)}`);
  }
  result.streams = await streams(client, fixture, tokens, catalogueHeaders);
  result.storm = await storm(client, dataset, fixture);
  return result;
}

/** Waits (at most a minute) until the process uses under a tenth of a core over a second. */
export async function settle(pid: number) {
  const started = performance.now();
  for (;;) {
    const from = cpuSecondsOf(pid);
    await sleep(1000);
    const used = cpuSecondsOf(pid) - from;
    if (!(used >= 0.1) || performance.now() - started > 60_000) {
      say(
        `  the service settled after ${((performance.now() - started) / 1000).toFixed(0)} s (${used.toFixed(2)} CPU s in the last second)`,
      );
      return;
    }
  }
}

/** Bids at about `perSecond` on one lot, members in turn, maxima rising far above the loads' amounts, until stopped. */
function pacedBidder(client: ServiceClient, tokens: string[], lotId: number, perSecond: number) {
  const statuses: Record<string, number> = {};
  let sent = 0;
  let stopped = false;
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  const loop = (async () => {
    while (!stopped) {
      const i = sent++;
      const p = fetch(client.url('/v1/me/bids'), {
        method: 'POST',
        headers: { 'Api-Key': API_KEY, Authorization: `Bearer ${tokens[i % tokens.length]}`, 'Content-Type': 'application/json' },
        body: bidBody(lotId, 500_000_000 + i * STEP),
        signal: AbortSignal.timeout(10_000),
      })
        .then(async (r) => {
          await r.arrayBuffer();
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        })
        .catch(() => {
          statuses.error = (statuses.error ?? 0) + 1;
        });
      pending.add(p);
      void p.finally(() => pending.delete(p));
      const due = started + ((i + 1) * 1000) / perSecond;
      await sleep(Math.max(0, due - performance.now()));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(pending);
      return { perSecond: sent / ((performance.now() - started) / 1000), statuses };
    },
  };
}

/** 1,000 subscribers of the timed auction's stream; a bid every 20 ms for 10 s on one lot, two members in turn. */
async function streams(client: ServiceClient, fixture: BiddingFixture, tokens: string[], catalogueHeaders: Record<string, string>) {
  const SUBSCRIBERS = 1000;
  say(`streams: ${SUBSCRIBERS} subscribers of GET /v1/auctions/${fixture.auctionId}/stream, a bid every 20 ms`);
  /** Arrival times by CurrentBid, per subscriber. */
  const arrivals = new Map<number, number[]>();
  const close = await subscribe(client.url(`/v1/auctions/${fixture.auctionId}/stream`), catalogueHeaders, SUBSCRIBERS, (_i, type, data) => {
    if (type !== 'bid') return;
    const now = performance.now();
    const { LotId, CurrentBid } = JSON.parse(data) as { LotId: number; CurrentBid: number };
    if (LotId !== fixture.streamLot) return;
    const list = arrivals.get(CurrentBid) ?? [];
    list.push(now);
    arrivals.set(CurrentBid, list);
  });
  await sleep(1000);
  const answered = new Map<number, number>();
  const until = performance.now() + 10_000;
  let n = 0;
  while (performance.now() < until) {
    const next = performance.now() + 20;
    const r = await fetch(client.url('/v1/me/bids'), {
      method: 'POST',
      headers: { 'Api-Key': API_KEY, Authorization: `Bearer ${tokens[n % 2]}`, 'Content-Type': 'application/json' },
      body: bidBody(fixture.streamLot, START + (n + 1) * STEP),
    });
    const at = performance.now();
    const body = (await r.json()) as { CurrentBid?: number };
    if (r.status === 200 && body.CurrentBid !== undefined && !answered.has(body.CurrentBid)) answered.set(body.CurrentBid, at);
    n++;
    await sleep(Math.max(0, next - performance.now()));
  }
  await sleep(2000);
  close();
  const latencies: number[] = [];
  let missing = 0;
  for (const [bid, at] of answered) {
    const list = arrivals.get(bid) ?? [];
    missing += SUBSCRIBERS - list.length;
    for (const t of list) latencies.push(Math.max(0, t - at));
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  const out = {
    subscribers: SUBSCRIBERS,
    bids: answered.size,
    samples: latencies.length,
    missing,
    p50: pct(0.5),
    p99: pct(0.99),
    max: latencies.at(-1) ?? NaN,
  };
  say(
    `  ${out.bids} public bids, ${out.samples} arrivals, missing ${out.missing}; p50 ${out.p50.toFixed(1)} ms, p99 ${out.p99.toFixed(1)} ms, max ${out.max.toFixed(1)} ms`,
  );
  return out;
}

/**
 * 500 members of the storm house bid on one lot catalogued (over the back office's intake) to end in 10 s:
 * each at a random moment, up to four times, each maximum above every one sent before, until refused.
 */
async function storm(client: ServiceClient, dataset: Dataset, fixture: BiddingFixture): Promise<BiddingResult['storm']> {
  say(`storm: ${STORM_MEMBERS} members on one lot in its last 10 s (extension window ${STORM_WINDOW_SECONDS} s)`);
  const tokens = memberTokens(dataset, STORM_TENANT, fixture.stormMembers);
  const lotId = fixture.stormLotId;
  const endTime = new Date(Date.now() + 10_000).toISOString();
  const record = lotRecord(STORM_TENANT, fixture.stormAuctionId, lotId, 1, 'The storm lot', endTime);
  const intake = await fetch(client.url('/backoffice/v1/intake'), {
    method: 'POST',
    headers: { Authorization: `Bearer ${STORM_BACKOFFICE_KEY}`, 'Content-Type': 'application/x-ndjson' },
    body: JSON.stringify(record) + '\n',
  });
  if (intake.status !== 200) throw new Error(`storm lot intake: ${intake.status} ${await intake.text()}`);
  const started = performance.now();
  const answers: Record<string, number> = {};
  let amount = START;
  await Promise.all(
    tokens.map(async (token) => {
      await sleep(Math.random() * 9_000);
      for (let k = 0; k < 4; k++) {
        amount += STEP;
        const r = await fetch(client.url('/v1/me/bids'), {
          method: 'POST',
          headers: { 'Api-Key': STORM_API_KEY, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: bidBody(lotId, amount),
          signal: AbortSignal.timeout(30_000),
        }).catch(() => null);
        const status = r ? String(r.status) : 'error';
        if (r) await r.arrayBuffer();
        answers[status] = (answers[status] ?? 0) + 1;
        if (status === '409') return;
        await sleep(500 + Math.random() * 2500);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // The close: its job runs at the (extended) end time.
  const anon = await client.call('POST', '/v1/tokens/anonymous', { 'Api-Key': STORM_API_KEY }, { clientId: STORM_TENANT });
  const lotHeaders = { 'Api-Key': STORM_API_KEY, Authorization: `Bearer ${anon.body.Token}` };
  const deadline = Date.now() + 30_000;
  const log = new SqliteEventLog(path.join(dataset.dataDir, 'events.sqlite'));
  try {
    let events = await log.readStream(lotStreamId(STORM_TENANT, lotId));
    while (!events.some((e) => e.type === 'LotSettled') && Date.now() < deadline) {
      await sleep(250);
      events = await log.readStream(lotStreamId(STORM_TENANT, lotId));
    }
    await sleep(500);
    const lot = (await client.call('GET', `/v1/lots/${lotId}`, lotHeaders)).body;
    const replayed = await foldStream(log, lotStreamId(STORM_TENANT, lotId), biddingDecider);
    // The extensions the public bids ask for: a bid within the window moves the end to its time plus the window.
    let end = Date.parse(endTime);
    let expectedExtensions = 0;
    let lateBids = 0;
    let closed = false;
    for (const e of events) {
      if (e.type === 'LotClosed') closed = true;
      if ((e.type === 'BidPlaced' || e.type === 'MaxBidPlaced') && closed) lateBids++;
      if (e.type === 'MaxBidPlaced' && Date.parse(e.data.at as string) >= end) lateBids++;
      if (e.type === 'BidPlaced') {
        const placed = Date.parse(e.data.placedAt as string);
        if (placed > end - STORM_WINDOW_SECONDS * 1000 && placed + STORM_WINDOW_SECONDS * 1000 > end) {
          end = placed + STORM_WINDOW_SECONDS * 1000;
          expectedExtensions++;
        }
      }
    }
    const differences: string[] = [];
    const compare = (name: string, answered: unknown, fromReplay: unknown) => {
      if (answered !== fromReplay) differences.push(`${name}: answered ${String(answered)}, replayed ${String(fromReplay)}`);
    };
    compare('CurrentBid', lot.CurrentBid, replayed.currentBid);
    compare('BidCount', lot.BidCount, replayed.bidCount);
    compare('EndTime', lot.EndTime, replayed.endTime === null ? null : new Date(replayed.endTime).toISOString());
    compare('IsClosed', lot.IsClosed, replayed.closed);
    const out = {
      members: STORM_MEMBERS,
      answers,
      seconds,
      publicBids: events.filter((e) => e.type === 'BidPlaced').length,
      extensions: events.filter((e) => e.type === 'LotEndTimeExtended').length,
      expectedExtensions,
      finalEndTime: lot.EndTime ?? null,
      expectedEndTime: new Date(end).toISOString(),
      closed: replayed.closed,
      equalToReplay: differences.length === 0,
      lateBids,
      differences,
    };
    say(
      `  answers ${JSON.stringify(answers)} in ${seconds.toFixed(1)} s; ${out.publicBids} public bids, ${out.extensions} extensions (expected ${expectedExtensions}); ` +
        `end ${out.finalEndTime} (expected ${out.expectedEndTime}); closed ${out.closed}; equal to a replay: ${out.equalToReplay} ${differences.join('; ')}; bids after the end: ${lateBids}`,
    );
    return out;
  } finally {
    await log.close();
  }
}

/** The figures the report compares with the targets. */
export function biddingSummary(r: BiddingResult) {
  const decided = (l: LoadResult) => l.rps * (1 - (l.statusCodes['500'] ?? 0) / Math.max(1, l.total));
  return {
    hotRps: median(r.hot.map(decided)),
    hotP99: median(r.hot.map((l) => l.p99)),
    spreadRps: median(r.spread.map(decided)),
    spreadP99: median(r.spread.map((l) => l.p99)),
    pageRatio: median(r.page.withBids.map((l, i) => l.rps / r.page.alone[i].rps)),
  };
}
