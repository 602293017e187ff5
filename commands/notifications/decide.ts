import type { Decider } from '../../src/command-runner.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import { assertNever } from '../catalogue/decide.ts';
import { notificationsEvents, type NotificationChannel, type NotificationsEvent, type SkipReason } from './events.ts';

/**
 * A lot-end reminder (one stream per subscription): subscribed, then sent once or skipped once, and
 * removable by its member at any time.
 */
export interface SubscriptionState {
  memberId: number;
  lotId: number;
  minutesBefore: number;
  channel: NotificationChannel;
  status: 'active' | 'sent' | 'skipped' | 'unsubscribed';
}

/** Active reminders a member may hold at once (409 beyond). */
export const MAX_ACTIVE_SUBSCRIPTIONS = 1000;

export type NotificationCommand =
  | {
      type: 'Subscribe';
      tenant: string;
      subscriptionId: string;
      memberId: number;
      lotId: number;
      minutesBefore: number;
      channel: NotificationChannel;
      clientEndTime: string | null;
      /** The lot as the catalogue shows it (its end time includes an early close); null when there is no such lot. */
      lot: { endTime: string } | null;
      /** Whether the member has a phone number now (SMS reminders need one). */
      hasPhone: boolean;
      /** The member's active reminders now. */
      activeSubscriptions: number;
      at: string;
    }
  | { type: 'Unsubscribe'; tenant: string; subscriptionId: string; memberId: number; at: string }
  | { type: 'RecordDispatched'; tenant: string; subscriptionId: string; messageId: string; lotEndTime: string; at: string }
  | { type: 'RecordSkipped'; tenant: string; subscriptionId: string; reason: SkipReason; at: string };

export const notificationDecider: Decider<SubscriptionState | null, NotificationCommand, NotificationsEvent> = {
  events: notificationsEvents,
  initialState: () => null,
  evolve: (state, event) => {
    switch (event.type) {
      case 'NotificationSubscribed': {
        const d = event.data;
        return { memberId: d.memberId, lotId: d.lotId, minutesBefore: d.minutesBefore, channel: d.channel, status: 'active' };
      }
      case 'NotificationDispatched':
        return state && { ...state, status: 'sent' };
      case 'NotificationSkipped':
        return state && { ...state, status: 'skipped' };
      case 'NotificationUnsubscribed':
        return state && { ...state, status: 'unsubscribed' };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'Subscribe': {
        const { tenant, subscriptionId, memberId, lotId, minutesBefore, channel, clientEndTime, lot, at } = command;
        if (state) throw new ConflictError(`Subscription ${subscriptionId} exists already.`);
        if (!lot) throw new NotFoundError(`Lot ${lotId} does not exist.`);
        if (Date.parse(lot.endTime) <= Date.parse(at)) throw new ConflictError(`Lot ${lotId} is closed: bidding ended at ${lot.endTime}.`);
        if (channel === 'sms' && !command.hasPhone)
          throw new ValidationError('An SMS reminder (Type 2) needs a phone number in the profile; add one, or choose e-mail (Type 1).', [
            { field: 'body.Type', message: 'SMS needs a phone number in the profile' },
          ]);
        if (command.activeSubscriptions >= MAX_ACTIVE_SUBSCRIPTIONS)
          throw new ConflictError(`A member holds at most ${MAX_ACTIVE_SUBSCRIPTIONS} active reminders; remove some first.`);
        return [
          {
            type: 'NotificationSubscribed',
            data: { tenant, subscriptionId, memberId, lotId, minutesBefore, channel, lotEndTime: lot.endTime, clientEndTime, at },
          },
        ];
      }
      case 'Unsubscribe': {
        // Another member's subscription is answered as one that does not exist.
        if (!state || state.memberId !== command.memberId || state.status === 'unsubscribed')
          throw new NotFoundError(`Notification ${command.subscriptionId} does not exist.`);
        const { tenant, subscriptionId, memberId, at } = command;
        return [{ type: 'NotificationUnsubscribed', data: { tenant, subscriptionId, memberId, lotId: state.lotId, at } }];
      }
      case 'RecordDispatched': {
        // Sent once: a duplicated or retried job finds it sent (or removed meanwhile) and records nothing.
        if (!state || state.status !== 'active') return [];
        const { tenant, subscriptionId, messageId, lotEndTime, at } = command;
        return [
          {
            type: 'NotificationDispatched',
            data: { tenant, subscriptionId, memberId: state.memberId, lotId: state.lotId, channel: state.channel, messageId, lotEndTime, at },
          },
        ];
      }
      case 'RecordSkipped': {
        if (!state || state.status !== 'active') return [];
        const { tenant, subscriptionId, reason, at } = command;
        return [
          { type: 'NotificationSkipped', data: { tenant, subscriptionId, memberId: state.memberId, lotId: state.lotId, channel: state.channel, reason, at } },
        ];
      }
      default:
        return assertNever(command);
    }
  },
};

/**
 * A due reminder whose moment passed longer ago than this is sent only while the lot is still open: a
 * reminder at the very end (`SendTime` 0) still goes out when its job runs a little after the end, but a
 * reminder never goes out long after the lot ended (the service was down, or the lot closed early).
 */
export const ON_TIME_MS = 60_000;

export type ReminderPlan =
  | { action: 'done'; reason: 'not-active' }
  | { action: 'wait'; fireAt: number }
  | { action: 'send'; fireAt: number; endTime: number }
  | { action: 'too-late'; fireAt: number; endTime: number };

/**
 * What to do about a reminder now (pure): its moment is `minutesBefore` minutes before the lot's actual end
 * time (the catalogued end time, or the early close when earlier). Before the moment: wait for it. From the
 * moment on: send while the lot is open, or when the moment is at most ON_TIME_MS ago.
 */
export function planReminder(state: SubscriptionState | null, lotEndTime: number, now: number): ReminderPlan {
  if (!state || state.status !== 'active') return { action: 'done', reason: 'not-active' };
  const fireAt = lotEndTime - state.minutesBefore * 60_000;
  if (now < fireAt) return { action: 'wait', fireAt };
  if (now < lotEndTime || now - fireAt <= ON_TIME_MS) return { action: 'send', fireAt, endTime: lotEndTime };
  return { action: 'too-late', fireAt, endTime: lotEndTime };
}
