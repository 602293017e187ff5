/**
 * Operations 31–33: POST and GET /v1/me/registrations/{auctionId}, GET /v1/me/lots/{lotId}/registration.
 *
 * Demo data of tenant `demo`: auction 1 current (lots 1–400), 2 current and live with terms (401–600), 3 upcoming and
 * approved by hand (601–850), 4 closed (851–1100), 5 upcoming with terms (1101–1220). The demo member 1 is approved
 * for auction 1 and pending for auction 3. Tenant `demo2` has auction 1 (lots 1–60) only, and no registrations.
 */
import { expect } from 'chai';
import { importRecord, importAnyRecord } from '../../app/features/intake.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

describe('auction and lot registration (operations 31–33)', () => {
  let server: TestServer;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });
  const token = (memberId: number, tenant = 'demo') => server.issueMemberToken(tenant, memberId);

  const post = (auctionId: number | string, t: string | undefined) =>
    server.request('POST', `/v1/me/registrations/${auctionId}`, { token: t });
  const get = (auctionId: number | string, t: string | undefined) =>
    server.request('GET', `/v1/me/registrations/${auctionId}`, { token: t });
  const lot = (lotId: number | string, t: string | undefined) => server.request('GET', `/v1/me/lots/${lotId}/registration`, { token: t });

  const status = async (auctionId: number, t: string) => {
    const response = await get(auctionId, t);
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.have.all.keys('AuctionId', 'Status');
    expect(response.body.AuctionId).to.equal(auctionId);
    return response.body.Status as string;
  };
  const mayBid = async (lotId: number, t: string) => {
    const response = await lot(lotId, t);
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.have.all.keys('LotId', 'MayBid', 'Reason');
    expect(response.body.LotId).to.equal(lotId);
    expect(response.body.MayBid).to.equal(response.body.Reason === null);
    return response.body.Reason as string | null;
  };
  /** The house's intake, then the projections catch up. */
  const intake = async (record: Record<string, unknown>) => {
    const result = await importAnyRecord(server.runtime.services.log, record);
    await server.runtime.services.projector.catchUp();
    return result;
  };
  const decision = (memberId: number, auctionId: number, decided: 'approved' | 'rejected', tenant = 'demo') =>
    intake({ kind: 'registrationDecision', tenant, memberId, auctionId, status: decided, at: new Date().toISOString() });

  const member = (memberId: number, confirmed: boolean) =>
    importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant: 'demo',
      memberId,
      email: `member${memberId}@example.com`,
      passwordHash: 'scrypt$disabled',
      firstName: 'M',
      lastName: String(memberId),
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed,
      roles: ['bidder'],
    });

  before(async () => {
    server = await startTestServer();
    // 2, 4, 5, 6, 7: confirmed members with no registration; 3 has not confirmed their email.
    for (const id of [2, 4, 5, 6, 7]) await member(id, true);
    await member(3, false);
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  describe('the demo data', () => {
    it('has the demo member approved for auction 1, pending for auction 3 (approved by hand), and unregistered elsewhere', async () => {
      const demo = await server.memberToken('demo');
      expect(await status(1, demo)).to.equal('approved');
      expect(await status(3, demo)).to.equal('pending');
      for (const auctionId of [2, 4, 5]) expect(await status(auctionId, demo), `auction ${auctionId}`).to.equal('none');
      expect(await status(1, await server.memberToken('demo2'))).to.equal('none');
    });
  });

  describe('POST /v1/me/registrations/{auctionId}', () => {
    it("approves a confirmed member at once for a current auction, appending one AuctionRegistrationRequested on the member's and auction's stream", async () => {
      const before = await head();
      const response = await post(1, token(2));
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ AuctionId: 1, Status: 'approved' });
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['AuctionRegistrationRequested']);
      expect(events[0].streamId).to.equal('registration-demo-2-1');
      expect(events[0].data).to.include({ tenant: 'demo', memberId: 2, auctionId: 1, status: 'approved', channel: 'api' });
    });

    it('shows the status in GET right after the POST (read your writes)', async () => {
      expect((await post(1, token(4))).body).to.deep.equal({ AuctionId: 1, Status: 'approved' });
      expect(await status(1, token(4))).to.equal('approved');
    });

    it('answers the current status when asked again, and appends nothing', async () => {
      const before = await head();
      for (let i = 0; i < 3; i++) {
        const again = await post(1, token(2));
        expect(again.status, again.text).to.equal(200);
        expect(again.body).to.deep.equal({ AuctionId: 1, Status: 'approved' });
      }
      expect(await head()).to.equal(before);
    });

    it('answers pending for the auction the house approves by hand (an upcoming one: registering before the sale is allowed)', async () => {
      const before = await head();
      const response = await post(3, token(2));
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ AuctionId: 3, Status: 'pending' });
      const events = await since(before);
      expect(events).to.have.length(1);
      expect(events[0].data).to.include({ memberId: 2, auctionId: 3, status: 'pending' });
      expect(await status(3, token(2))).to.equal('pending');
      expect((await post(3, token(2))).body).to.deep.equal({ AuctionId: 3, Status: 'pending' });
      expect(await head()).to.equal(before + 1);
    });

    it('answers pending for a member who has not confirmed their email, even for an automatically approved auction', async () => {
      const response = await post(1, token(3));
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ AuctionId: 1, Status: 'pending' });
      expect(await status(1, token(3))).to.equal('pending');
    });

    it('answers 409 for a closed auction, and appends nothing', async () => {
      const before = await head();
      const problem = expectProblem(await post(4, token(2)), 409, 'auction-closed');
      expect(problem.detail).to.match(/closed/);
      expect(await head()).to.equal(before);
      expect(await status(4, token(2))).to.equal('none');
    });

    it('answers 403 when the auction requires terms the member has not accepted, and registers once they are accepted', async () => {
      const before = await head();
      const problem = expectProblem(await post(5, token(2)), 403, 'terms-not-accepted');
      expect(problem).to.include({ reason: 'terms-not-accepted', messageKey: 'message.termsRequired' });
      expect(problem.detail).to.match(/terms/);
      expect(await head()).to.equal(before);
      expect(await status(5, token(2))).to.equal('none');

      const accepted = await server.request('POST', '/v1/auctions/5/terms-acceptance', { token: token(2) });
      expect(accepted.status, accepted.text).to.equal(200);
      const response = await post(5, token(2));
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ AuctionId: 5, Status: 'approved' });
      expect(await status(5, token(2))).to.equal('approved');
    });

    it("accepting the terms of another auction does not open this one's registration", async () => {
      expect((await server.request('POST', '/v1/auctions/5/terms-acceptance', { token: token(6) })).status).to.equal(200);
      expectProblem(await post(2, token(6)), 403, 'terms-not-accepted');
      expect(await status(2, token(6))).to.equal('none');
    });

    it('answers 404 for an auction that does not exist, and appends nothing', async () => {
      const before = await head();
      for (const id of [999, 2147483647]) expectProblem(await post(id, token(2)), 404);
      expect(await head()).to.equal(before);
    });

    it('answers 404 for an auction id that exists only in another tenant, and appends nothing', async () => {
      // Auction 3 is demo's; demo2 has auction 1 only.
      expect((await server.request('GET', '/v1/auctions/3', { token: await server.anonymousToken('demo') })).status).to.equal(200);
      expectProblem(await server.request('GET', '/v1/auctions/3', { token: await server.anonymousToken('demo2') }), 404);
      const before = await head();
      const demo2 = token(1, 'demo2');
      expectProblem(await post(3, demo2), 404);
      expectProblem(await get(3, demo2), 404);
      expect(await head()).to.equal(before);
    });

    it("keeps tenants apart: demo2's auction 1 is a registration of its own", async () => {
      const demo2 = token(1, 'demo2');
      const before = await head();
      const response = await post(1, demo2);
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ AuctionId: 1, Status: 'approved' });
      const events = await since(before);
      expect(events).to.have.length(1);
      expect(events[0].streamId).to.equal('registration-demo2-1-1');
      expect(events[0].data).to.include({ tenant: 'demo2', memberId: 1, auctionId: 1 });
      // The demo member of `demo` is unchanged (approved for 1 by the demo data; not for 2).
      expect(await status(2, await server.memberToken('demo'))).to.equal('none');
    });

    it('answers 400 for an auction id that is not a positive int32, and appends nothing', async () => {
      const before = await head();
      for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999', '1e3', '%20']) {
        const problem = expectProblem(await post(id, token(2)), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          id,
        ).to.include('path.auctionId');
      }
      expect(await head()).to.equal(before);
    });
  });

  describe('GET /v1/me/registrations/{auctionId}', () => {
    it('answers none for an auction the member never asked for', async () => {
      expect(await status(1, token(7))).to.equal('none');
      expect(await status(4, token(7))).to.equal('none');
    });

    it("answers the caller's own registration, not another member's", async () => {
      expect(await status(1, token(2))).to.equal('approved');
      expect(await status(1, token(7))).to.equal('none');
    });

    it('answers 404 for an unknown auction and 400 for a bad id', async () => {
      expectProblem(await get(999, token(2)), 404);
      for (const id of ['abc', '0', '2147483648']) expectProblem(await get(id, token(2)), 400);
    });
  });

  describe("the house's decision (intake record registrationDecision)", () => {
    it('approves a pending registration: RegistrationApproved, and GET and POST then answer approved', async () => {
      expect(await status(3, token(2))).to.equal('pending');
      const before = await head();
      const result = await decision(2, 3, 'approved');
      expect(result.events.map((e) => e.type)).to.deep.equal(['RegistrationApproved']);
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['RegistrationApproved']);
      expect(events[0].streamId).to.equal('registration-demo-2-3');
      expect(events[0].data).to.include({ tenant: 'demo', memberId: 2, auctionId: 3 });
      expect(await status(3, token(2))).to.equal('approved');
      expect((await post(3, token(2))).body).to.deep.equal({ AuctionId: 3, Status: 'approved' });
    });

    it('appends nothing for a decision equal to the current status', async () => {
      const before = await head();
      const result = await decision(2, 3, 'approved');
      expect(result.events).to.deep.equal([]);
      expect(await head()).to.equal(before);
    });

    it('rejects (an approval withdrawn): RegistrationRejected, and asking again answers rejected without appending', async () => {
      const result = await decision(4, 1, 'rejected');
      expect(result.events.map((e) => e.type)).to.deep.equal(['RegistrationRejected']);
      expect(await status(1, token(4))).to.equal('rejected');
      const before = await head();
      const again = await post(1, token(4));
      expect(again.status, again.text).to.equal(200);
      expect(again.body).to.deep.equal({ AuctionId: 1, Status: 'rejected' });
      expect(await head()).to.equal(before);
    });

    it('registers a member who never asked (the house registers them directly)', async () => {
      expect(await status(1, token(6))).to.equal('none');
      const result = await decision(6, 1, 'approved');
      expect(result.events.map((e) => e.type)).to.deep.equal(['RegistrationApproved']);
      expect(await status(1, token(6))).to.equal('approved');
    });

    it('refuses a record with a bad status, id or time, and appends nothing', async () => {
      const before = await head();
      const good = {
        kind: 'registrationDecision',
        tenant: 'demo',
        memberId: 7,
        auctionId: 1,
        status: 'approved',
        at: new Date().toISOString(),
      };
      for (const bad of [
        { status: 'pending' },
        { status: 'none' },
        { memberId: 0 },
        { auctionId: -1 },
        { at: 'yesterday' },
        { tenant: 'Demo!' },
        { at: undefined },
      ])
        await importAnyRecord(server.runtime.services.log, { ...good, ...bad }).then(
          () => expect.fail(`accepted ${JSON.stringify(bad)}`),
          (error: Error) => expect(error.name).to.equal('ZodError'),
        );
      expect(await head()).to.equal(before);
    });
  });

  describe('GET /v1/me/lots/{lotId}/registration', () => {
    it('may bid on an open lot of a current auction with an approved registration', async () => {
      expect(await mayBid(10, token(2))).to.equal(null);
      expect(await mayBid(10, await server.memberToken('demo'))).to.equal(null);
    });

    it('not-registered for a member who never asked', async () => {
      expect(await mayBid(10, token(5))).to.equal('not-registered');
    });

    it('registration-pending while the house has not decided', async () => {
      expect(await status(1, token(3))).to.equal('pending');
      expect(await mayBid(10, token(3))).to.equal('registration-pending');
    });

    it("registration-rejected after the house's rejection", async () => {
      expect(await mayBid(10, token(4))).to.equal('registration-rejected');
    });

    it('lot-closed for a lot closed early and for a lot of a closed auction, whatever the registration', async () => {
      await intake({ kind: 'lotClosed', tenant: 'demo', lotId: 11, closedAt: new Date(Date.now() - 60_000).toISOString() });
      expect(await mayBid(11, token(2))).to.equal('lot-closed');
      expect(await mayBid(11, token(5))).to.equal('lot-closed');
      expect(await mayBid(851, token(2))).to.equal('lot-closed');
    });

    it('auction-not-open for an open lot of an upcoming auction, even with an approved registration', async () => {
      expect(await status(3, token(2))).to.equal('approved');
      expect(await mayBid(601, token(2))).to.equal('auction-not-open');
      expect(await mayBid(601, token(5))).to.equal('auction-not-open');
    });

    it('auction-not-open for a lot still open in an auction that has closed', async () => {
      await intake({
        kind: 'lot',
        tenant: 'demo',
        lotId: 9401,
        auctionId: 4,
        lotNumber: 9401,
        categoryId: null,
        texts: { en: { title: 'Late lot', description: 'Still open.' } },
        attributes: [],
        images: [],
        hotLot: false,
        vatFree: false,
        currency: 'EUR',
        startingPrice: 1000,
        estimateLow: 2000,
        estimateHigh: 4000,
        endTime: new Date(Date.now() + 86400_000).toISOString(),
        combiId: null,
        ownerId: null,
      });
      expect((await server.request('GET', '/v1/auctions/4', { token: await server.anonymousToken('demo') })).body.Status).to.equal(
        'closed',
      );
      await decision(2, 4, 'approved');
      expect(await mayBid(9401, token(2))).to.equal('auction-not-open');
    });

    it('may bid while an upcoming auction is live, and not once the live sale stops', async () => {
      await intake({ kind: 'live', tenant: 'demo', auctionId: 3, isLive: true, currentLotId: 601, at: new Date().toISOString() });
      expect(await mayBid(601, token(2))).to.equal(null);
      expect(await mayBid(601, token(5))).to.equal('not-registered');
      await intake({ kind: 'live', tenant: 'demo', auctionId: 3, isLive: false, currentLotId: null, at: new Date().toISOString() });
      expect(await mayBid(601, token(2))).to.equal('auction-not-open');
    });

    it('terms-not-accepted before the registration: also when the house registered the member directly; may bid once accepted', async () => {
      // Auction 2 is current, live and requires its terms.
      expect(await mayBid(401, token(7))).to.equal('terms-not-accepted');
      await decision(7, 2, 'approved');
      expect(await status(2, token(7))).to.equal('approved');
      expect(await mayBid(401, token(7))).to.equal('terms-not-accepted');
      expect((await server.request('POST', '/v1/auctions/2/terms-acceptance', { token: token(7) })).status).to.equal(200);
      expect(await mayBid(401, token(7))).to.equal(null);
      // Terms accepted but not registered.
      expect((await server.request('POST', '/v1/auctions/2/terms-acceptance', { token: token(5) })).status).to.equal(200);
      expect(await mayBid(401, token(5))).to.equal('not-registered');
      expect((await post(2, token(5))).body).to.deep.equal({ AuctionId: 2, Status: 'approved' });
      expect(await mayBid(401, token(5))).to.equal(null);
    });

    it('answers 404 for an unknown lot, and for a lot id that exists only in another tenant', async () => {
      expectProblem(await lot(999_999, token(2)), 404);
      // demo2 has lots 1..60; lot 100 is demo's only.
      expect((await server.request('GET', '/v1/lots/100', { token: await server.anonymousToken('demo') })).status).to.equal(200);
      expectProblem(await server.request('GET', '/v1/lots/100', { token: await server.anonymousToken('demo2') }), 404);
      expectProblem(await lot(100, token(1, 'demo2')), 404);
      // demo2's own lot 5: the demo2 member registered for demo2's auction 1 above.
      expect(await mayBid(5, token(1, 'demo2'))).to.equal(null);
    });

    it('answers 400 for a lot id that is not a positive int32', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '2147483648']) {
        const problem = expectProblem(await lot(id, token(2)), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          id,
        ).to.include('path.lotId');
      }
    });
  });

  describe('who may use it', () => {
    it('answers 401 to an anonymous token, an application token and no token on all three operations, and appends nothing', async () => {
      const application = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
      });
      expect(application.status, application.text).to.equal(200);
      const before = await head();
      for (const t of [await server.anonymousToken('demo'), application.body.Token, undefined, 'not-a-token']) {
        expectProblem(await post(1, t), 401);
        expectProblem(await get(1, t), 401);
        expectProblem(await lot(10, t), 401);
      }
      expect(await head()).to.equal(before);
    });

    it('answers 401 to the token of a member that does not exist', async () => {
      expectProblem(await post(1, token(777)), 401);
      expectProblem(await lot(10, token(777)), 401);
    });
  });
});
