import type { Doc, Filter, TenantScope } from '../../src/ports/read-models.ts';
import type { NotificationChannel, SkipReason } from '../../commands/notifications/events.ts';

/** The projection that keeps the subscriptions: its checkpoint says how far they are (the reminders reactor waits for it). */
export const NOTIFICATIONS_PROJECTION = 'notifications';

/** Lot-end reminders of members, by subscription id; an unsubscribed one is removed. */
export const NOTIFICATION_SUBSCRIPTIONS = 'notification_subscriptions';

export interface NotificationSubscriptionDoc extends Doc {
  Id: string;
  MemberId: number;
  LotId: number;
  /** Minutes before the lot's end (`SendTime`). */
  SendTime: number;
  Channel: NotificationChannel;
  Status: 'active' | 'sent' | 'skipped';
  SubscribedAt: string;
  /** When it was sent or skipped. */
  DoneAt: string | null;
  SkipReason: SkipReason | null;
  /**
   * Set when the subscription is recorded on its member's stream; absent for one made before that, on a stream
   * of its own (such documents count against the member's limit as `legacyPending`, commands/notifications/decide.ts).
   */
  OnMemberStream?: true;
}

/** The member's pending reminders made before the member stream (none can be made any more: this only goes down). */
export const legacyPendingFilter = (memberId: number): Filter => ({
  MemberId: memberId,
  Status: 'active',
  OnMemberStream: { $exists: false },
});

export const notificationSubscriptions = (db: TenantScope) => db.collection<NotificationSubscriptionDoc>(NOTIFICATION_SUBSCRIPTIONS);
