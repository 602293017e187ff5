// A webhook receiver as a back office would run one: it verifies each delivery with the standardwebhooks
// package and answers with the status the spec asks for.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  id: string;
  body: { Id: string; Type: string; Position: string; Revision: number; Stream: string; Data: Record<string, unknown> };
  headers: http.IncomingHttpHeaders;
  /** Whether the signature verified with the webhook's secret. */
  verified: boolean;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** When each delivery's request arrived (Date.now()), answered or not. */
  arrivals: number[];
  /** The secret deliveries are verified with (set once the webhook is registered). */
  secret: string | null;
  /** The status answered to the next deliveries (200 by default). */
  status: number;
  /** Milliseconds taken before answering (a slow receiver). */
  delayMs: number;
  waitFor(count: number, ms?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    received: [],
    arrivals: [],
    secret: null,
    status: 200,
    delayMs: 0,
    async waitFor(count, ms = 8000) {
      const deadline = Date.now() + ms;
      while (receiver.received.length < count) {
        if (Date.now() > deadline) throw new Error(`${receiver.received.length} of ${count} deliveries within ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return receiver.received.slice(0, count);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    receiver.arrivals.push(Date.now());
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        if (receiver.secret) {
          new Webhook(receiver.secret).verify(text, req.headers as Record<string, string>);
          verified = true;
        }
      } catch {
        verified = false;
      }
      const answer = () => {
        const status = receiver.status;
        if (status >= 200 && status < 300)
          receiver.received.push({ id: String(req.headers['webhook-id']), body: JSON.parse(text), headers: req.headers, verified });
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok');
      };
      if (receiver.delayMs > 0) setTimeout(answer, receiver.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const close = receiver.close;
  receiver.close = async () => {
    server.closeAllConnections();
    await close();
  };
  return receiver;
}
