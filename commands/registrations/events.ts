import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/** What a registration can be once requested or decided (API.md "Registrations"). */
export const registrationStatuses = ['pending', 'approved', 'rejected'] as const;
export type RegistrationStatus = (typeof registrationStatuses)[number];

/** The house's decisions, as intake records carry them. */
export const registrationDecisions = ['approved', 'rejected'] as const;
export type RegistrationDecision = (typeof registrationDecisions)[number];

/** How a request reached the service: the bidder through the API, or the house's own system through intake. */
export const registrationChannels = ['api', 'intake'] as const;

const STREAM = 'registration-{tenant}-{memberId}-{auctionId}';

export const AuctionRegistrationRequested = defineEvent({
  type: 'AuctionRegistrationRequested',
  version: 1,
  stream: STREAM,
  description:
    'A bidder asked to be registered for an auction (once per member and auction; asking again appends nothing). `status` is what the request was given: `approved` at once for a confirmed member of an auction the house approves automatically, else `pending` until the house decides. `channel` `intake`: a request the house received itself and imported (always `pending`).',
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    auctionId: positiveId,
    status: z.enum(['pending', 'approved']),
    channel: z.enum(registrationChannels),
    at: isoDateTime,
  }),
});

export const RegistrationApproved = defineEvent({
  type: 'RegistrationApproved',
  version: 1,
  stream: STREAM,
  description:
    'Registration intake: the house approved a member for an auction (a pending or rejected registration, or one the member never requested: the house registered them directly).',
  schema: z.object({ tenant: tenantId, memberId: positiveId, auctionId: positiveId, at: isoDateTime }),
});

export const RegistrationRejected = defineEvent({
  type: 'RegistrationRejected',
  version: 1,
  stream: STREAM,
  description:
    'Registration intake: the house rejected a member for an auction (a pending or approved registration — an approval withdrawn — or one the member never requested).',
  schema: z.object({ tenant: tenantId, memberId: positiveId, auctionId: positiveId, at: isoDateTime }),
});

export const registrationsEvents = defineEvents([AuctionRegistrationRequested, RegistrationApproved, RegistrationRejected]);
export type RegistrationsEvent = EventsOf<typeof registrationsEvents>;

/** One stream per member and auction: a registration's whole history is a handful of events. */
export const registrationsStreamId = (tenant: string, memberId: number, auctionId: number) =>
  `registration-${tenant}-${memberId}-${auctionId}`;
