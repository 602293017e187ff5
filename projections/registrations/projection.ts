import type { DocumentProjection, Projection, ReactorDeps } from '../../src/projector/projection.ts';
import { asAppEvent } from '../../src/events/registry.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import type { RegistrationStatus } from '../../commands/registrations/events.ts';

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

export const registrationsProjection: DocumentProjection = {
  kind: 'documents',
  name: 'registrations',
  collections: [{ name: REGISTRATIONS, indexes: [{ fields: ['MemberId', 'AuctionId'] }] }],
  handles: ['AuctionRegistrationRequested', 'RegistrationApproved', 'RegistrationRejected'],
  async apply(recorded, uow) {
    const event = asAppEvent(recorded);
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
};

/** The projections (and reactors) of registrations. */
export function registrationsProjections(_deps: ReactorDeps): Projection[] {
  return [registrationsProjection];
}
