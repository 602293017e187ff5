import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { pushEvents } from '../../commands/push/events.ts';
import { endpointHash, PUSH_SUBSCRIPTIONS, type PushSubscriptionDoc } from './collections.ts';

export const pushSubscriptionsProjection = defineDocumentProjection({
  name: 'push-subscriptions',
  events: [pushEvents],
  collections: [
    {
      name: PUSH_SUBSCRIPTIONS,
      indexes: [{ fields: ['MemberId', 'Created'] }, { fields: ['EndpointHash'] }],
      private: ['Endpoint', 'EndpointHash', 'P256dh', 'Auth'],
    },
  ],
  async apply(event, uow) {
    switch (event.type) {
      case 'PushSubscriptionAdded': {
        const d = event.data;
        await uow.update<PushSubscriptionDoc>(PUSH_SUBSCRIPTIONS, d.tenant, d.subscriptionId, () => ({
          Id: d.subscriptionId,
          MemberId: d.memberId,
          Endpoint: d.endpoint,
          EndpointHash: endpointHash(d.endpoint),
          EndpointHost: d.endpointHost,
          P256dh: d.p256dh,
          Auth: d.auth,
          ExpirationTime: d.expirationTime,
          Language: d.language,
          Created: d.created,
          Updated: d.at,
        }));
        return;
      }
      case 'PushSubscriptionRemoved': {
        const d = event.data;
        await uow.update<PushSubscriptionDoc>(PUSH_SUBSCRIPTIONS, d.tenant, d.subscriptionId, () => null);
        return;
      }
    }
  },
});
