// A resumable stream of a hub's messages (the auction and member streams): where the client's position starts
// (a replay of kept messages, or `reset` when it is too old), then each new message once, with heartbeats.
import type { Response } from 'express';
import { openEventStream } from './event-stream.ts';
import type { CredentialWatch } from './credential-watch.ts';

/** The longest a stream stays silent (a comment line then: at least every 15 seconds). */
const HEARTBEAT_MS = 14_000;
/** Messages waiting for a slow client; past this its stream ends (it reconnects with Last-Event-ID). */
const QUEUE_LIMIT = 10_000;

/** A message at a log position, sent as one event. */
export interface PositionedMessage {
  position: number;
  event: string;
  data: unknown;
}

/** What a hub offers one stream of a key (an auction, a member). */
export interface MessageSource<M extends PositionedMessage> {
  listen(key: number, listener: (message: M) => void): () => void;
  replay(key: number, after: number): { reset: boolean; messages: M[]; position: number };
}

export interface MessageStreamOptions {
  /** A position in the opaque form the client sees (`id:`). */
  token(position: number): string;
  /** Aborted when the process stops. */
  stopping: AbortSignal;
  /** The `Reason` of a `reset` event: what the client reads again. */
  resetReason: string;
  /** The caller's credential: when it expires or is revoked, the stream sends `end` and ends (nothing after it). */
  credential?: CredentialWatch;
}

/**
 * Serves `key`'s messages after `after` until the client goes, the process stops, the client lags too far or the
 * credential ends (an `end` event then closes the stream).
 */
export async function serveMessages<M extends PositionedMessage>(
  res: Response,
  source: MessageSource<M>,
  key: number,
  after: number,
  { token, stopping, resetReason, credential }: MessageStreamOptions,
): Promise<void> {
  const ended = credential?.ended ?? new AbortController().signal;
  const stream = openEventStream(res);
  const queue: M[] = [];
  let wake: (() => void) | null = null;
  // Listening before the replay is read: a message that comes meanwhile is in both, and sent once (by position).
  const stop = source.listen(key, (message) => {
    queue.push(message);
    wake?.();
  });
  try {
    const start = source.replay(key, after);
    let sent = after;
    // Where it starts, as the id of no event: a client dropped before the first event resumes from there.
    await stream.mark(token(after), 'stream open');
    if (start.reset) {
      await stream.event(token(start.position), 'reset', { Reason: resetReason });
      sent = start.position;
    }
    queue.unshift(...start.messages);
    while (!stream.gone.aborted && !stopping.aborted && !ended.aborted) {
      if (queue.length > QUEUE_LIMIT) break;
      const message = queue.shift();
      if (message) {
        if (message.position <= sent) continue;
        if (!(await stream.event(token(message.position), message.event, message.data))) break;
        sent = message.position;
        continue;
      }
      const woken = await new Promise<boolean>((resolve) => {
        // Settled once, by whichever comes first; the listeners go with it (a heartbeat leaves none behind).
        const settle = (woke: boolean) => {
          clearTimeout(timer);
          wake = null;
          stream.gone.removeEventListener('abort', done);
          stopping.removeEventListener('abort', done);
          ended.removeEventListener('abort', done);
          resolve(woke);
        };
        const done = () => settle(true);
        const timer = setTimeout(() => settle(false), HEARTBEAT_MS);
        wake = done;
        stream.gone.addEventListener('abort', done, { once: true });
        stopping.addEventListener('abort', done, { once: true });
        ended.addEventListener('abort', done, { once: true });
      });
      if (!woken && !(await stream.comment('heartbeat'))) break;
    }
    // The credential's end is told (with the position reached, as the id of the last event seen) before the end.
    if (ended.aborted && credential?.end) await stream.event(token(sent), 'end', credential.end);
  } finally {
    stop();
    stream.end();
  }
}

/** How far back a reconnecting client is served (at least the last 24 hours, API.md), and at most this many messages. */
const KEPT_MS = 24 * 3600_000;
const KEPT_MESSAGES = 50_000;

/** A hub's recent messages, for clients that reconnect with Last-Event-ID. */
export class KeptMessages<M extends { position: number; at: number }> {
  private readonly kept: M[] = [];
  /** Messages after this position are all kept (a client whose position is older gets a reset). */
  coveredFrom = 0;

  /** Keeps these (in log order), and forgets what is older than a day or beyond the count. */
  add(messages: readonly M[], now: number): void {
    this.kept.push(...messages);
    const oldest = now - KEPT_MS;
    let drop = 0;
    while (drop < this.kept.length && (this.kept.length - drop > KEPT_MESSAGES || this.kept[drop].at < oldest)) drop++;
    if (drop > 0) {
      this.coveredFrom = this.kept[drop - 1].position;
      this.kept.splice(0, drop);
    }
  }

  /** The kept messages after `position` that `belongs` picks; null when `position` is older than what is kept. */
  after(position: number, belongs: (message: M) => boolean): M[] | null {
    if (position < this.coveredFrom) return null;
    return this.kept.filter((m) => m.position > position && belongs(m));
  }
}
