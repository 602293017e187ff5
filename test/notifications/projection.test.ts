import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { UnitOfWork } from '../../src/projector/projection.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { NOTIFICATION_SUBSCRIPTIONS, notificationsReadModels } from '../../projections/notifications/index.ts';
import type { NotificationsEvent } from '../../commands/notifications/events.ts';
import { givenEvents, onStream, registered } from '../support/projection-spec.ts';
import { at, id, lastPosition, lotCatalogued, recorded, resetPositions, subscribed } from '../support/notification-events.ts';
import { lotCatalogued as catalogued, lotClosed, type CatalogueEvent } from '../support/catalogue-events.ts';

const notificationsProjection = registered(notificationsReadModels, 'documents');

describe('notifications projection', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-notifications-projection-'));
  let store: SqliteDocumentStore;

  /** Applies events as one batch and moves the checkpoint, as the projector runtime does. */
  const apply = async (events: RecordedEvent[], expected: number) => {
    const uow = new UnitOfWork(store.live());
    for (const event of events) {
      uow.current = event;
      await notificationsProjection.apply(event, uow);
    }
    await store
      .live()
      .commit(uow.ops(), { projection: notificationsProjection.name, expected, position: events[events.length - 1].position });
  };
  const docs = () =>
    store
      .forTenant('demo')
      .collection(NOTIFICATION_SUBSCRIPTIONS)
      .find({}, { sort: [['_id', 1]] });

  beforeEach(async () => {
    resetPositions();
    store = new SqliteDocumentStore(path.join(dir, `${Date.now()}-${Math.random()}.sqlite`));
    for (const c of notificationsProjection.collections) await store.ensureCollection(c);
  });
  afterEach(async () => store.close());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps an active subscription, marks it sent, removes it when unsubscribed; handling the events twice changes nothing', async () => {
    const events = [
      subscribed(),
      lotCatalogued(),
      recorded('NotificationDispatched', {
        tenant: 'demo',
        subscriptionId: id,
        memberId: 1,
        lotId: 412,
        channel: 'email',
        messageId: `notification-${id}`,
        lotEndTime: '2026-11-22T19:00:00.000Z',
        at,
      }),
    ];
    await apply(events, 0);
    const once = await docs();
    expect(once).to.have.length(1);
    expect(once[0]).to.include({ Id: id, MemberId: 1, LotId: 412, SendTime: 30, Channel: 'email', Status: 'sent', DoneAt: at });
    await apply(events, events[events.length - 1].position);
    expect(await docs()).to.deep.equal(once);
    await apply(
      [recorded('NotificationUnsubscribed', { tenant: 'demo', subscriptionId: id, memberId: 1, lotId: 412, at })],
      lastPosition() - 1,
    );
    expect(await docs()).to.deep.equal([]);
  });
});

describe('notifications projection, given events', () => {
  const A = '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b';
  const B = '0b6c3f7a-2d4e-4f1a-8b9c-5e6d7f8a9b0c';
  const time = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
  const of = (subscriptionId: string, lotId: number, tenant = 'demo') => ({ tenant, subscriptionId, memberId: 1, lotId });
  const subscribedTo = (
    subscriptionId: string,
    lotId: number,
    channel: 'email' | 'sms' = 'email',
    tenant = 'demo',
  ): NotificationsEvent => ({
    type: 'NotificationSubscribed',
    data: {
      ...of(subscriptionId, lotId, tenant),
      minutesBefore: 30,
      channel,
      lotEndTime: '2026-11-30T18:00:00.000Z',
      clientEndTime: null,
      at: time(0),
    },
  });
  const dispatched = (subscriptionId: string, lotId: number, minute: number): NotificationsEvent => ({
    type: 'NotificationDispatched',
    data: {
      ...of(subscriptionId, lotId),
      channel: 'email',
      messageId: `notification-${subscriptionId}`,
      lotEndTime: '2026-11-30T18:00:00.000Z',
      at: time(minute),
    },
  });
  const skipped = (subscriptionId: string, lotId: number, minute: number): NotificationsEvent => ({
    type: 'NotificationSkipped',
    data: { ...of(subscriptionId, lotId), channel: 'sms', reason: 'no-phone', at: time(minute) },
  });
  const unsubscribed = (subscriptionId: string, lotId: number, minute: number, tenant = 'demo'): NotificationsEvent => ({
    type: 'NotificationUnsubscribed',
    data: { ...of(subscriptionId, lotId, tenant), at: time(minute) },
  });
  const subscription = (id: string, lotId: number, fields: Record<string, unknown> = {}) => ({
    _id: id,
    Id: id,
    MemberId: 1,
    LotId: lotId,
    SendTime: 30,
    Channel: 'email',
    Status: 'active',
    SubscribedAt: time(0),
    DoneAt: null,
    SkipReason: null,
    OnMemberStream: true,
    ...fields,
  });
  /** A subscription made before the member's stream, on a stream of its own, has no OnMemberStream. */
  const ownStream = ({ OnMemberStream: _, ...doc }: ReturnType<typeof subscription>) => doc;

  it("keeps a new subscription active, noting whether it is on its member's stream or on a stream of its own made before that", async () => {
    await givenEvents(subscribedTo(A, 412), onStream(`notification-demo-${B}`, subscribedTo(B, 413)))
      .whenProjected(notificationsReadModels)
      .thenDocuments('notification_subscriptions', 'demo', [ownStream(subscription(B, 413)), subscription(A, 412)]);
  });

  it('marks a subscription sent, or skipped with the reason, once it is done', async () => {
    await givenEvents(subscribedTo(A, 412), subscribedTo(B, 413, 'sms'), dispatched(A, 412, 30), skipped(B, 413, 31))
      .whenProjected(notificationsReadModels)
      .thenDocuments('notification_subscriptions', 'demo', [
        subscription(B, 413, { Channel: 'sms', Status: 'skipped', DoneAt: time(31), SkipReason: 'no-phone' }),
        subscription(A, 412, { Status: 'sent', DoneAt: time(30) }),
      ]);
  });

  it('removes an unsubscribed subscription, and makes none for the dispatch of one it does not hold', async () => {
    await givenEvents(subscribedTo(A, 412), unsubscribed(A, 412, 5), dispatched(A, 412, 30))
      .whenProjected(notificationsReadModels)
      .thenNoDocuments();
  });

  it("changes nothing when the lot is catalogued again or closed (those only move the projection's checkpoint)", async () => {
    await givenEvents<NotificationsEvent | CatalogueEvent>(subscribedTo(A, 412), catalogued(412), lotClosed(412, '2026-11-22T13:00:00Z'))
      .whenProjected(notificationsReadModels)
      .thenDocuments('notification_subscriptions', 'demo', [subscription(A, 412)]);
  });

  it("keeps each tenant's subscriptions apart", async () => {
    await givenEvents(subscribedTo(A, 412), subscribedTo(A, 412, 'email', 'demo2'), unsubscribed(A, 412, 5, 'demo2'))
      .whenProjected(notificationsReadModels)
      .thenDocuments('notification_subscriptions', 'demo', [subscription(A, 412)])
      .thenDocuments('notification_subscriptions', 'demo2', []);
  });
});
