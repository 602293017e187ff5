// The increment table's arithmetic, shared by the bidding decider and the lot answers (MinimumNextBid).

export interface IncrementRow {
  from: number;
  increment: number;
}

/** The increment table of a tenant that configured none, and its extension window (the demo's: API.md). */
export const DEFAULT_INCREMENTS: readonly IncrementRow[] = [
  { from: 0, increment: 100 },
  { from: 5_000, increment: 200 },
  { from: 10_000, increment: 500 },
  { from: 50_000, increment: 1_000 },
  { from: 100_000, increment: 2_500 },
  { from: 500_000, increment: 10_000 },
];
export const DEFAULT_EXTENSION_WINDOW_SECONDS = 120;
/** The largest maximum bid, in minor units (API.md "Timed bidding"). */
export const MAX_BID_AMOUNT = 1_000_000_000;

/** The increment at an amount: that of the last row whose `from` is at most the amount. */
export function incrementAt(increments: readonly IncrementRow[], amount: number): number {
  let increment = increments[0].increment;
  for (const row of increments) {
    if (row.from > amount) break;
    increment = row.increment;
  }
  return increment;
}

/** The least next bid: with no bid yet the starting price (at least the first increment), else the current bid plus its increment. */
export function minimumNextBid(increments: readonly IncrementRow[], startingPrice: number, currentBid: number | null): number {
  if (currentBid === null) return Math.max(startingPrice, increments[0].increment);
  return currentBid + incrementAt(increments, currentBid);
}

/** Whether the reserve is met: null when the lot has none (the amount is never shown). */
export function reserveMet(reserve: number | null | undefined, currentBid: number | null): boolean | null {
  if (reserve === null || reserve === undefined) return null;
  return currentBid !== null && currentBid >= reserve;
}
