import { webhooksReadModels } from '../../projections/webhooks/index.ts';
import type { WebhooksEvent } from '../../commands/webhooks/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const e = (type: WebhooksEvent['type'], data: Record<string, unknown>) => ({ type, data: { tenant: 'demo', ...data } }) as WebhooksEvent;
const hook = (id: number, fields: Record<string, unknown>) => ({
  _id: String(id),
  Id: id,
  Url: `https://erp.example.com/hooks/${id}`,
  Types: null,
  Description: '',
  Status: 'active',
  CreatedAt: at(id),
  Secret: `whsec_${id}`,
  ReplaySeq: 0,
  ReplayAfter: 0,
  ...fields,
});
const registered = (id: number) =>
  e('WebhookRegistered', {
    webhookId: id,
    url: `https://erp.example.com/hooks/${id}`,
    types: null,
    description: '',
    secret: `whsec_${id}`,
    at: at(id),
  });

describe('webhooks projection', () => {
  it('keeps a webhook from its registration (deliveries start after that position), its status and its last replay', async () => {
    await givenEvents(
      registered(1),
      registered(2),
      e('WebhookDisabled', { webhookId: 1, eventId: 'x', attempts: 8, at: at(5) }),
      e('WebhookReplayRequested', { webhookId: 2, after: 1, at: at(6) }),
      e('WebhookEnabled', { webhookId: 1, at: at(7) }),
      registered(3),
      e('WebhookDeleted', { webhookId: 3, at: at(9) }),
    )
      .whenProjected(webhooksReadModels)
      .thenDocuments('webhooks', 'demo', [hook(1, { StartAfter: 1 }), hook(2, { StartAfter: 2, ReplaySeq: 4, ReplayAfter: 1 })]);
  });
});
