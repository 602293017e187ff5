// The member streams of one tenant in one process (`GET /v1/me/stream`): one reader follows the tenant's feed for
// bids, closes, registration decisions and failed deliveries, tells each once as the messages of the members it concerns (read with
// the lot's private facts from the lot's own stream, never handed to the feed), keeps the last day of them for
// clients that reconnect, and hands each to the open streams of its member only.
import type { FeedEvent } from '../../src/events/feed-items.ts';
import type { TenantFeed } from '../../src/events/feed.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { KeptMessages } from '../../src/http/message-stream.ts';
import { minimumNextBid, type IncrementRow } from '../../commands/bidding/rules.ts';

/** The events a member stream tells of. */
export const MEMBER_STREAM_TYPES = [
  'MaxBidPlaced',
  'LotSettled',
  'AuctionRegistrationRequested',
  'RegistrationApproved',
  'RegistrationRejected',
  'MessageDeliveryFailed',
] as const;
/** Events read back from the log when the hub starts, to serve clients that reconnect after a restart. */
const PREFILL_EVENTS = 100_000;

export type MemberEventType = 'outbid' | 'leading' | 'won' | 'lost' | 'registration' | 'delivery-failed';

export interface MemberMessage {
  /** The log position of the event it tells (its `id:` is the opaque form); one message per member and position. */
  position: number;
  /** The member it is for (never sent). */
  memberId: number;
  event: MemberEventType;
  data: Record<string, unknown>;
  at: number;
}

export interface MemberHubDeps {
  /** The tenant's feed, read page by page (the hub listens to no stream of its own). */
  feed: Omit<TenantFeed, 'onStreams'>;
  /** A lot's stream as stored, private fields included (server-side only). */
  readStream(streamId: string, fromRevision: number): Promise<RecordedEvent[]>;
  /** Waits until the read models of these events have them (bounded): a client that reads /v1/me/bids next sees it. */
  caughtUp(position: number, types: readonly string[]): Promise<void>;
  increments(): Promise<readonly IncrementRow[]>;
  stopping: AbortSignal;
  now: () => number;
  prefillEvents?: number;
}

/** What a member's messages tell of a lot, folded from its whole stream (private fields included). */
interface LotState {
  lotId: number | null;
  startingPrice: number;
  currentBid: number | null;
  /** The catalogue's end time, moved later by soft close (a re-import never moves it back). */
  endTime: string | null;
  extendedTo: string | null;
  /**
   * The leading bidder. A MaxBidPlaced names who it outbid: then its bidder leads; else the lead did not change
   * hands (a leader raising, or a bidder below the leader), unless nobody led (the first bid).
   */
  leader: number | null;
  /** Each bidder's current maximum. */
  maxima: Map<number, number>;
}

/** A lot as this hub folded it, and its stream's events read but not folded yet. */
interface LotFold {
  state: LotState;
  folded: number;
  pending: RecordedEvent[];
}

const later = (a: string, b: string) => (Date.parse(b) > Date.parse(a) ? b : a);

/** One event of a lot's stream folded into what the member stream tells of the lot. */
function evolve(state: LotState, event: RecordedEvent): void {
  const d = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'LotCatalogued':
      state.lotId = d.lotId as number;
      state.startingPrice = d.startingPrice as number;
      state.endTime = state.extendedTo === null ? (d.endTime as string) : later(d.endTime as string, state.extendedTo);
      return;
    case 'LotEndTimeExtended':
      state.extendedTo = d.endTime as string;
      state.endTime = state.endTime === null ? (d.endTime as string) : later(state.endTime, d.endTime as string);
      return;
    case 'BidPlaced':
      state.currentBid = d.amount as number;
      return;
    case 'MaxBidPlaced': {
      const bidder = d.memberId as number;
      state.maxima.set(bidder, d.maxAmount as number);
      state.leader = d.outbidMemberId !== null && d.outbidMemberId !== undefined ? bidder : (state.leader ?? bidder);
      return;
    }
    default:
  }
}

const emptyLot = (): LotState => ({
  lotId: null,
  startingPrice: 0,
  currentBid: null,
  endTime: null,
  extendedTo: null,
  leader: null,
  maxima: new Map(),
});

type Listener = (message: MemberMessage) => void;

