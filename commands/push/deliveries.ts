// What the push outbox's delivery jobs (src/adapters/delivery/push-outbox.ts) read and record of this feature:
// a subscription as it is now, its removal when the push service says it is gone, and the house's contact address
// (the VAPID subject). app/runtime.ts wires them in, since the adapter imports no feature.
import type { EventLog } from '../../src/ports/event-log.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import type { PushDeliveryDeps } from '../../src/adapters/delivery/push-outbox.ts';
import { runCommand } from '../../src/command-runner.ts';
import { pushSubscriptions } from '../../projections/push/index.ts';
import { tenantSettings } from '../../projections/access/index.ts';
import { pushSubscriptionsStreamId } from './events.ts';
import { pushSubscriptionsDecider } from './decide.ts';

export function pushDeliveryLookups(
  log: EventLog,
  documents: DocumentStore,
): Pick<PushDeliveryDeps, 'subscription' | 'removeGone' | 'contactOf'> {
  return {
    async subscription(tenant, subscriptionId) {
      const doc = await pushSubscriptions(documents.forTenant(tenant)).findById(subscriptionId);
      return doc && { memberId: doc.MemberId, endpoint: doc.Endpoint, p256dh: doc.P256dh, auth: doc.Auth };
    },
    async removeGone({ tenant, memberId, subscriptionId, endpoint, status }) {
      await runCommand(log, pushSubscriptionsStreamId(tenant, memberId), pushSubscriptionsDecider, {
        type: 'RemoveGone',
        tenant,
        memberId,
        subscriptionId,
        endpoint,
        status,
        at: new Date().toISOString(),
      });
    },
    async contactOf(tenant) {
      return (await tenantSettings(documents, tenant))?.ContactEmail ?? null;
    },
  };
}
