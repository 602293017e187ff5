import { expect } from 'chai';
import {
  legacySubscriptionDecider,
  MAX_ACTIVE_SUBSCRIPTIONS,
  memberNotificationsDecider,
  ON_TIME_MS,
  planReminder,
  SameReminderPending,
  type SubscriptionState,
} from '../../commands/notifications/decide.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import type { NotificationsEvent } from '../../commands/notifications/events.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const lotEndTime = '2026-11-22T18:00:00.000Z';
const id = '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b';
const base = { tenant: 'demo', subscriptionId: id };
/** The n-th subscription id of a spec (a v4 uuid). */
const idOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const subscribe = {
  type: 'Subscribe' as const,
  ...base,
  memberId: 1,
  lotId: 412,
  minutesBefore: 30,
  channel: 'email' as const,
  clientEndTime: null,
  lot: { endTime: lotEndTime },
  hasPhone: false,
  legacyPending: 0,
  at,
};
type Subscribed = Extract<NotificationsEvent, { type: 'NotificationSubscribed' }>;
const subscribedTo = (subscriptionId: string, minutesBefore = 30, lotId = 412): Subscribed => ({
  type: 'NotificationSubscribed',
  data: { tenant: 'demo', subscriptionId, memberId: 1, lotId, minutesBefore, channel: 'email', lotEndTime, clientEndTime: null, at },
});
const subscribed = subscribedTo(id);
const sentOf = (subscriptionId: string, lotId = 412): NotificationsEvent => ({
  type: 'NotificationDispatched',
  data: {
    tenant: 'demo',
    subscriptionId,
    memberId: 1,
    lotId,
    channel: 'email',
    messageId: `notification-${subscriptionId}`,
    lotEndTime,
    at: '2026-11-22T17:30:00.100Z',
  },
});
const sent = sentOf(id);
const skippedOf = (subscriptionId: string, lotId = 412): NotificationsEvent => ({
  type: 'NotificationSkipped',
  data: { tenant: 'demo', subscriptionId, memberId: 1, lotId, channel: 'email', reason: 'lot-ended', at: '2026-11-22T17:30:00.100Z' },
});
const unsubscribedOf = (subscriptionId: string, lotId = 412): NotificationsEvent => ({
  type: 'NotificationUnsubscribed',
  data: { tenant: 'demo', subscriptionId, memberId: 1, lotId, at },
});
const unsubscribed = unsubscribedOf(id);
/** n pending reminders of member 1, each for another SendTime of lot 500 (so none is the one asked for in `subscribe`). */
const pendingReminders = (n: number) => Array.from({ length: n }, (_, i) => subscribedTo(idOf(i + 1), i % 10_081, 500));
const accepted: NotificationsEvent[] = [{ type: 'NotificationSubscribed', data: { ...subscribed.data } }];

