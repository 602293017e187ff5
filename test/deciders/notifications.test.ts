import { expect } from 'chai';
import { MAX_ACTIVE_SUBSCRIPTIONS, notificationDecider, ON_TIME_MS, planReminder, type SubscriptionState } from '../../commands/notifications/decide.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import type { NotificationsEvent } from '../../commands/notifications/events.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const id = '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b';
const base = { tenant: 'demo', subscriptionId: id };
const subscribe = {
  type: 'Subscribe' as const,
  ...base,
  memberId: 1,
  lotId: 412,
  minutesBefore: 30,
  channel: 'email' as const,
  clientEndTime: null,
  lot: { endTime: '2026-11-22T18:00:00.000Z' },
  hasPhone: false,
  activeSubscriptions: 0,
  at,
};
const subscribed: NotificationsEvent = {
  type: 'NotificationSubscribed',
  data: { ...base, memberId: 1, lotId: 412, minutesBefore: 30, channel: 'email', lotEndTime: '2026-11-22T18:00:00.000Z', clientEndTime: null, at },
};
const sent: NotificationsEvent = {
  type: 'NotificationDispatched',
  data: { ...base, memberId: 1, lotId: 412, channel: 'email', messageId: `notification-${id}`, lotEndTime: '2026-11-22T18:00:00.000Z', at: '2026-11-22T17:30:00.100Z' },
};
const unsubscribed: NotificationsEvent = { type: 'NotificationUnsubscribed', data: { ...base, memberId: 1, lotId: 412, at } };

describe('notifications decider', () => {
  describe('Subscribe', () => {
    it('subscribes to an open lot, keeping its end time and the client\'s EndDateTime as sent', () => {
      spec(notificationDecider)
        .given([])
        .when({ ...subscribe, clientEndTime: '2026-11-22T19:00:00+01:00' })
        .then([{ type: 'NotificationSubscribed', data: { ...subscribed.data, clientEndTime: '2026-11-22T19:00:00+01:00' } as never }]);
    });

    it('subscribes by SMS a member with a phone number', () => {
      spec(notificationDecider)
        .given([])
        .when({ ...subscribe, channel: 'sms', hasPhone: true })
        .then([{ type: 'NotificationSubscribed', data: { ...subscribed.data, channel: 'sms' } as never }]);
    });

    it('refuses an SMS reminder to a member without a phone number', () => {
      spec(notificationDecider).given([]).when({ ...subscribe, channel: 'sms', hasPhone: false }).thenThrows(ValidationError, /phone/);
    });

    it('refuses a lot that does not exist', () => {
      spec(notificationDecider).given([]).when({ ...subscribe, lot: null }).thenThrows(NotFoundError);
    });

    it('refuses a closed lot: its end time has passed, or is now', () => {
      spec(notificationDecider).given([]).when({ ...subscribe, lot: { endTime: '2026-11-22T09:59:59.000Z' } }).thenThrows(ConflictError, /closed/);
      spec(notificationDecider).given([]).when({ ...subscribe, lot: { endTime: at } }).thenThrows(ConflictError, /closed/);
    });

    it('refuses a member who holds the most active reminders already', () => {
      spec(notificationDecider).given([]).when({ ...subscribe, activeSubscriptions: MAX_ACTIVE_SUBSCRIPTIONS }).thenThrows(ConflictError, /at most/);
    });

    it('refuses a subscription id that is taken', () => {
      spec(notificationDecider).given([subscribed]).when(subscribe).thenThrows(ConflictError);
    });
  });

  describe('Unsubscribe', () => {
    const command = { type: 'Unsubscribe' as const, ...base, memberId: 1, at };

    it("removes the member's own reminder", () => {
      spec(notificationDecider).given([subscribed]).when(command).then([unsubscribed]);
    });

    it('removes a reminder that was sent already', () => {
      spec(notificationDecider).given([subscribed, sent]).when(command).then([unsubscribed]);
    });

    it("answers another member's reminder as one that does not exist", () => {
      spec(notificationDecider).given([subscribed]).when({ ...command, memberId: 2 }).thenThrows(NotFoundError);
    });

    it('refuses an unknown or already removed reminder', () => {
      spec(notificationDecider).given([]).when(command).thenThrows(NotFoundError);
      spec(notificationDecider).given([subscribed, unsubscribed]).when(command).thenThrows(NotFoundError);
    });
  });

  describe('RecordDispatched and RecordSkipped', () => {
    const recordDispatched = { type: 'RecordDispatched' as const, ...base, messageId: `notification-${id}`, lotEndTime: '2026-11-22T18:00:00.000Z', at: '2026-11-22T17:30:00.100Z' };
    const recordSkipped = { type: 'RecordSkipped' as const, ...base, reason: 'no-phone' as const, at: '2026-11-22T17:30:00.100Z' };

    it('records the sending of an active reminder, with its member, lot and channel', () => {
      spec(notificationDecider).given([subscribed]).when(recordDispatched).then([sent]);
    });

    it('records nothing when it was sent already, removed, or never subscribed: a reminder sends once', () => {
      spec(notificationDecider).given([subscribed, sent]).when(recordDispatched).then([]);
      spec(notificationDecider).given([subscribed, unsubscribed]).when(recordDispatched).then([]);
      spec(notificationDecider).given([]).when(recordDispatched).then([]);
    });

    it('records a skipped reminder once, and nothing after it was sent', () => {
      spec(notificationDecider)
        .given([subscribed])
        .when(recordSkipped)
        .then([{ type: 'NotificationSkipped', data: { ...base, memberId: 1, lotId: 412, channel: 'email', reason: 'no-phone', at: recordSkipped.at } }]);
      spec(notificationDecider).given([subscribed, sent]).when(recordSkipped).then([]);
    });
  });
});

