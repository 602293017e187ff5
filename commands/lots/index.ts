import type { FeaturePart } from '../../src/feature.ts';
import { lotEvents } from './events.ts';

export * from './events.ts';

/*
 * A lot's stream has a folder of its own because no one feature owns it: catalogue intake's `lotDecider`
 * (commands/catalogue/decide.ts) appends LotCatalogued, BidPlaced and LotClosed, timed bidding's `biddingDecider`
 * (commands/bidding/decide.ts) appends MaxBidPlaced, LotEndTimeExtended and LotSettled, and both fold one revision
 * sequence: the bidding decider reads the catalogue's end time, reserve and close from it, so each decider is typed
 * over the whole stream (`LotEvent`). Its events in either feature's events.ts would make the other read that
 * feature's contract; here the catalogue and timed bidding read only this one.
 */

/** A lot's stream, written by catalogue intake and timed bidding: the events it registers (app/features/index.ts). */
export const lotsCommands: FeaturePart = { events: lotEvents };
