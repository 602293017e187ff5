import type { Decider } from '../../src/decider.ts';
import { termsEvents, type TermsEvent } from './events.ts';

/** Auctions whose terms the member accepted. */
export type TermsState = Set<number>;

export interface AcceptTerms {
  tenant: string;
  memberId: number;
  auctionId: number;
  at: string;
}

export const termsDecider: Decider<TermsState, AcceptTerms, TermsEvent> = {
  events: termsEvents,
  initialState: () => new Set(),
  evolve: (state, event) => (event.type === 'AuctionTermsAccepted' ? state.add(event.data.auctionId) : state),
  decide: (command, state) => (state.has(command.auctionId) ? [] : [{ type: 'AuctionTermsAccepted', data: { ...command } }]),
};
