import jwt from 'jsonwebtoken';
import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { StreamTickets } from './stream-tickets.ts';

export type TokenKind = 'anonymous' | 'application' | 'member';

export interface TokenClaims {
  sub: string;
  tenant: string;
  kind: TokenKind;
  jti: string;
  exp: number;
  iat: number;
  /**
   * Member tokens: the member's `SessionsValidFrom` (epoch milliseconds) as the sign-in that issued the token
   * saw it; absent when the member had never ended their sessions. A password reset moves the member's value,
   * so every token issued before it, even within the same second, no longer matches (src/http/auth.ts).
   */
  sessionsValidFrom?: number;
}

/** Extra claims a token may carry. */
export interface IssueOptions {
  sessionsValidFrom?: number | null;
}

const ISSUER = 'bidder-api';
const AUDIENCE = 'bidder-api/v1';
/** The one algorithm the server signs and accepts; `none` and every other algorithm are rejected. */
const ALGORITHM = 'HS256' as const;

export interface TokenLifetimes {
  anonymous: number;
  application: number;
  member: number;
}

export const defaultLifetimes: TokenLifetimes = { anonymous: 3600, application: 3600, member: 8 * 3600 };

export class TokenService {
  /** A prepared key: given a Buffer, jsonwebtoken tries (and fails) to parse it as a public key on every verify. */
  private readonly secret: KeyObject;
  /** Stream tickets (API.md operation 63), signed with the same secret under their own audience. */
  readonly tickets: StreamTickets;

  constructor(
    secret: Buffer,
    private readonly lifetimes: TokenLifetimes = defaultLifetimes,
  ) {
    if (secret.length < 32) throw new Error('the token secret must be at least 32 bytes');
    this.secret = createSecretKey(secret);
    this.tickets = new StreamTickets(this.secret);
  }

  issue(kind: TokenKind, tenant: string, sub: string, options: IssueOptions = {}): { Token: string; ExpiresAt: string } {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + this.lifetimes[kind];
    const extra = typeof options.sessionsValidFrom === 'number' ? { sessionsValidFrom: options.sessionsValidFrom } : {};
    const token = jwt.sign({ tenant, kind, iat: now, exp, ...extra }, this.secret, {
      algorithm: ALGORITHM,
      issuer: ISSUER,
      audience: AUDIENCE,
      subject: sub,
      jwtid: randomUUID(),
    });
    return { Token: token, ExpiresAt: new Date(exp * 1000).toISOString() };
  }

  /** Tokens whose signature and claims were checked already; only their expiry is checked again. */
  private readonly verified = new Map<string, TokenClaims>();

  /** The token's claims, or null for anything that is not a valid, unexpired token of this server. */
  verify(token: string): TokenClaims | null {
    const known = this.verified.get(token);
    if (known) return known.exp * 1000 > Date.now() ? known : null;
    const claims = this.check(token);
    if (claims) {
      if (this.verified.size >= 10_000) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(token, claims);
    }
    return claims;
  }

  private check(token: string): TokenClaims | null {
    try {
      const claims = jwt.verify(token, this.secret, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: AUDIENCE,
      }) as Partial<TokenClaims>;
      if (
        typeof claims.sub !== 'string' ||
        typeof claims.tenant !== 'string' ||
        typeof claims.jti !== 'string' ||
        typeof claims.exp !== 'number' ||
        (claims.sessionsValidFrom !== undefined && !Number.isSafeInteger(claims.sessionsValidFrom)) ||
        !['anonymous', 'application', 'member'].includes(claims.kind as string)
      )
        return null;
      return claims as TokenClaims;
    } catch {
      return null;
    }
  }
}
