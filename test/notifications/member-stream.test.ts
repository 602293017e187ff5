/**
 * Lot-end reminders on one stream per member (`notifications-{tenant}-{memberId}`): the limit of 1,000 pending
 * reminders and the retry rule hold under parallel requests to two `api` processes sharing one log, and a log
 * holding subscriptions made before (one stream per subscription, `notification-{tenant}-{subscriptionId}`)
 * still works: those count against the limit, are removed, sent and skipped on their own streams.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { importRecord, type IntakeRecord } from '../../app/features/intake.ts';
import { commandStreams } from '../../src/command-streams.ts';
import { foldStream } from '../../src/command-runner.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { MAX_ACTIVE_SUBSCRIPTIONS, memberNotificationsDecider } from '../../commands/notifications/decide.ts';
import { legacyNotificationStreamId, memberNotificationsStreamId, notificationsEvents } from '../../commands/notifications/events.ts';
import { reminderJob, SEND_REMINDER } from '../../commands/notifications/jobs.ts';
import { notificationSubscriptions } from '../../projections/notifications/index.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

const iso = (ms: number) => new Date(ms).toISOString();

describe("lot-end reminders on the member's stream, and those made before it", function () {
  this.timeout(120_000);
  /** Two processes' worth of service on one DATA_DIR: `all` (projections, jobs) and an `api`. */
  let server: TestServer;
  let api: TestServer;
  const farEnd = iso(Date.now() + 8 * 86400_000);

  const importLot = async (lotId: number, endTime: string) => {
    await importRecord(server.runtime.services.log, {
      kind: 'lot',
      tenant: 'demo',
      lotId,
      auctionId: 1,
      lotNumber: lotId - 6000,
      categoryId: null,
      texts: { en: { title: `Reminder lot ${lotId}`, description: 'A test lot.' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'EUR',
      startingPrice: 1000,
      estimateLow: null,
      estimateHigh: null,
      endTime,
      combiId: null,
      ownerId: null,
    } satisfies IntakeRecord);
  };
  const importMember = (memberId: number) =>
    importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant: 'demo',
      memberId,
      email: `reminders${memberId}@example.com`,
      passwordHash: 'scrypt$disabled',
      firstName: 'R',
      lastName: String(memberId),
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    } satisfies IntakeRecord);
  /** Every other request to the second process. */
  const post = (n: number, token: string, body: unknown): Promise<TestResponse> =>
    (n % 2 ? api : server).request('POST', '/v1/me/notifications', { token, body });
  const settle = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(30_000);
  };
  /** A subscription as it was made before the member stream: on a stream of its own. */
  const legacySubscription = async (memberId: number, lotId: number, minutesBefore: number, lotEndTime = farEnd) => {
    const subscriptionId = randomUUID();
    const event = notificationsEvents.toNew({
      type: 'NotificationSubscribed',
      data: {
        tenant: 'demo',
        subscriptionId,
        memberId,
        lotId,
        minutesBefore,
        channel: 'email',
        lotEndTime,
        clientEndTime: null,
        at: iso(Date.now()),
      },
    });
    await server.runtime.services.log.appendToStream(legacyNotificationStreamId('demo', subscriptionId), [event], {
      expectedRevision: 'no_stream',
    });
    return subscriptionId;
  };
  const pendingInReadModel = (memberId: number) =>
    notificationSubscriptions(server.runtime.services.documents.forTenant('demo')).countDocuments({ MemberId: memberId, Status: 'active' });
  const eventsOf = async (subscriptionId: string) =>
    (await server.events()).filter((e) => e.data.subscriptionId === subscriptionId).map((e) => [e.streamId, e.type]);

  before(async () => {
    server = await startTestServer();
    api = await startTestServer({ dataDir: server.dataDir, seed: false, env: { ROLE: 'api' } });
    for (const memberId of [21, 22, 23, 24]) await importMember(memberId);
    await importLot(6100, farEnd);
    await server.runtime.services.projector.catchUp();
  });
  after(async () => {
    await api?.close();
    await server?.close();
  });

  it('accepts exactly the limit of 20 parallel subscribes to two api processes of a member with 995 pending reminders (10 of them made before the member stream): 5 × 200, 15 × 409', async () => {
    const memberId = 21;
    const streams = commandStreams(server.runtime.services.log);
    const stream = memberNotificationsStreamId('demo', memberId);
    // 985 pending reminders on the member's stream, decided as the service decides them, and 10 older ones.
    await Promise.all(
      Array.from({ length: 985 }, (_, i) =>
        streams.run(stream, memberNotificationsDecider, {
          type: 'Subscribe',
          tenant: 'demo',
          subscriptionId: randomUUID(),
          memberId,
          lotId: 6100,
          minutesBefore: i,
          channel: 'email',
          clientEndTime: null,
          lot: { endTime: farEnd },
          hasPhone: false,
          legacyPending: 0,
          at: iso(Date.now()),
        }),
      ),
    );
    const legacy = [];
    for (let i = 0; i < 10; i++) legacy.push(await legacySubscription(memberId, 6100, 5000 + i));
    await settle();
    expect(await pendingInReadModel(memberId)).to.equal(995);

    const token = server.issueMemberToken('demo', memberId);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => post(n, token, { GeneralId: 6100, SendTime: 2000 + n, Type: 1 })),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok, answers.map((a) => a.status).join(' ')).to.have.length(5);
    for (const refused of answers.filter((a) => a.status !== 200))
      expect(expectProblem(refused, 409, 'reminder-limit-reached').detail).to.match(/at most 1000/);
    expect(new Set(ok.map((a) => a.body.Id)).size).to.equal(5);

    await settle();
    expect(await pendingInReadModel(memberId)).to.equal(MAX_ACTIVE_SUBSCRIPTIONS);
    const state = await foldStream(server.runtime.services.log, stream, memberNotificationsDecider);
    expect(state.pending + legacy.length).to.equal(MAX_ACTIVE_SUBSCRIPTIONS);
    for (const { body } of ok) expect(state.subscriptions.get(body.Id)?.status).to.equal('active');

    // A reminder made before the member stream, removed on its own stream, frees its slot: one more, then 409.
    expect((await api.request('DELETE', `/v1/me/notifications/${legacy[0]}`, { token })).status).to.equal(200);
    expect(await eventsOf(legacy[0])).to.deep.equal([
      [`notification-demo-${legacy[0]}`, 'NotificationSubscribed'],
      [`notification-demo-${legacy[0]}`, 'NotificationUnsubscribed'],
    ]);
    const again = await Promise.all(
      [3000, 3001, 3002].map((sendTime, n) => post(n, token, { GeneralId: 6100, SendTime: sendTime, Type: 1 })),
    );
    expect(again.map((a) => a.status).sort()).to.deep.equal([200, 409, 409]);
    await settle();
    expect(await pendingInReadModel(memberId)).to.equal(MAX_ACTIVE_SUBSCRIPTIONS);
  });

  it('answers parallel requests for the same reminder to two api processes with one Id, and appends one NotificationSubscribed', async () => {
    const token = server.issueMemberToken('demo', 22);
    const before = await server.runtime.services.log.headPosition();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, n) => post(n, token, { GeneralId: 6100, SendTime: 45, Type: 1 })));
    expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.Id)).size).to.equal(1);
    const appended = await server.runtime.services.log.readAll({ fromPosition: before, maxCount: 100 });
    expect(appended.filter((e) => e.type === 'NotificationSubscribed').map((e) => [e.streamId, e.data.subscriptionId])).to.deep.equal([
      [memberNotificationsStreamId('demo', 22), answers[0].body.Id],
    ]);
  });

  it('answers a request for the same reminder as a pending one made before the member stream with its Id, and appends nothing', async () => {
    const id = await legacySubscription(23, 6100, 90);
    await server.runtime.services.projector.catchUp();
    const token = server.issueMemberToken('demo', 23);
    const before = await server.runtime.services.log.headPosition();
    const response = await api.request('POST', '/v1/me/notifications', { token, body: { GeneralId: 6100, SendTime: 90, Type: 1 } });
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.deep.equal({ Id: id });
    expect(await server.runtime.services.log.headPosition()).to.equal(before);
  });

  describe('a log holding subscriptions made before the member stream, on streams of their own', () => {
    const messagesOf = async (id: string) =>
      (await readOutbox(path.join(server.dataDir, 'outbox'))).filter((m) => m.Id === `notification-${id}`);
    const ids: Record<string, string> = {};

    before(async () => {
      const t0 = Date.now();
      // Due at once (ends in an hour, SendTime 2 hours); closed early before its moment; pending for days.
      await importLot(6101, iso(t0 + 3600_000));
      await importLot(6102, iso(t0 + 3600_000));
      await importRecord(server.runtime.services.log, { kind: 'lotClosed', tenant: 'demo', lotId: 6102, closedAt: iso(t0 - 1000) });
      await server.runtime.services.projector.catchUp();
      ids.due = await legacySubscription(24, 6101, 120, iso(t0 + 3600_000));
      ids.closed = await legacySubscription(24, 6102, 30, iso(t0 + 3600_000));
      ids.pending = await legacySubscription(24, 6100, 60);
      // A reminder job as queued before the member stream: it names the tenant and the subscription only.
      await server.runtime.services.jobs.add(
        SEND_REMINDER,
        { tenant: 'demo', subscriptionId: ids.due },
        reminderJob(`notification-${ids.due}-at-queued-before`),
      );
      await settle();
    });

    it('sends a due reminder once, recording NotificationDispatched on its own stream, however many jobs run', async () => {
      expect(await messagesOf(ids.due)).to.have.length(1);
      expect((await messagesOf(ids.due))[0]).to.include({ Channel: 'mail', Tenant: 'demo', To: 'reminders24@example.com' });
      await server.runtime.services.jobs.add(
        SEND_REMINDER,
        { tenant: 'demo', subscriptionId: ids.due },
        reminderJob(`notification-${ids.due}-at-queued-again`),
      );
      await settle();
      expect(await messagesOf(ids.due)).to.have.length(1);
      expect(await eventsOf(ids.due)).to.deep.equal([
        [`notification-demo-${ids.due}`, 'NotificationSubscribed'],
        [`notification-demo-${ids.due}`, 'NotificationDispatched'],
      ]);
    });

    it('skips once, on its own stream, a reminder whose lot closed before its moment', async () => {
      expect(await messagesOf(ids.closed)).to.deep.equal([]);
      expect(await eventsOf(ids.closed)).to.deep.equal([
        [`notification-demo-${ids.closed}`, 'NotificationSubscribed'],
        [`notification-demo-${ids.closed}`, 'NotificationSkipped'],
      ]);
    });

    it("removes a pending one on its own stream for its member only (another member's: 404), once (then 404), and never sends it", async () => {
      expectProblem(
        await api.request('DELETE', `/v1/me/notifications/${ids.pending}`, { token: server.issueMemberToken('demo', 23) }),
        404,
      );
      const token = server.issueMemberToken('demo', 24);
      const response = await api.request('DELETE', `/v1/me/notifications/${ids.pending}`, { token });
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ Id: ids.pending });
      expectProblem(await server.request('DELETE', `/v1/me/notifications/${ids.pending}`, { token }), 404);
      expect(await notificationSubscriptions(server.runtime.services.documents.forTenant('demo')).findById(ids.pending)).to.equal(null);
      await server.runtime.services.jobs.add(
        SEND_REMINDER,
        { tenant: 'demo', subscriptionId: ids.pending },
        reminderJob(`notification-${ids.pending}-at-queued-before`),
      );
      await settle();
      expect(await messagesOf(ids.pending)).to.deep.equal([]);
      expect(await eventsOf(ids.pending)).to.deep.equal([
        [`notification-demo-${ids.pending}`, 'NotificationSubscribed'],
        [`notification-demo-${ids.pending}`, 'NotificationUnsubscribed'],
      ]);
    });
  });
});
