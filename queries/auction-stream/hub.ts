// The auction streams of one tenant in one process (`GET /v1/auctions/{id}/stream`): one reader follows the
// tenant's public events, turns each into the stream's message once, keeps the last day of them for clients that
// reconnect, and hands them to every open stream of that auction.
import type { FeedEvent } from '../../src/events/feed-items.ts';
import type { TenantFeed } from '../../src/events/feed.ts';
import type { TenantScope } from '../../src/ports/read-models.ts';
import { KeptMessages } from '../../src/http/message-stream.ts';
import { catalogueLots, type LotDoc } from '../../projections/catalogue/index.ts';
import { minimumNextBid, reserveMet, type IncrementRow } from '../../commands/bidding/rules.ts';
import { readAuctionTypes, type AuctionTypes } from '../auctions/find.ts';

/** The events an auction stream tells of. */
export const STREAM_TYPES = ['BidPlaced', 'LotEndTimeExtended', 'LotSettled', 'LotClosed', 'LiveStatusChanged'] as const;
/** Events read back from the log when the hub starts, to serve clients that reconnect after a restart. */
const PREFILL_EVENTS = 100_000;

export interface StreamMessage {
  /** The log position (its `id:` is the opaque form). */
  position: number;
  auctionId: number;
  event: 'bid' | 'extended' | 'closed' | 'live';
  data: Record<string, unknown>;
  at: number;
}

export interface HubDeps {
  /** The tenant's feed, read page by page (the hub listens to no stream of its own). */
  feed: Omit<TenantFeed, 'onStreams'>;
  db: TenantScope;
  /** Waits until the catalogue read model has these events (bounded). */
  caughtUp(position: number, types: readonly string[]): Promise<void>;
  increments(): Promise<readonly IncrementRow[]>;
  /** A stream's events from a revision on (a lot's: its public bids are counted there). */
  readStream(streamId: string, fromRevision: number): Promise<Array<{ type: string; revision: number; position: number }>>;
  stopping: AbortSignal;
  now: () => number;
  /** Events read back from the log when the hub starts (default PREFILL_EVENTS). */
  prefillEvents?: number;
}

type Listener = (message: StreamMessage) => void;

export class AuctionStreamHub {
  private readonly kept = new KeptMessages<StreamMessage>();
  /** The last position read. */
  private position = 0;
  private readonly listeners = new Map<number, Set<Listener>>();
  private readonly lotAuction = new Map<number, number>();
  /** The positions of each lot stream's public bids read so far, and the revision read up to. */
  private readonly lotBids = new Map<string, { revision: number; positions: number[] }>();
  private started: Promise<void> | null = null;

  constructor(private readonly deps: HubDeps) {}

  /** Reads back recent history once, then follows the log until the process stops. */
  start(head: () => Promise<number>): Promise<void> {
    this.started ??= (async () => {
      const end = await head();
      this.kept.coveredFrom = Math.max(0, end - (this.deps.prefillEvents ?? PREFILL_EVENTS));
      this.position = this.kept.coveredFrom;
      await this.readUpTo(end);
      void this.follow();
    })();
    return this.started;
  }

  /** Where a stream starts: the kept messages of its auction after `after`, or a reset when `after` is too old. */
  replay(auctionId: number, after: number | null): { reset: boolean; messages: StreamMessage[]; position: number } {
    if (after === null) return { reset: false, messages: [], position: this.position };
    const messages = this.kept.after(after, (m) => m.auctionId === auctionId);
    return { reset: messages === null, messages: messages ?? [], position: this.position };
  }

  listen(auctionId: number, listener: Listener): () => void {
    const set = this.listeners.get(auctionId) ?? new Set();
    set.add(listener);
    this.listeners.set(auctionId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(auctionId);
    };
  }

  private async readUpTo(end: number): Promise<void> {
    while (this.position < end) {
      const page = await this.deps.feed.page({ after: this.position, types: new Set(STREAM_TYPES), limit: 1000, waitMs: 0 });
      await this.take(page.events);
      this.position = Math.max(this.position, page.through);
      if (!page.hasMore) break;
    }
  }

