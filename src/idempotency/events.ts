import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, tenantId, type EventsOf } from '../events/define.ts';

const stream = 'request-key-{tenant}-{scope}-{keyHash}';
/** An answer given again: the JSON the operation answered the first time. */
const answer = z.record(z.string(), z.unknown());

export const RequestKeyClaimed = defineEvent({
  type: 'RequestKeyClaimed',
  version: 1,
  stream,
  description:
    'A request with an Idempotency-Key (intake over HTTP, a bid) took the key for its body (SHA-256) while it runs. `scope` names whose keys these are (`intake`, `bids-{memberId}`).',
  schema: z.object({
    tenant: tenantId,
    scope: z.string().max(100),
    keyHash: z.string().max(64),
    bodyHash: z.string().max(64),
    at: isoDateTime,
  }),
  operator: true,
});

export const RequestKeyAnswered = defineEvent({
  type: 'RequestKeyAnswered',
  version: 1,
  stream,
  description: 'The answer of a request with an Idempotency-Key, given again to the same key and body for 24 hours.',
  schema: z.object({
    tenant: tenantId,
    scope: z.string().max(100),
    keyHash: z.string().max(64),
    bodyHash: z.string().max(64),
    answer,
    at: isoDateTime,
  }),
  operator: true,
});

export const RequestKeyReleased = defineEvent({
  type: 'RequestKeyReleased',
  version: 1,
  stream,
  description: 'The request that claimed an Idempotency-Key was refused (nothing done): the key is free again.',
  schema: z.object({ tenant: tenantId, scope: z.string().max(100), keyHash: z.string().max(64), at: isoDateTime }),
  operator: true,
});

export const idempotencyEvents = defineEvents([RequestKeyClaimed, RequestKeyAnswered, RequestKeyReleased]);
export type IdempotencyEvent = EventsOf<typeof idempotencyEvents>;

/** One stream per tenant, scope and key (by the key's SHA-256: the text a client chose stays out of stream ids). */
export const requestKeyStreamId = (tenant: string, scope: string, keyHash: string) => `request-key-${tenant}-${scope}-${keyHash}`;
