/**
 * Web Push to members' browsers and phones (PUSH.md; RFC 8030, 8291, 8292): the key pages subscribe with, the rules
 * of the endpoints a browser gives, and messages handed over to be sent by background jobs
 * (src/adapters/delivery/push-outbox.ts), each encrypted for one subscription.
 */

/** What a push tells of (the payload's `type`, the counts' `kind`). */
export type PushKind = 'outbid' | 'won' | 'lost' | 'closing' | 'reminder';

/** One subscription a message goes to, with its payload in that subscription's language. */
export interface PushTarget {
  memberId: number;
  subscriptionId: string;
  /** The JSON text pushed (PUSH.md "What is pushed"), at most MAX_PUSH_PAYLOAD_BYTES. */
  payload: string;
}

export interface PushMessage {
  /** Unique per message (what caused it): a message handed over twice is sent once per subscription. */
  id: string;
  tenant: string;
  kind: PushKind;
  urgency: 'high' | 'normal';
  /** Per lot and type (RFC 8030 §5.4): a newer message replaces an older one the push service still holds. */
  topic: string;
  /** Until when it is worth delivering: its `TTL` counts down to it, and no try is made after it. */
  expiresAt: string;
  targets: PushTarget[];
}

/** The most a payload may hold before encryption (PUSH.md; push services take 4,096 bytes of ciphertext). */
export const MAX_PUSH_PAYLOAD_BYTES = 3000;

export type EndpointVerdict = { ok: true; url: URL } | { ok: false; reason: string };

export interface PushService {
  /** The VAPID public key (an uncompressed P-256 point, base64url): what a page passes to `pushManager.subscribe`. */
  readonly publicKey: string;
  /** Whether the service will POST to this endpoint (PUSH_ENDPOINT_HOSTS, https on 443, public addresses). */
  checkEndpoint(endpoint: string): Promise<EndpointVerdict>;
  /** Queues a message for its subscriptions (background jobs); answers once it is queued. */
  send(message: PushMessage): Promise<void>;
}
