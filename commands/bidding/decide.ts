import type { Decider } from '../../src/decider.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import type { EventOf } from '../../src/events/define.ts';
import { assertNever } from '../../src/assert-never.ts';
import { lotEvents, outranks, type LotCatalogued, type LotEvent } from '../lots/events.ts';
import { MAX_BID_AMOUNT, incrementAt, minimumNextBid, reserveMet, type IncrementRow } from './rules.ts';

/**
 * Timed bidding on a lot's stream (API.md "Timed bidding", the rules of a bid): maximum bids, proxy bidding
 * between them, the reserve, soft close and the close at the end time. Pure: the clock (`at`), the auction's
 * mode, the tenant's increment table and extension window come in the command; parallel bids are serialised
 * by the runner on the stream's revision, so a decision is made for one command on one state.
 */

export { incrementAt };
export type { IncrementRow };

type LotData = EventOf<typeof LotCatalogued>['data'];

/** A bidder's current maximum: the latest they placed, and where it stands in the log (ties go to the earlier). */
export interface Maximum {
  memberId: number;
  maxAmount: number;
  /** When it was placed (the service's clock at acceptance). */
  at: string;
  /** Its place among the lot's MaxBidPlaced events (1, 2, …): between equal maxima the lower leads. */
  seq: number;
}

export interface LotBiddingState {
  /** The lot's catalogue data (the last LotCatalogued); null before it: every command is then a 404. */
  lot: LotData | null;
  /** The lot's end time: the catalogue's, moved later by soft close (a re-import never moves it back). */
  endTime: string | null;
  /** The latest end time soft close set, if any. */
  extendedTo: string | null;
  closed: boolean;
  settled: boolean;
  /** The last public bid's amount (BidPlaced, also those intake records for external auctions); null before any. */
  currentBid: number | null;
  /** How many public bids (BidPlaced) the lot has. */
  bidCount: number;
  /** When the last public bid was placed (its PlacedAt); null before any. */
  lastBidAt: string | null;
  /** Every bidder's current maximum, by member id (private). */
  maxima: Map<number, Maximum>;
  /** How many MaxBidPlaced events were folded. */
  maxBids: number;
}

export type BiddingCommand =
  | {
      type: 'PlaceMaxBid';
      tenant: string;
      lotId: number;
      memberId: number;
      maxAmount: number;
      /** A new uuid: the id of the MaxBidPlaced and of the BidPlaced it may cause. */
      bidId: string;
      /** The service's clock at acceptance (ISO 8601, UTC). */
      at: string;
      /** The auction's bidding mode, looked up by the caller. */
      bidding: 'timed' | 'external';
      /** The tenant's increment table, ascending from 0. */
      increments: readonly IncrementRow[];
      extensionWindowSeconds: number;
    }
  | {
      type: 'CloseLot';
      tenant: string;
      lotId: number;
      at: string;
      /** The mode of the lot's auction, looked up by the close job: an `external` lot is intake's to close. */
      bidding: 'timed' | 'external';
    };

const ms = (iso: string) => Date.parse(iso);
const later = (a: string, b: string) => (ms(b) > ms(a) ? b : a);

/** Whether maximum `a` leads maximum `b`: a higher amount, or an equal one placed earlier. */
const leads = (a: Maximum, b: Maximum) => outranks({ amount: a.maxAmount, seq: a.seq }, { amount: b.maxAmount, seq: b.seq });

/** The leader and the runner-up among maxima. */
function ranking(maxima: Iterable<Maximum>): { leader: Maximum | null; second: Maximum | null } {
  let leader: Maximum | null = null;
  let second: Maximum | null = null;
  for (const maximum of maxima) {
    if (!leader || leads(maximum, leader)) {
      second = leader;
      leader = maximum;
    } else if (!second || leads(maximum, second)) second = maximum;
  }
  return { leader, second };
}

/** The least next bid on the lot: with no bid yet its starting price (at least the first increment), else the current bid plus its increment. */
export function minimumNextBidOf(state: LotBiddingState, increments: readonly IncrementRow[]): number {
  if (!state.lot) throw new NotFoundError('The lot does not exist.');
  return minimumNextBid(increments, state.lot.startingPrice, state.currentBid);
}

/** ReserveMet, the only public word on the reserve: null when the lot has none, else whether the current bid reaches it. */
export function reserveMetOf(state: LotBiddingState): boolean | null {
  return reserveMet(state.lot?.reservePrice, state.currentBid);
}

/** The leading bidder: the highest maximum, between equal maxima the earlier one; null with no maximum. */
export function leaderOf(state: LotBiddingState): number | null {
  return ranking(state.maxima.values()).leader?.memberId ?? null;
}

