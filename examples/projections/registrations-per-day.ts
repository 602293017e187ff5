// An analyst's projection (docs/analysts.md): per tenant, auction and day, how many bidders asked to register,
// how many the house approved and rejected, and how many accepted the auction's terms.
//   npm run project -- examples/projections/registrations-per-day.ts
// Its documents: the collection `analysis_registrations_per_day`, one per tenant, auction and day (UTC), with
// the id `<auctionId>:<YYYY-MM-DD>`.
import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc } from '../../src/ports/read-models.ts';
import { registrationsEvents } from '../../commands/registrations/events.ts';
import { termsEvents } from '../../commands/terms/events.ts';

export const REGISTRATIONS_PER_DAY = 'analysis_registrations_per_day';

export interface RegistrationsPerDayDoc extends Doc {
  AuctionId: number;
  Day: string;
  Requested: number;
  Approved: number;
  Rejected: number;
  TermsAccepted: number;
}

type Counter = 'Requested' | 'Approved' | 'Rejected' | 'TermsAccepted';

const COUNTER: Record<string, Counter> = {
  AuctionRegistrationRequested: 'Requested',
  RegistrationApproved: 'Approved',
  RegistrationRejected: 'Rejected',
  AuctionTermsAccepted: 'TermsAccepted',
};

export const registrationsPerDay = defineDocumentProjection({
  name: 'analysis-registrations-per-day',
  events: [registrationsEvents, termsEvents],
  collections: [{ name: REGISTRATIONS_PER_DAY, indexes: [{ fields: ['AuctionId', 'Day'] }] }],
  async apply(event, uow) {
    // Every event it reads carries tenant, auctionId and `at` (docs/events.md).
    const { tenant, auctionId, at } = event.data;
    const day = at.slice(0, 10);
    const counter = COUNTER[event.type];
    await uow.update<RegistrationsPerDayDoc>(REGISTRATIONS_PER_DAY, tenant, `${auctionId}:${day}`, (doc) => {
      const next = doc ?? { _id: '', AuctionId: auctionId, Day: day, Requested: 0, Approved: 0, Rejected: 0, TermsAccepted: 0 };
      next[counter] += 1;
      return next;
    });
  },
});