export class MemberStreamHub {
  private readonly kept = new KeptMessages<MemberMessage>();
  private position = 0;
  private readonly listeners = new Map<number, Set<Listener>>();
  private readonly lots = new Map<string, LotFold>();
  private started: Promise<void> | null = null;

  constructor(private readonly deps: MemberHubDeps) {}

  /** Reads back recent history once, then follows the log until the process stops. */
  start(head: () => Promise<number>): Promise<void> {
    this.started ??= (async () => {
      const end = await head();
      this.kept.coveredFrom = Math.max(0, end - (this.deps.prefillEvents ?? PREFILL_EVENTS));
      this.position = this.kept.coveredFrom;
      while (this.position < end) {
        const page = await this.deps.feed.page({ after: this.position, types: new Set(MEMBER_STREAM_TYPES), limit: 1000, waitMs: 0 });
        const taken = await this.take(page.events);
        if (taken.failed) {
          this.position = Math.max(this.position, taken.through);
          throw new Error('a lot stream could not be read');
        }
        this.position = Math.max(this.position, page.through);
        if (!page.hasMore) break;
      }
      void this.follow();
    })();
    // A start that failed (the log unavailable) is tried again by the next stream.
    this.started.catch(() => (this.started = null));
    return this.started;
  }

  /** Where a member's stream starts: their kept messages after `after`, or a reset when `after` is too old. */
  replay(memberId: number, after: number): { reset: boolean; messages: MemberMessage[]; position: number } {
    const messages = this.kept.after(after, (m) => m.memberId === memberId);
    return { reset: messages === null, messages: messages ?? [], position: this.position };
  }

  listen(memberId: number, listener: Listener): () => void {
    const set = this.listeners.get(memberId) ?? new Set();
    set.add(listener);
    this.listeners.set(memberId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(memberId);
    };
  }