/** Where a bidder stands on the lot: the answer of `POST /v1/me/bids` besides its id, lot and currency. */
export interface Standing {
  /** The member's own maximum (null when they have none). */
  maxAmount: number | null;
  currentBid: number | null;
  leading: boolean;
  bidCount: number;
  endTime: string;
  minimumNextBid: number;
  reserveMet: boolean | null;
}

export function standing(state: LotBiddingState, memberId: number, increments: readonly IncrementRow[]): Standing {
  if (!state.lot || state.endTime === null) throw new NotFoundError('The lot does not exist.');
  return {
    maxAmount: state.maxima.get(memberId)?.maxAmount ?? null,
    currentBid: state.currentBid,
    leading: leaderOf(state) === memberId,
    bidCount: state.bidCount,
    endTime: state.endTime,
    minimumNextBid: minimumNextBidOf(state, increments),
    reserveMet: reserveMetOf(state),
  };
}

/** A maximum under the least next bid: a 400 naming the minimum in the problem extension `minimumNextBid`. */
export class BidBelowMinimumError extends ValidationError {
  constructor(readonly minimumNextBid: number) {
    const message = `must be at least the minimum next bid, ${minimumNextBid}`;
    super(`MaxAmount must be at least ${minimumNextBid}, the minimum next bid on this lot.`, [{ field: 'body.MaxAmount', message }], {
      code: 'bid-too-low',
      extensions: { minimumNextBid },
    });
  }
}

/** The leader's new maximum is not above their own: a leader may only raise it. */
export class LeaderMustRaiseError extends ValidationError {
  constructor(current: number) {
    super(
      `You lead this lot: a new maximum must be higher than your current one, ${current}.`,
      [{ field: 'body.MaxAmount', message: `must be higher than your current maximum, ${current}` }],
      { code: 'leader-must-raise' },
    );
  }
}

/** A bid on a lot whose end time has passed (by the service's clock) or that is closed. */
export class BiddingEndedError extends ConflictError {
  constructor() {
    super('bidding-ended', 'Bidding on this lot has ended.');
  }
}

/** A bid on a lot of an auction whose bids are not taken by this service. */
export class NotTimedError extends ConflictError {
  constructor() {
    super('auction-not-timed', "This lot's auction does not take bids over this API (its bids come from the auction house).");
  }
}

/** What a command's caller reads off the lot right after it: a bidder's standing (`POST /v1/me/bids`), the close job's timing. */
export interface BiddingView {
  /** The bidder's standing after a PlaceMaxBid (null after a CloseLot). */
  standing: Standing | null;
  closed: boolean;
  endTime: string | null;
}

