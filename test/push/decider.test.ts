import { MAX_PUSH_SUBSCRIPTIONS, PushSubscriptionsFullError, pushSubscriptionsDecider } from '../../commands/push/decide.ts';
import type { PushEvent } from '../../commands/push/events.ts';
import { NotFoundError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';
const base = { tenant: 'demo', memberId: 1 };
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const keys = { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) };
const endpoint = (n: number) => `https://fcm.googleapis.com/fcm/send/${n}`;
const subscribe = (n: number, extra: Partial<{ subscriptionId: string; p256dh: string; language: string | null; at: string }> = {}) => ({
  type: 'Subscribe' as const,
  ...base,
  subscriptionId: id(n),
  endpoint: endpoint(n),
  endpointHost: 'fcm.googleapis.com',
  ...keys,
  expirationTime: null,
  language: null,
  at,
  ...extra,
});
const added = (
  n: number,
  extra: Partial<{ subscriptionId: string; p256dh: string; language: string | null; at: string; created: string }> = {},
): PushEvent => ({
  type: 'PushSubscriptionAdded',
  data: {
    ...base,
    subscriptionId: id(n),
    endpoint: endpoint(n),
    endpointHost: 'fcm.googleapis.com',
    ...keys,
    expirationTime: null,
    language: null,
    created: at,
    at,
    ...extra,
  },
});
const removed = (n: number, reason: 'member' | 'gone' | 'moved', status: number | null = null): PushEvent => ({
  type: 'PushSubscriptionRemoved',
  data: { ...base, subscriptionId: id(n), reason, status, at: later },
});

describe('push subscriptions decider', () => {
  it('adds a subscription of a new endpoint under the new id', () => {
    spec(pushSubscriptionsDecider)
      .given([])
      .when(subscribe(1))
      .then([added(1)]);
  });

  it('replaces the subscription of a known endpoint, keeping its id and when it was made; the same again appends nothing', () => {
    const fresh = { p256dh: 'C'.repeat(87), language: 'sv', at: later };
    spec(pushSubscriptionsDecider)
      .given([added(1)])
      .when(subscribe(1, { subscriptionId: id(9), ...fresh }))
      .then([added(1, { ...fresh, created: at })]);
    spec(pushSubscriptionsDecider)
      .given([added(1)])
      .when(subscribe(1, { subscriptionId: id(9), at: later }))
      .thenNothingHappened();
  });

  it(`holds at most ${MAX_PUSH_SUBSCRIPTIONS} subscriptions, but a known endpoint may still replace its own`, () => {
    const full = Array.from({ length: MAX_PUSH_SUBSCRIPTIONS }, (_, i) => added(i + 1));
    spec(pushSubscriptionsDecider).given(full).when(subscribe(99)).thenThrows(PushSubscriptionsFullError);
    spec(pushSubscriptionsDecider)
      .given(full)
      .when(subscribe(3, { language: 'de' }))
      .then([added(3, { language: 'de' })]);
    spec(pushSubscriptionsDecider)
      .given([...full, removed(5, 'member')])
      .when(subscribe(99))
      .then([added(99)]);
  });

  it("removes the member's own subscription; an unknown or removed one is not found", () => {
    const unsubscribe = (n: number) => ({ type: 'Unsubscribe' as const, ...base, subscriptionId: id(n), at: later });
    spec(pushSubscriptionsDecider)
      .given([added(1)])
      .when(unsubscribe(1))
      .then([removed(1, 'member')]);
    spec(pushSubscriptionsDecider)
      .given([added(1), removed(1, 'member')])
      .when(unsubscribe(1))
      .thenThrows(NotFoundError);
    spec(pushSubscriptionsDecider)
      .given([added(1)])
      .when(unsubscribe(2))
      .thenThrows(NotFoundError);
  });

  it('removes a subscription the push service says is gone, only while it still has that endpoint', () => {
    const gone = (n: number, url = endpoint(n)) => ({
      type: 'RemoveGone' as const,
      ...base,
      subscriptionId: id(n),
      endpoint: url,
      status: 410,
      at: later,
    });
    spec(pushSubscriptionsDecider)
      .given([added(1)])
      .when(gone(1))
      .then([removed(1, 'gone', 410)]);
    spec(pushSubscriptionsDecider)
      .given([added(1), removed(1, 'member')])
      .when(gone(1))
      .thenNothingHappened();
    spec(pushSubscriptionsDecider)
      .given([added(1)])
      .when(gone(1, endpoint(7)))
      .thenNothingHappened();
  });

  it('ends the subscription of an endpoint another member subscribed', () => {
    const moved = (url: string) => ({ type: 'RemoveMoved' as const, ...base, endpoint: url, at: later });
    spec(pushSubscriptionsDecider)
      .given([added(1), added(2)])
      .when(moved(endpoint(2)))
      .then([removed(2, 'moved')]);
    spec(pushSubscriptionsDecider)
      .given([added(1)])
      .when(moved(endpoint(2)))
      .thenNothingHappened();
  });
});
