import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { registrationsEvents, type RegistrationStatus } from '../../commands/registrations/events.ts';

/** A member's registration for an auction: one document per member and auction, `_id` = registrationId(). */
export const REGISTRATIONS = 'registrations';

export interface RegistrationDoc extends Doc {
  MemberId: number;
  AuctionId: number;
  Status: RegistrationStatus;
  /** When the member (or the house on their behalf) asked; null when the house registered them directly. */
  RequestedAt: string | null;
  /** When the house last decided; null while only requested. */
  DecidedAt: string | null;
  UpdatedAt: string;
}

export const registrationId = (memberId: number, auctionId: number) => `${memberId}:${auctionId}`;

export const registrations = (db: TenantScope) => db.collection<RegistrationDoc>(REGISTRATIONS);

/** The member's registration for the auction, or null when never requested nor decided. */
export const findRegistration = (db: TenantScope, memberId: number, auctionId: number) =>
  registrations(db).findById(registrationId(memberId, auctionId));

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
