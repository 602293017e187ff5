import { defineReactor, type Projection, type Reactor, type ReactorDeps } from '../../src/projector/projection.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import { NOTIFICATIONS_PROJECTION, notificationSubscriptions } from '../../projections/notifications/index.ts';
import { catalogueEvents } from '../catalogue/events.ts';
import { lotEvents } from '../lots/events.ts';
import { memberNotificationsStreamId, notificationsEvents } from './events.ts';
import { reminderJob, reminderJobData, SEND_REMINDER, type ReminderJobData } from './jobs.ts';

/** How long the reactor waits for the subscriptions read model before it gives the batch back to be retried. */
const READ_MODEL_WAIT_MS = 10_000;

async function readModelReached(documents: DocumentStore, position: number) {
  const deadline = Date.now() + READ_MODEL_WAIT_MS;
  for (;;) {
    const checkpoint = await documents.getCheckpoint(NOTIFICATIONS_PROJECTION);
    if (checkpoint >= position) return checkpoint;
    if (Date.now() >= deadline)
      throw new Error(`the ${NOTIFICATIONS_PROJECTION} read model has not reached position ${position}; retrying`);
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
    events: [notificationsEvents, catalogueEvents, lotEvents],
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

/**
 * The reactors of notifications, registered by notificationsCommands (commands/notifications/index.ts).
 * app/features/index.ts lists notificationsReadModels before it: caught up one after another, the reactor
 * comes after the subscriptions projection it waits for.
 */
export function notificationsReactors(deps: ReactorDeps): Projection[] {
  return [notificationRemindersReactor(deps)];
}
