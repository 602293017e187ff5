// An auction's live stream (API.md operation 60): bids, extensions and live status as Server-Sent Events, only of
// that auction, no member data, resumable with Last-Event-ID, a reset for a position too old, and a bound per process.
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { openStream } from '../support/sse.ts';
import { AuctionStreamHub } from '../../queries/auction-stream/hub.ts';

const TIMED_AUCTION = 10;

describe("an auction's live stream", function () {
  this.timeout(60_000);
  let server: TestServer;
  let member: string;
  let lotIds: number[];
  let minimum: Map<number, number>;
  let headers: Record<string, string>;
  const bid = (lotId: number, maxAmount: number) =>
    server.request('POST', '/v1/me/bids', { token: member, body: { LotId: lotId, MaxAmount: maxAmount } });

  before(async () => {
    server = await startTestServer();
    member = await server.memberToken('demo');
    expect((await server.request('POST', `/v1/me/registrations/${TIMED_AUCTION}`, { token: member })).status).to.equal(200);
    await server.runtime.services.projector.catchUp();
    const anonymous = await server.anonymousToken();
    const lots = (await server.request('GET', `/v1/lots?AuctionId=${TIMED_AUCTION}&pageSize=10`, { token: anonymous })).body.Items;
    lotIds = lots.map((l: { Id: number }) => l.Id);
    minimum = new Map(lots.map((l: { Id: number; MinimumNextBid: number }) => [l.Id, l.MinimumNextBid]));
    headers = { 'Api-Key': server.credentials.apiKey, Authorization: `Bearer ${anonymous}` };
  });
  after(async () => server?.close());

  it('sends each bid on the auction with the lot as it now stands, no member data, and nothing of other auctions', async () => {
    const stream = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, headers);
    try {
      expect(stream.status).to.equal(200);
      expect(stream.headers['content-type']).to.match(/^text\/event-stream/);
      // A bid on another auction (intake, external) is not told here.
      await importAnyRecord(server.runtime.services.log, {
        kind: 'bid',
        tenant: 'demo',
        lotId: 1,
        bidId: 'stream-spec-1',
        amount: 10_000_000,
        bidType: 'floor',
        placedAt: new Date().toISOString(),
      });
      const placed = await bid(lotIds[0], minimum.get(lotIds[0])! + 5000);
      expect(placed.status, placed.text).to.equal(200);
      const [message] = await stream.events(1);
      expect(message.event).to.equal('bid');
      const data = JSON.parse(message.data!);
      expect(data).to.deep.equal({
        LotId: lotIds[0],
        CurrentBid: placed.body.CurrentBid,
        Currency: 'EUR',
        BidCount: placed.body.BidCount,
        MinimumNextBid: placed.body.MinimumNextBid,
        ReserveMet: placed.body.ReserveMet,
        EndTime: placed.body.EndTime,
        PlacedAt: data.PlacedAt,
      });
      expect(message.data).to.not.match(/member|Member|bidder@/);
      const metrics = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
      expect(metrics).to.match(/^bidder_auction_streams\{role="all"\} [1-9]/m);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stream.messages.filter((m) => m.event)).to.have.length(1);
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID with what was missed, in order, and answers reset for a position too old', async () => {
    const first = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, headers);
    await bid(lotIds[1], minimum.get(lotIds[1])!);
    const [seen] = await first.events(1);
    first.close();
    await bid(lotIds[2], minimum.get(lotIds[2])!);
    await bid(lotIds[3], minimum.get(lotIds[3])!);
    const again = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, { ...headers, 'Last-Event-ID': seen.id! });
    try {
      const missed = await again.events(2);
      expect(missed.map((m) => JSON.parse(m.data!).LotId)).to.deep.equal([lotIds[2], lotIds[3]]);
    } finally {
      again.close();
    }
    // The demo log is shorter than what the hub reads back at start: from position 0, every bid of the auction.
    const start = server.runtime.feed!.forTenant('demo').token(0);
    const all = await openStream(server.base, `/v1/auctions/${TIMED_AUCTION}/stream`, { ...headers, 'Last-Event-ID': start });
    try {
      const replayed = await all.events(4);
      expect(replayed.map((m) => JSON.parse(m.data!).LotId)).to.deep.equal([lotIds[0], lotIds[1], lotIds[2], lotIds[3]]);
    } finally {
      all.close();
    }
  });

  it('answers one reset event to a position older than what the process keeps', async () => {
    const stopping = new AbortController();
    const hub = new AuctionStreamHub({
      feed: {
        // Nothing new: a wait lasts until the stop.
        page: ({ after, waitMs, signal }) =>
          new Promise((resolve) => {
            const answer = () => resolve({ events: [], hasMore: false, through: Math.max(after, 1000) });
            if (!waitMs || signal?.aborted) return answer();
            signal?.addEventListener('abort', answer, { once: true });
          }),
        head: async () => 1000,
        token: (position) => String(position),
        position: async (text) => Number(text),
        stopping: stopping.signal,
        reading: () => () => undefined,
      },
      db: server.runtime.services.documents.forTenant('demo'),
      caughtUp: async () => undefined,
      increments: async () => [{ from: 0, increment: 100 }],
      readStream: async () => [],
      stopping: stopping.signal,
      now: () => Date.now(),
      prefillEvents: 10,
    });
    await hub.start(async () => 1000);
    expect(hub.replay(TIMED_AUCTION, 5)).to.deep.equal({ reset: true, messages: [], position: 1000 });
    expect(hub.replay(TIMED_AUCTION, 995)).to.deep.equal({ reset: false, messages: [], position: 1000 });
    expect(hub.replay(TIMED_AUCTION, null)).to.deep.equal({ reset: false, messages: [], position: 1000 });
    stopping.abort();
  });

  it("tells each bid's BidCount as of that bid, counted on the lot's stream, whatever the pages and the lot's read model", async () => {
    // Two processes read pages that end apart and the lot as it stands at each read: what a bid says must depend
    // on neither. Here the lot's read model says 7 bids already; its stream holds the bids up to each one.
    const stopping = new AbortController();
    const lotId = lotIds[0];
    const streamId = `lot-demo-${lotId}`;
    const recorded = (type: string, revision: number, position: number) => ({
      id: `e${position}`,
      type,
      version: 1,
      streamId,
      revision,
      position,
      token: String(position),
      created: new Date().toISOString(),
      data: { tenant: 'demo', lotId, amount: position * 100, placedAt: new Date().toISOString() },
    });
    const stream = [
      recorded('LotCatalogued', 0, 900),
      recorded('BidPlaced', 1, 1002),
      recorded('MaxBidPlaced', 2, 1003),
      recorded('BidPlaced', 3, 1004),
      recorded('BidPlaced', 4, 1007),
      recorded('BidPlaced', 5, 1009),
    ];
    const real = server.runtime.services.documents.forTenant('demo');
    const [stored] = await real.collection('lots').find({ _id: String(lotId) });
    const lot = { ...stored, BidCount: 7 };
    const db = {
      tenant: 'demo',
      collection: (name: string) => (name === 'lots' ? { ...real.collection(name), find: async () => [lot] } : real.collection(name)),
    } as unknown as typeof real;
    const pages = [
      [stream[1], stream[3]],
      [stream[4], stream[5]],
    ];
    const hub = new AuctionStreamHub({
      feed: {
        page: ({ after, waitMs, signal }) =>
          new Promise((resolve) => {
            if (!waitMs) return resolve({ events: [], hasMore: false, through: Math.max(after, 1000) });
            const events = pages.shift();
            if (events) return resolve({ events, hasMore: false, through: events.at(-1)!.position });
            signal?.addEventListener('abort', () => resolve({ events: [], hasMore: false, through: after }), { once: true });
          }),
        head: async () => 1000,
        token: (position) => String(position),
        position: async (text) => Number(text),
        stopping: stopping.signal,
        reading: () => () => undefined,
      },
      db,
      caughtUp: async () => undefined,
      increments: async () => [{ from: 0, increment: 100 }],
      readStream: async (id, fromRevision) => stream.filter((e) => e.streamId === id && e.revision >= fromRevision),
      stopping: stopping.signal,
      now: () => Date.now(),
      prefillEvents: 10,
    });
    await hub.start(async () => 1000);
    const deadline = Date.now() + 2000;
    while (hub.replay(TIMED_AUCTION, 1000).messages.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    stopping.abort();
    const told = hub.replay(TIMED_AUCTION, 1000).messages.map((m) => [m.position, m.data.BidCount]);
    expect(told).to.deep.equal([
      [1002, 1],
      [1004, 2],
      [1007, 3],
      [1009, 4],
    ]);
  });

  it("waits for each type's read models up to that type's last event, not the page's last", async () => {
    // In an `api` process the read models are followed by stored checkpoints; a projection that skipped the
    // later events (not its types) stores their position only within a second: waiting for it cost up to that.
    const stopping = new AbortController();
    const event = (type: string, position: number) => ({
      id: `e${position}`,
      type,
      version: 1,
      streamId: `lot-${position}`,
      revision: 0,
      position,
      token: String(position),
      created: new Date().toISOString(),
      data: { tenant: 'demo', lotId: 999_000 + position },
    });
    let served = false;
    const waits: Array<[number, string[]]> = [];
    let waited!: () => void;
    const allWaited = new Promise<void>((resolve) => (waited = resolve));
    const hub = new AuctionStreamHub({
      feed: {
        page: ({ after, waitMs, signal }) =>
          new Promise((resolve) => {
            if (!waitMs) return resolve({ events: [], hasMore: false, through: after });
            if (!served) {
              served = true;
              const events = [event('LotClosed', 1001), event('BidPlaced', 1002), event('BidPlaced', 1003)];
              return resolve({ events, hasMore: false, through: 1003 });
            }
            signal?.addEventListener('abort', () => resolve({ events: [], hasMore: false, through: after }), { once: true });
          }),
        head: async () => 1000,
        token: (position) => String(position),
        position: async (text) => Number(text),
        stopping: stopping.signal,
        reading: () => () => undefined,
      },
      db: server.runtime.services.documents.forTenant('demo'),
      caughtUp: async (position, types) => {
        waits.push([position, [...types]]);
        if (waits.length === 2) waited();
      },
      increments: async () => [{ from: 0, increment: 100 }],
      readStream: async () => [],
      stopping: stopping.signal,
      now: () => Date.now(),
      prefillEvents: 10,
    });
    await hub.start(async () => 1000);
    await Promise.race([allWaited, new Promise((resolve) => setTimeout(resolve, 2000))]);
    stopping.abort();
    expect(waits.sort((a, b) => a[0] - b[0])).to.deep.equal([
      [1001, ['LotClosed']],
      [1003, ['BidPlaced']],
    ]);
  });

  it('tells of a live sale and refuses a bad Last-Event-ID, an unknown auction and missing credentials', async () => {
    const stream = await openStream(server.base, `/v1/auctions/2/stream`, headers);
    try {
      await importAnyRecord(server.runtime.services.log, {
        kind: 'live',
        tenant: 'demo',
        auctionId: 2,
        isLive: true,
        currentLotId: 420,
        at: new Date().toISOString(),
      });
      const [live] = await stream.events(1);
      expect(live.event).to.equal('live');
      expect(JSON.parse(live.data!)).to.deep.equal({ IsLive: true, CurrentLotId: 420 });
    } finally {
      stream.close();
    }
    const token = headers.Authorization.slice(7);
    expectProblem(
      await server.request('GET', `/v1/auctions/${TIMED_AUCTION}/stream`, { token, headers: { 'Last-Event-ID': 'nope' } }),
      400,
    );
    expectProblem(await server.request('GET', '/v1/auctions/9999/stream', { token }), 404);
    // Ids are positions opaque per house: one of demo2's, or one past the log's end, is not a position of this stream.
    const head = await server.runtime.services.log.headPosition();
    for (const id of [server.runtime.feed!.forTenant('demo2').token(head), server.runtime.feed!.forTenant('demo').token(head + 1000)])
      expectProblem(await server.request('GET', `/v1/auctions/${TIMED_AUCTION}/stream`, { token, headers: { 'Last-Event-ID': id } }), 400);
    expectProblem(await server.request('GET', `/v1/auctions/${TIMED_AUCTION}/stream`, { token: null }), 401);
  });
});
