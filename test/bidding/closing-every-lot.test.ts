// Every lot of a timed auction closes at its end time, bid on or not (API.md "Front ends in a browser"): the
// auction stream says `closed` for each, a closed lot answers MinimumNextBid null and takes no bid, and the lots
// of external auctions are left to intake.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { importAnyRecord } from '../../app/features/intake.ts';
import { DEMO_TIMED_AUCTION, DEMO_TIMED_FIRST_LOT } from '../../app/seed/demo.ts';
import { closeLotJob } from '../../commands/bidding/jobs.ts';
import { biddingProjection } from '../../projections/bidding/projection.ts';
import { catalogueProjection } from '../../projections/catalogue/projection.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import { collectionsOf, replayed } from '../support/replay.ts';
import { openStream } from '../support/sse.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TIMED = 910;
const EXTERNAL = 911;
const LATER_TIMED = 912;

const auctionRecord = (auctionId: number, bidding: 'timed' | 'external') => ({
  kind: 'auction',
  tenant: 'demo2',
  auctionId,
  auctionType: 1,
  texts: { en: { title: `Every lot closes ${auctionId}`, description: '' } },
  startTime: new Date(Date.now() - 3600_000).toISOString(),
  endTime: new Date(Date.now() + 3600_000).toISOString(),
  currency: 'SEK',
  requiresTermsAcceptance: false,
  bidding,
});

const lotRecord = (lotId: number, auctionId: number, endTime: Date, extra: Record<string, unknown> = {}) => ({
  kind: 'lot',
  tenant: 'demo2',
  lotId,
  auctionId,
  lotNumber: lotId - 9100,
  categoryId: null,
  texts: { en: { title: `Lot ${lotId}`, description: 'A lot that ends in seconds.' } },
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

/** The lot's close and settlement on the log, if any. */
async function closesOf(log: EventLog, lotId: number) {
  const events = await log.readAll({ fromPosition: 0, maxCount: 1_000_000 });
  return events.filter((e) => (e.type === 'LotClosed' || e.type === 'LotSettled') && (e.data as { lotId: number }).lotId === lotId);
}

async function settled(log: EventLog, lotId: number, withinMs = 15_000) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const found = (await closesOf(log, lotId)).find((e) => e.type === 'LotSettled');
    if (found) return found.data as { sold: boolean; hammerPrice: number | null };
    if (Date.now() > deadline) throw new Error(`lot ${lotId} was not settled within ${withinMs} ms`);
    await sleep(100);
  }
}

