import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, tenantId, type EventsOf } from '../../src/events/define.ts';

const stream = 'intake-request-{tenant}-{keyHash}';

const answer = z.object({
  Records: z.number().int().min(0),
  Appended: z.number().int().min(0),
  Errors: z.array(z.object({ Line: z.number().int().min(1), Detail: z.string() })),
});

export const IntakeRequestReceived = defineEvent({
  type: 'IntakeRequestReceived',
  version: 1,
  stream,
  description: 'A back office sent intake over HTTP with an Idempotency-Key: the key is taken for this body (its SHA-256) while it runs.',
  schema: z.object({ tenant: tenantId, keyHash: z.string(), bodyHash: z.string(), at: isoDateTime }),
  operator: true,
});

export const IntakeRequestAnswered = defineEvent({
  type: 'IntakeRequestAnswered',
  version: 1,
  stream,
  description: 'The answer of an intake request with an Idempotency-Key, given again to the same key and body for 24 hours.',
  schema: z.object({ tenant: tenantId, keyHash: z.string(), bodyHash: z.string(), answer, at: isoDateTime }),
  operator: true,
});

export const backofficeIntakeEvents = defineEvents([IntakeRequestReceived, IntakeRequestAnswered]);
export type BackofficeIntakeEvent = EventsOf<typeof backofficeIntakeEvents>;
export type IntakeAnswer = z.infer<typeof answer>;

/** One stream per tenant and Idempotency-Key (by the key's SHA-256: any text the client chose stays out of stream ids). */
export const intakeRequestStreamId = (tenant: string, keyHash: string) => `intake-request-${tenant}-${keyHash}`;
