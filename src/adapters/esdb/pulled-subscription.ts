import type { RecordedEvent, Subscription } from '../../ports/event-log.ts';
import type { AllStreamResolvedEvent, EsdbSubscription } from './client.ts';

const STOPPED = Symbol('stopped');
const NOTHING_BUFFERED = Symbol('nothing buffered');
const DONE: IteratorResult<RecordedEvent[]> = { value: undefined, done: true };

/** Resolves after the current turn of the event loop: whatever the client has already buffered arrives first. */
const afterThisTurn = () => new Promise<typeof NOTHING_BUFFERED>((resolve) => setImmediate(() => resolve(NOTHING_BUFFERED)));

type Next = IteratorResult<AllStreamResolvedEvent>;

/**
 * The port's pull-based subscription over the client's catch-up subscription to $all.
 *
 * The client's subscription is a readable stream: it buffers up to its high-water mark (set to the batch
 * size) and then stops reading from the server (gRPC flow control holds the rest on the server). Each
 * `next()` waits for one event, then takes what is already buffered, up to the batch size, without waiting
 * for more, and hands the batch over; nothing more is taken until the consumer asks again. The gRPC call
 * is opened on the first `next()`, not when the subscription is created.
 *
 * The events arrive already filtered by the server (see `open`); `convert` drops anything else and maps
 * the rest. Positions handed out strictly increase: an event at or before the last one is dropped.
 */
export class PulledSubscription implements Subscription {
  private source: EsdbSubscription | null = null;
  private iterator: AsyncIterator<AllStreamResolvedEvent> | null = null;
  /** A read of the source not consumed yet (it lost a race against the end of the turn or the stop). */
  private pending: Promise<Next> | null = null;
  private stopped = false;
  private signalStop!: (value: typeof STOPPED) => void;
  private readonly stopSignal = new Promise<typeof STOPPED>((resolve) => (this.signalStop = resolve));
  private last: number;

  constructor(
    private readonly open: (fromPosition: number, highWaterMark: number) => EsdbSubscription,
    private readonly convert: (resolved: AllStreamResolvedEvent) => RecordedEvent | null,
    fromPosition: number,
    private readonly batchSize: number,
    private readonly onStop: (subscription: PulledSubscription) => void,
  ) {
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
    }
    this.last = fromPosition;
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent[]> {
    return {
      next: () => this.next(),
      return: async () => {
        await this.unsubscribe();
        return DONE;
      },
    };
  }

  async unsubscribe(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.signalStop(STOPPED);
    this.onStop(this);
    const source = this.source;
    if (!source) return;
    try {
      await source.unsubscribe();
    } catch {
      // Already failed or closed: nothing left to cancel.
    }
    source.destroy();
  }

  private async next(): Promise<IteratorResult<RecordedEvent[]>> {
    if (this.stopped) return DONE;
    const batch: RecordedEvent[] = [];
    try {
      while (batch.length < this.batchSize) {
        const waitForMore = batch.length === 0;
        const result = await Promise.race([this.read(), this.stopSignal, ...(waitForMore ? [] : [afterThisTurn()])]);
        if (result === STOPPED) return DONE;
        if (result === NOTHING_BUFFERED) break;
        this.pending = null;
        if (result.done) {
          // The server ended the call (it does not end a live subscription by itself): hand what was
          // gathered, and the next call reports the end as an error, so the consumer resubscribes.
          if (batch.length > 0) break;
          throw new Error('the EventStoreDB subscription to $all ended');
        }
        const event = this.convert(result.value);
        if (event && event.position > this.last) {
          this.last = event.position;
          batch.push(event);
        }
      }
    } catch (error) {
      if (this.stopped) return DONE;
      await this.unsubscribe();
      throw error;
    }
    return this.stopped ? DONE : { value: batch, done: false };
  }

  /** The next event of the source: the read already under way, or a new one. */
  private read(): Promise<Next> {
    if (!this.iterator) {
      this.source = this.open(this.last, this.batchSize);
      this.iterator = this.source[Symbol.asyncIterator]();
    }
    if (!this.pending) {
      this.pending = this.iterator.next();
      // A read left pending may fail while nobody awaits it (the stream is destroyed on stop); the next
      // call that takes it still sees the failure.
      this.pending.catch(() => undefined);
    }
    return this.pending;
  }
}
