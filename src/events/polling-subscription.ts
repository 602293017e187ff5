// A subscription to $all that reads batch after batch and, when nothing is new, waits for a wake (an append, a
// notification, the log's close) or the poll interval: the loop the embedded and PostgreSQL event logs share.
import type { RecordedEvent, Subscription } from '../ports/event-log.ts';

/** One subscriber's reads: where its events come from (memory, the store) is the log's. */
export interface PolledReads {
  /** The events after `position`, at most `maxCount`; none: wait, unless `again` (look again at once). */
  read(position: number, maxCount: number): Promise<{ events: RecordedEvent[]; again?: boolean }>;
  /** A wait ended by the poll interval, nothing having woken it: the next read should go to the store. */
  polled(): void;
}

export interface PollingSubscriptionOptions {
  /** Exclusive: delivery starts after this position. */
  fromPosition: number;
  batchSize: number;
  pollMs: number;
  /** Whether the log is closed (the subscription then ends). */
  isClosed: () => boolean;
  /** Calls `wake` at each wake-up until the function it answers is called (at the subscription's end). */
  listen: (wake: () => void) => () => void;
  reads: PolledReads;
}

export function pollingSubscription(options: PollingSubscriptionOptions): Subscription {
  const { batchSize, pollMs, isClosed, reads } = options;
  let position = options.fromPosition;
  let stopped = false;
  let wake: (() => void) | null = null;
  const unlisten = options.listen(() => wake?.());

  const waitForMore = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        reads.polled();
        done();
      }, pollMs);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const stop = async () => {
    stopped = true;
    unlisten();
    wake?.();
  };

  return {
    unsubscribe: stop,
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<RecordedEvent[]>> {
          while (!stopped && !isClosed()) {
            const { events, again } = await reads.read(position, batchSize);
            if (events.length > 0) {
              position = events[events.length - 1].position;
              return { value: events, done: false };
            }
            if (again) continue;
            await waitForMore();
          }
          await stop();
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<RecordedEvent[]>> {
          await stop();
          return { value: undefined, done: true };
        },
      };
    },
  };
}
