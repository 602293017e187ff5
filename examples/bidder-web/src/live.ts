// The auction stream of the auction in view, opened through a ticket by the browser's own EventSource, and handed to
// whichever view listens: one stream per auction, reopened only when the auction in view changes.
import {
  openAuctionStream,
  type AuctionStreamEvents,
  type BidderClient,
  type LiveStream,
  type StreamState,
} from '../../../clients/typescript/src/index.ts';
import { observeStamp } from './clock.ts';

export type AuctionEvent = { [K in keyof AuctionStreamEvents]: { type: K; data: AuctionStreamEvents[K] } }[keyof AuctionStreamEvents];

export class AuctionLive {
  private auctionId: number | null = null;
  private stream: LiveStream | null = null;
  private readonly listeners = new Set<(event: AuctionEvent) => void>();
  private readonly resyncs = new Set<() => void>();
  private readonly watchers = new Set<(state: StreamState) => void>();
  /** Whether the followed auction's events arrive: `open`, or `connecting`, `reconnecting`, `closed`. */
  state: StreamState = 'closed';

  constructor(private readonly client: BidderClient) {}

  /** Follows an auction (the one in view); the same one again keeps its stream. */
  follow(auctionId: number) {
    if (this.auctionId === auctionId && this.stream) return;
    this.stop();
    this.auctionId = auctionId;
    this.setState('connecting');
    const emit = (event: AuctionEvent) => this.listeners.forEach((listener) => listener(event));
    this.stream = openAuctionStream(this.client, auctionId, {
      on: {
        bid: (data) => {
          observeStamp(data.PlacedAt);
          emit({ type: 'bid', data });
        },
        extended: (data) => emit({ type: 'extended', data }),
        closed: (data) => emit({ type: 'closed', data }),
        live: (data) => emit({ type: 'live', data }),
      },
      // Events may have been missed: the views read again what they show.
      onResync: () => this.resyncs.forEach((resync) => resync()),
      onError: (error) => console.warn('auction stream:', error),
      onState: (state) => this.setState(state),
    });
  }

  /** Tells `watcher` the stream's state now and at each change, until the returned function is called. */
  watchState(watcher: (state: StreamState) => void): () => void {
    this.watchers.add(watcher);
    watcher(this.state);
    return () => this.watchers.delete(watcher);
  }

  private setState(state: StreamState) {
    this.state = state;
    this.watchers.forEach((watcher) => watcher(state));
  }

  stop() {
    this.stream?.close();
    this.stream = null;
    this.auctionId = null;
    this.setState('closed');
  }

  /** Listens to the followed auction's events until the returned function is called. */
  listen(listener: (event: AuctionEvent) => void, resync: () => void): () => void {
    this.listeners.add(listener);
    this.resyncs.add(resync);
    return () => {
      this.listeners.delete(listener);
      this.resyncs.delete(resync);
    };
  }
}
