import jwt from 'jsonwebtoken';
import { randomUUID, type KeyObject } from 'node:crypto';
import { kidOf, type SigningKeys } from './signing-keys.ts';
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

/**
 * The longest any credential signed with a key lives after it was signed (seconds): a token's lifetime (a stream
 * ticket never outlives the token it was made from). A key that stopped signing longer ago verifies nothing alive.
 */
export const LONGEST_CREDENTIAL_SECONDS = Math.max(...Object.values(defaultLifetimes));

export class TokenService {
  /** Stream tickets (API.md operation 63), signed with the same keys under their own audience. */
  readonly tickets: StreamTickets;

  constructor(
    private readonly keys: SigningKeys,
    private readonly lifetimes: TokenLifetimes = defaultLifetimes,
  ) {
    this.tickets = new StreamTickets(keys);
  }

  issue(kind: TokenKind, tenant: string, sub: string, options: IssueOptions = {}): { Token: string; ExpiresAt: string } {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + this.lifetimes[kind];
    const extra = typeof options.sessionsValidFrom === 'number' ? { sessionsValidFrom: options.sessionsValidFrom } : {};
    const signer = this.keys.signer();
    const token = jwt.sign({ tenant, kind, iat: now, exp, ...extra }, signer.key, {
      algorithm: ALGORITHM,
      keyid: signer.id,
      issuer: ISSUER,
      audience: AUDIENCE,
      subject: sub,
      jwtid: randomUUID(),
    });
    return { Token: token, ExpiresAt: new Date(exp * 1000).toISOString() };
  }

  /** Tokens whose signature and claims were checked already; only their expiry and their key are checked again. */
  private readonly verified = new Map<string, { claims: TokenClaims; kid: string | undefined }>();

  /**
   * The token's claims, or null for anything that is not a valid, unexpired token of this server signed with a
   * key that still verifies: a kid unknown or retired is null, and a token without kid is taken only by the key
   * that was the service's one secret before keys had ids (SigningKeys.verifier).
   */
  async verify(token: string): Promise<TokenClaims | null> {
    const known = this.verified.get(token);
    if (known) return known.claims.exp * 1000 > Date.now() && this.keys.verifies(known.kid) ? known.claims : null;
    const kid = kidOf(token);
    const key = kid === null ? null : await this.keys.verifier(kid);
    const claims = key ? this.check(token, key) : null;
    if (claims) {
      if (this.verified.size >= 10_000) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(token, { claims, kid: kid ?? undefined });
    }
    return claims;
  }

  private check(token: string, key: KeyObject): TokenClaims | null {
    try {
      const claims = jwt.verify(token, key, {
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
