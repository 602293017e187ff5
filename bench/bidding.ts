/**
 * Timed bidding under load, against the running bench service. A timed auction of its own in tenant
 * demo and a house of its own for the storm (extension window 5 s) are imported through the intake CLI before
 * the service starts (bench/bidding-fixture.ts); member tokens are issued with the service's own secret (500 scrypt
 * sign-ins would take minutes).
 *  - hot: one lot a round, 50 connections, each request another member's higher maximum (read your writes);
 *  - spread: 1,000 lots, 50 connections, each lot's maxima rising;
 *  - page: the lot page (auction 1) alone, then with 200 bids a second arriving on the timed auction;
 *  - streams: 1,000 subscribers of the timed auction's stream, a bid every 20 ms; from each bid's 200 to its
 *    arrival at every subscriber (an arrival before the 200 counts 0);
 *  - storm: 500 members bid on one lot in its last 10 s: every answer 200 or a 4xx, the extensions as the
 *    public bids ask, and the lot as answered equal to a replay of its stream.
 */
import path from 'node:path';
import { SqliteEventLog } from '../src/adapters/embedded/sqlite-event-log.ts';
import { foldStream } from '../src/command-runner.ts';
import { biddingDecider } from '../commands/bidding/index.ts';
import { lotStreamId } from '../commands/lots/index.ts';
import {
  bidBody,
  bidRequests,
  MAX_ROUNDS,
  memberTokens,
  SPREAD_LOTS,
  START,
  STEP,
  STORM_API_KEY,
  STORM_BACKOFFICE_KEY,
  STORM_MEMBERS,
  STORM_TENANT,
  STORM_WINDOW_SECONDS,
  lotRecord,
  type BiddingFixture,
} from './bidding-fixture.ts';
import { API_KEY, type Dataset } from './dataset.ts';
import { load, lotPageRequests, type LoadOptions, type LoadResult, type Target } from './loads.ts';
import { paced } from './paced.ts';
import { cpuSecondsOf, say, sleep } from './processes.ts';
import type { ServiceClient } from './service-client.ts';
import { subscribe } from './sse.ts';
import { median } from './stats.ts';

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
  return paced(perSecond, (i, signal) =>
    fetch(client.url('/v1/me/bids'), {
      method: 'POST',
      headers: { 'Api-Key': API_KEY, Authorization: `Bearer ${tokens[i % tokens.length]}`, 'Content-Type': 'application/json' },
      body: bidBody(lotId, 500_000_000 + i * STEP),
      signal,
    }),
  );
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

type StormOutcome = BiddingResult['storm'];

/**
 * 500 members of the storm house bid on one lot catalogued (over the back office's intake) to end in 10 s:
 * each at a random moment, up to four times, each maximum above every one sent before, until refused.
 */
async function storm(client: ServiceClient, dataset: Dataset, fixture: BiddingFixture): Promise<StormOutcome> {
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
  const answers = await stormBids(client, tokens, lotId);
  const seconds = (performance.now() - started) / 1000;
  const out = await stormAfterTheClose(client, dataset, lotId, endTime, { answers, seconds });
  say(
    `  answers ${JSON.stringify(answers)} in ${seconds.toFixed(1)} s; ${out.publicBids} public bids, ${out.extensions} extensions (expected ${out.expectedExtensions}); ` +
      `end ${out.finalEndTime} (expected ${out.expectedEndTime}); closed ${out.closed}; equal to a replay: ${out.equalToReplay} ${out.differences.join('; ')}; bids after the end: ${out.lateBids}`,
  );
  return out;
}

/** Every member's bids, each at a random moment, up to four times, until refused; the answers by status. */
async function stormBids(client: ServiceClient, tokens: string[], lotId: number): Promise<Record<string, number>> {
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
  return answers;
}

/** Once the close's job ran at the (extended) end time: the lot's stream against the extensions asked and a replay. */
async function stormAfterTheClose(
  client: ServiceClient,
  dataset: Dataset,
  lotId: number,
  endTime: string,
  bids: Pick<StormOutcome, 'answers' | 'seconds'>,
): Promise<StormOutcome> {
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
    const { end, expectedExtensions, lateBids } = extensionsAsked(events, endTime);
    const differences: string[] = [];
    const compare = (name: string, answered: unknown, fromReplay: unknown) => {
      if (answered !== fromReplay) differences.push(`${name}: answered ${String(answered)}, replayed ${String(fromReplay)}`);
    };
    compare('CurrentBid', lot.CurrentBid, replayed.currentBid);
    compare('BidCount', lot.BidCount, replayed.bidCount);
    compare('EndTime', lot.EndTime, replayed.endTime === null ? null : new Date(replayed.endTime).toISOString());
    compare('IsClosed', lot.IsClosed, replayed.closed);
    return {
      members: STORM_MEMBERS,
      ...bids,
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
  } finally {
    await log.close();
  }
}

/**
 * The extensions the public bids ask for (a bid within the window moves the end to its time plus the window), the
 * end they make, and the bids after the end or the close.
 */
function extensionsAsked(events: Array<{ type: string; data: Record<string, unknown> }>, endTime: string) {
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
  return { end, expectedExtensions, lateBids };
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
