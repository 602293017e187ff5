// The member's own stream (API.md operation 62): outbid, leading, won, lost and registration for the caller only,
// with the auction stream's rules (ids, Last-Event-ID, reset), opened with headers or a stream ticket.
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { openStream, type OpenStream } from '../support/sse.ts';
import { MemberStreamHub } from '../../queries/member-stream/hub.ts';

const AUCTION = 10;
const OTHER = 301;

describe("a member's own stream", function () {
  this.timeout(60_000);
  let server: TestServer;
  let first: string;
  let second: string;
  let firstId: number;
  const intake = async (record: Record<string, unknown>) => {
    await importAnyRecord(server.runtime.services.log, record);
    await server.runtime.services.projector.catchUp();
  };
  const headersOf = (token: string) => ({ 'Api-Key': server.credentials.apiKey, Authorization: `Bearer ${token}` });
  const open = (token: string, extra: Record<string, string> = {}) =>
    openStream(server.base, '/v1/me/stream', { ...headersOf(token), ...extra });
  const bid = (token: string, lotId: number, maxAmount: number) =>
    server.request('POST', '/v1/me/bids', { token, body: { LotId: lotId, MaxAmount: maxAmount } });
  const lotRecord = (lotId: number, endTime: Date) => ({
    kind: 'lot',
    tenant: 'demo',
    lotId,
    auctionId: AUCTION,
    lotNumber: lotId,
    categoryId: null,
    texts: { en: { title: `Member stream lot ${lotId}`, description: 'A lot for the member stream spec.' } },
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: 'EUR',
    startingPrice: 1000,
    estimateLow: null,
    estimateHigh: null,
    endTime: endTime.toISOString(),
    combiId: null,
    ownerId: null,
  });
  const memberRecord = {
    kind: 'member',
    tenant: 'demo',
    memberId: OTHER,
    email: 'member-stream-301@example.com',
    password: 'a long enough password 123',
    firstName: 'Second',
    lastName: 'Bidder',
    language: 'en',
    signedUpAt: new Date().toISOString(),
    confirmed: true,
    roles: ['bidder'],
  };
  const data = (stream: OpenStream) => stream.messages.filter((m) => m.event).map((m) => ({ event: m.event, data: JSON.parse(m.data!) }));

  before(async () => {
    server = await startTestServer();
    first = await server.memberToken('demo');
    firstId = (await server.request('GET', '/v1/me', { token: first })).body.Id;
    await intake(memberRecord);
    second = server.issueMemberToken('demo', OTHER);
    expect((await server.request('POST', `/v1/me/registrations/${AUCTION}`, { token: first })).status).to.equal(200);
  });
  after(async () => server?.close());

  it("tells a registration the house approves (the demo's automatic approval) to its member", async () => {
    const stream = await open(second);
    try {
      expect(stream.status).to.equal(200);
      expect(stream.headers['content-type']).to.match(/^text\/event-stream/);
      expect((await server.request('POST', `/v1/me/registrations/${AUCTION}`, { token: second })).status).to.equal(200);
      const [message] = await stream.events(1);
      expect(message.event).to.equal('registration');
      expect(JSON.parse(message.data!)).to.deep.equal({ AuctionId: AUCTION, Status: 'approved' });
    } finally {
      stream.close();
    }
  });

  it("tells the house's decision through intake to its member only", async () => {
    const theirs = await open(second);
    const mine = await open(first);
    try {
      await intake({
        kind: 'registrationDecision',
        tenant: 'demo',
        memberId: OTHER,
        auctionId: 3,
        status: 'rejected',
        at: new Date().toISOString(),
      });
      const [message] = await theirs.events(1);
      expect(message.event).to.equal('registration');
      expect(JSON.parse(message.data!)).to.deep.equal({ AuctionId: 3, Status: 'rejected' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(data(mine)).to.deep.equal([]);
    } finally {
      theirs.close();
      mine.close();
    }
  });

  it('tells the bidder who lost the lead `outbid` within a second, the new leader `leading`, and a raise `leading` with the own maximum', async () => {
    await intake(lotRecord(7001, new Date(Date.now() + 3600_000)));
    const mine = await open(first);
    const theirs = await open(second);
    try {
      const a = await bid(first, 7001, 3000);
      expect(a.status, a.text).to.equal(200);
      expect((await mine.events(1))[0].event).to.equal('leading');
      expect(JSON.parse(mine.messages.find((m) => m.event)!.data!)).to.deep.equal({ LotId: 7001, CurrentBid: 1000, MaxAmount: 3000 });

      const sentAt = Date.now();
      const b = await bid(second, 7001, 5000);
      expect(b.status, b.text).to.equal(200);
      const [, outbid] = await mine.events(2, 1000);
      expect(Date.now() - sentAt).to.be.below(1000);
      expect(outbid.event).to.equal('outbid');
      expect(JSON.parse(outbid.data!)).to.deep.equal({
        LotId: 7001,
        CurrentBid: b.body.CurrentBid,
        MinimumNextBid: b.body.MinimumNextBid,
        EndTime: b.body.EndTime,
      });
      const [leading] = await theirs.events(1);
      expect(leading.event).to.equal('leading');
      expect(JSON.parse(leading.data!)).to.deep.equal({ LotId: 7001, CurrentBid: b.body.CurrentBid, MaxAmount: 5000 });

      // The leader raises their own maximum: `leading` with it, nothing for the other bidder.
      const raise = await bid(second, 7001, 9000);
      expect(raise.status, raise.text).to.equal(200);
      const [, raised] = await theirs.events(2);
      expect(raised.event).to.equal('leading');
      expect(JSON.parse(raised.data!)).to.deep.equal({ LotId: 7001, CurrentBid: raise.body.CurrentBid, MaxAmount: 9000 });

      // A bid below the leader's maximum is outbid at once: `outbid` to its bidder, nothing to the leader.
      const low = await bid(first, 7001, raise.body.MinimumNextBid);
      expect(low.status, low.text).to.equal(200);
      expect(low.body.Leading).to.equal(false);
      const [, , below] = await mine.events(3);
      expect(below.event).to.equal('outbid');
      expect(JSON.parse(below.data!)).to.include({ LotId: 7001, CurrentBid: low.body.CurrentBid, MinimumNextBid: low.body.MinimumNextBid });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(data(theirs).map((m) => m.event)).to.deep.equal(['leading', 'leading']);

      // Never the other member's id or maximum.
      const text = JSON.stringify(mine.messages) + JSON.stringify(theirs.messages);
      expect(text).to.not.match(/Member|member-stream-301|bidder@/);
      expect(JSON.stringify(mine.messages)).to.not.include('9000');
      expect(JSON.stringify(theirs.messages)).to.not.include('"MaxAmount":3000');
      for (const m of data(mine)) expect(m.data.MaxAmount ?? 3000).to.equal(3000);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it('tells `won` to the buyer and `lost` to every other bidder when the lot closes', async () => {
    // demo2, with an extension window of 1 second, so that the lot closes at its end time in seconds.
    await intake({
      kind: 'tenant',
      tenant: 'demo2',
      name: 'Second Demo House',
      languages: ['en'],
      defaultLanguage: 'en',
      currency: 'SEK',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'contact@demo2.example.com',
      extensionWindowSeconds: 1,
    });
    const now = Date.now();
    await intake({
      kind: 'auction',
      tenant: 'demo2',
      auctionId: 900,
      auctionType: 1,
      texts: { en: { title: 'Closing now', description: '' } },
      startTime: new Date(now - 3600_000).toISOString(),
      endTime: new Date(now + 3600_000).toISOString(),
      currency: 'SEK',
      requiresTermsAcceptance: false,
      bidding: 'timed',
    });
    await intake({ ...memberRecord, tenant: 'demo2' });
    const buyer = server.issueMemberToken('demo2', OTHER);
    const loser = await server.memberToken('demo2');
    for (const token of [buyer, loser]) expect((await server.request('POST', '/v1/me/registrations/900', { token })).status).to.equal(200);
    await intake({ ...lotRecord(7002, new Date(Date.now() + 2500)), tenant: 'demo2', auctionId: 900, currency: 'SEK' });
    const mine = await open(loser);
    const theirs = await open(buyer);
    try {
      expect((await bid(loser, 7002, 2000)).status).to.equal(200);
      expect((await bid(buyer, 7002, 4000)).status).to.equal(200);
      const [, won] = await theirs.events(2, 15_000);
      expect(won.event).to.equal('won');
      const closed = (await server.events()).find((e) => e.type === 'LotSettled' && e.data.lotId === 7002)!;
      expect(JSON.parse(won.data!)).to.deep.equal({ LotId: 7002, HammerPrice: closed.data.hammerPrice });
      const [, , lost] = await mine.events(3, 5000);
      expect(lost.event).to.equal('lost');
      expect(JSON.parse(lost.data!)).to.deep.equal({ LotId: 7002 });
      expect(data(mine).map((m) => m.event)).to.deep.equal(['leading', 'outbid', 'lost']);
    } finally {
      mine.close();
      theirs.close();
    }
  });

  it("resumes after Last-Event-ID with what was missed, only the caller's, and answers reset for a position too old", async () => {
    await intake(lotRecord(7003, new Date(Date.now() + 3600_000)));
    const mine = await open(first);
    expect((await bid(first, 7003, 2000)).status).to.equal(200);
    const [seen] = await mine.events(1);
    mine.close();
    expect((await bid(second, 7003, 6000)).status).to.equal(200);
    expect((await bid(first, 7003, 9000)).status).to.equal(200);
    const again = await open(first, { 'Last-Event-ID': seen.id! });
    try {
      const [outbid, leading] = await again.events(2);
      expect([outbid.event, leading.event]).to.deep.equal(['outbid', 'leading']);
      expect(JSON.parse(leading.data!)).to.include({ LotId: 7003, MaxAmount: 9000 });
    } finally {
      again.close();
    }
  });

  it('answers one reset to a position older than what the process keeps', async () => {
    const stopping = new AbortController();
    const hub = new MemberStreamHub({
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
      readStream: async () => [],
      caughtUp: async () => undefined,
      increments: async () => [{ from: 0, increment: 100 }],
      stopping: stopping.signal,
      now: () => Date.now(),
      prefillEvents: 10,
    });
    await hub.start(async () => 1000);
    expect(hub.replay(firstId, 5)).to.deep.equal({ reset: true, messages: [], position: 1000 });
    expect(hub.replay(firstId, 995)).to.deep.equal({ reset: false, messages: [], position: 1000 });
    stopping.abort();
  });

  it('holds at most 100 member streams of a house per client address: one more is a 429 with Retry-After', async () => {
    const streams = await Promise.all(Array.from({ length: 100 }, () => open(first)));
    try {
      expect(streams.every((s) => s.status === 200)).to.equal(true);
      const refused = await server.request('GET', '/v1/me/stream', { token: first });
      expectProblem(refused, 429);
      expect(Number(refused.headers.get('retry-after'))).to.be.above(0);
      const metrics = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
      expect(metrics).to.match(/^bidder_member_streams\{role="all"\} 100$/m);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('is opened with a member ticket and no header; refuses other tokens, bad Last-Event-ID and a ticket of another path', async () => {
    const made = await server.request('POST', '/v1/stream-tickets', { token: second, body: { Path: '/v1/me/stream' } });
    expect(made.status, made.text).to.equal(200);
    const url = new URL(made.body.Url, server.base);
    const stream = await openStream(server.base, url.pathname + url.search, {});
    try {
      expect(stream.status).to.equal(200);
      await intake(lotRecord(7004, new Date(Date.now() + 3600_000)));
      expect((await bid(second, 7004, 1500)).status).to.equal(200);
      const [leading] = await stream.events(1);
      expect(leading.event).to.equal('leading');
    } finally {
      stream.close();
    }
    const anonymous = await server.anonymousToken();
    expectProblem(await server.request('GET', '/v1/me/stream', { token: anonymous }), 401);
    expectProblem(await server.request('GET', '/v1/me/stream', { token: null }), 401);
    expectProblem(await server.request('GET', '/v1/me/stream', { token: first, headers: { 'Last-Event-ID': 'not-a-position' } }), 400);
    const auctionTicket = await server.request('POST', '/v1/stream-tickets', {
      token: second,
      body: { Path: `/v1/auctions/${AUCTION}/stream` },
    });
    const wrong = await server.rawGet(`/v1/me/stream${new URL(auctionTicket.body.Url, server.base).search}`, { apiKey: null });
    expect(wrong.status).to.equal(401);
    expect(JSON.parse(wrong.body).code).to.equal('ticket-invalid');
  });
});
