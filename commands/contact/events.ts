import { z } from 'zod';
import { defineEvent, isoDateTime, positiveId, tenantId, type EventOf } from '../../src/events/define.ts';

export const ContactMessageSubmitted = defineEvent({
  type: 'ContactMessageSubmitted',
  version: 1,
  stream: 'contact-{tenant}-{messageId}',
  description: 'A visitor sent a contact-form message; a background job delivers it to the tenant\'s contact address.',
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

export const contactEvents = [ContactMessageSubmitted] as const;
export type ContactEvent = EventOf<(typeof contactEvents)[number]>;
