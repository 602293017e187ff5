/**
 * Operations 52 and 53: POST /v1/me/notifications and DELETE /v1/me/notifications/{id}, and the reminders
 * they send (outbox files) at the lot's actual end time minus SendTime.
 */
import { expect } from 'chai';
import path from 'node:path';
import { importRecord, type IntakeRecord } from '../../app/features/intake.ts';
import { readOutbox, type OutboxFile } from '../../src/adapters/embedded/file-outbox.ts';
import { reminderJobProcessor } from '../../commands/notifications/jobs.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();
/** A message is never written before its moment; this much is allowed for clocks read at different places. */
const TOLERANCE_MS = 250;

const texts = (title: string) => ({
  en: { title, description: 'A test lot.' },
  sv: { title: `${title} (sv)`, description: 'Ett testföremål.' },
  de: { title: `${title} (de)`, description: 'Ein Testlos.' },
});

function lotRecord(tenant: string, lotId: number, endTime: string, title = `Clock ${lotId}`): IntakeRecord {
  return {
    kind: 'lot',
    tenant,
    lotId,
    auctionId: 1,
    lotNumber: lotId - 5000,
    categoryId: null,
    texts: texts(title),
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: tenant === 'demo2' ? 'SEK' : 'EUR',
    startingPrice: 1000,
    estimateLow: null,
    estimateHigh: null,
    endTime,
    combiId: null,
    ownerId: null,
  };
}

