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
