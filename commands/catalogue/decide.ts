import type { Decider } from '../../src/decider.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import type { EventOf } from '../../src/events/define.ts';
import { assertNever } from '../../src/assert-never.ts';
import { catalogueEvents, type AuctionCatalogued, type CatalogueEvent, type CategoryCatalogued } from './events.ts';
import { lotEvents, type LotCatalogued, type LotEvent } from '../lots/events.ts';

/**
 * Catalogue intake deciders. Intake is a full-record "upsert": a record equal to what the stream already
 * says appends nothing, so importing the same file twice equals importing it once.
 */

type Data<D> = EventOf<D>['data'];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The decider of a stream that holds a single, replaceable record (a category). */
export function recordDecider<Data>(type: 'CategoryCatalogued'): Decider<Data | null, Data, CatalogueEvent> {
  return {
    events: catalogueEvents,
    initialState: () => null,
    evolve: (state, event) => (event.type === type ? (event.data as Data) : state),
    decide: (data, state) => (same(state, data) ? [] : [{ type, data } as CatalogueEvent]),
  };
}

export type CategoryData = Data<typeof CategoryCatalogued>;
export type AuctionData = Data<typeof AuctionCatalogued>;
export type LotData = Data<typeof LotCatalogued>;

// Auctions: catalogue data and live status.
export type AuctionCommand =
  | { type: 'CatalogueAuction'; data: AuctionData }
  | {
      type: 'ChangeLiveStatus';
      tenant: string;
      auctionId: number;
      isLive: boolean;
      currentLotId: number | null;
      at: string;
      startsAt?: string | null;
    };

interface AuctionState {
  catalogued: AuctionData | null;
  live: { isLive: boolean; currentLotId: number | null; startsAt: string | null };
}

export const auctionDecider: Decider<AuctionState, AuctionCommand, CatalogueEvent> = {
  events: catalogueEvents,
  initialState: () => ({ catalogued: null, live: { isLive: false, currentLotId: null, startsAt: null } }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'AuctionCatalogued':
        return { ...state, catalogued: event.data };
      case 'LiveStatusChanged':
        return {
          ...state,
          live: {
            isLive: event.data.isLive,
            currentLotId: event.data.currentLotId,
            startsAt: event.data.startsAt === undefined ? state.live.startsAt : event.data.startsAt,
          },
        };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CatalogueAuction':
        return same(state.catalogued, command.data) ? [] : [{ type: 'AuctionCatalogued', data: command.data }];
      case 'ChangeLiveStatus': {
        if (!state.catalogued) throw new NotFoundError(`Auction ${command.auctionId} is not catalogued.`);
        const { type: _type, startsAt, ...data } = command;
        // A record without startsAt keeps the scheduled start that is known.
        const next = {
          isLive: data.isLive,
          currentLotId: data.isLive ? data.currentLotId : null,
          startsAt: startsAt === undefined ? state.live.startsAt : startsAt,
        };
        if (same(state.live, next)) return [];
        return [{ type: 'LiveStatusChanged', data: { ...data, ...next } }];
      }
      default:
        return assertNever(command);
    }
  },
};

// Lots: catalogue data, bids, closing.
export type LotCommand =
  | { type: 'CatalogueLot'; data: LotData }
  | {
      type: 'PlaceBid';
      tenant: string;
      lotId: number;
      bidId: string;
      amount: number;
      bidType: 'online' | 'absentee' | 'floor' | 'phone';
      placedAt: string;
      /** The bidding mode of the lot's auction, looked up by the caller (null: not known, the lot is not catalogued). */
      auctionBidding: 'external' | 'timed' | null;
    }
  | { type: 'CloseLot'; tenant: string; lotId: number; closedAt: string };

interface LotState {
  catalogued: LotData | null;
  bidIds: Set<string>;
  closedAt: string | null;
}

/** Intake's decider of a lot's stream, which it reads whole: timed bidding's events are on it too (and ignored here). */
export const lotDecider: Decider<LotState, LotCommand, LotEvent> = {
  events: lotEvents,
  initialState: () => ({ catalogued: null, bidIds: new Set(), closedAt: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'LotCatalogued':
        return { ...state, catalogued: event.data };
      case 'BidPlaced':
        state.bidIds.add(event.data.bidId);
        return state;
      case 'LotClosed':
        return { ...state, closedAt: event.data.closedAt };
      default:
        return state;
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CatalogueLot':
        return same(state.catalogued, command.data) ? [] : [{ type: 'LotCatalogued', data: command.data }];
      case 'PlaceBid': {
        if (!state.catalogued) throw new NotFoundError(`Lot ${command.lotId} is not catalogued.`);
        if (state.bidIds.has(command.bidId)) return [];
        if (command.auctionBidding === 'timed')
          throw new ConflictError(
            'auction-timed',
            `Lot ${command.lotId} belongs to a timed auction: its bids are placed by bidders (POST /v1/me/bids), not through intake.`,
          );
        const { type: _type, auctionBidding: _mode, ...data } = command;
        return [{ type: 'BidPlaced', data }];
      }
      case 'CloseLot': {
        if (!state.catalogued) throw new NotFoundError(`Lot ${command.lotId} is not catalogued.`);
        if (state.closedAt) return [];
        const { type: _type, ...data } = command;
        return [{ type: 'LotClosed', data }];
      }
      default:
        return assertNever(command);
    }
  },
};
