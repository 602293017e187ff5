import http from 'node:http';
import https from 'node:https';
import type { PublicUrlGuard } from '../../src/security/public-url.ts';
import { signDelivery } from './signature.ts';

/** A receiver has this long to answer (BACKOFFICE.md): a later answer counts as a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Bytes of a receiver's answer read (the rest is dropped with the connection). */
const ANSWER_BYTES = 64 * 1024;

export interface DeliveryResult {
  delivered: boolean;
  /** Not sent: the webhook was deleted or changed just before (nothing to record). */
  cancelled?: boolean;
  /** The receiver's status (null: no answer: refused address, connection error, timeout). */
  status: number | null;
  /** Why it failed, for the log (never the receiver's body). */
  error?: string;
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 4 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 4 }),
};

/**
 * One delivery: `POST url` with the body and the Standard Webhooks headers, no redirect followed; a `2xx` within
 * DELIVERY_TIMEOUT_MS is delivered. The URL's rules are checked again first, and the connection goes only to
 * an address the guard's lookup let through.
 */
export async function deliver(
  guard: PublicUrlGuard,
  target: { url: string; secret: string },
  message: { id: string; body: string },
  now: () => Date,
  /** Asked last before the request is sent: false when the webhook is no longer due this delivery (deleted, changed). */
  stillDue: () => Promise<boolean> = async () => true,
): Promise<DeliveryResult> {
  const verdict = await guard.check(target.url);
  if (!verdict.ok) return { delivered: false, status: null, error: `URL ${verdict.reason}` };
  if (!(await stillDue())) return { delivered: false, cancelled: true, status: null };
  const url = verdict.url;
  const timestamp = Math.floor(now().getTime() / 1000);
  const body = Buffer.from(message.body, 'utf8');
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: DeliveryResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = transport.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup: guard.connectLookup(),
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': body.length,
          'User-Agent': 'bidder-api-webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signDelivery(target.secret, message.id, timestamp, message.body),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_BYTES) res.destroy();
        });
        const done = () => finish({ delivered: status >= 200 && status < 300, status });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ delivered: false, status: null, error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` });
    }, DELIVERY_TIMEOUT_MS);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ delivered: false, status: null, error: error.code ?? error.message }));
    req.end(body);
  });
}
