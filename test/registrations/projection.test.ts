import { registrationsReadModels } from '../../projections/registrations/index.ts';
import type { RegistrationsEvent } from '../../commands/registrations/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
const requested = (
  memberId: number,
  auctionId: number,
  status: 'pending' | 'approved',
  minute: number,
  tenant = 'demo',
): RegistrationsEvent => ({
  type: 'AuctionRegistrationRequested',
  data: { tenant, memberId, auctionId, status, channel: 'api', at: at(minute) },
});
const decided = (
  type: 'RegistrationApproved' | 'RegistrationRejected',
  memberId: number,
  auctionId: number,
  minute: number,
  tenant = 'demo',
): RegistrationsEvent => ({
  type,
  data: { tenant, memberId, auctionId, at: at(minute) },
});

describe('registrations projection', () => {
  it('records a request with the status it was given, one document per member and auction', async () => {
    await givenEvents(requested(1, 2, 'approved', 0), requested(1, 3, 'pending', 1))
      .whenProjected(registrationsReadModels)
      .thenDocuments('registrations', 'demo', [
        { _id: '1:2', MemberId: 1, AuctionId: 2, Status: 'approved', RequestedAt: at(0), DecidedAt: null, UpdatedAt: at(0) },
        { _id: '1:3', MemberId: 1, AuctionId: 3, Status: 'pending', RequestedAt: at(1), DecidedAt: null, UpdatedAt: at(1) },
      ]);
  });

  it("follows the house's decisions on a pending request, keeping when it was requested", async () => {
    await givenEvents(requested(1, 2, 'pending', 0), decided('RegistrationApproved', 1, 2, 5), decided('RegistrationRejected', 1, 2, 9))
      .whenProjected(registrationsReadModels)
      .thenDocuments('registrations', 'demo', [
        { _id: '1:2', MemberId: 1, AuctionId: 2, Status: 'rejected', RequestedAt: at(0), DecidedAt: at(9), UpdatedAt: at(9) },
      ]);
  });

  it('registers a member the house approved directly, without a request', async () => {
    await givenEvents(decided('RegistrationApproved', 4, 2, 3))
      .whenProjected(registrationsReadModels)
      .thenDocuments('registrations', 'demo', [
        { _id: '4:2', MemberId: 4, AuctionId: 2, Status: 'approved', RequestedAt: null, DecidedAt: at(3), UpdatedAt: at(3) },
      ]);
  });

  it("keeps each tenant's registrations apart", async () => {
    await givenEvents(
      requested(1, 2, 'pending', 0),
      requested(1, 2, 'pending', 1, 'demo2'),
      decided('RegistrationApproved', 1, 2, 2, 'demo2'),
    )
      .whenProjected(registrationsReadModels)
      .thenDocuments('registrations', 'demo', [
        { _id: '1:2', MemberId: 1, AuctionId: 2, Status: 'pending', RequestedAt: at(0), DecidedAt: null, UpdatedAt: at(0) },
      ])
      .thenDocuments('registrations', 'demo2', [
        { _id: '1:2', MemberId: 1, AuctionId: 2, Status: 'approved', RequestedAt: at(1), DecidedAt: at(2), UpdatedAt: at(2) },
      ]);
  });
});
