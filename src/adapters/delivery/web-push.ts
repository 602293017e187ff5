/**
 * One push message to one subscription (RFC 8030 §5): the payload encrypted for the browser's keys (RFC 8291,
 * aes128gcm of RFC 8188) and the VAPID header (RFC 8292) made by the `web-push` package, POSTed by Node's own
 * http(s) to an endpoint the rules still allow (PUSH_ENDPOINT_HOSTS, the webhooks' address checks at connection), with
 * `TTL`, `Urgency` and `Topic`. What the push service answered decides what follows (PUSH.md "What is pushed").
 */
import http from 'node:http';
import https from 'node:https';
import webpush from 'web-push';
import type { PushEndpoints } from '../../security/push-endpoints.ts';
import type { VapidKeys } from '../../security/vapid.ts';

/** A push service has this long to answer. */
export const PUSH_TIMEOUT_MS = 15_000;
/** How long one VAPID JWT is used (it is valid 12 hours: RFC 8292 allows 24). */
const VAPID_REUSE_MS = 3600_000;

export interface PushSubscriptionKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushHeaders {
  /** Seconds the push service may hold the message for a browser that is offline. */
  ttl: number;
  urgency: 'high' | 'normal';
  topic: string;
}

/**
 * `sent` (2xx); `gone` (404, 410: the subscription no longer exists); `refused` (400, 403, 413 and other 4xx, or an
 * endpoint the rules no longer allow: trying again cannot help); `temporary` (429, 5xx, no connection or answer).
 */
export type PushOutcome =
  { kind: 'sent' | 'gone'; status: number } | { kind: 'refused' | 'temporary'; status: number | null; reason: string };

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export function outcomeOf(status: number): PushOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent', status };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  if (status === 429 || status >= 500) return { kind: 'temporary', status, reason: `push service answered ${status}` };
  return { kind: 'refused', status, reason: `push service answered ${status}` };
}

export class WebPushSender {
  private readonly vapidHeaders = new Map<string, { value: string; until: number }>();

  constructor(
    private readonly vapid: VapidKeys,
    private readonly endpoints: PushEndpoints,
    private readonly timeoutMs = PUSH_TIMEOUT_MS,
  ) {}

  /** Sends one message; `subject` is the VAPID `sub` (`mailto:` or `https:`). Never throws: the outcome says what happened. */
  async send(subscription: PushSubscriptionKeys, payload: string, headers: PushHeaders, subject: string): Promise<PushOutcome> {
    const verdict = await this.endpoints.check(subscription.endpoint);
    if (!verdict.ok) return { kind: 'refused', status: null, reason: `endpoint ${verdict.reason}` };
    const url = verdict.url;
    let body: Buffer;
    let authorization: string;
    try {
      body = webpush.encrypt(subscription.p256dh, subscription.auth, payload, 'aes128gcm').cipherText;
      authorization = this.authorization(url.origin, subject);
    } catch (error) {
      return { kind: 'refused', status: null, reason: `not encrypted: ${error instanceof Error ? error.message : String(error)}` };
    }
    return this.post(url, body, {
      TTL: String(headers.ttl),
      Urgency: headers.urgency,
      Topic: headers.topic,
      'Content-Encoding': 'aes128gcm',
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(body.length),
      Authorization: authorization,
    });
  }

  /** The VAPID header for a push service's origin, signed once an hour (an ES256 signature per message would cost CPU for nothing). */
  private authorization(audience: string, subject: string): string {
    const key = `${audience} ${subject}`;
    const kept = this.vapidHeaders.get(key);
    if (kept && kept.until > Date.now()) return kept.value;
    const { publicKey, privateKey } = this.vapid;
    const value = webpush.getVapidHeaders(audience, subject, publicKey, privateKey, 'aes128gcm').Authorization;
    if (this.vapidHeaders.size > 1000) this.vapidHeaders.clear();
    this.vapidHeaders.set(key, { value, until: Date.now() + VAPID_REUSE_MS });
    return value;
  }

  private post(url: URL, body: Buffer, headers: Record<string, string>): Promise<PushOutcome> {
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: PushOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const req = transport.request(
        url,
        { method: 'POST', agent: agents[url.protocol as 'http:' | 'https:'], lookup: this.endpoints.connectLookup(), headers },
        (res) => {
          res.resume(); // The answer's body is not read: it would be logged by nobody (and may name the endpoint).
          res.on('end', () => finish(outcomeOf(res.statusCode ?? 0)));
          res.on('error', () => finish(outcomeOf(res.statusCode ?? 0)));
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        finish({ kind: 'temporary', status: null, reason: `no answer within ${this.timeoutMs / 1000} s` });
      }, this.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        // An address that is not public (the host resolves elsewhere than when it was checked) is refused for good.
        const kind = error.code === 'EADDRNOTPUBLIC' ? 'refused' : 'temporary';
        finish({ kind, status: null, reason: error.code ?? error.message });
      });
      req.end(body);
    });
  }
}
