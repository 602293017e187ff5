import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { registrationsEvents } from '../../commands/registrations/events.ts';
import { REGISTRATIONS, type RegistrationDoc, registrationId } from './collections.ts';

export const registrationsProjection = defineDocumentProjection({
  name: 'registrations',
  events: [registrationsEvents],
  collections: [{ name: REGISTRATIONS, indexes: [{ fields: ['MemberId', 'AuctionId'] }] }],
  async apply(event, uow) {
    switch (event.type) {
      case 'AuctionRegistrationRequested': {
        const d = event.data;
        await uow.update<RegistrationDoc>(REGISTRATIONS, d.tenant, registrationId(d.memberId, d.auctionId), (doc) => ({
          MemberId: d.memberId,
          AuctionId: d.auctionId,
          Status: d.status,
          RequestedAt: d.at,
          DecidedAt: doc?.DecidedAt ?? null,
          UpdatedAt: d.at,
        }));
        return;
      }
      case 'RegistrationApproved':
      case 'RegistrationRejected': {
        const d = event.data;
        await uow.update<RegistrationDoc>(REGISTRATIONS, d.tenant, registrationId(d.memberId, d.auctionId), (doc) => ({
          MemberId: d.memberId,
          AuctionId: d.auctionId,
          Status: event.type === 'RegistrationApproved' ? 'approved' : 'rejected',
          RequestedAt: doc?.RequestedAt ?? null,
          DecidedAt: d.at,
          UpdatedAt: d.at,
        }));
        return;
      }
    }
  },
});
