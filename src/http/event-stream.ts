// A `text/event-stream` answer (Server-Sent Events, WHATWG HTML §9.2): the handler writes events as they come
// and returns StreamedAnswer, so the shell sends nothing more.
import type { Response } from 'express';

/** What a streaming handler returns: the answer was written by the handler itself. */
export class StreamedAnswer {
  static readonly done = new StreamedAnswer();
}

export interface EventStreamWriter {
  /** Writes one event; resolves when the socket took it (backpressure), false when the client is gone. */
  event(id: string, type: string, data: unknown): Promise<boolean>;
  /** Events whose data is already JSON (one line each), written together (one write for a burst). */
  eventsJson(events: ReadonlyArray<{ id: string; type: string; json: string }>): Promise<boolean>;
  /** A comment line (heartbeats): ignored by clients, keeps proxies from closing an idle connection. */
  comment(text: string): Promise<boolean>;
  /**
   * A comment and an `id:` with no data: no event is dispatched, but the client's last event id is set (WHATWG
   * HTML, "dispatch the event"), so a connection that drops before any event reconnects from this position.
   */
  mark(id: string, comment: string): Promise<boolean>;
  /** Aborted when the client goes away. */
  readonly gone: AbortSignal;
  end(): void;
}

/** Sends the stream's headers and answers a writer over the response. */
export function openEventStream(res: Response): EventStreamWriter {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // Proxies such as nginx would otherwise buffer the stream.
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  const write = (text: string): Promise<boolean> => {
    if (gone.signal.aborted || res.writableEnded) return Promise.resolve(false);
    if (res.write(text)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        res.off('drain', onDrain);
        gone.signal.removeEventListener('abort', onGone);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onGone = () => done(false);
      res.once('drain', onDrain);
      gone.signal.addEventListener('abort', onGone, { once: true });
    });
  };
  return {
    // Ids and types are single-line by construction; the JSON data is one line.
    event: (id, type, data) => write(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`),
    eventsJson: (events) => write(events.map((e) => `id: ${e.id}\nevent: ${e.type}\ndata: ${e.json}\n\n`).join('')),
    comment: (text) => write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`),
    mark: (id, comment) => write(`: ${comment.replace(/[\r\n]/g, ' ')}\nid: ${id}\n\n`),
    gone: gone.signal,
    end: () => {
      if (!res.writableEnded) res.end();
    },
  };
}
