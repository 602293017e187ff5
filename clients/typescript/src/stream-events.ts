// The event types of the two streams and the JSON of each one's `data:` (API.md "Timed bidding" and "Front ends in a
// browser"), by event name, so a handler of `bid` is given a BidEvent.

/** `reset`: the stream could not go on from the position asked for; read what it shows again. */
export interface ResetEvent {
  Reason?: string;
}

/** The auction stream's events (GET /v1/auctions/{id}/stream): public changes, no member data. */
export interface AuctionStreamEvents {
  bid: {
    LotId: number;
    CurrentBid: number;
    Currency: string;
    BidCount: number;
    /** Null once the lot is closed. */
    MinimumNextBid: number | null;
    ReserveMet: boolean | null;
    EndTime: string;
    PlacedAt: string;
  };
  /** A bid in the last minutes moved the lot's end time (soft close). */
  extended: { LotId: number; EndTime: string };
  /** The lot closed at its end time, sold or not (unsold: `Sold: false`, `HammerPrice: null`). */
  closed: { LotId: number; Sold: boolean; HammerPrice: number | null };
  live: { IsLive: boolean; CurrentLotId: number | null };
  reset: ResetEvent;
}

/** The member stream's events (GET /v1/me/stream): the caller's own changes only. */
export interface MemberStreamEvents {
  /** The caller lost the lead on a lot. */
  outbid: { LotId: number; CurrentBid: number; MinimumNextBid: number | null; EndTime: string };
  /** The caller's bid took or kept the lead. */
  leading: { LotId: number; CurrentBid: number; MaxAmount: number };
  won: { LotId: number; HammerPrice: number };
  lost: { LotId: number };
  /** The house decided one of the caller's registrations. */
  registration: { AuctionId: number; Status: 'pending' | 'approved' | 'rejected' };
  reset: ResetEvent;
}