export const biddingDecider: Decider<LotBiddingState, BiddingCommand, LotEvent, BiddingView> = {
  events: lotEvents,
  initialState: () => ({
    lot: null,
    endTime: null,
    extendedTo: null,
    closed: false,
    settled: false,
    currentBid: null,
    bidCount: 0,
    lastBidAt: null,
    maxima: new Map(),
    maxBids: 0,
  }),
  // Maxima are replaced, never changed: a copy of the map is a copy of the state.
  copy: (state) => ({ ...state, maxima: new Map(state.maxima) }),
  // In place: the runner gives every stream its own state (a hot lot's maxima are not copied per bid).
  evolve: (state, event) => {
    switch (event.type) {
      case 'LotCatalogued':
        state.lot = event.data;
        state.endTime = state.extendedTo === null ? event.data.endTime : later(event.data.endTime, state.extendedTo);
        return state;
      case 'LotEndTimeExtended':
        state.extendedTo = event.data.endTime;
        state.endTime = state.endTime === null ? event.data.endTime : later(state.endTime, event.data.endTime);
        return state;
      case 'BidPlaced':
        state.currentBid = event.data.amount;
        state.bidCount++;
        state.lastBidAt = event.data.placedAt;
        return state;
      case 'MaxBidPlaced': {
        const { memberId, maxAmount, at } = event.data;
        state.maxima.set(memberId, { memberId, maxAmount, at, seq: ++state.maxBids });
        return state;
      }
      case 'LotClosed':
        state.closed = true;
        return state;
      case 'LotSettled':
        state.settled = true;
        return state;
      default:
        return assertNever(event);
    }
  },
  // The bidder's answer to `POST /v1/me/bids`, and the close job's: read off the state they were decided on.
  view: (state, command) => ({
    standing: command.type === 'PlaceMaxBid' ? standing(state, command.memberId, command.increments) : null,
    closed: state.closed,
    endTime: state.endTime,
  }),
  decide: (command, state) => {
    switch (command.type) {
      case 'PlaceMaxBid':
        return placeMaxBid(command, state);
      case 'CloseLot': {
        const { tenant, lotId, at } = command;
        if (!state.lot || state.endTime === null) throw new NotFoundError(`Lot ${lotId} does not exist.`);
        // Closed already (the job ran twice), or too early (the end time moved): nothing; the caller reschedules.
        if (state.closed || ms(at) < ms(state.endTime)) return [];
        // A lot of an auction whose bids come through intake closes by intake's record, unless this service
        // took maximum bids on it (its auction was timed then): those are decided here.
        if (command.bidding !== 'timed' && state.maxBids === 0) return [];
        const leader = leaderOf(state);
        const reserve = state.lot.reservePrice ?? null;
        const sold = leader !== null && state.currentBid !== null && (reserve === null || state.currentBid >= reserve);
        return [
          { type: 'LotClosed', data: { tenant, lotId, auctionId: state.lot.auctionId, closedAt: at } },
          {
            type: 'LotSettled',
            data: {
              tenant,
              lotId,
              auctionId: state.lot.auctionId,
              sold,
              hammerPrice: sold ? state.currentBid : null,
              winnerMemberId: sold ? leader : null,
              at,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },
};

function placeMaxBid(command: Extract<BiddingCommand, { type: 'PlaceMaxBid' }>, state: LotBiddingState): LotEvent[] {
  const { tenant, lotId, memberId, maxAmount, bidId, at, increments } = command;
  const lot = state.lot;
  if (!lot || state.endTime === null) throw new NotFoundError(`Lot ${lotId} does not exist.`);
  if (command.bidding !== 'timed') throw new NotTimedError();
  // The service's clock at acceptance decides, whether or not the close job has run yet.
  if (state.closed || ms(at) >= ms(state.endTime)) throw new BiddingEndedError();
  if (!Number.isInteger(maxAmount) || maxAmount < 1 || maxAmount > MAX_BID_AMOUNT)
    throw new ValidationError('MaxAmount must be a whole number of minor units from 1 to 1,000,000,000.', [
      { field: 'body.MaxAmount', message: 'must be an integer from 1 to 1000000000' },
    ]);
  const minimum = minimumNextBidOf(state, increments);
  if (maxAmount < minimum) throw new BidBelowMinimumError(minimum);
  const before = ranking(state.maxima.values()).leader;
  const wasLeading = before?.memberId === memberId;
  if (wasLeading && maxAmount <= before.maxAmount) throw new LeaderMustRaiseError(before.maxAmount);

  // The maxima with the caller's new one (the state is not changed: decide is pure).
  const mine: Maximum = { memberId, maxAmount, at, seq: state.maxBids + 1 };
  const others = [...state.maxima.values()].filter((m) => m.memberId !== memberId);
  const { leader, second } = ranking([...others, mine]);
  const lead = leader!;

  // Proxy bidding: the service bids for each bidder up to their maximum.
  let currentBid: number;
  if (wasLeading) {
    // The leader raising their own maximum changes nothing public (no BidPlaced), but for the reserve coming in reach.
    currentBid = state.currentBid ?? minimum;
  } else {
    // The floor: the minimum next bid at the time the leader bid (the caller's, when they take the lead), and
    // never below the current bid.
    const floor = lead === mine ? minimum : (state.currentBid ?? minimum);
    // Beat every other maximum by one increment, never above the leader's own maximum.
    const beat = second ? Math.min(lead.maxAmount, second.maxAmount + incrementAt(increments, second.maxAmount)) : 0;
    currentBid = Math.max(floor, beat);
  }
  const reserve = lot.reservePrice ?? null;
  if (reserve !== null && lead.maxAmount >= reserve) currentBid = Math.max(currentBid, reserve);

  // Who led before this bid and does not now: they get one "outbid" mail.
  const outbidMemberId = before && before.memberId !== lead.memberId ? before.memberId : null;
  const events: LotEvent[] = [
    { type: 'MaxBidPlaced', data: { tenant, lotId, auctionId: lot.auctionId, bidId, memberId, maxAmount, outbidMemberId, at } },
  ];
  if (currentBid === state.currentBid) return events;
  // Each names the lot's auction, so that caches of other auctions' answers stay (src/http/cache-versions.ts).
  const auctionId = lot.auctionId;
  // A bid decided after one whose request came later (a lost race, a batch) is placed at that one's time: the
  // history's times never run backwards.
  const placedAt = state.lastBidAt !== null && ms(state.lastBidAt) > ms(at) ? state.lastBidAt : at;
  events.push({ type: 'BidPlaced', data: { tenant, lotId, auctionId, bidId, amount: currentBid, bidType: 'online', placedAt } });
  // Soft close: a public bid in the window moves the end time to the bid's time plus the window.
  const extended = ms(placedAt) + command.extensionWindowSeconds * 1000;
  if (extended > ms(state.endTime))
    events.push({
      type: 'LotEndTimeExtended',
      data: { tenant, lotId, auctionId, endTime: new Date(extended).toISOString(), at: placedAt },
    });
  return events;
}
