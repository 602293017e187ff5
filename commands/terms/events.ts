import { z } from 'zod';
import { defineEvent, isoDateTime, positiveId, tenantId, type EventOf } from '../../src/events/define.ts';

export const AuctionTermsAccepted = defineEvent({
  type: 'AuctionTermsAccepted',
  version: 1,
  stream: 'terms-{tenant}-{memberId}',
  description: 'A bidder accepted the terms of an auction (recorded once; accepting again appends nothing).',
  schema: z.object({ tenant: tenantId, memberId: positiveId, auctionId: positiveId, at: isoDateTime }),
});

export const termsEvents = [AuctionTermsAccepted] as const;
export type TermsEvent = EventOf<(typeof termsEvents)[number]>;
