import { defineDocumentProjection, defineReactor, type Reactor, type ReactorDeps } from '../../src/projector/projection.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import { memberNotificationsStreamId, notificationsEvents } from '../../commands/notifications/events.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { biddingEvents } from '../../commands/bidding/events.ts';
import { reminderJob, SEND_REMINDER, type ReminderJobData } from '../../commands/notifications/shared.ts';
import { NOTIFICATION_SUBSCRIPTIONS, type NotificationSubscriptionDoc, notificationSubscriptions } from './collections.ts';

/** The reminder job data that finds a subscription of the read model on its stream (the job's data: commands/notifications/shared.ts). */
export const reminderJobData = (
  tenant: string,
  s: Pick<NotificationSubscriptionDoc, 'Id' | 'MemberId' | 'OnMemberStream'>,
): ReminderJobData => (s.OnMemberStream ? { tenant, subscriptionId: s.Id, memberId: s.MemberId } : { tenant, subscriptionId: s.Id });

export const notificationsProjection = defineDocumentProjection({
  name: 'notifications',
  events: [notificationsEvents, catalogueEvents, biddingEvents],
  // LotCatalogued, LotEndTimeExtended and LotClosed change nothing here; they are handled so that this projection stores its
  // checkpoint with every batch that may move a lot's end time: the reminder reactor waits for that checkpoint
  // before it looks up a lot's subscriptions (see notificationRemindersReactor).
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

/** How long the reactor waits for the subscriptions read model before it gives the batch back to be retried. */
const READ_MODEL_WAIT_MS = 10_000;

async function readModelReached(documents: DocumentStore, position: number) {
  const deadline = Date.now() + READ_MODEL_WAIT_MS;
  for (;;) {
    const checkpoint = await documents.getCheckpoint(notificationsProjection.name);
    if (checkpoint >= position) return checkpoint;
    if (Date.now() >= deadline)
      throw new Error(`the ${notificationsProjection.name} read model has not reached position ${position}; retrying`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Turns events into reminder jobs (src/ports/jobs.ts), keyed so that a replayed event adds nothing:
 * - NotificationSubscribed: a job that plans the new subscription (it reads the subscription and the lot
 *   from their streams, so it does not depend on any read model having caught up);
 * - LotCatalogued, LotClosed (the lot's end time may have moved): a job per active subscription of the lot,
 *   found in the subscriptions read model once that has reached this event, so no subscription appended
 *   before the change is missed. A subscription appended after it plans with the new end time anyway.
 * Each job plans again from the streams: it sends when due, or adds a delayed job for the moment (one per
 * subscription and moment), so a job made stale by a later change does nothing wrong. A job names the member
 * when the subscription is on the member's stream, and only the subscription when it is on a stream of its own.
 */
export function notificationRemindersReactor(deps: ReactorDeps): Reactor {
  let reached = 0;
  return defineReactor({
    name: 'notification-reminders',
    events: [notificationsEvents, catalogueEvents, biddingEvents],
    handles: ['NotificationSubscribed', 'LotCatalogued', 'LotEndTimeExtended', 'LotClosed'],
    async react(event) {
      switch (event.type) {
        case 'NotificationSubscribed': {
          const { tenant, subscriptionId, memberId } = event.data;
          const data: ReminderJobData =
            event.streamId === memberNotificationsStreamId(tenant, memberId)
              ? { tenant, subscriptionId, memberId }
              : { tenant, subscriptionId };
          await deps.jobs.add(SEND_REMINDER, data, reminderJob(`notification-${subscriptionId}-subscribed`));
          return;
        }
        case 'LotCatalogued':
        case 'LotEndTimeExtended':
        case 'LotClosed': {
          const { tenant, lotId } = event.data;
          if (reached < event.position) reached = await readModelReached(deps.documents, event.position);
          const active = await notificationSubscriptions(deps.documents.forTenant(tenant)).find({ LotId: lotId, Status: 'active' });
          for (const s of active)
            await deps.jobs.add(SEND_REMINDER, reminderJobData(tenant, s), reminderJob(`notification-${s.Id}-p${event.position}`));
          return;
        }
      }
    },
  });
}