describe("notifications decider (a member's stream)", () => {
  describe('Subscribe', () => {
    it("subscribes to an open lot, keeping its end time and the client's EndDateTime as sent", () => {
      spec(memberNotificationsDecider)
        .given([])
        .when({ ...subscribe, clientEndTime: '2026-11-22T19:00:00+01:00' })
        .then([{ type: 'NotificationSubscribed', data: { ...subscribed.data, clientEndTime: '2026-11-22T19:00:00+01:00' } as never }]);
    });

    it('subscribes by SMS a member with a phone number', () => {
      spec(memberNotificationsDecider)
        .given([])
        .when({ ...subscribe, channel: 'sms', hasPhone: true })
        .then([{ type: 'NotificationSubscribed', data: { ...subscribed.data, channel: 'sms' } as never }]);
    });

    it('refuses an SMS reminder to a member without a phone number', () => {
      spec(memberNotificationsDecider)
        .given([])
        .when({ ...subscribe, channel: 'sms', hasPhone: false })
        .thenThrows(ValidationError, /phone/);
    });

    it('refuses a lot that does not exist', () => {
      spec(memberNotificationsDecider)
        .given([])
        .when({ ...subscribe, lot: null })
        .thenThrows(NotFoundError);
    });

    it('refuses a closed lot: its end time has passed, or is now', () => {
      spec(memberNotificationsDecider)
        .given([])
        .when({ ...subscribe, lot: { endTime: '2026-11-22T09:59:59.000Z' } })
        .thenThrows(ConflictError, /closed/);
      spec(memberNotificationsDecider)
        .given([])
        .when({ ...subscribe, lot: { endTime: at } })
        .thenThrows(ConflictError, /closed/);
    });

    it('refuses a subscription id that is taken', () => {
      spec(memberNotificationsDecider)
        .given([subscribed, sent])
        .when(subscribe)
        .thenThrows(ConflictError, /exists/);
    });
  });

  describe('the limit of 1,000 pending reminders, decided on the stream', () => {
    it('accepts the 1,000th pending reminder and refuses the 1,001st (409)', () => {
      expect(MAX_ACTIVE_SUBSCRIPTIONS).to.equal(1000);
      spec(memberNotificationsDecider).given(pendingReminders(999)).when(subscribe).then(accepted);
      spec(memberNotificationsDecider)
        .given(pendingReminders(1000))
        .when(subscribe)
        .thenThrows(ConflictError, /at most 1000/);
    });

    it('refuses every further one of several decided one after another at the limit, as the runner decides a batch', () => {
      // 995 pending, then 20 different reminders decided in turn on the state each leaves: 5 are accepted.
      let state = pendingReminders(995).reduce(memberNotificationsDecider.evolve, memberNotificationsDecider.initialState());
      const outcomes: string[] = [];
      for (let n = 0; n < 20; n++) {
        try {
          const events = memberNotificationsDecider.decide({ ...subscribe, subscriptionId: idOf(5000 + n), minutesBefore: n }, state);
          for (const event of events) state = memberNotificationsDecider.evolve(state, event);
          outcomes.push('accepted');
        } catch (error) {
          expect(error).to.be.instanceOf(ConflictError);
          outcomes.push('refused');
        }
      }
      expect(outcomes).to.deep.equal([...Array(5).fill('accepted'), ...Array(15).fill('refused')]);
      expect(state.pending).to.equal(1000);
    });

    it('frees a slot when a pending reminder is removed', () => {
      spec(memberNotificationsDecider)
        .given([...pendingReminders(1000), unsubscribedOf(idOf(7), 500)])
        .when(subscribe)
        .then(accepted);
    });

    it('frees a slot when a pending reminder is sent or skipped, and not when a sent one is removed', () => {
      spec(memberNotificationsDecider)
        .given([...pendingReminders(1000), sentOf(idOf(3), 500)])
        .when(subscribe)
        .then(accepted);
      spec(memberNotificationsDecider)
        .given([...pendingReminders(1000), skippedOf(idOf(3), 500)])
        .when(subscribe)
        .then(accepted);
      spec(memberNotificationsDecider)
        .given([
          ...pendingReminders(999),
          subscribedTo(idOf(4000), 7, 501),
          sentOf(idOf(4000), 501),
          subscribedTo(idOf(4001), 8, 501),
          unsubscribedOf(idOf(4000), 501),
        ])
        .when(subscribe)
        .thenThrows(ConflictError, /at most/);
    });

    it('counts the pending reminders of older per-subscription streams (legacyPending) against the limit', () => {
      spec(memberNotificationsDecider)
        .given(pendingReminders(990))
        .when({ ...subscribe, legacyPending: 9 })
        .then(accepted);
      spec(memberNotificationsDecider)
        .given(pendingReminders(990))
        .when({ ...subscribe, legacyPending: 10 })
        .thenThrows(ConflictError, /at most/);
      spec(memberNotificationsDecider)
        .given([])
        .when({ ...subscribe, legacyPending: MAX_ACTIVE_SUBSCRIPTIONS })
        .thenThrows(ConflictError, /at most/);
    });
  });

  describe('the same reminder asked for again', () => {
    it("answers with the pending reminder's id (SameReminderPending) and appends nothing, at the limit too", () => {
      const retry = { ...subscribe, subscriptionId: idOf(9999), clientEndTime: '2026-11-22T19:00:00Z' };
      spec(memberNotificationsDecider).given([subscribed]).when(retry).thenThrows(SameReminderPending, new RegExp(id));
      spec(memberNotificationsDecider)
        .given([...pendingReminders(999), subscribed])
        .when(retry)
        .thenThrows(SameReminderPending, new RegExp(id));
      try {
        memberNotificationsDecider.decide(
          retry,
          [subscribed].reduce(memberNotificationsDecider.evolve, memberNotificationsDecider.initialState()),
        );
        expect.fail('a retry decided events');
      } catch (error) {
        expect((error as SameReminderPending).subscriptionId).to.equal(id);
      }
    });

    it('makes a new reminder when the lot, SendTime or channel differs', () => {
      const other = { ...subscribe, subscriptionId: idOf(9999) };
      const data = { ...subscribed.data, subscriptionId: idOf(9999) };
      spec(memberNotificationsDecider)
        .given([subscribed])
        .when({ ...other, lotId: 413 })
        .then([{ type: 'NotificationSubscribed', data: { ...data, lotId: 413 } }]);
      spec(memberNotificationsDecider)
        .given([subscribed])
        .when({ ...other, minutesBefore: 31 })
        .then([{ type: 'NotificationSubscribed', data: { ...data, minutesBefore: 31 } }]);
      spec(memberNotificationsDecider)
        .given([subscribed])
        .when({ ...other, channel: 'sms', hasPhone: true })
        .then([{ type: 'NotificationSubscribed', data: { ...data, channel: 'sms' } }]);
    });

    it('makes a new reminder once the earlier one was sent, skipped or removed', () => {
      const again = { ...subscribe, subscriptionId: idOf(9999) };
      const expected: NotificationsEvent[] = [{ type: 'NotificationSubscribed', data: { ...subscribed.data, subscriptionId: idOf(9999) } }];
      spec(memberNotificationsDecider).given([subscribed, sent]).when(again).then(expected);
      spec(memberNotificationsDecider)
        .given([subscribed, skippedOf(id)])
        .when(again)
        .then(expected);
      spec(memberNotificationsDecider).given([subscribed, unsubscribed]).when(again).then(expected);
    });
  });

  describe('Unsubscribe', () => {
    const command = { type: 'Unsubscribe' as const, ...base, memberId: 1, at };

    it("removes the member's own reminder", () => {
      spec(memberNotificationsDecider).given([subscribed]).when(command).then([unsubscribed]);
    });

    it('removes a reminder that was sent already', () => {
      spec(memberNotificationsDecider).given([subscribed, sent]).when(command).then([unsubscribed]);
    });

    it('refuses an unknown or already removed reminder (404)', () => {
      spec(memberNotificationsDecider).given([]).when(command).thenThrows(NotFoundError);
      spec(memberNotificationsDecider).given([subscribed, unsubscribed]).when(command).thenThrows(NotFoundError);
      spec(memberNotificationsDecider)
        .given([subscribedTo(idOf(1))])
        .when(command)
        .thenThrows(NotFoundError);
    });
  });

  describe('RecordDispatched and RecordSkipped', () => {
    const recordDispatched = {
      type: 'RecordDispatched' as const,
      ...base,
      messageId: `notification-${id}`,
      lotEndTime,
      at: '2026-11-22T17:30:00.100Z',
    };
    const recordSkipped = { type: 'RecordSkipped' as const, ...base, reason: 'no-phone' as const, at: '2026-11-22T17:30:00.100Z' };

    it("records the sending of an active reminder, with its member, lot and channel, among the member's others", () => {
      spec(memberNotificationsDecider)
        .given([subscribedTo(idOf(1)), subscribed, subscribedTo(idOf(2), 45)])
        .when(recordDispatched)
        .then([sent]);
    });

    it('records nothing when it was sent already, removed, or never subscribed: a reminder sends once', () => {
      spec(memberNotificationsDecider).given([subscribed, sent]).when(recordDispatched).thenNothingHappened();
      spec(memberNotificationsDecider).given([subscribed, unsubscribed]).when(recordDispatched).thenNothingHappened();
      spec(memberNotificationsDecider)
        .given([subscribedTo(idOf(1))])
        .when(recordDispatched)
        .thenNothingHappened();
    });

    it('records a skipped reminder once, and nothing after it was sent', () => {
      spec(memberNotificationsDecider)
        .given([subscribed])
        .when(recordSkipped)
        .then([
          {
            type: 'NotificationSkipped',
            data: { ...base, memberId: 1, lotId: 412, channel: 'email', reason: 'no-phone', at: recordSkipped.at },
          },
        ]);
      spec(memberNotificationsDecider).given([subscribed, sent]).when(recordSkipped).thenNothingHappened();
    });
  });

  describe('StopMails (a one-click unsubscribe link used)', () => {
    const linkId = 'l1nk-0123456789abcdef';
    const stop = { type: 'StopMails' as const, tenant: 'demo', memberId: 1, kind: 'reminder' as const, auctionId: null, linkId, at };
    const stoppedBy = (kind: 'reminder' | 'outbid', auctionId: number | null, link = linkId): NotificationsEvent => ({
      type: 'NotificationMailsStopped',
      data: { tenant: 'demo', memberId: 1, kind, auctionId, linkId: link, at },
    });
    const bySms: NotificationsEvent = { type: 'NotificationSubscribed', data: { ...subscribedTo(idOf(3), 15).data, channel: 'sms' } };

    it('stops reminders: removes every pending reminder by e-mail, not the SMS ones nor those sent', () => {
      spec(memberNotificationsDecider)
        .given([subscribedTo(idOf(1)), sentOf(idOf(1)), subscribedTo(idOf(2), 45, 413), bySms, subscribed])
        .when(stop)
        .then([stoppedBy('reminder', null), unsubscribedOf(idOf(2), 413), unsubscribedOf(id)]);
    });

    it('stops the outbid mails of one auction, which the member stream then tells', () => {
      spec(memberNotificationsDecider)
        .given([subscribed])
        .when({ ...stop, kind: 'outbid', auctionId: 10 })
        .then([stoppedBy('outbid', 10)]);
      const state = [subscribed, stoppedBy('outbid', 10)].reduce(
        memberNotificationsDecider.evolve,
        memberNotificationsDecider.initialState(),
      );
      expect([...state.outbidStopped]).to.deep.equal([10]);
      expect(state.pending).to.equal(1);
    });

    it('takes a link once (404 unsubscribe-link-used), whatever happened since; another link is taken', () => {
      spec(memberNotificationsDecider)
        .given([stoppedBy('reminder', null), subscribed])
        .when(stop)
        .thenThrows(AppError, /used already/);
      spec(memberNotificationsDecider)
        .given([stoppedBy('reminder', null), subscribed])
        .when({ ...stop, linkId: 'another-link-0123456789' })
        .then([stoppedBy('reminder', null, 'another-link-0123456789'), unsubscribedOf(id)]);
    });
  });
});

