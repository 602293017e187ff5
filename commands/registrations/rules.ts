// Whether a member may bid on a lot: the rule bidding's operations and the registrations' answers share.
import type { TenantScope } from '../../src/ports/read-models.ts';
import type { ProblemCode } from '../../src/problem-codes.ts';
import { auctionStatus, catalogueAuctions, type AuctionDoc, type LotDoc } from '../../projections/catalogue/index.ts';
import { termsAcceptances, termsId } from '../../projections/terms/index.ts';
import { findRegistration, type RegistrationDoc } from '../../projections/registrations/index.ts';

/**
 * Why a member may not bid on a lot, in the order they are checked (the first that applies); each is also the
 * `code` of the 403 of a refused bid (src/problem-codes.ts).
 */
export const lotRegistrationReasons = [
  'lot-closed',
  'auction-not-open',
  'terms-not-accepted',
  'not-registered',
  'registration-pending',
  'registration-rejected',
] as const satisfies readonly ProblemCode[];
export type LotRegistrationReason = (typeof lotRegistrationReasons)[number];

/** What decides whether a member may bid on a lot. */
export interface LotRegistrationFacts {
  lotClosed: boolean;
  /** The lot's auction is current by the clock, or live. */
  auctionOpen: boolean;
  termsRequired: boolean;
  termsAccepted: boolean;
  registration: RegistrationDoc['Status'] | 'none';
}

/**
 * Pure: the first reason that applies, in the order a bidder meets them — what nobody can change (the lot
 * closed, the auction not open), then the bidder's next step (accept the terms, then register), then the
 * house's decision. Null when the member may bid.
 */
export function lotRegistrationReason(f: LotRegistrationFacts): LotRegistrationReason | null {
  if (f.lotClosed) return 'lot-closed';
  if (!f.auctionOpen) return 'auction-not-open';
  if (f.termsRequired && !f.termsAccepted) return 'terms-not-accepted';
  switch (f.registration) {
    case 'none':
      return 'not-registered';
    case 'pending':
      return 'registration-pending';
    case 'rejected':
      return 'registration-rejected';
    case 'approved':
      return null;
  }
}

/**
 * Why the member may not bid on the lot now (the `Reason` of `GET /v1/me/lots/{lotId}/registration`), or null when
 * they may: read from the read models.
 */
export async function mayBidReason(
  db: TenantScope,
  memberId: number,
  lot: LotDoc,
  nowIso: string,
  /** The lot's end is decided elsewhere (timed bidding: on its stream, where an extension may not be projected yet). */
  options: {
    endDecidedOnStream?: boolean;
    /** The lot's auction, when the caller has read it already. */
    auction?: AuctionDoc | null;
  } = {},
): Promise<LotRegistrationReason | null> {
  const [auction, terms, registration] = await Promise.all([
    options.auction !== undefined ? options.auction : catalogueAuctions(db).findById(String(lot.AuctionId)),
    termsAcceptances(db).findById(termsId(memberId, lot.AuctionId)),
    findRegistration(db, memberId, lot.AuctionId),
  ]);
  const catalogued = auction !== null && auction.Catalogued;
  return lotRegistrationReason({
    lotClosed: !options.endDecidedOnStream && lot.EndTime <= nowIso,
    // A timed auction is open once it started: each lot's own end time (moved by soft close) ends its bidding.
    auctionOpen:
      catalogued &&
      (auction.IsLive || auctionStatus(auction, nowIso) === 'current' || (auction.BiddingMode === 'timed' && auction.StartTime <= nowIso)),
    termsRequired: catalogued && auction.RequiresTermsAcceptance,
    termsAccepted: terms !== null,
    registration: registration?.Status ?? 'none',
  });
}
