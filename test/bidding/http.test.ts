// Timed bidding through HTTP (API.md "Timed bidding", operations 58, 59, 61): the demo's timed auction, members who
// register and bid, proxy bidding, reserve, soft close, the rules' refusals, Idempotency-Key, and the public bids.
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { collectionsOf, replayed } from '../support/replay.ts';
import { biddingProjection } from '../../projections/bidding/projection.ts';
import { catalogueProjection } from '../../projections/catalogue/projection.ts';
import { bidsProjection } from '../../projections/bids/projection.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const TIMED_AUCTION = 10;

describe('timed bidding over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  let lots: Array<{ Id: number; StartingPrice: number; EndTime: string; ReserveMet: boolean | null; MinimumNextBid: number }>;
  const tokens = new Map<number, string>();
  const bid = (memberId: number, body: unknown, headers: Record<string, string> = {}) =>
    server.request('POST', '/v1/me/bids', { token: tokens.get(memberId), body, headers });
  const lot = async (id: number) => (await server.request('GET', `/v1/lots/${id}`, { token: await server.anonymousToken() })).body;

  before(async () => {
    server = await startTestServer();
    const anonymous = await server.anonymousToken();
    const page = await server.request('GET', `/v1/lots?AuctionId=${TIMED_AUCTION}&pageSize=100`, { token: anonymous });
    expect(page.status, page.text).to.equal(200);
    lots = page.body.Items;
    // Bidders 101..104: signed up through intake, registered for the timed auction (approved at once).
    for (const memberId of [101, 102, 103, 104])
      await importAnyRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId,
        email: `bidder-${memberId}@example.com`,
        password: 'a long enough password 123',
        firstName: 'Bidder',
        lastName: String(memberId),
        language: 'en',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    await server.runtime.services.projector.catchUp();
    for (const memberId of [101, 102, 103, 104]) {
      tokens.set(memberId, server.issueMemberToken('demo', memberId));
      const registered = await server.request('POST', `/v1/me/registrations/${TIMED_AUCTION}`, { token: tokens.get(memberId) });
      expect(registered.status, registered.text).to.equal(200);
    }
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  it('serves the demo timed auction: BiddingMode, MinimumNextBid, ReserveMet on lots, and the increment table', async () => {
    const auction = await server.request('GET', `/v1/auctions/${TIMED_AUCTION}`, { token: await server.anonymousToken() });
    expect(auction.body.BiddingMode).to.equal('timed');
    expect(lots.length).to.equal(60);
    for (const l of lots) {
      expect(l).to.include({ BiddingMode: 'timed' });
      expect(l.MinimumNextBid).to.equal(Math.max(l.StartingPrice, 100));
      expect(Date.parse(l.EndTime) - Date.now()).to.be.above(24 * 3600_000);
      expect(l).to.not.have.property('ReservePrice');
    }
    expect(lots.filter((l) => l.ReserveMet === false).length).to.equal(20);
    expect((await lot(1)).BiddingMode).to.equal('external');
    const increments = await server.request('GET', '/v1/increments', { token: await server.anonymousToken() });
    expect(increments.body).to.deep.equal([
      { From: 0, Increment: 100 },
      { From: 5000, Increment: 200 },
      { From: 10000, Increment: 500 },
      { From: 50000, Increment: 1000 },
      { From: 100000, Increment: 2500 },
      { From: 500000, Increment: 10000 },
    ]);
  });

  it('bids for each bidder up to their maximum: the second bidder is outbid at once, the history and latest bids show public bids', async () => {
    const target = lots.find((l) => l.ReserveMet === null)!;
    const start = target.StartingPrice;
    const first = await bid(101, { LotId: target.Id, MaxAmount: start + 5000 });
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({
      LotId: target.Id,
      MaxAmount: start + 5000,
      CurrentBid: start,
      Leading: true,
      BidCount: 1,
      ReserveMet: null,
    });
    const second = await bid(102, { LotId: target.Id, MaxAmount: start + 1000 });
    expect(second.status, second.text).to.equal(200);
    expect(second.body.Leading).to.equal(false);
    expect(second.body.CurrentBid).to.be.above(start + 1000);
    expect(second.body.BidCount).to.equal(2);
    // The lot and its public bid history, read at once (read your writes): no bidder identity, no maximum.
    const after = await lot(target.Id);
    expect(after).to.include({ CurrentBid: second.body.CurrentBid, BidCount: 2, MinimumNextBid: second.body.MinimumNextBid });
    const history = await server.request('GET', `/v1/lots/${target.Id}/bids`, { token: await server.anonymousToken() });
    expect(history.body.Items.map((i: { Amount: number }) => i.Amount)).to.deep.equal([second.body.CurrentBid, start]);
    expect(JSON.stringify(history.body)).to.not.contain(String(start + 5000));
    // The bidders' own views.
    const mine = await server.request('GET', '/v1/me/bids', { token: tokens.get(101) });
    expect(mine.body.Items.find((i: { LotId: number }) => i.LotId === target.Id)).to.include({
      Status: 'leading',
      MaxAmount: start + 5000,
    });
    const theirs = await server.request('GET', '/v1/me/bids?status=outbid', { token: tokens.get(102) });
    expect(theirs.body.Items.map((i: { LotId: number }) => i.LotId)).to.include(target.Id);
  });

  it('names each public bid by the pseudonym of the bidder who leads after it, never who they are', async () => {
    const target = lots.filter((l) => l.ReserveMet === null).at(-1)!;
    const start = target.StartingPrice;
    for (const [memberId, maxAmount] of [
      [103, start + 30_000],
      [104, start + 10_000],
      [104, start + 60_000],
      [103, start + 90_000],
    ])
      expect((await bid(memberId, { LotId: target.Id, MaxAmount: maxAmount })).status).to.equal(200);
    const history = await server.request('GET', `/v1/lots/${target.Id}/bids`, { token: await server.anonymousToken() });
    // Newest first: 103 (Bidder 1) leads again, after 104 (Bidder 2) led; 104's first maximum left 103 leading.
    expect(history.body.Items.map((i: { Pseudonym: number | null }) => i.Pseudonym)).to.deep.equal([1, 2, 1, 1]);
    expect(JSON.stringify(history.body)).to.not.match(/10[34]/);
    // A bid the house's own engine took (an external auction's) has none.
    const external = await server.request('GET', '/v1/lots/1/bids', { token: await server.anonymousToken() });
    for (const item of external.body.Items) expect(item.Pseudonym).to.equal(null);
  });

  it("raises CurrentBid to the reserve when the leader's maximum reaches it, and says only ReserveMet", async () => {
    const target = lots.find((l) => l.ReserveMet === false)!;
    const low = await bid(103, { LotId: target.Id, MaxAmount: target.MinimumNextBid });
    expect(low.body).to.include({ ReserveMet: false, CurrentBid: target.MinimumNextBid });
    const high = await bid(104, { LotId: target.Id, MaxAmount: 1_000_000 });
    expect(high.body).to.include({ Leading: true, ReserveMet: true });
    expect(high.body.CurrentBid).to.be.above(target.MinimumNextBid + 100);
    expect((await lot(target.Id)).ReserveMet).to.equal(true);
  });

  it('refuses what the rules refuse, as problem+json, and changes nothing', async () => {
    const target = lots[10];
    const before = (await server.events()).length;
    const tooLow = await bid(101, { LotId: target.Id, MaxAmount: target.MinimumNextBid - 1 });
    expectProblem(tooLow, 400, 'bid-too-low');
    expect(tooLow.body.minimumNextBid).to.equal(target.MinimumNextBid);
    for (const body of [
      { LotId: target.Id, MaxAmount: 1_000_000_001 },
      { LotId: target.Id, MaxAmount: 12.5 },
      { LotId: target.Id, MaxAmount: -5 },
      { LotId: target.Id, MaxAmount: '5000' },
      { LotId: target.Id },
      { MaxAmount: 5000 },
    ])
      expectProblem(await bid(101, body), 400, 'validation-failed');
    expectProblem(await bid(101, { LotId: 999_999, MaxAmount: 5000 }), 404, 'not-found');
    // An external auction's lot: 409.
    expectProblem(await bid(101, { LotId: 1, MaxAmount: 1_000_000 }), 409, 'auction-not-timed');
    // Not registered: 403 with the reason.
    const stranger = await bid(1, { LotId: target.Id, MaxAmount: target.MinimumNextBid }, {});
    expectProblem(stranger, 401, 'member-token-required');
    expect(stranger.body.messageKey).to.equal('message.signInRequired');
    // An anonymous token is no member token either; a token that is not one at all is another matter.
    const anonymous = await server.request('POST', '/v1/me/bids', {
      token: await server.anonymousToken(),
      body: { LotId: target.Id, MaxAmount: target.MinimumNextBid },
    });
    expectProblem(anonymous, 401, 'member-token-required');
    const forged = await server.request('POST', '/v1/me/bids', {
      token: 'not.a.token-at-all',
      body: { LotId: target.Id, MaxAmount: 5000 },
    });
    expectProblem(forged, 401, 'token-invalid');
    const noKey = await server.request('POST', '/v1/me/bids', {
      token: tokens.get(101),
      apiKey: null,
      body: { LotId: target.Id, MaxAmount: 5000 },
    });
    expectProblem(noKey, 401, 'api-key-invalid');
    const demoMember = await server.memberToken('demo');
    const notRegistered = await server.request('POST', '/v1/me/bids', {
      token: demoMember,
      body: { LotId: target.Id, MaxAmount: target.MinimumNextBid },
    });
    expectProblem(notRegistered, 403, 'not-registered');
    expect(notRegistered.body).to.include({ reason: 'not-registered', messageKey: 'message.registrationRequired' });
    // Another tenant's member cannot reach the lot.
    const other = await server.request('POST', '/v1/me/bids', {
      token: await server.memberToken('demo2'),
      body: { LotId: target.Id, MaxAmount: 99_000 },
    });
    expectProblem(other, 404, 'not-found');
    expect((await server.events()).length).to.equal(before);
    // A leader may only raise.
    const leader = await bid(103, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 500 });
    expect(leader.status).to.equal(200);
    // The same amount again is under the minimum that the leader's own bid raised.
    expectProblem(await bid(103, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 500 }), 400, 'bid-too-low');
    const raised = await bid(103, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 10_000 });
    expect(raised.body).to.include({ Leading: true, CurrentBid: leader.body.CurrentBid, BidCount: leader.body.BidCount });
    // Above the minimum but not above their own maximum: a leader may only raise.
    const lower = expectProblem(await bid(103, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 5000 }), 400, 'leader-must-raise');
    expect(lower.messageKey).to.equal('message.leaderMustRaise');
  });

  it('answers the first answer again for the same Idempotency-Key and body, 422 for another body', async () => {
    const target = lots[20];
    const headers = { 'Idempotency-Key': 'bid-once-123' };
    const first = await bid(101, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 300 }, headers);
    expect(first.status).to.equal(200);
    const events = (await server.events()).length;
    const again = await bid(101, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 300 }, headers);
    expect(again.body).to.deep.equal(first.body);
    expectProblem(await bid(101, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 999 }, headers), 422, 'idempotency-key-reused');
    expect((await server.events()).length).to.equal(events);
    // A refused first try frees its key.
    const refused = await bid(102, { LotId: target.Id, MaxAmount: 1 }, { 'Idempotency-Key': 'retry-me' });
    expectProblem(refused, 400);
    expect(
      (await bid(102, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 5000 }, { 'Idempotency-Key': 'retry-me' })).status,
    ).to.equal(200);
  });

  it('decides parallel bids on one lot one after another: one leader, every accepted bid kept, BidCount equal to the history', async () => {
    const target = lots[30];
    const answers = await Promise.all(
      [101, 102, 103, 104].flatMap((memberId, i) =>
        [0, 1, 2].map((k) => bid(memberId, { LotId: target.Id, MaxAmount: target.MinimumNextBid + 1000 * (k * 4 + i) })),
      ),
    );
    for (const a of answers) expect([200, 400]).to.include(a.status);
    const after = await lot(target.Id);
    const history = await server.request('GET', `/v1/lots/${target.Id}/bids`, { token: await server.anonymousToken() });
    expect(history.body.Items.length).to.equal(after.BidCount);
    const leaders = [];
    for (const memberId of [101, 102, 103, 104]) {
      const mine = await server.request('GET', '/v1/me/bids?status=leading', { token: tokens.get(memberId) });
      if (mine.body.Items.some((i: { LotId: number }) => i.LotId === target.Id)) leaders.push(memberId);
    }
    expect(leaders).to.have.length(1);
  });

  it('counts bids by outcome on /metrics: accepted as leading or outbid, refused by reason', async () => {
    const text = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
    const count = (outcome: string) =>
      Number(new RegExp(`^bidder_bids_total\\{outcome="${outcome}",role="all"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    // What the specs above did: each kind at least once (the parallel bids make some counts vary).
    for (const outcome of ['leading', 'outbid', 'below_minimum', 'not_found', 'not_timed', 'forbidden', 'key_reused'])
      expect(count(outcome), outcome).to.be.greaterThan(0);
  });

  it("replays the log into fresh projections with the same bidders' views, lots and bid histories as the live ones", async () => {
    const { log, documents, projector } = server.runtime.services;
    await projector.catchUp();
    const projections = [biddingProjection, catalogueProjection, bidsProjection];
    const [live, replay] = [await collectionsOf(documents, projections, ['demo']), await replayed(log, projections, ['demo'])];
    expect(replay['demo:member_bids'].length, 'the specs above placed bids').to.be.greaterThan(5);
    expect(replay).to.deep.equal(live);
  });
});
