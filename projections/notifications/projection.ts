import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { memberNotificationsStreamId, notificationsEvents } from '../../commands/notifications/events.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { lotEvents } from '../../commands/lots/events.ts';
import { NOTIFICATION_SUBSCRIPTIONS, NOTIFICATIONS_PROJECTION, type NotificationSubscriptionDoc } from './collections.ts';

export const notificationsProjection = defineDocumentProjection({
  name: NOTIFICATIONS_PROJECTION,
  events: [notificationsEvents, catalogueEvents, lotEvents],
  // LotCatalogued, LotEndTimeExtended and LotClosed change nothing here; they are handled so that this projection stores its
  // checkpoint with every batch that may move a lot's end time: the reminder reactor waits for that checkpoint
  // before it looks up a lot's subscriptions (see notificationRemindersReactor, commands/notifications/reactors.ts).
  handles: [
    'NotificationSubscribed',
    'NotificationUnsubscribed',
    'NotificationDispatched',
    'NotificationSkipped',
    'LotCatalogued',
    'LotEndTimeExtended',
    'LotClosed',
  ],
  collections: [
    { name: NOTIFICATION_SUBSCRIPTIONS, indexes: [{ fields: ['LotId', 'Status'] }, { fields: ['MemberId', 'Status', 'LotId'] }] },
  ],
  async apply(event, uow) {
    switch (event.type) {
      case 'NotificationSubscribed': {
        const d = event.data;
        await uow.update<NotificationSubscriptionDoc>(NOTIFICATION_SUBSCRIPTIONS, d.tenant, d.subscriptionId, () => ({
          Id: d.subscriptionId,
          MemberId: d.memberId,
          LotId: d.lotId,
          SendTime: d.minutesBefore,
          Channel: d.channel,
          Status: 'active',
          SubscribedAt: d.at,
          DoneAt: null,
          SkipReason: null,
          ...(event.streamId === memberNotificationsStreamId(d.tenant, d.memberId) ? { OnMemberStream: true as const } : {}),
        }));
        return;
      }
      case 'NotificationDispatched': {
        const d = event.data;
        await uow.update<NotificationSubscriptionDoc>(NOTIFICATION_SUBSCRIPTIONS, d.tenant, d.subscriptionId, (doc) =>
          doc ? { ...doc, Status: 'sent', DoneAt: d.at } : null,
        );
        return;
      }
      case 'NotificationSkipped': {
        const d = event.data;
        await uow.update<NotificationSubscriptionDoc>(NOTIFICATION_SUBSCRIPTIONS, d.tenant, d.subscriptionId, (doc) =>
          doc ? { ...doc, Status: 'skipped', DoneAt: d.at, SkipReason: d.reason } : null,
        );
        return;
      }
      case 'NotificationUnsubscribed': {
        const d = event.data;
        await uow.update<NotificationSubscriptionDoc>(NOTIFICATION_SUBSCRIPTIONS, d.tenant, d.subscriptionId, () => null);
        return;
      }
    }
  },
});