describe('planning a reminder', () => {
  const end = Date.parse('2026-11-22T18:00:00.000Z');
  const active: SubscriptionState = { memberId: 1, lotId: 412, minutesBefore: 30, channel: 'email', status: 'active' };
  const fireAt = end - 30 * 60_000;

  it('waits for SendTime minutes before the end', () => {
    expect(planReminder(active, end, fireAt - 1)).to.deep.equal({ action: 'wait', fireAt });
  });

  it('sends from that moment on while the lot is open', () => {
    expect(planReminder(active, end, fireAt)).to.deep.equal({ action: 'send', fireAt, endTime: end });
    expect(planReminder(active, end, end - 1)).to.deep.equal({ action: 'send', fireAt, endTime: end });
  });

  it('sends a reminder at the very end (SendTime 0) shortly after the end, but not once its moment is long past', () => {
    const atEnd = { ...active, minutesBefore: 0 };
    expect(planReminder(atEnd, end, end)).to.deep.equal({ action: 'send', fireAt: end, endTime: end });
    expect(planReminder(atEnd, end, end + ON_TIME_MS)).to.deep.equal({ action: 'send', fireAt: end, endTime: end });
    expect(planReminder(atEnd, end, end + ON_TIME_MS + 1)).to.deep.equal({ action: 'too-late', fireAt: end, endTime: end });
  });

  it('does not send after the lot ended when the moment passed long before (an early close, or the service was down)', () => {
    expect(planReminder(active, end, end)).to.deep.equal({ action: 'too-late', fireAt, endTime: end });
  });

  it('does nothing for a reminder that was sent, skipped or removed', () => {
    for (const status of ['sent', 'skipped', 'unsubscribed'] as const)
      expect(planReminder({ ...active, status }, end, fireAt)).to.deep.equal({ action: 'done', reason: 'not-active' });
    expect(planReminder(null, end, fireAt)).to.deep.equal({ action: 'done', reason: 'not-active' });
  });
});
