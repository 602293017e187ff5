// A Server-Sent Events client for specs: opens a stream with node:http and parses its messages as they come.
import http from 'node:http';

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** An open stream: its status, headers and the messages parsed so far (events and comments). */
export interface OpenStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  messages: SseMessage[];
  /** Resolves when `count` events (not comments) have come, or rejects after `ms`. */
  events(count: number, ms?: number): Promise<SseMessage[]>;
  /** Resolves when the server ends the stream (never, while the client keeps it open). */
  ended: Promise<void>;
  close(): void;
}

export function openStream(base: string, path: string, headers: Record<string, string>): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers }, (res) => {
      const messages: SseMessage[] = [];
      let buffer = '';
      const listeners = new Set<() => void>();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: SseMessage = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) message.comment = line.slice(1).trim();
            else {
              const at = line.indexOf(':');
              const field = line.slice(0, at) as 'id' | 'event' | 'data';
              message[field] = line.slice(at + 1).replace(/^ /, '');
            }
          }
          messages.push(message);
        }
        for (const listener of listeners) listener();
      });
      const eventsOf = () => messages.filter((m) => m.event !== undefined);
      const ended = new Promise<void>((done) => res.once('end', () => done()));
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        messages,
        events: (count, ms = 5000) =>
          new Promise((done, fail) => {
            const check = () => {
              if (eventsOf().length < count) return;
              listeners.delete(check);
              clearTimeout(timer);
              done(eventsOf().slice(0, count));
            };
            const timer = setTimeout(() => {
              listeners.delete(check);
              fail(new Error(`${eventsOf().length} of ${count} events within ${ms} ms`));
            }, ms);
            listeners.add(check);
            check();
          }),
        ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}
