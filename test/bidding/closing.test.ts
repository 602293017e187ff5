// Timed bidding at the end of a lot (API.md "Timed bidding", rules 6 and 7): soft close moves EndTime, the lot
// closes at its end time through a durable job (sold or unsold), the bidders' views say won and lost, no bid is
// taken after the end, and a bidder who lost the lead gets one "outbid" mail.
import path from 'node:path';
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('timed bidding at the end of a lot', function () {
  this.timeout(60_000);
  let server: TestServer;
  const AUCTION = 900;
  const tokens = new Map<number, string>();
  const intake = async (record: Record<string, unknown>) => {
    await importAnyRecord(server.runtime.services.log, record);
    await server.runtime.services.projector.catchUp();
  };
  const bid = (memberId: number, lotId: number, maxAmount: number) =>
    server.request('POST', '/v1/me/bids', { token: tokens.get(memberId), body: { LotId: lotId, MaxAmount: maxAmount } });
  const lotRecord = (lotId: number, endTime: Date, extra: Record<string, unknown> = {}) => ({
    kind: 'lot',
    tenant: 'demo2',
    lotId,
    auctionId: AUCTION,
    lotNumber: lotId - 9000,
    categoryId: null,
    texts: { en: { title: `Closing lot ${lotId}`, description: 'A lot that ends in seconds.' } },
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: 'SEK',
    startingPrice: 1000,
    estimateLow: null,
    estimateHigh: null,
    endTime: endTime.toISOString(),
    combiId: null,
    ownerId: null,
    ...extra,
  });
  const myBids = async (memberId: number) =>
    (await server.request('GET', '/v1/me/bids', { token: tokens.get(memberId) })).body.Items as Array<{ LotId: number; Status: string }>;
  const statusOf = async (memberId: number, lotId: number) => (await myBids(memberId)).find((i) => i.LotId === lotId)?.Status;

  before(async () => {
    server = await startTestServer();
    // demo2 with an extension window of 2 seconds, and a timed auction running now.
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
      extensionWindowSeconds: 2,
    });
    const now = Date.now();
    await intake({
      kind: 'auction',
      tenant: 'demo2',
      auctionId: AUCTION,
      auctionType: 1,
      texts: { en: { title: 'Closing now', description: '' } },
      startTime: new Date(now - 3600_000).toISOString(),
      endTime: new Date(now + 3600_000).toISOString(),
      currency: 'SEK',
      requiresTermsAcceptance: false,
      bidding: 'timed',
    });
    await intake({
      kind: 'member',
      tenant: 'demo2',
      memberId: 201,
      email: 'closing-201@example.com',
      password: 'a long enough password 123',
      firstName: 'Closing',
      lastName: 'Bidder',
      language: 'en',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    tokens.set(1, await server.memberToken('demo2'));
    tokens.set(201, server.issueMemberToken('demo2', 201));
    for (const token of tokens.values())
      expect((await server.request('POST', `/v1/me/registrations/${AUCTION}`, { token })).status).to.equal(200);
  });
  after(async () => server?.close());

  it('extends a lot bid on in its last seconds, closes it at the new end time, sells to the leader, and takes no later bid', async () => {
    const end = new Date(Date.now() + 4000);
    await intake(lotRecord(9001, end));
    expect((await bid(1, 9001, 1000)).body).to.include({ Leading: true, CurrentBid: 1000 });
    const second = await bid(201, 9001, 5000);
    expect(second.body).to.include({ Leading: true, EndTime: end.toISOString() });
    // Within the 2-second window before the end: the bid moves EndTime to its time plus the window.
    await sleep(Math.max(0, end.getTime() - Date.now() - 1200));
    const late = await bid(1, 9001, 9000);
    expect(late.status, late.text).to.equal(200);
    expect(Date.parse(late.body.EndTime)).to.be.above(end.getTime());
    const extendedTo = Date.parse(late.body.EndTime);
    const lot = (await server.request('GET', '/v1/lots/9001', { token: await server.anonymousToken('demo2') })).body;
    expect(lot.EndTime).to.equal(late.body.EndTime);

    // Closed by its job at the new end time: won and lost, and the sale's facts on the log.
    const deadline = Date.now() + 15_000;
    while ((await statusOf(1, 9001)) !== 'won' && Date.now() < deadline) await sleep(100);
    expect(await statusOf(1, 9001)).to.equal('won');
    expect(await statusOf(201, 9001)).to.equal('lost');
    const settled = (await server.events()).find((e) => e.type === 'LotSettled' && e.data.lotId === 9001)!;
    expect(settled.data).to.include({ sold: true, hammerPrice: late.body.CurrentBid, winnerMemberId: 1 });
    const closedAt = Date.parse(
      (await server.events()).find((e) => e.type === 'LotClosed' && e.data.lotId === 9001)!.data.closedAt as string,
    );
    expect(closedAt).to.be.at.least(extendedTo);
    const ended = expectProblem(await bid(201, 9001, 50_000), 409, 'bidding-ended');
    expect(ended.messageKey).to.equal('message.lotClosed');
  });

  it('closes a lot whose reserve was not met unsold: every bidder lost', async () => {
    await intake(lotRecord(9002, new Date(Date.now() + 2500), { reservePrice: 100_000 }));
    expect((await bid(201, 9002, 2000)).body).to.include({ ReserveMet: false });
    const deadline = Date.now() + 15_000;
    while ((await statusOf(201, 9002)) !== 'lost' && Date.now() < deadline) await sleep(100);
    expect(await statusOf(201, 9002)).to.equal('lost');
    const settled = (await server.events()).find((e) => e.type === 'LotSettled' && e.data.lotId === 9002)!;
    expect(settled.data).to.include({ sold: false, hammerPrice: null, winnerMemberId: null });
    // Both closes and the extension above are counted on /metrics.
    const metrics = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
    expect(metrics).to.match(/^bidder_lots_closed_total\{result="sold",role="all"\} [1-9]/m);
    expect(metrics).to.match(/^bidder_lots_closed_total\{result="unsold",role="all"\} [1-9]/m);
    expect(metrics).to.match(/^bidder_lot_extensions_total\{role="all"\} [1-9]/m);
  });

  it("takes bids on a lot still open after its timed auction's end time (a lot's own end time rules, as soft close moves it)", async () => {
    const now = Date.now();
    await intake(lotRecord(9004, new Date(now + 3600_000)));
    // The auction's record now says it ended a minute ago.
    await intake({
      kind: 'auction',
      tenant: 'demo2',
      auctionId: AUCTION,
      auctionType: 1,
      texts: { en: { title: 'Closing now', description: '' } },
      startTime: new Date(now - 3600_000).toISOString(),
      endTime: new Date(now - 60_000).toISOString(),
      currency: 'SEK',
      requiresTermsAcceptance: false,
      bidding: 'timed',
    });
    const placed = await bid(201, 9004, 1000);
    expect(placed.status, placed.text).to.equal(200);
    const mayBid = await server.request('GET', '/v1/me/lots/9004/registration', { token: tokens.get(201) });
    expect(mayBid.body).to.include({ MayBid: true, Reason: null });
  });

  it('mails a bidder who lost the lead once, in their language, with no other bidder named', async () => {
    await intake(lotRecord(9003, new Date(Date.now() + 3600_000)));
    await bid(201, 9003, 1500);
    await bid(1, 9003, 3000);
    await bid(201, 9003, 4000);
    await bid(1, 9003, 6000);
    await bid(201, 9003, 8000);
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(5000);
    const mails = (await readOutbox(path.join(server.dataDir, 'outbox'))).filter(
      (m) => m.Subject?.includes('outbid') && m.Body.includes('lot 3 '),
    );
    // 201 lost the lead twice within ten minutes (one mail), member 1 once.
    expect(mails.map((m) => m.To).sort()).to.deep.equal(['bidder@example.com', 'closing-201@example.com']);
    for (const mail of mails) expect(mail.Body).to.not.contain('@');
  });

  it('decides bids racing the end time on the clock at acceptance: none after the close, each public bid in the window extends, the answers agree', async () => {
    const LOT = 9010;
    await intake(lotRecord(LOT, new Date(Date.now() + 1500)));
    const catalogued = (await server.events()).find((e) => e.type === 'LotCatalogued' && e.data.lotId === LOT)!;
    // Rounds in which both bidders bid at about the same moment near the lot's end time as last answered: from
    // 60 ms before it, 40 ms later each round, so bids land on both sides of it; each maximum a new highest.
    type Sent = { memberId: number; sentAt: number; receivedAt: number; status: number; body: any; text: string };
    const sent: Sent[] = [];
    let knownEnd = Date.parse(catalogued.data.endTime as string);
    let next = 1000;
    const refused = new Set<number>();
    const stop = Date.now() + 8000;
    for (let round = 0; !(refused.has(1) && refused.has(201)) && Date.now() < stop; round++) {
      const target = knownEnd - 60 + 40 * round;
      await Promise.all(
        [1, 201].map(async (memberId) => {
          await sleep(Math.max(0, target + Math.random() * 80 - 40 - Date.now()));
          const sentAt = Date.now();
          const answer = await bid(memberId, LOT, (next += 1000));
          sent.push({ memberId, sentAt, receivedAt: Date.now(), status: answer.status, body: answer.body, text: answer.text });
          if (answer.status === 200) knownEnd = Math.max(knownEnd, Date.parse(answer.body.EndTime));
          if (answer.status === 409) refused.add(memberId);
        }),
      );
    }
    for (const answer of sent) expect([200, 400, 409], answer.text).to.include(answer.status);
    expect(
      sent.filter((a) => a.status === 200),
      'accepted bids',
    ).to.not.have.length(0);
    // A refusal for the end is never earlier than an end time answered before the request was sent.
    for (const answer of sent.filter((a) => a.status === 409)) {
      const answeredEnd = Math.max(
        ...sent.filter((a) => a.status === 200 && a.receivedAt <= answer.sentAt).map((a) => Date.parse(a.body.EndTime)),
        Date.parse(catalogued.data.endTime as string),
      );
      expect(answer.receivedAt, `409 answered before ${new Date(answeredEnd).toISOString()}`).to.be.at.least(answeredEnd);
    }

    // Closed by its job (bounded: at most one extension window after the last bid).
    const closed = Date.now() + 6000;
    while (!(await server.events()).some((e) => e.type === 'LotClosed' && e.data.lotId === LOT)) {
      expect(Date.now(), 'lot closed').to.be.below(closed);
      await sleep(100);
    }

    // The lot's stream in log order, against the end time in force at each event.
    const events = (await server.events()).filter((e) => e.data.lotId === LOT);
    let end = Date.parse(catalogued.data.endTime as string);
    let isClosed = false;
    let lastAnswer: string | null = null;
    const endAfter = new Map<string, number>();
    for (const [i, event] of events.entries()) {
      const { data } = event;
      switch (event.type) {
        case 'MaxBidPlaced':
          expect(isClosed, 'a maximum after LotClosed').to.equal(false);
          expect(Date.parse(data.at as string), `maximum at ${data.at as string}`).to.be.below(end);
          lastAnswer = data.bidId as string;
          break;
        case 'BidPlaced': {
          expect(isClosed, 'a bid after LotClosed').to.equal(false);
          const placedAt = Date.parse(data.placedAt as string);
          const extension = events[i + 1]?.type === 'LotEndTimeExtended' ? events[i + 1] : null;
          if (end - placedAt < 2000)
            expect(extension?.data.endTime, `extension of the bid at ${data.placedAt as string}`).to.equal(
              new Date(placedAt + 2000).toISOString(),
            );
          else expect(extension, `extension of the bid at ${data.placedAt as string}`).to.equal(null);
          break;
        }
        case 'LotEndTimeExtended':
          expect(events[i - 1].type).to.equal('BidPlaced');
          end = Math.max(end, Date.parse(data.endTime as string));
          break;
        case 'LotClosed':
          expect(isClosed, 'closed twice').to.equal(false);
          isClosed = true;
          expect(Date.parse(data.closedAt as string)).to.be.at.least(end);
          break;
      }
      // Each bid's answer says the end time in force right after its own events.
      if (lastAnswer && !isClosed) endAfter.set(lastAnswer, end);
    }
    expect(isClosed).to.equal(true);

    // The answers agree with the log, and the last accepted one with the lot's final end time.
    const accepted = sent.filter((a) => a.status === 200);
    for (const answer of accepted) expect(Date.parse(answer.body.EndTime), answer.text).to.equal(endAfter.get(answer.body.BidId));
    await server.runtime.services.projector.catchUp();
    const lot = (await server.request('GET', `/v1/lots/${LOT}`, { token: await server.anonymousToken('demo2') })).body;
    expect(Date.parse(lot.EndTime)).to.equal(end);
    expect(accepted.find((a) => a.body.BidId === lastAnswer)?.body.EndTime).to.equal(lot.EndTime);
  });
});
