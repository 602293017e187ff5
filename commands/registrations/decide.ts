import type { Decider } from '../../src/decider.ts';
import { ConflictError, ForbiddenError } from '../../src/errors.ts';
import { assertNever } from '../../src/assert-never.ts';
import { registrationsEvents, type RegistrationDecision, type RegistrationsEvent, type RegistrationStatus } from './events.ts';

/** One member's registration for one auction: `none` until requested or decided. */
export interface RegistrationState {
  status: RegistrationStatus | 'none';
}

export type RegistrationCommand =
  /** The bidder asks through the API; lookups from the read models, time from the request. */
  | {
      type: 'RequestRegistration';
      tenant: string;
      memberId: number;
      auctionId: number;
      at: string;
      /** The auction's status by the clock is `closed`. */
      auctionClosed: boolean;
      termsRequired: boolean;
      termsAccepted: boolean;
      /** `manual`: the house approves by hand, so a request stays pending. */
      approval: 'automatic' | 'manual';
      /** The member confirmed their email (`Validated`). */
      memberConfirmed: boolean;
    }
  /** The house imports a request it received itself (always pending). */
  | { type: 'RecordRegistrationRequest'; tenant: string; memberId: number; auctionId: number; at: string }
  /** The house's decision, through intake. */
  | { type: 'DecideRegistration'; tenant: string; memberId: number; auctionId: number; status: RegistrationDecision; at: string };

export const registrationDecider: Decider<RegistrationState, RegistrationCommand, RegistrationsEvent> = {
  events: registrationsEvents,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'AuctionRegistrationRequested':
        return { status: event.data.status };
      case 'RegistrationApproved':
        return { status: 'approved' };
      case 'RegistrationRejected':
        return { status: 'rejected' };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'RequestRegistration': {
        // Asking again answers what is there, whatever the auction and terms say now (a retry succeeds).
        if (state.status !== 'none') return [];
        const { tenant, memberId, auctionId, at } = command;
        if (command.auctionClosed)
          throw new ConflictError('auction-closed', `Auction ${auctionId} is closed: registration is no longer possible.`);
        if (command.termsRequired && !command.termsAccepted)
          throw new ForbiddenError(
            'terms-not-accepted',
            `Auction ${auctionId} requires its terms to be accepted first (POST /v1/auctions/${auctionId}/terms-acceptance).`,
          );
        const status = command.approval === 'automatic' && command.memberConfirmed ? 'approved' : 'pending';
        return [{ type: 'AuctionRegistrationRequested', data: { tenant, memberId, auctionId, status, channel: 'api', at } }];
      }
      case 'RecordRegistrationRequest': {
        if (state.status !== 'none') return [];
        const { tenant, memberId, auctionId, at } = command;
        return [{ type: 'AuctionRegistrationRequested', data: { tenant, memberId, auctionId, status: 'pending', channel: 'intake', at } }];
      }
      case 'DecideRegistration': {
        if (state.status === command.status) return [];
        const { tenant, memberId, auctionId, at } = command;
        const data = { tenant, memberId, auctionId, at };
        return [command.status === 'approved' ? { type: 'RegistrationApproved', data } : { type: 'RegistrationRejected', data }];
      }
      default:
        return assertNever(command);
    }
  },
};
