import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

export const AuctionTermsAccepted = defineEvent({
  type: 'AuctionTermsAccepted',
  version: 1,
  stream: 'terms-{tenant}-{memberId}',
  description: 'A bidder accepted the terms of an auction (recorded once; accepting again appends nothing).',
  schema: z.object({ tenant: tenantId, memberId: positiveId, auctionId: positiveId, at: isoDateTime }),
});

export const termsEvents = defineEvents([AuctionTermsAccepted]);
export type TermsEvent = EventsOf<typeof termsEvents>;

/** The auctions whose terms a member accepted: one stream per member. */
export const termsStreamId = (tenant: string, memberId: number) => `terms-${tenant}-${memberId}`;
