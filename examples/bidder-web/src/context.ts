// What every view is given: the client, who is signed in, the auction stream in view, the increment table, and the
// member's standing per lot as the member stream and the bids' answers tell it.
import type { BidderClient, MemberStreamEvents } from '../../../clients/typescript/src/index.ts';
import type { IncrementRow } from './increments.ts';
import type { AuctionLive } from './live.ts';
import type { Session } from './session.ts';

export type Standing = 'leading' | 'outbid' | 'won' | 'lost';

export type MemberEvent = { [K in keyof MemberStreamEvents]: { type: K; data: MemberStreamEvents[K] } }[keyof MemberStreamEvents];

export interface Context {
  client: BidderClient;
  session: Session;
  live: AuctionLive;
  increments: IncrementRow[];
  /** Lot titles seen so far, for "you have been outbid on {title}". */
  titles: Map<number, string>;
  /** The signed-in member's standing on the lots they bid on. */
  standings: Map<number, Standing>;
  /** Listens to the member's own events until the returned function is called. */
  onMemberEvent(listener: (event: MemberEvent) => void): () => void;
  /** Sets the standing on a lot as a bid's own answer tells it (before the member stream says it too). */
  setStanding(lotId: number, standing: Standing): void;
  navigate(hash: string): void;
}

/** A view draws itself into `root` and answers what stops it (timers, listeners) when another view comes. */
export type View = (context: Context, root: HTMLElement, params: URLSearchParams) => Promise<() => void>;