describe('every lot of a timed auction closes at its end time', function () {
  this.timeout(60_000);
  let server: TestServer;
  let member: string;
  let anonymous: string;
  const intake = async (record: Record<string, unknown>) => {
    await importAnyRecord(server.runtime.services.log, record);
    await server.runtime.services.projector.catchUp();
  };
  const bid = (lotId: number, maxAmount: number) =>
    server.request('POST', '/v1/me/bids', { token: member, body: { LotId: lotId, MaxAmount: maxAmount } });
  const lot = async (lotId: number) => (await server.request('GET', `/v1/lots/${lotId}`, { token: anonymous })).body;

  before(async () => {
    server = await startTestServer();
    // demo2 with an extension window of 1 second: the bids below, seconds before the end, extend nothing.
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
    await intake(auctionRecord(TIMED, 'timed'));
    await intake(auctionRecord(EXTERNAL, 'external'));
    member = await server.memberToken('demo2');
    anonymous = await server.anonymousToken('demo2');
    expect((await server.request('POST', `/v1/me/registrations/${TIMED}`, { token: member })).status).to.equal(200);
  });
  after(async () => server?.close());

  it('closes every lot at its end time, sold or not, tells each on the auction stream, and then answers MinimumNextBid null and takes no bid', async () => {
    const headers = { 'Api-Key': server.credentials.apiKey, Authorization: `Bearer ${anonymous}` };
    const stream = await openStream(server.base, `/v1/auctions/${TIMED}/stream`, headers);
    try {
      const end = new Date(Date.now() + 2500);
      const [noBids, underReserve, sold] = [9101, 9102, 9103];
      await intake(lotRecord(noBids, TIMED, end));
      await intake(lotRecord(underReserve, TIMED, end, { reservePrice: 100_000 }));
      await intake(lotRecord(sold, TIMED, end));
      // Open: a minimum to bid.
      expect(await lot(noBids)).to.include({ IsClosed: false, MinimumNextBid: 1000 });
      expect((await bid(underReserve, 2000)).body).to.include({ ReserveMet: false });
      const winning = await bid(sold, 3000);
      expect(winning.status, winning.text).to.equal(200);

      // A `bid` for each bid, then a `closed` for each of the three lots at their end time.
      const messages = await stream.events(5, 15_000);
      expect(messages.map((m) => m.event)).to.deep.equal(['bid', 'bid', 'closed', 'closed', 'closed']);
      const closed = messages.filter((m) => m.event === 'closed').map((m) => JSON.parse(m.data!));
      expect(closed).to.have.deep.members([
        { LotId: noBids, Sold: false, HammerPrice: null },
        { LotId: underReserve, Sold: false, HammerPrice: null },
        { LotId: sold, Sold: true, HammerPrice: winning.body.CurrentBid },
      ]);
      for (const lotId of [noBids, underReserve, sold]) {
        const events = await closesOf(server.runtime.services.log, lotId);
        expect(events.map((e) => e.type)).to.deep.equal(['LotClosed', 'LotSettled']);
        expect(Date.parse((events[0].data as { closedAt: string }).closedAt)).to.be.at.least(end.getTime());
      }

      // Closed: no minimum, in the lot, the lot list and the search; a bid is 409.
      await server.runtime.services.projector.catchUp();
      expect(await lot(noBids)).to.include({ IsClosed: true, MinimumNextBid: null });
      expect(await lot(sold)).to.include({ IsClosed: true, MinimumNextBid: null, CurrentBid: winning.body.CurrentBid });
      const list = await server.request('GET', `/v1/lots?AuctionId=${TIMED}&ShowClosedLots=true`, { token: anonymous });
      expect(list.status, list.text).to.equal(200);
      const listed = list.body.Items as Array<{ Id: number; MinimumNextBid: number | null }>;
      expect(listed.filter((l) => [noBids, underReserve, sold].includes(l.Id)).map((l) => l.MinimumNextBid)).to.deep.equal([
        null,
        null,
        null,
      ]);
      const search = await server.request('GET', `/v1/lots/search?q=seconds&AuctionId=${TIMED}&ShowClosedLots=true`, { token: anonymous });
      expect(search.status, search.text).to.equal(200);
      const found = (search.body.Items as Array<{ Id: number; MinimumNextBid: number | null }>).filter((l) =>
        [noBids, underReserve, sold].includes(l.Id),
      );
      expect(found.map((l) => l.MinimumNextBid)).to.deep.equal([null, null, null]);
      expectProblem(await bid(noBids, 5000), 409);
    } finally {
      stream.close();
    }
  });

  it('answers MinimumNextBid null once the end time has passed by the clock, before the close job has run', async () => {
    // An external auction's lot: never closed by an event here, closed by its end time alone.
    await intake(lotRecord(9111, EXTERNAL, new Date(Date.now() + 1000)));
    expect(await lot(9111)).to.include({ IsClosed: false, MinimumNextBid: 1000 });
    await sleep(1100);
    expect(await lot(9111)).to.include({ IsClosed: true, MinimumNextBid: null });
  });

  it("does not close an external auction's lot: intake does", async () => {
    await intake(lotRecord(9112, EXTERNAL, new Date(Date.now() + 500)));
    await sleep(1500);
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(5000);
    expect(await closesOf(server.runtime.services.log, 9112)).to.deep.equal([]);
    expect(await closesOf(server.runtime.services.log, 9111)).to.deep.equal([]);
  });

  it('closes the lots of an auction that became timed after they were catalogued', async () => {
    await intake(auctionRecord(LATER_TIMED, 'external'));
    await intake(lotRecord(9121, LATER_TIMED, new Date(Date.now() + 1500)));
    await intake(lotRecord(9122, LATER_TIMED, new Date(Date.now() + 3600_000)));
    await intake(auctionRecord(LATER_TIMED, 'timed'));
    expect(await settled(server.runtime.services.log, 9121)).to.include({ sold: false, hammerPrice: null });
    // The other is planned for its own end time, an hour on.
    const planned = closeLotJob('demo2', 9122, (await lot(9122)).EndTime as string);
    expect(await server.runtime.services.jobs.getState(planned.jobId)).to.equal('delayed');
  });

  it('plans again when a re-import moves the end time, and closes at the new one', async () => {
    await intake(lotRecord(9131, TIMED, new Date(Date.now() + 3600_000)));
    const end = new Date(Date.now() + 1500);
    await intake(lotRecord(9131, TIMED, end));
    expect(await settled(server.runtime.services.log, 9131)).to.include({ sold: false, hammerPrice: null });
    const [closed] = await closesOf(server.runtime.services.log, 9131);
    expect(Date.parse((closed.data as { closedAt: string }).closedAt)).to.be.at.least(end.getTime());
  });

  it("plans the closes of the demo data's timed auction at its lots' end times", async () => {
    const first = await server.request('GET', `/v1/lots/${DEMO_TIMED_FIRST_LOT}`, { token: await server.anonymousToken('demo') });
    expect(first.body.AuctionId).to.equal(DEMO_TIMED_AUCTION.id);
    const planned = closeLotJob('demo', DEMO_TIMED_FIRST_LOT, first.body.EndTime as string);
    expect(await server.runtime.services.jobs.getState(planned.jobId)).to.equal('delayed');
  });

  it("replays the log into fresh projections with the same lots and bidders' views as the live ones", async () => {
    const { log, documents, projector } = server.runtime.services;
    await projector.catchUp();
    const projections = [biddingProjection, catalogueProjection];
    const [live, replay] = [await collectionsOf(documents, projections, ['demo2']), await replayed(log, projections, ['demo2'])];
    expect(replay).to.deep.equal(live);
  });
});

describe('a timed lot whose end time passed while the service was down', function () {
  this.timeout(60_000);

  it('closes when the service starts again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-closes-down-'));
    try {
      const first = await startTestServer({ dataDir, seed: false });
      const end = new Date(Date.now() + 1000);
      try {
        await importAnyRecord(first.runtime.services.log, auctionRecord(TIMED, 'timed'));
        await importAnyRecord(first.runtime.services.log, lotRecord(9141, TIMED, end));
        await first.runtime.services.projector.catchUp();
        expect(await closesOf(first.runtime.services.log, 9141)).to.deep.equal([]);
      } finally {
        await first.close();
      }
      await sleep(Math.max(0, end.getTime() - Date.now() + 200));
      const again = await startTestServer({ dataDir, seed: false });
      try {
        expect(await settled(again.runtime.services.log, 9141)).to.include({ sold: false, hammerPrice: null });
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
