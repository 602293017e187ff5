// What timed bidding counts for /metrics: bids by outcome, soft-close extensions, lots closed.
import { defineCounter } from '../../src/counters.ts';
import { AppError, ForbiddenError, NotFoundError, ValidationError, WriteContentionError } from '../../src/errors.ts';
import { BidBelowMinimumError, BiddingEndedError, NotTimedError } from './decide.ts';

export const bidsCounter = defineCounter({
  name: 'bidder_bids_total',
  help: 'Maximum bids asked for over POST /v1/me/bids (validated bodies), by outcome: leading or outbid when accepted, else why refused',
  labelNames: ['outcome'],
});

export const extensionsCounter = defineCounter({
  name: 'bidder_lot_extensions_total',
  help: "Bids that moved a lot's end time (soft close)",
  labelNames: [],
});

export const closesCounter = defineCounter({
  name: 'bidder_lots_closed_total',
  help: 'Lots of timed auctions closed at their end time, by result (sold, unsold)',
  labelNames: ['result'],
});

/** The outcome label of a refused bid. */
export function refusalOf(error: unknown): string {
  if (error instanceof BidBelowMinimumError) return 'below_minimum';
  if (error instanceof BiddingEndedError) return 'ended';
  if (error instanceof NotTimedError) return 'not_timed';
  if (error instanceof ForbiddenError) return 'forbidden';
  if (error instanceof NotFoundError) return 'not_found';
  if (error instanceof ValidationError) return 'invalid';
  if (error instanceof WriteContentionError) return 'contention';
  if (error instanceof AppError && error.status === 422) return 'key_reused';
  if (error instanceof AppError && error.status === 409) return 'key_in_use';
  return 'error';
}
