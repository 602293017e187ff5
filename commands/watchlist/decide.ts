import type { Decider } from '../../src/decider.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import { assertNever } from '../../src/assert-never.ts';
import { watchlistEvents, type WatchlistEvent, type WatchType } from './events.ts';

/** The watchlist of one member: lot id → watch type. */
export type WatchlistState = Map<number, WatchType>;

export type WatchlistCommand =
  | { type: 'WatchLot'; tenant: string; memberId: number; lotId: number; watchType: WatchType; at: string; lotExists: boolean }
  | { type: 'UnwatchLot'; tenant: string; memberId: number; lotId: number; at: string };

export const watchlistDecider: Decider<WatchlistState, WatchlistCommand, WatchlistEvent> = {
  events: watchlistEvents,
  initialState: () => new Map(),
  evolve: (state, event) => {
    switch (event.type) {
      // In place: the runner gives every stream its own state (copying a 5,000-entry map per event is quadratic).
      case 'LotWatched':
      case 'WatchTypeChanged':
        return state.set(event.data.lotId, event.data.watchType);
      case 'LotUnwatched':
        state.delete(event.data.lotId);
        return state;
      default:
        return state;
    }
  },
  copy: (state) => new Map(state),
  decide: (command, state) => {
    switch (command.type) {
      case 'WatchLot': {
        const { tenant, memberId, lotId, watchType, at } = command;
        const current = state.get(lotId);
        if (current === watchType) return [];
        if (current !== undefined) return [{ type: 'WatchTypeChanged', data: { tenant, memberId, lotId, watchType, at } }];
        if (!command.lotExists) throw new NotFoundError(`Lot ${lotId} does not exist.`);
        if (state.size >= MAX_WATCHED) throw new WatchlistFullError();
        return [{ type: 'LotWatched', data: { tenant, memberId, lotId, watchType, at } }];
      }
      case 'UnwatchLot': {
        if (!state.has(command.lotId)) return [];
        const { tenant, memberId, lotId, at } = command;
        return [{ type: 'LotUnwatched', data: { tenant, memberId, lotId, at } }];
      }
      default:
        return assertNever(command);
    }
  },
};

/** A member's watchlist holds at most this many lots. */
export const MAX_WATCHED = 5000;

export class WatchlistFullError extends ConflictError {
  constructor() {
    super('watchlist-full', `A watchlist holds at most ${MAX_WATCHED} lots; remove some first.`);
  }
}