  private async follow(): Promise<void> {
    while (!this.deps.stopping.aborted) {
      try {
        const page = await this.deps.feed.page({
          after: this.position,
          types: new Set(MEMBER_STREAM_TYPES),
          limit: 1000,
          waitMs: 15_000,
          signal: this.deps.stopping,
        });
        if (page.events.length > 0) {
          const { messages, through, failed } = await this.take(page.events);
          // What was told is told (kept, sent) even when a later event's lot could not be read: that one is read again.
          if (messages.length > 0)
            await this.deps.caughtUp(messages.at(-1)!.position, [...new Set(page.events.map((e) => e.type))]).catch(() => undefined);
          this.position = Math.max(this.position, failed ? through : page.through);
          for (const message of messages) for (const listener of this.listeners.get(message.memberId) ?? []) listener(message);
          if (failed) await new Promise((resolve) => setTimeout(resolve, 500));
        } else this.position = Math.max(this.position, page.through);
      } catch {
        // A read that failed (the log briefly unavailable): tried again shortly.
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /**
   * The messages of these events (kept for replays), each built once, up to an event whose lot could not be read
   * (`failed`; `through`: the position of the last event told).
   */
  private async take(events: FeedEvent[]): Promise<{ messages: MemberMessage[]; through: number; failed: boolean }> {
    const messages: MemberMessage[] = [];
    let through = 0;
    let failed = false;
    try {
      const increments = events.length > 0 ? await this.deps.increments() : [];
      for (const event of events) {
        messages.push(...(await this.messagesOf(event, increments)));
        through = event.position;
      }
    } catch {
      failed = true;
    }
    this.kept.add(messages, this.deps.now());
    return { messages, through, failed };
  }

  private async messagesOf(event: FeedEvent, increments: readonly IncrementRow[]): Promise<MemberMessage[]> {
    const d = event.data;
    const base = { position: event.position, at: Date.parse(event.created) };
    switch (event.type) {
      case 'AuctionRegistrationRequested':
        // Approved at once (the house approves automatically): the house's decision; a pending request is none.
        if (d.status !== 'approved') return [];
        return [{ ...base, memberId: d.memberId as number, event: 'registration', data: { AuctionId: d.auctionId, Status: 'approved' } }];
      case 'RegistrationApproved':
      case 'RegistrationRejected':
        return [
          {
            ...base,
            memberId: d.memberId as number,
            event: 'registration',
            data: { AuctionId: d.auctionId, Status: event.type === 'RegistrationApproved' ? 'approved' : 'rejected' },
          },
        ];
      case 'MessageDeliveryFailed':
        // A message to the member that could not be delivered: the front end may ask them to check their address or number.
        return [
          {
            ...base,
            memberId: d.memberId as number,
            event: 'delivery-failed',
            data: { Channel: d.channel, Template: d.template, Reason: d.reason, At: d.at },
          },
        ];
      case 'MaxBidPlaced':
        return this.bidMessages(event, increments, base);
      case 'LotSettled':
        return this.closeMessages(event, base);
      default:
        return [];
    }
  }

  /**
   * A maximum bid: the bidder leads (`leading`, with their own maximum) or was outbid at once by a higher maximum
   * (`outbid`); the bidder who led before and does not now, `outbid`. Told with the lot as its whole append left it
   * (the public bid and the soft close that came with the maximum).
   */
  private async bidMessages(event: FeedEvent, increments: readonly IncrementRow[], base: { position: number; at: number }) {
    const lot = await this.lotUpTo(event.streamId, event.revision - 1);
    if (!lot) return [];
    const before = lot.state.leader;
    const own = this.foldNext(lot);
    if (own?.type !== 'MaxBidPlaced') return [];
    const bidder = own.data.memberId as number;
    const bidId = own.data.bidId as string;
    // The rest of its append: its public bid (same id) and the extension that bid caused.
    let next = lot.pending[0];
    if (next?.type === 'BidPlaced' && next.data.bidId === bidId) {
      this.foldNext(lot);
      next = lot.pending[0];
      if (next?.type === 'LotEndTimeExtended') this.foldNext(lot);
    }
    const state = lot.state;
    if (state.lotId === null) return [];
    const after = state.leader;
    const lotId = state.lotId;
    const outbid = {
      LotId: lotId,
      CurrentBid: state.currentBid,
      MinimumNextBid: minimumNextBid(increments, state.startingPrice, state.currentBid),
      EndTime: state.endTime === null ? null : new Date(state.endTime).toISOString(),
    };
    const messages: MemberMessage[] = [];
    if (after === bidder)
      messages.push({
        ...base,
        memberId: bidder,
        event: 'leading',
        data: { LotId: lotId, CurrentBid: state.currentBid, MaxAmount: state.maxima.get(bidder) ?? null },
      });
    else messages.push({ ...base, memberId: bidder, event: 'outbid', data: outbid });
    if (before !== null && before !== after && before !== bidder)
      messages.push({ ...base, memberId: before, event: 'outbid', data: outbid });
    return messages;
  }

  /** A lot's close: `won` for the buyer, `lost` for every other bidder (on an unsold lot, everyone). */
  private async closeMessages(event: FeedEvent, base: { position: number; at: number }) {
    const lot = await this.lotUpTo(event.streamId, event.revision - 1);
    if (!lot) return [];
    const settled = this.foldNext(lot);
    if (settled?.type !== 'LotSettled') return [];
    const { lotId, sold, hammerPrice, winnerMemberId } = settled.data as {
      lotId: number;
      sold: boolean;
      hammerPrice: number | null;
      winnerMemberId: number | null;
    };
    return [...lot.state.maxima.keys()].map((memberId): MemberMessage =>
      sold && winnerMemberId === memberId
        ? { ...base, memberId, event: 'won', data: { LotId: lotId, HammerPrice: hammerPrice } }
        : { ...base, memberId, event: 'lost', data: { LotId: lotId } },
    );
  }

  /** The lot folded through `revision` (its stream read on as far as needed), or null when the stream lacks it. */
  private async lotUpTo(streamId: string, revision: number): Promise<LotFold | null> {
    let lot = this.lots.get(streamId);
    if (!lot) this.lots.set(streamId, (lot = { state: emptyLot(), folded: -1, pending: [] }));
    const readTo = lot.pending.at(-1)?.revision ?? lot.folded;
    if (readTo <= revision) lot.pending.push(...(await this.deps.readStream(streamId, readTo + 1)));
    while (lot.folded < revision && lot.pending.length > 0) this.foldNext(lot);
    return lot.folded === revision && lot.pending[0]?.revision === revision + 1 ? lot : null;
  }

  /** Folds the lot's next event read; it, or undefined when none is read. */
  private foldNext(lot: LotFold): RecordedEvent | undefined {
    const event = lot.pending.shift();
    if (!event) return undefined;
    evolve(lot.state, event);
    lot.folded = event.revision;
    return event;
  }
}
