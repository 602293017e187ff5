import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { webhooksEvents } from '../../commands/webhooks/events.ts';
import { type WebhookDoc, WEBHOOKS } from './collections.ts';

export const webhooksProjection = defineDocumentProjection({
  name: 'webhooks',
  events: [webhooksEvents],
  collections: [{ name: WEBHOOKS, private: ['Secret'] }],
  async apply(event, uow) {
    const d = event.data;
    const id = String(d.webhookId);
    switch (event.type) {
      case 'WebhookRegistered':
        await uow.update<WebhookDoc>(WEBHOOKS, d.tenant, id, () => ({
          Id: d.webhookId,
          Url: event.data.url,
          Types: event.data.types,
          Description: event.data.description,
          Status: 'active',
          CreatedAt: event.data.at,
          Secret: event.data.secret,
          StartAfter: event.position,
          ReplaySeq: 0,
          ReplayAfter: 0,
        }));
        return;
      case 'WebhookDeleted':
        await uow.update<WebhookDoc>(WEBHOOKS, d.tenant, id, () => null);
        return;
      case 'WebhookDisabled':
      case 'WebhookEnabled':
        await uow.update<WebhookDoc>(WEBHOOKS, d.tenant, id, (doc) =>
          doc ? { ...doc, Status: event.type === 'WebhookDisabled' ? 'disabled' : 'active' } : null,
        );
        return;
      case 'WebhookReplayRequested':
        await uow.update<WebhookDoc>(WEBHOOKS, d.tenant, id, (doc) =>
          doc ? { ...doc, ReplaySeq: event.position, ReplayAfter: event.data.after } : null,
        );
        return;
    }
  },
});