  private async follow(): Promise<void> {
    while (!this.deps.stopping.aborted) {
      try {
        const page = await this.deps.feed.page({
          after: this.position,
          types: new Set(STREAM_TYPES),
          limit: 1000,
          waitMs: 15_000,
          signal: this.deps.stopping,
        });
        if (page.events.length > 0) {
          // The read models of each type up to its own last event here, not the page's last: in an `api` process
          // they are followed by stored checkpoints, and one that skipped the later events (not its types) stores
          // that position only within a second (src/projector/loops.ts).
          const lastOfType = new Map<string, number>();
          for (const e of page.events) lastOfType.set(e.type, e.position);
          await Promise.all([...lastOfType].map(([type, position]) => this.deps.caughtUp(position, [type])));
          const messages = await this.take(page.events);
          this.position = Math.max(this.position, page.through);
          for (const message of messages) for (const listener of this.listeners.get(message.auctionId) ?? []) listener(message);
        } else this.position = Math.max(this.position, page.through);
      } catch {
        // A read that failed (the log or read model briefly unavailable): tried again shortly.
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /** The messages of these events (kept for replays), each built once. */
  private async take(events: FeedEvent[]): Promise<StreamMessage[]> {
    if (events.length === 0) return [];
    const lotIds = [...new Set(events.map((e) => e.data.lotId).filter((id): id is number => typeof id === 'number'))];
    const lots = new Map((await catalogueLots(this.deps.db).find({ _id: { $in: lotIds.map(String) } })).map((l) => [l.Id, l]));
    for (const lot of lots.values()) this.lotAuction.set(lot.Id, lot.AuctionId);
    const [increments, types, bidCounts] = await Promise.all([
      this.deps.increments(),
      readAuctionTypes(this.deps.db),
      this.bidCountsAt(events),
    ]);
    const messages: StreamMessage[] = [];
    for (const event of events) {
      const message = this.messageOf(event, lots, increments, types, bidCounts.get(event.position));
      if (message) messages.push(message);
    }
    this.kept.add(messages, this.deps.now());
    return messages;
  }

  /**
   * Each BidPlaced's BidCount as of that bid, by position: its lot's public bids up to it, counted on the lot's
   * own stream (read on from where this hub last read it), so that every process tells a bid alike whatever
   * its pages and however far on the lot's read model is.
   */
  private async bidCountsAt(events: FeedEvent[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    const bids = events.filter((e) => e.type === 'BidPlaced');
    for (const streamId of new Set(bids.map((e) => e.streamId))) {
      let known = this.lotBids.get(streamId);
      if (!known) this.lotBids.set(streamId, (known = { revision: -1, positions: [] }));
      const last = bids.filter((e) => e.streamId === streamId).at(-1)!;
      if (known.revision < last.revision) {
        for (const e of await this.deps.readStream(streamId, known.revision + 1)) {
          if (e.type === 'BidPlaced') known.positions.push(e.position);
          known.revision = e.revision;
        }
      }
    }
    for (const e of bids) {
      const positions = this.lotBids.get(e.streamId)!.positions;
      let low = 0;
      let high = positions.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (positions[middle] <= e.position) low = middle + 1;
        else high = middle;
      }
      counts.set(e.position, low);
    }
    return counts;
  }

  private messageOf(
    event: FeedEvent,
    lots: Map<number, LotDoc>,
    increments: readonly IncrementRow[],
    types: AuctionTypes,
    bidCount: number | undefined,
  ): StreamMessage | null {
    const d = event.data as Record<string, unknown>;
    const at = Date.parse(event.created);
    if (event.type === 'LiveStatusChanged')
      return {
        position: event.position,
        auctionId: d.auctionId as number,
        event: 'live',
        data: { IsLive: d.isLive, CurrentLotId: d.currentLotId },
        at,
      };
    const lotId = d.lotId as number;
    const lot = lots.get(lotId);
    const auctionId = lot?.AuctionId ?? this.lotAuction.get(lotId);
    if (auctionId === undefined) return null;
    const base = { position: event.position, auctionId, at };
    switch (event.type) {
      case 'BidPlaced':
        return {
          ...base,
          event: 'bid',
          data: {
            LotId: lotId,
            CurrentBid: d.amount,
            Currency: lot?.Currency ?? null,
            BidCount: bidCount ?? lot?.BidCount ?? null,
            MinimumNextBid: lot ? minimumNextBid(increments, lot.StartingPrice, d.amount as number) : null,
            ReserveMet: lot ? reserveMet(lot.Reserve, d.amount as number) : null,
            EndTime: lot?.EndTime ?? null,
            PlacedAt: d.placedAt,
          },
        };
      case 'LotEndTimeExtended':
        return { ...base, event: 'extended', data: { LotId: lotId, EndTime: new Date(d.endTime as string).toISOString() } };
      case 'LotSettled':
        return { ...base, event: 'closed', data: { LotId: lotId, Sold: d.sold, HammerPrice: d.hammerPrice } };
      case 'LotClosed':
        // A timed lot's close is told by its LotSettled (which follows); an external lot's here.
        if (types.biddingModeOf(auctionId) === 'timed') return null;
        return {
          ...base,
          event: 'closed',
          data: { LotId: lotId, Sold: (lot?.CurrentBid ?? null) !== null, HammerPrice: lot?.CurrentBid ?? null },
        };
      default:
        return null;
    }
  }
}
