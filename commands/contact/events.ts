import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

export const ContactMessageSubmitted = defineEvent({
  type: 'ContactMessageSubmitted',
  version: 1,
  stream: 'contact-{tenant}-{messageId}',
  description: "A visitor sent a contact-form message; a background job delivers it to the tenant's contact address.",
  schema: z.object({
    tenant: tenantId,
    messageId: z.uuid(),
    name: z.string().min(1).max(200),
    email: z.email(),
    subject: z.string().min(1).max(200),
    message: z.string().min(1).max(5000),
    lotId: positiveId.nullable(),
    memberId: positiveId.nullable(),
    at: isoDateTime,
  }),
});

export const contactEvents = defineEvents([ContactMessageSubmitted]);
export type ContactEvent = EventsOf<typeof contactEvents>;

/** A contact message is its own stream. */
export const contactStreamId = (tenant: string, messageId: string) => `contact-${tenant}-${messageId}`;