describe('notifications decider (an older per-subscription stream, notification-{tenant}-{subscriptionId})', () => {
  const unsubscribe = { type: 'Unsubscribe' as const, ...base, memberId: 1, at };
  const recordDispatched = {
    type: 'RecordDispatched' as const,
    ...base,
    messageId: `notification-${id}`,
    lotEndTime,
    at: '2026-11-22T17:30:00.100Z',
  };
  const recordSkipped = { type: 'RecordSkipped' as const, ...base, reason: 'lot-ended' as const, at: '2026-11-22T17:30:00.100Z' };

  it("removes the member's own reminder, sent or not; removing it again is 404", () => {
    spec(legacySubscriptionDecider).given([subscribed]).when(unsubscribe).then([unsubscribed]);
    spec(legacySubscriptionDecider).given([subscribed, sent]).when(unsubscribe).then([unsubscribed]);
    spec(legacySubscriptionDecider).given([subscribed, unsubscribed]).when(unsubscribe).thenThrows(NotFoundError);
  });

  it("answers another member's reminder, and a stream that holds none, as one that does not exist", () => {
    spec(legacySubscriptionDecider)
      .given([subscribed])
      .when({ ...unsubscribe, memberId: 2 })
      .thenThrows(NotFoundError);
    spec(legacySubscriptionDecider).given([]).when(unsubscribe).thenThrows(NotFoundError);
  });

  it('records its sending or skipping once, and nothing after it was sent, skipped or removed', () => {
    spec(legacySubscriptionDecider).given([subscribed]).when(recordDispatched).then([sent]);
    spec(legacySubscriptionDecider)
      .given([subscribed])
      .when(recordSkipped)
      .then([skippedOf(id)]);
    for (const after of [sent, skippedOf(id), unsubscribed]) {
      spec(legacySubscriptionDecider).given([subscribed, after]).when(recordDispatched).thenNothingHappened();
      spec(legacySubscriptionDecider).given([subscribed, after]).when(recordSkipped).thenNothingHappened();
    }
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
