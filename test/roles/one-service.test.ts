/**
 * One service however many processes serve it (API_PROCESSES=2, issue 24): what holds on one process holds across
 * two. /readyz stays ready under a write load; a read on either process after a write's 200 shows the write, warm
 * caches and all; every event of the auction stream reaches every open stream, through many soft closes; a lot's
 * bid history is in the order its stream decided the bids. Each call goes on a connection of its own, so the
 * cluster hands them to both processes in turn.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { positionCodecOf } from '../../app/runtime.ts';
import { loadConfig } from '../../src/config.ts';
import type { TenantPositions } from '../../src/events/position.ts';
import { importAnyRecord } from '../../app/features/intake.ts';
import { dataPaths } from '../../app/engines.ts';
import { DEFAULT_INCREMENTS } from '../../commands/bidding/rules.ts';
import { openStream, type OpenStream, type SseMessage } from '../support/sse.ts';
import {
  demoMemberToken,
  fresh,
  freePortRun,
  ready,
  SERVICE_API_KEY,
  sleep,
  startService,
  type ServiceProcess,
} from '../support/service-process.ts';

const TIMED_AUCTION = 10;
const BIDDER_PASSWORD = 'bidder-password-24';

describe('one service however many api processes serve it', function () {
  this.timeout(180_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-one-service-'));
  let service: ServiceProcess;
  let log: SqliteEventLog;
  let port: number;
  let metricsPort: number;
  let member: string;
  let anonymous: string;
  /** Three more members registered for the timed auction. */
  const bidders: string[] = [];
  /** The demo house's positions, as the service (its secret in DATA_DIR) makes them. */
  let positions: TenantPositions;
  const decodePosition = (text: string) => positions.read(text);

  before(async () => {
    const base = await freePortRun(4);
    [port, metricsPort] = [base, base + 1];
    service = startService({ port, dataDir, env: { API_PROCESSES: '2', METRICS_PORT: String(metricsPort) } });
    await ready(service, 90_000, '/openapi.json');
    log = new SqliteEventLog(dataPaths(dataDir).events);
    positions = (await positionCodecOf(loadConfig({ DATA_DIR: dataDir }))).forTenant('demo');
    anonymous = (await fresh(port, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token;
    member = await demoMemberToken(service.base);
    expect((await fresh(port, 'POST', `/v1/me/registrations/${TIMED_AUCTION}`, member)).status).to.equal(200);
    for (let n = 1; n <= 3; n++)
      await importAnyRecord(log, {
        kind: 'member',
        tenant: 'demo',
        memberId: 924_000 + n,
        email: `bidder${n}@issue24.example.com`,
        password: BIDDER_PASSWORD,
        firstName: 'Bidder',
        lastName: String(n),
        language: 'en',
        phone: '+31201234567',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: [],
      });
    for (let n = 1; n <= 3; n++) {
      let session = { status: 0, body: null as any };
      for (let i = 0; i < 50 && session.status !== 200; i++, await sleep(100))
        session = await fresh(port, 'POST', '/v1/sessions', anonymous, {
          Email: `bidder${n}@issue24.example.com`,
          Password: BIDDER_PASSWORD,
        });
      expect(session.status, JSON.stringify(session.body)).to.equal(200);
      bidders.push(session.body.Token);
      expect((await fresh(port, 'POST', `/v1/me/registrations/${TIMED_AUCTION}`, session.body.Token)).status).to.equal(200);
    }
  });

  after(async () => {
    await log?.close();
    if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Lots of the timed auction, catalogued through the log (as `npm run import` does), ending at `endTime`. */
  async function timedLots(firstId: number, count: number, endTime: string): Promise<number[]> {
    const ids = Array.from({ length: count }, (_, i) => firstId + i);
    for (const lotId of ids)
      await importAnyRecord(log, {
        kind: 'lot',
        tenant: 'demo',
        lotId,
        auctionId: TIMED_AUCTION,
        lotNumber: lotId,
        categoryId: null,
        texts: { en: { title: `Issue 24 lot ${lotId}`, description: 'A lot of the spec.' } },
        attributes: [],
        images: [],
        hotLot: false,
        vatFree: false,
        currency: 'EUR',
        startingPrice: 1000,
        estimateLow: 1000,
        estimateHigh: 2000,
        endTime,
        combiId: null,
        ownerId: null,
      });
    for (const lotId of ids) {
      for (let i = 0; i < 100 && (await fresh(port, 'GET', `/v1/lots/${lotId}`, anonymous)).status !== 200; i++) await sleep(50);
    }
    return ids;
  }

  it('answers /readyz 200 on every process all through a write load (projections a moment behind are ready)', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
    const put = (lotId: number, type: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ Type: type });
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'PUT',
            path: `/v1/me/watchlist/${lotId}`,
            agent,
            headers: {
              'Api-Key': SERVICE_API_KEY,
              Authorization: `Bearer ${member}`,
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(body),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const until = Date.now() + 4000;
    let writes = 0;
    const load = Array.from({ length: 10 }, async (_, c) => {
      // Each PUT changes the lot's watch type: every one appends an event.
      for (let i = 0; Date.now() < until; i++) {
        expect(await put(2001 + c, i % 2 === 0 ? 'favourite' : 'watch')).to.equal(200);
        writes++;
      }
    });
    const answers: Array<{ where: string; status: number; body: any }> = [];
    const polls = (async () => {
      await sleep(300);
      while (Date.now() < until) {
        for (const [where, url] of [
          ['api port', `http://127.0.0.1:${port}/readyz`],
          ['primary', `http://127.0.0.1:${metricsPort}/readyz`],
          ['api process 1', `http://127.0.0.1:${metricsPort + 1}/readyz`],
          ['api process 2', `http://127.0.0.1:${metricsPort + 2}/readyz`],
        ]) {
          const response = await fetch(url);
          answers.push({ where, status: response.status, body: await response.json() });
        }
        await sleep(20);
      }
    })();
    await Promise.all([...load, polls]);
    agent.destroy();
    expect(writes, 'watchlist writes').to.be.above(200);
    expect(answers.length).to.be.above(40);
    const notReady = answers.filter((a) => a.status !== 200);
    expect(notReady.map((a) => `${a.where}: ${a.status} ${JSON.stringify(a.body)}`).slice(0, 3)).to.deep.equal([]);
    // Where each projection stands stays visible: positions, caught up or not, the lag, the bound.
    const { body } = answers.find((a) => a.where === 'api process 1')!;
    expect(body).to.include({ status: 'ready', role: 'api', maxLagSeconds: 10 });
    expect(body.projections.watchlist).to.have.keys('position', 'caughtUp', 'lagSeconds', 'runs');
    expect(body.projections.watchlist.runs).to.equal('elsewhere');
  });

  it('shows a bid on every cached answer of the lot, on either process, from the first read after its 200', async () => {
    const reads = (lotId: number): Array<[string, string | null]> => [
      [`/v1/lots/${lotId}`, anonymous],
      [`/v1/lots/${lotId}`, member],
      [`/v1/lots/${lotId}/bids`, anonymous],
      [`/v1/lots?AuctionId=${TIMED_AUCTION}&PageSize=100`, anonymous],
      ['/v1/bids/latest?Take=5', anonymous],
    ];
    const page = (await fresh(port, 'GET', `/v1/lots?AuctionId=${TIMED_AUCTION}&PageSize=100`, anonymous)).body.Items as Array<{
      Id: number;
      BidCount: number;
    }>;
    const lots = page.filter((l) => l.Id < 7000 && l.BidCount === 0).slice(0, 4);
    expect(lots).to.have.length(4);
    const stale: string[] = [];
    for (const { Id: lotId } of lots) {
      // Warm: each answer asked for four times, so that both processes keep it (kept from the second ask).
      for (const [url, token] of reads(lotId))
        for (let i = 0; i < 4; i++) expect((await fresh(port, 'GET', url, token)).status).to.equal(200);
      const minimum = (await fresh(port, 'GET', `/v1/lots/${lotId}`, anonymous)).body.MinimumNextBid;
      const bid = await fresh(port, 'POST', '/v1/me/bids', member, { LotId: lotId, MaxAmount: minimum });
      expect(bid.status, JSON.stringify(bid.body)).to.equal(200);
      const { BidCount, CurrentBid } = bid.body;
      for (const [url, token] of reads(lotId))
        for (let i = 0; i < 4; i++) {
          const { status, body } = await fresh(port, 'GET', url, token);
          expect(status).to.equal(200);
          const shown = url.endsWith('/bids')
            ? body.Items.length === BidCount && body.Items[0].Amount === CurrentBid
            : url.startsWith('/v1/bids/latest')
              ? body[0]?.LotId === lotId && body[0].Amount === CurrentBid
              : url.startsWith('/v1/lots?')
                ? body.Items.some((l: { Id: number; BidCount: number }) => l.Id === lotId && l.BidCount === BidCount)
                : body.BidCount === BidCount && body.CurrentBid === CurrentBid;
          if (!shown) stale.push(`${url} (${token === member ? 'member' : 'anonymous'}) after the bid on lot ${lotId}`);
        }
    }
    expect(stale).to.deep.equal([]);
  });

  it("shows a watch and an unwatch on the member's watchlist, on either process, from the first read after its 200", async () => {
    const stale: string[] = [];
    for (const lotId of [31, 32, 33]) {
      for (let i = 0; i < 4; i++) await fresh(port, 'GET', '/v1/me/watchlist?PageSize=100', member);
      expect((await fresh(port, 'PUT', `/v1/me/watchlist/${lotId}`, member, { Type: 'favourite' })).status).to.equal(200);
      for (let i = 0; i < 4; i++) {
        const items = (await fresh(port, 'GET', '/v1/me/watchlist?PageSize=100', member)).body.Items as Array<{ Id: number }>;
        if (!items.some((item) => item.Id === lotId)) stale.push(`lot ${lotId} missing after its watch`);
      }
      expect((await fresh(port, 'DELETE', `/v1/me/watchlist/${lotId}`, member)).status).to.equal(200);
      for (let i = 0; i < 4; i++) {
        const items = (await fresh(port, 'GET', '/v1/me/watchlist?PageSize=100', member)).body.Items as Array<{ Id: number }>;
        if (items.some((item) => item.Id === lotId)) stale.push(`lot ${lotId} still there after its unwatch`);
      }
    }
    expect(stale).to.deep.equal([]);
  });

  it('lists a bid history in the order the lot decided its bids after parallel bids through both processes', async () => {
    const lots = await timedLots(7101, 6, new Date(Date.now() + 3600_000).toISOString());
    const faults: string[] = [];
    for (const lotId of lots) {
      // Three bidders, three rising maxima each, all at once: the lot's stream decides them one after another.
      const answers = await Promise.all(
        bidders.flatMap((token, b) =>
          [0, 1, 2].map((k) => fresh(port, 'POST', '/v1/me/bids', token, { LotId: lotId, MaxAmount: 2000 + 1000 * k + 300 * b })),
        ),
      );
      expect(answers.filter((a) => a.status === 200).length, JSON.stringify(answers.map((a) => a.status))).to.be.at.least(3);
      const lot = (await fresh(port, 'GET', `/v1/lots/${lotId}`, anonymous)).body;
      const history = (await fresh(port, 'GET', `/v1/lots/${lotId}/bids`, anonymous)).body.Items as Array<{
        Amount: number;
        PlacedAt: string;
      }>;
      expect(history).to.have.length(lot.BidCount);
      if (history[0].Amount !== lot.CurrentBid) faults.push(`lot ${lotId}: newest ${history[0].Amount}, CurrentBid ${lot.CurrentBid}`);
      for (let i = 1; i < history.length; i++) {
        const [newer, older] = [history[i - 1], history[i]];
        if (newer.Amount <= older.Amount) faults.push(`lot ${lotId}: ${newer.Amount} listed after ${older.Amount}`);
        if (newer.PlacedAt < older.PlacedAt) faults.push(`lot ${lotId}: ${newer.PlacedAt} listed after ${older.PlacedAt}`);
      }
    }
    expect(faults).to.deep.equal([]);
  });

  /** The auction stream's public events about these lots from the log after `from`, as `position event`. */
  async function loggedAfter(from: number, lots: number[]): Promise<string[]> {
    const told: Record<string, string> = { BidPlaced: 'bid', LotEndTimeExtended: 'extended', LotSettled: 'closed' };
    return (await log.readAll({ fromPosition: from, maxCount: 100_000 }))
      .filter((e) => told[e.type] && lots.includes(e.data.lotId as number))
      .map((e) => `${e.position} ${told[e.type]}`);
  }
  const carriedOf = (messages: SseMessage[], lots: number[]) =>
    messages.filter((m) => m.event && lots.includes(JSON.parse(m.data ?? '{}').LotId)).map((m) => `${decodePosition(m.id!)} ${m.event}`);
  /** The position a stream says it starts at: the `id:` of its opening, which is no event. */
  const openedAt = (stream: OpenStream) => decodePosition(stream.messages.find((m) => m.id && !m.event)?.id ?? '');
  const streamHeaders = () => ({ 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${anonymous}` });

  it('starts a stream where its opening id says and carries every event after it, even one opened as bids arrive', async () => {
    const lots = await timedLots(7301, 12, new Date(Date.now() + 3600_000).toISOString());
    let carriedSome = 0;
    // The first two rounds start each process's reader of the tenant's events (its hub) while the bids come.
    for (const lotId of lots) {
      const opening = openStream(service.base, `/v1/auctions/${TIMED_AUCTION}/stream`, streamHeaders());
      const bids = await Promise.all(
        bidders.slice(0, 2).map((token, b) => fresh(port, 'POST', '/v1/me/bids', token, { LotId: lotId, MaxAmount: 2000 + 1000 * b })),
      );
      expect(bids.map((b) => b.status)).to.deep.equal([200, 200]);
      const stream = await opening;
      try {
        for (let i = 0; i < 40 && openedAt(stream) === null; i++) await sleep(25);
        const from = openedAt(stream);
        expect(from, 'the opening names a position').to.be.a('number');
        const expected = await loggedAfter(from!, [lotId]);
        for (let i = 0; i < 80 && carriedOf(stream.messages, [lotId]).length < expected.length; i++) await sleep(25);
        expect(carriedOf(stream.messages, [lotId]), `lot ${lotId}`).to.deep.equal(expected);
        if (expected.length > 0) carriedSome++;
      } finally {
        stream.close();
      }
    }
    expect(carriedSome, 'rounds whose stream opened before some of its bids').to.be.above(0);
  });

  it('resumes a stream dropped before its first event from its opening id, with what came meanwhile', async () => {
    const [lotId] = await timedLots(7401, 1, new Date(Date.now() + 3600_000).toISOString());
    const first = await openStream(service.base, `/v1/auctions/${TIMED_AUCTION}/stream`, streamHeaders());
    for (let i = 0; i < 40 && openedAt(first) === null; i++) await sleep(25);
    const id = first.messages.find((m) => m.id && !m.event)!.id!;
    first.close();
    expect(first.messages.filter((m) => m.event)).to.deep.equal([]);
    expect((await fresh(port, 'POST', '/v1/me/bids', bidders[0], { LotId: lotId, MaxAmount: 2000 })).status).to.equal(200);
    // As an EventSource reconnects: with the last event id it was given, the opening's.
    const again = await openStream(service.base, `/v1/auctions/${TIMED_AUCTION}/stream`, { ...streamHeaders(), 'Last-Event-ID': id });
    try {
      const [bid] = await again.events(1, 5000);
      expect(bid.event).to.equal('bid');
      expect(JSON.parse(bid.data!)).to.include({ LotId: lotId, CurrentBid: 1000, BidCount: 1 });
    } finally {
      again.close();
    }
  });

  it('carries every bid, extension and close to every open stream through many soft closes, and to one that keeps reconnecting', async () => {
    // A 3-second extension window, so that lots close within the spec.
    await importAnyRecord(log, {
      kind: 'tenant',
      tenant: 'demo',
      name: 'Demo Auctions',
      languages: ['en', 'sv', 'de'],
      defaultLanguage: 'en',
      currency: 'EUR',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'contact@demo.example.com',
      country: 'NL',
      vatRate: 21,
      increments: [...DEFAULT_INCREMENTS],
      extensionWindowSeconds: 3,
    });
    const endTime = Date.now() + 9000;
    const lots = await timedLots(7201, 10, new Date(endTime).toISOString());
    const headers = streamHeaders();
    const url = `/v1/auctions/${TIMED_AUCTION}/stream`;
    const from = await log.headPosition();
    // Four streams, open before the first bid (two on each process), and one client that reconnects all along.
    const streams: OpenStream[] = [];
    for (let i = 0; i < 4; i++) {
      const stream = await openStream(service.base, url, headers);
      expect(stream.status).to.equal(200);
      streams.push(stream);
    }
    let closing = false;
    const reconnecting = (async () => {
      const seen: SseMessage[] = [];
      let last = positions.token(from);
      while (!closing) {
        const stream = await openStream(service.base, url, { ...headers, 'Last-Event-ID': last });
        await sleep(150 + Math.random() * 300);
        stream.close();
        // As an EventSource does: the last id it was given (an event's, or the opening's) is the next Last-Event-ID.
        for (const message of stream.messages.filter((m) => m.id)) {
          if (message.event) seen.push(message);
          last = message.id!;
        }
      }
      return seen;
    })();
    try {
      // Bids in each lot's last seconds: every public bid moves its end time; rising maxima from three bidders.
      await sleep(Math.max(0, endTime - 2500 - Date.now()));
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(
          lots.map((lotId) => fresh(port, 'POST', '/v1/me/bids', bidders[round], { LotId: lotId, MaxAmount: 2000 + 1000 * round })),
        );
        expect(answers.map((a) => a.status)).to.deep.equal(lots.map(() => 200));
        await sleep(500);
      }
      // Every lot closes at its moved end time (its LotSettled).
      const deadline = Date.now() + 30_000;
      const settled = async () =>
        (await log.readAll({ fromPosition: from, maxCount: 100_000 })).filter(
          (e) => e.type === 'LotSettled' && lots.includes(e.data.lotId as number),
        );
      while ((await settled()).length < lots.length) {
        expect(Date.now(), 'every lot closed').to.be.below(deadline);
        await sleep(200);
      }
      await sleep(1000);
    } finally {
      closing = true;
      for (const stream of streams) stream.close();
    }
    const expected = await loggedAfter(from, lots);
    expect(expected.filter((e) => e.endsWith('extended')).length, 'extensions').to.be.at.least(lots.length * 3);
    expect(expected.filter((e) => e.endsWith('closed')).length, 'closes').to.equal(lots.length);
    for (const [i, stream] of streams.entries()) expect(carriedOf(stream.messages, lots), `stream ${i + 1}`).to.deep.equal(expected);
    expect(carriedOf(await reconnecting, lots), 'the stream that reconnected').to.deep.equal(expected);
  });
});
