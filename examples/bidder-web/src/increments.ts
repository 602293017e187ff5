// Bids a bidder can pick with one press: the lot's MinimumNextBid, then steps of the house's increment table
// (GET /v1/increments), as the service computes the next minimum (API.md "Timed bidding", rule 3).

export interface IncrementRow {
  From: number;
  Increment: number;
}

/** The increment that applies at an amount: the row with the greatest `From` not above it. */
export function incrementAt(table: IncrementRow[], amount: number): number {
  let increment = table[0]?.Increment ?? 1;
  for (const row of table) if (row.From <= amount) increment = row.Increment;
  return increment;
}

/** `count` bids from the minimum up, each the one before plus its increment. */
export function suggestedBids(table: IncrementRow[], minimum: number, count = 3): number[] {
  const bids = [minimum];
  while (bids.length < count) {
    const last = bids[bids.length - 1];
    bids.push(last + incrementAt(table, last));
  }
  return bids;
}
