// The links a mail carries: absolute under PUBLIC_URL (or the path alone), and one-click unsubscribe links (RFC
// 8058) whose signed token names the house, the member and the kind of notification, and stands in for every
// other credential (a mailbox provider's POST carries none). Stateless: any process with the key ring's anchor
// checks one; that a link works once is the feature's to decide (it records each link's id when used).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long an unsubscribe link works after its mail was written. */
export const UNSUBSCRIBE_LINK_DAYS = 90;
/** The path of the one-click unsubscribe operation; the token goes in its query (`?token=`). */
export const UNSUBSCRIBE_PATH = '/v1/notifications/unsubscribe';
/** The longest token accepted: anything longer is not one of ours. */
const MAX_TOKEN_LENGTH = 1024;
const VERSION = 1;

/** What an unsubscribe link stops: a kind of notification mail of one member of one house, about `scope` (an auction) or all of them (null). */
export interface UnsubscribeScope {
  tenant: string;
  memberId: number;
  /** The feature's name of the kind (`reminder`, `outbid`): a-z and dashes. */
  kind: string;
  scope: number | null;
}

export interface UnsubscribeClaims extends UnsubscribeScope {
  /** The link's own random id: the feature records it when the link is used, so a link works once. */
  linkId: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  expiresAt: number;
}

export type LinkCheck = { ok: true; claims: UnsubscribeClaims } | { ok: false; reason: 'invalid' | 'expired' };

/**
 * The secret of unsubscribe links, derived from the key ring's anchor (src/ports/key-ring.ts), which every process
 * of a deployment shares and which is never rotated: a link mailed before a key rotation still works.
 */
export function mailLinkSecret(anchor: Buffer): Buffer {
  return createHmac('sha256', anchor).update('bidder-api/unsubscribe-links').digest();
}

const KIND = /^[a-z][a-z-]{0,31}$/;
const TENANT = /^[A-Za-z0-9_-]{1,64}$/;
const LINK_ID = /^[A-Za-z0-9_-]{16,64}$/;
const isId = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;

export class MailLinks {
  constructor(
    private readonly secret: Buffer,
    /** PUBLIC_URL without its trailing slash; null: links are paths (relative to wherever the API is served). */
    readonly publicUrl: string | null,
  ) {
    if (secret.length < 32) throw new Error('the mail link secret must be at least 32 bytes');
  }

  /** A path of the API as a mail gives it: under PUBLIC_URL when set, else the path alone. */
  url(path: string): string {
    return `${this.publicUrl ?? ''}${path}`;
  }

  /** A one-click unsubscribe link (its URL and token) for a kind of notification mail of one member, working UNSUBSCRIBE_LINK_DAYS. */
  unsubscribe(scope: UnsubscribeScope, nowMs: number): { url: string; token: string } {
    if (!TENANT.test(scope.tenant) || !isId(scope.memberId) || !KIND.test(scope.kind) || !(scope.scope === null || isId(scope.scope)))
      throw new TypeError('MailLinks.unsubscribe: a tenant, a member id, a kind (a-z and dashes) and an id or null');
    const issuedAt = Math.floor(nowMs / 1000);
    const linkId = randomBytes(16).toString('base64url');
    const expiresAt = issuedAt + UNSUBSCRIBE_LINK_DAYS * 86_400;
    const payload = [VERSION, scope.tenant, scope.memberId, scope.kind, scope.scope, linkId, issuedAt, expiresAt];
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    const token = `${body}.${this.mac(body).toString('base64url')}`;
    return { url: this.url(`${UNSUBSCRIBE_PATH}?token=${token}`), token };
  }

  /** The claims of a token this service signed and that has not expired; else why not (never which part failed). */
  verify(token: string, nowMs: number): LinkCheck {
    const invalid = { ok: false, reason: 'invalid' } as const;
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return invalid;
    const [body, mac, ...rest] = token.split('.');
    if (!body || !mac || rest.length > 0) return invalid;
    const expected = this.mac(body);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return invalid;
    }
    const claims = claimsOf(payload);
    if (!claims) return invalid;
    return claims.expiresAt * 1000 <= nowMs ? { ok: false, reason: 'expired' } : { ok: true, claims };
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.secret).update(body, 'utf8').digest();
  }
}

/** A signed payload read back (a version this code writes, every field of its type). */
function claimsOf(payload: unknown): UnsubscribeClaims | null {
  if (!Array.isArray(payload) || payload.length !== 8 || payload[0] !== VERSION) return null;
  const [, tenant, memberId, kind, scope, linkId, issuedAt, expiresAt] = payload as unknown[];
  if (typeof tenant !== 'string' || !TENANT.test(tenant) || !isId(memberId)) return null;
  if (typeof kind !== 'string' || !KIND.test(kind) || !(scope === null || isId(scope))) return null;
  if (typeof linkId !== 'string' || !LINK_ID.test(linkId) || !isId(issuedAt) || !isId(expiresAt)) return null;
  return { tenant, memberId, kind, scope, linkId, issuedAt, expiresAt };
}
