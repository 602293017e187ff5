// Stream tickets (API.md operation 63): a signed, stateless credential in a stream's URL that a browser's own
// EventSource (no headers) opens that one stream with, for the tenant, member and Api-Key of the token it was
// made from, until that token expires (at most 12 hours). Signed with the key ring's keys like tokens (the key's id
// in its header), so any process that reads the ring accepts it.
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { kidOf, type SigningKeys } from './signing-keys.ts';
import type { TokenClaims, TokenKind } from './tokens.ts';

const ISSUER = 'bidder-api';
/** Its own audience: a ticket is never a bearer token, and a bearer token never a ticket. */
const AUDIENCE = 'bidder-api/stream-ticket';
const ALGORITHM = 'HS256' as const;
const KIND = 'stream-ticket';
/** The longest a ticket lives, whatever its token's lifetime. */
export const MAX_TICKET_SECONDS = 12 * 3600;

/** What a valid ticket stands for: the one path it opens, the Api-Key it was made with, and its token's claims. */
export interface TicketClaims {
  path: string;
  /** SHA-256 (hex) of the Api-Key the ticket was made with (not the key: a hash authenticates nothing). */
  apiKeyHash: string;
  /** The claims of the token it was made from, with the ticket's own expiry. */
  token: TokenClaims;
}

interface Payload {
  sub: string;
  tenant: string;
  kind: typeof KIND;
  tokenKind: TokenKind;
  tokenJti: string;
  path: string;
  akh: string;
  svf?: number;
  iat: number;
  exp: number;
}

export class StreamTickets {
  constructor(private readonly keys: SigningKeys) {}

  /** A ticket for `path`, made from a checked token and Api-Key: it expires with the token, at most in 12 hours. */
  issue(token: TokenClaims, apiKeyHash: string, path: string, nowMs = Date.now()): { ticket: string; expiresAt: Date } {
    const iat = Math.floor(nowMs / 1000);
    const exp = Math.min(token.exp, iat + MAX_TICKET_SECONDS);
    const payload: Payload = {
      sub: token.sub,
      tenant: token.tenant,
      kind: KIND,
      tokenKind: token.kind,
      tokenJti: token.jti,
      path,
      akh: apiKeyHash,
      ...(token.sessionsValidFrom !== undefined ? { svf: token.sessionsValidFrom } : {}),
      iat,
      exp,
    };
    const signer = this.keys.signer();
    const ticket = jwt.sign(payload, signer.key, {
      algorithm: ALGORITHM,
      issuer: ISSUER,
      audience: AUDIENCE,
      jwtid: randomUUID(),
      keyid: signer.id,
    });
    return { ticket, expiresAt: new Date(exp * 1000) };
  }

  /** The ticket's claims, or null for anything that is not a valid, unexpired ticket of this service. */
  async verify(ticket: string): Promise<TicketClaims | null> {
    if (ticket.length > 4096) return null;
    const kid = kidOf(ticket);
    const key = kid === null ? null : await this.keys.verifier(kid);
    if (!key) return null;
    try {
      const p = jwt.verify(ticket, key, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCE }) as Partial<Payload>;
      if (
        p.kind !== KIND ||
        typeof p.sub !== 'string' ||
        typeof p.tenant !== 'string' ||
        typeof p.path !== 'string' ||
        typeof p.akh !== 'string' ||
        typeof p.tokenJti !== 'string' ||
        typeof p.exp !== 'number' ||
        typeof p.iat !== 'number' ||
        !['anonymous', 'application', 'member'].includes(p.tokenKind as string) ||
        (p.svf !== undefined && !Number.isSafeInteger(p.svf))
      )
        return null;
      const token: TokenClaims = {
        sub: p.sub,
        tenant: p.tenant,
        kind: p.tokenKind as TokenKind,
        jti: p.tokenJti,
        exp: p.exp,
        iat: p.iat,
        ...(p.svf !== undefined ? { sessionsValidFrom: p.svf } : {}),
      };
      return { path: p.path, apiKeyHash: p.akh, token };
    } catch {
      return null;
    }
  }
}
