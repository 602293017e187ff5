import { createHash } from 'node:crypto';
import { pushReadModels } from '../../projections/push/index.ts';
import type { PushEvent } from '../../commands/push/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const endpoint = (n: number) => `https://updates.push.services.mozilla.com/wpush/v2/${n}`;
const added = (memberId: number, n: number, minute: number, created = at(minute), language: string | null = null): PushEvent => ({
  type: 'PushSubscriptionAdded',
  data: {
    tenant: 'demo',
    memberId,
    subscriptionId: id(n),
    endpoint: endpoint(n),
    endpointHost: 'updates.push.services.mozilla.com',
    p256dh: `B${'x'.repeat(86)}`,
    auth: 'A'.repeat(22),
    expirationTime: null,
    language,
    created,
    at: at(minute),
  },
});
const doc = (memberId: number, n: number, created: string, updated: string, language: string | null = null) => ({
  _id: id(n),
  Id: id(n),
  MemberId: memberId,
  Endpoint: endpoint(n),
  EndpointHash: createHash('sha256').update(endpoint(n)).digest('hex'),
  EndpointHost: 'updates.push.services.mozilla.com',
  P256dh: `B${'x'.repeat(86)}`,
  Auth: 'A'.repeat(22),
  ExpirationTime: null,
  Language: language,
  Created: created,
  Updated: updated,
});

describe('push subscriptions projection', () => {
  it('keeps each subscription under its id with its member, endpoint (and its hash) and keys; a replacement keeps when it was made', async () => {
    await givenEvents(added(1, 1, 0), added(2, 2, 1), added(1, 1, 5, at(0), 'sv'))
      .whenProjected(pushReadModels)
      .thenDocuments('push_subscriptions', 'demo', [doc(1, 1, at(0), at(5), 'sv'), doc(2, 2, at(1), at(1))]);
  });

  it('deletes a removed subscription, whatever the reason', async () => {
    const removed = (memberId: number, n: number, reason: 'member' | 'gone' | 'moved'): PushEvent => ({
      type: 'PushSubscriptionRemoved',
      data: { tenant: 'demo', memberId, subscriptionId: id(n), reason, status: reason === 'gone' ? 410 : null, at: at(9) },
    });
    await givenEvents(added(1, 1, 0), added(1, 2, 1), added(2, 3, 2), removed(1, 1, 'member'), removed(1, 2, 'gone'))
      .whenProjected(pushReadModels)
      .thenDocuments('push_subscriptions', 'demo', [doc(2, 3, at(2), at(2))]);
  });
});