describe('lot-end reminders (operations 52, 53)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let member1: string;
  let member2: string;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });
  const outbox = () => readOutbox(path.join(server.dataDir, 'outbox'));
  const messagesOf = async (id: string) => (await outbox()).filter((m) => m.Id === `notification-${id}`);
  const importLot = async (tenant: string, lotId: number, endTime: string, title?: string) => {
    await importRecord(server.runtime.services.log, lotRecord(tenant, lotId, endTime, title));
    await server.runtime.services.projector.catchUp();
  };
  const subscribe = (body: unknown, token = member1) => server.request('POST', '/v1/me/notifications', { token, body });
  const unsubscribe = (id: string, token = member1) => server.request('DELETE', `/v1/me/notifications/${id}`, { token });
  const subscribed = async (body: Record<string, unknown>, token = member1): Promise<string> => {
    const response = await subscribe(body, token);
    expect(response.status, response.text).to.equal(200);
    return response.body.Id;
  };
  /** Waits (bounded) for the one message of a subscription. */
  const message = async (id: string, timeoutMs = 20_000): Promise<OutboxFile> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await messagesOf(id);
      if (found.length) return found[0];
      if (Date.now() > deadline) throw new Error(`no message for ${id} within ${timeoutMs} ms`);
      await sleep(50);
    }
  };
  /** Lets every event reach the reactors and every job that is due run. */
  const settle = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(10_000);
  };
  /** The events of one subscription, on its member's stream. */
  const eventsOf = async (id: string) =>
    (await server.events()).filter((e) => e.streamId.startsWith('notifications-') && e.data.subscriptionId === id).map((e) => e.type);

  before(async () => {
    server = await startTestServer();
    const log = server.runtime.services.log;
    const member = (memberId: number, language: string, phone: string, tenant = 'demo'): IntakeRecord => ({
      kind: 'member',
      tenant,
      memberId,
      email: `member${memberId}@example.com`,
      passwordHash: 'scrypt$disabled',
      firstName: 'M',
      lastName: String(memberId),
      language,
      phone,
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await importRecord(log, member(2, 'sv', ''));
    await importRecord(log, member(3, 'de', '+4915112345678'));
    await importRecord(log, member(4, 'en', ''));
    // Ends in 8 days: every reminder of these specs (SendTime at most a week) is still pending.
    await importLot('demo', 5100, iso(Date.now() + 8 * 86400_000));
    await importLot('demo', 5101, iso(Date.now() - 60_000));
    member1 = server.issueMemberToken('demo', 1);
    member2 = server.issueMemberToken('demo', 2);
  });
  after(async () => server?.close());

  describe('POST /v1/me/notifications', () => {
    it("subscribes the token's member to a lot: 200 {Id} (a uuid) and one NotificationSubscribed with the lot, the minutes and the channel", async () => {
      const before = await head();
      const response = await subscribe({ GeneralId: 5100, SendTime: 30, Type: 1, EndDateTime: '2030-01-01T00:00:00Z' });
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.have.all.keys('Id');
      expect(response.body.Id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['NotificationSubscribed']);
      // On the member's stream, where the limit of pending reminders is decided.
      expect(events[0].streamId).to.equal('notifications-demo-1');
      expect(events[0].data).to.include({
        tenant: 'demo',
        subscriptionId: response.body.Id,
        memberId: 1,
        lotId: 5100,
        minutesBefore: 30,
        channel: 'email',
        clientEndTime: '2030-01-01T00:00:00Z',
      });
    });

    it("ignores MemberId in the body: the subscription is the token's member's", async () => {
      const before = await head();
      await subscribed({ MemberId: 2, GeneralId: 5100, SendTime: 45, Type: 1 });
      const [event] = await since(before);
      expect(event.data).to.include({ memberId: 1, lotId: 5100, minutesBefore: 45 });
    });

    it('subscribes by SMS (Type 2) a member with a phone number', async () => {
      const before = await head();
      await subscribed({ GeneralId: 5100, SendTime: 10_080, Type: 2 }, server.issueMemberToken('demo', 3));
      const [event] = await since(before);
      expect(event.data).to.include({ memberId: 3, channel: 'sms', minutesBefore: 10_080 });
    });

    it('answers the same Id, and appends nothing, when the same reminder is asked for again while it is pending', async () => {
      const first = await subscribed({ GeneralId: 5100, SendTime: 60, Type: 1 });
      const before = await head();
      expect(await subscribed({ GeneralId: 5100, SendTime: 60, Type: 1, EndDateTime: null })).to.equal(first);
      expect(await head()).to.equal(before);
      const other = await subscribed({ GeneralId: 5100, SendTime: 61, Type: 1 });
      expect(other).to.not.equal(first);
    });

    it('answers 400 naming the field for a SendTime outside 0–10,080, a Type other than 1, 2 or 3, or a bad GeneralId or EndDateTime, and appends nothing', async () => {
      const before = await head();
      const ok = { GeneralId: 5100, SendTime: 30, Type: 1 };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...ok, SendTime: -1 }, 'body.SendTime'],
        [{ ...ok, SendTime: 10_081 }, 'body.SendTime'],
        [{ ...ok, SendTime: 1.5 }, 'body.SendTime'],
        [{ ...ok, SendTime: '30' }, 'body.SendTime'],
        [{ ...ok, SendTime: undefined }, 'body.SendTime'],
        [{ ...ok, Type: 0 }, 'body.Type'],
        [{ ...ok, Type: 4 }, 'body.Type'],
        [{ ...ok, Type: -1 }, 'body.Type'],
        [{ ...ok, Type: '1' }, 'body.Type'],
        [{ ...ok, Type: null }, 'body.Type'],
        [{ ...ok, Type: undefined }, 'body.Type'],
        [{ ...ok, GeneralId: 0 }, 'body.GeneralId'],
        [{ ...ok, GeneralId: 2147483648 }, 'body.GeneralId'],
        [{ ...ok, GeneralId: '5100' }, 'body.GeneralId'],
        [{ ...ok, GeneralId: undefined }, 'body.GeneralId'],
        [{ ...ok, EndDateTime: 'tomorrow' }, 'body.EndDateTime'],
        [{ ...ok, EndDateTime: 5 }, 'body.EndDateTime'],
      ];
      for (const [body, field] of cases) {
        const problem = expectProblem(await subscribe(body), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body),
        ).to.include(field);
      }
      expectProblem(await server.request('POST', '/v1/me/notifications', { token: member1 }), 400);
      expectProblem(
        await server.request('POST', '/v1/me/notifications', {
          token: member1,
          rawBody: '[]',
          headers: { 'Content-Type': 'application/json' },
        }),
        400,
      );
      expect(await head()).to.equal(before);
    });

    it('answers 400 for an SMS reminder when the member has no phone number, and appends nothing', async () => {
      const before = await head();
      const problem = expectProblem(await subscribe({ GeneralId: 5100, SendTime: 30, Type: 2 }, member2), 400);
      expect(problem.errors.map((e: { field: string }) => e.field)).to.include('body.Type');
      expect(await head()).to.equal(before);
      expect((await subscribe({ GeneralId: 5100, SendTime: 30, Type: 1 }, member2)).status).to.equal(200);
    });

    it('answers 404 for an unknown lot and for a lot of another house only, and appends nothing', async () => {
      const before = await head();
      expectProblem(await subscribe({ GeneralId: 999_999, SendTime: 30, Type: 1 }), 404);
      // Lot 5100 exists in demo only.
      expectProblem(await subscribe({ GeneralId: 5100, SendTime: 30, Type: 1 }, server.issueMemberToken('demo2', 1)), 404);
      expect(await head()).to.equal(before);
    });

    it('answers 409 for a lot whose end time has passed and for a lot closed early, and appends nothing', async () => {
      await importRecord(server.runtime.services.log, lotRecord('demo', 5102, iso(Date.now() + 3600_000)));
      await importRecord(server.runtime.services.log, { kind: 'lotClosed', tenant: 'demo', lotId: 5102, closedAt: iso(Date.now() - 1000) });
      await server.runtime.services.projector.catchUp();
      const before = await head();
      expectProblem(await subscribe({ GeneralId: 5101, SendTime: 0, Type: 1 }), 409, 'bidding-ended');
      expectProblem(await subscribe({ GeneralId: 5102, SendTime: 0, Type: 1 }), 409, 'bidding-ended');
      expect(await head()).to.equal(before);
    });

    it('answers 401 to an anonymous token, an application token and no token, and appends nothing', async () => {
      const application = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
      });
      const id = await subscribed({ GeneralId: 5100, SendTime: 120, Type: 1 });
      const before = await head();
      for (const token of [await server.anonymousToken('demo'), application.body.Token, null]) {
        expectProblem(
          await server.request('POST', '/v1/me/notifications', { token, body: { GeneralId: 5100, SendTime: 30, Type: 1 } }),
          401,
        );
        expectProblem(await server.request('DELETE', `/v1/me/notifications/${id}`, { token }), 401);
      }
      expect(await head()).to.equal(before);
    });
  });

  describe('DELETE /v1/me/notifications/{id}', () => {
    it("removes the caller's reminder: 200 {Id} and one NotificationUnsubscribed; removing it again is 404", async () => {
      const id = await subscribed({ GeneralId: 5100, SendTime: 15, Type: 1 });
      const before = await head();
      const response = await unsubscribe(id);
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ Id: id });
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['NotificationUnsubscribed']);
      expect(events[0].data).to.include({ tenant: 'demo', subscriptionId: id, memberId: 1, lotId: 5100 });
      expectProblem(await unsubscribe(id), 404);
      // Asking for the same reminder again makes a new one.
      expect(await subscribed({ GeneralId: 5100, SendTime: 15, Type: 1 })).to.not.equal(id);
    });

    it("answers 404 for an unknown id, another member's reminder and another house's reminder, and appends nothing", async () => {
      const id = await subscribed({ GeneralId: 5100, SendTime: 20, Type: 1 });
      const before = await head();
      expectProblem(await unsubscribe('00000000-0000-4000-8000-000000000000'), 404);
      expectProblem(await unsubscribe(id, member2), 404);
      expectProblem(await unsubscribe(id, server.issueMemberToken('demo2', 1)), 404);
      expect(await head()).to.equal(before);
      expect((await unsubscribe(id)).status).to.equal(200);
    });

    it('answers 400 for an id that is not a uuid', async () => {
      for (const id of ['abc', '123', '00000000-0000-4000-8000-0000000000001', '00000000000040008000000000000000'])
        expectProblem(await unsubscribe(id), 400);
    });
  });

  describe('the reminder', () => {
    // Every timed case is set up at once, a few seconds ahead, and each spec then waits for its own outcome.
    const at: Record<string, number> = {};
    const ids: Record<string, string> = {};

    before(async () => {
      const t0 = Date.now();
      const log = server.runtime.services.log;
      // Moved later: ends in 5 s, then re-catalogued to end in 9 s.
      at.later = t0 + 9000;
      await importLot('demo', 5003, iso(t0 + 5000));
      ids.later = await subscribed({ GeneralId: 5003, SendTime: 0, Type: 1 });
      await importLot('demo', 5003, iso(at.later));
      // On time: ends in 6 s, SendTime 0; EndDateTime says something else (informational).
      at.onTime = t0 + 6000;
      await importLot('demo', 5001, iso(at.onTime), 'Brass ship clock');
      ids.onTime = await subscribed({ GeneralId: 5001, SendTime: 0, Type: 1, EndDateTime: '2031-01-01T12:00:00+02:00' });
      // The member's language: member 2 reads Swedish.
      ids.swedish = await subscribed({ GeneralId: 5001, SendTime: 0, Type: 1 }, member2);
      // The member is removed before the moment: skipped.
      ids.removed = await subscribed({ GeneralId: 5001, SendTime: 0, Type: 1 }, server.issueMemberToken('demo', 4));
      await importRecord(log, { kind: 'memberRemoved', tenant: 'demo', memberId: 4, at: iso(Date.now()) });
      // Unsubscribed before the moment: nothing.
      await importLot('demo', 5005, iso(t0 + 5000));
      ids.unsubscribed = await subscribed({ GeneralId: 5005, SendTime: 0, Type: 1 });
      expect((await unsubscribe(ids.unsubscribed)).status).to.equal(200);
      // Moved earlier: ends in an hour, then re-catalogued to end in 6 s.
      at.earlier = t0 + 6000;
      await importLot('demo', 5004, iso(t0 + 3600_000));
      ids.earlier = await subscribed({ GeneralId: 5004, SendTime: 0, Type: 1 });
      await importLot('demo', 5004, iso(at.earlier));
      // The moment has passed and the lot is open: at once, by SMS.
      await importLot('demo', 5002, iso(t0 + 2 * 3600_000));
      ids.atOnce = await subscribed({ GeneralId: 5002, SendTime: 180, Type: 2 });
      // An early close moves the moment: ends in an hour, SendTime 10, closes 10 min 6 s from now.
      at.closing = t0 + 6000;
      await importLot('demo', 5007, iso(t0 + 3600_000));
      ids.closing = await subscribed({ GeneralId: 5007, SendTime: 10, Type: 1 });
      await importRecord(log, { kind: 'lotClosed', tenant: 'demo', lotId: 5007, closedAt: iso(at.closing + 10 * 60_000) });
      // An early close now, before a reminder due in 30 minutes: the lot ended, nothing goes out.
      await importLot('demo', 5006, iso(t0 + 3600_000));
      ids.closed = await subscribed({ GeneralId: 5006, SendTime: 30, Type: 1 });
      await importRecord(log, { kind: 'lotClosed', tenant: 'demo', lotId: 5006, closedAt: iso(Date.now()) });
      // Another house's lot of the same id, with another title: its reminder names its own lot.
      at.house = t0 + 6000;
      await importLot('demo', 5008, iso(t0 + 3600_000), 'First house lot');
      await importLot('demo2', 5008, iso(at.house), 'Second house lot');
      ids.house = await subscribed({ GeneralId: 5008, SendTime: 0, Type: 1 }, server.issueMemberToken('demo2', 1));
      await server.runtime.services.projector.catchUp();
    });

    it("is sent once, by e-mail, at the lot's end time minus SendTime and not before, naming the lot's number and title", async () => {
      const sent = await message(ids.onTime);
      expect(Date.parse(sent.CreatedAt)).to.be.at.least(at.onTime - TOLERANCE_MS);
      expect(sent).to.include({ Channel: 'mail', Tenant: 'demo', To: 'bidder@example.com' });
      expect(sent.Subject).to.include('Lot 1').and.include('Brass ship clock');
      expect(sent.Body)
        .to.include('Lot 1: Brass ship clock')
        .and.include(iso(at.onTime).slice(0, 16).replace('T', ' '))
        .and.include('Demo Auctions');
      expect(sent.Body).to.not.include('2031');
      await settle();
      expect(await messagesOf(ids.onTime)).to.have.length(1);
      expect(await eventsOf(ids.onTime)).to.deep.equal(['NotificationSubscribed', 'NotificationDispatched']);
      const [recorded] = (await server.events()).filter((e) => e.type === 'NotificationDispatched' && e.data.subscriptionId === ids.onTime);
      expect(recorded.data).to.include({
        memberId: 1,
        lotId: 5001,
        channel: 'email',
        messageId: `notification-${ids.onTime}`,
        lotEndTime: iso(at.onTime),
      });
    });

    it("names the lot's title in the member's language", async () => {
      const sent = await message(ids.swedish);
      expect(sent.To).to.equal('member2@example.com');
      expect(sent.Subject).to.include('Brass ship clock (sv)');
      expect(sent.Body).to.include('Föremål 1: Brass ship clock (sv)');
    });

    it("is sent at once, by SMS to the member's phone, when the moment has passed and the lot is open", async () => {
      const sent = await message(ids.atOnce, 5000);
      expect(sent).to.include({ Channel: 'sms', To: '+46700000001', Subject: null });
      expect(sent.Body).to.include('Lot 2').and.include('Clock 5002');
    });

    it('moves with a later end time: nothing at the old time, one message at the new one', async () => {
      const sent = await message(ids.later);
      expect(Date.parse(sent.CreatedAt)).to.be.at.least(at.later - TOLERANCE_MS);
      expect(sent.Body).to.include(iso(at.later).slice(0, 16).replace('T', ' '));
      await settle();
      expect(await messagesOf(ids.later)).to.have.length(1);
      expect(await eventsOf(ids.later)).to.deep.equal(['NotificationSubscribed', 'NotificationDispatched']);
    });

    it('moves with an earlier end time', async () => {
      const sent = await message(ids.earlier);
      expect(Date.parse(sent.CreatedAt))
        .to.be.at.least(at.earlier - TOLERANCE_MS)
        .and.below(at.earlier + 15_000);
      await settle();
      expect(await messagesOf(ids.earlier)).to.have.length(1);
    });

    it('moves with an early close to SendTime minutes before the closing time', async () => {
      const sent = await message(ids.closing);
      expect(Date.parse(sent.CreatedAt))
        .to.be.at.least(at.closing - TOLERANCE_MS)
        .and.below(at.closing + 15_000);
      expect(sent.Subject).to.include('10 minutes');
    });

    it("names another house's own lot: the tenant's lot of that id, not a lot of the same id elsewhere", async () => {
      const sent = await message(ids.house);
      expect(sent).to.include({ Tenant: 'demo2', To: 'bidder@example.com' });
      expect(sent.Subject).to.include('Second house lot').and.not.include('First house');
      expect(sent.Body).to.include('Second Demo House');
    });

    it('sends nothing for a reminder removed before its time', async () => {
      await sleep(Math.max(0, at.onTime + 1000 - Date.now()));
      await settle();
      expect(await messagesOf(ids.unsubscribed)).to.deep.equal([]);
      expect(await eventsOf(ids.unsubscribed)).to.deep.equal(['NotificationSubscribed', 'NotificationUnsubscribed']);
    });

    it('sends nothing, and records NotificationSkipped (lot-ended), when the lot closed early before the reminder was due', async () => {
      await settle();
      expect(await messagesOf(ids.closed)).to.deep.equal([]);
      expect(await eventsOf(ids.closed)).to.deep.equal(['NotificationSubscribed', 'NotificationSkipped']);
      const [skipped] = (await server.events()).filter((e) => e.type === 'NotificationSkipped' && e.data.subscriptionId === ids.closed);
      expect(skipped.data).to.include({ memberId: 1, lotId: 5006, reason: 'lot-ended' });
    });

    it('records NotificationSkipped, and sends nothing, when the member was removed before the moment', async () => {
      await sleep(Math.max(0, at.onTime + 1000 - Date.now()));
      await settle();
      expect(await messagesOf(ids.removed)).to.deep.equal([]);
      const [skipped] = (await server.events()).filter((e) => e.type === 'NotificationSkipped' && e.data.subscriptionId === ids.removed);
      expect(skipped.data).to.include({ memberId: 4, lotId: 5001, reason: 'member-removed' });
    });

    it('sends once when jobs are duplicated or retried, at once or after it was sent', async () => {
      const services = server.runtime.services;
      const run = reminderJobProcessor(services);
      // Jobs name the member of a subscription on the member's stream; one without (as queued before) finds it too.
      const job = (id: string, n: number) => ({
        id: `test-${id}-${n}`,
        name: 'notification-reminder',
        data: { tenant: 'demo', subscriptionId: id, ...(n % 2 ? { memberId: 1 } : {}) },
        attemptsMade: n,
        progress: null,
        saveProgress: async () => {},
      });
      // A new reminder that is due at once, run by several jobs at the same time as the reactor's own.
      const id = await subscribed({ GeneralId: 5002, SendTime: 150, Type: 1 });
      await Promise.all([run(job(id, 1)), run(job(id, 2)), run(job(id, 3))]);
      // And an old one run again after it was sent.
      await Promise.all([run(job(ids.onTime, 1)), run(job(ids.onTime, 2))]);
      await settle();
      expect(await messagesOf(id)).to.have.length(1);
      expect(await eventsOf(id)).to.deep.equal(['NotificationSubscribed', 'NotificationDispatched']);
      expect(await messagesOf(ids.onTime)).to.have.length(1);
      expect(await eventsOf(ids.onTime)).to.deep.equal(['NotificationSubscribed', 'NotificationDispatched']);
    });

    it('can still be removed after it was sent (200), and is gone then (404)', async () => {
      expect((await unsubscribe(ids.atOnce)).status).to.equal(200);
      expectProblem(await unsubscribe(ids.atOnce), 404);
    });
  });
});
