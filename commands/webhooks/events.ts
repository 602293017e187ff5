import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

const stream = 'webhooks-{tenant}';

export const WebhookRegistered = defineEvent({
  type: 'WebhookRegistered',
  version: 1,
  stream,
  description:
    'The back office registered a webhook: its URL, the event types it gets (null: all) and its signing secret. Deliveries start after this event.',
  schema: z.object({
    tenant: tenantId,
    webhookId: positiveId,
    url: z.string(),
    types: z.array(z.string()).nullable(),
    description: z.string(),
    secret: z.string(),
    at: isoDateTime,
  }),
  private: ['secret'],
});

export const WebhookDeleted = defineEvent({
  type: 'WebhookDeleted',
  version: 1,
  stream,
  description: 'The back office deleted a webhook: nothing more is delivered to it.',
  schema: z.object({ tenant: tenantId, webhookId: positiveId, at: isoDateTime }),
});

export const WebhookDisabled = defineEvent({
  type: 'WebhookDisabled',
  version: 1,
  stream,
  description: "A webhook's last retry of an event failed: deliveries stop until it is enabled again (from that event).",
  schema: z.object({ tenant: tenantId, webhookId: positiveId, eventId: z.string(), attempts: positiveId, at: isoDateTime }),
});

export const WebhookEnabled = defineEvent({
  type: 'WebhookEnabled',
  version: 1,
  stream,
  description: 'The back office enabled a disabled webhook: deliveries go on from the event where they stopped.',
  schema: z.object({ tenant: tenantId, webhookId: positiveId, at: isoDateTime }),
});

export const WebhookReplayRequested = defineEvent({
  type: 'WebhookReplayRequested',
  version: 1,
  stream,
  description: 'The back office asked a webhook to get again every event after a position (`after`, the log position), in order.',
  schema: z.object({ tenant: tenantId, webhookId: positiveId, after: z.number().int().min(0), at: isoDateTime }),
});

export const webhooksEvents = defineEvents([WebhookRegistered, WebhookDeleted, WebhookDisabled, WebhookEnabled, WebhookReplayRequested]);
export type WebhooksEvent = EventsOf<typeof webhooksEvents>;

/** A tenant's webhooks: one stream, so that the cap of 20 holds under parallel registrations. */
export const webhooksStreamId = (tenant: string) => `webhooks-${tenant}`;
