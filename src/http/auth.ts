import type { Request } from 'express';
import { AppError, UnauthorizedError } from '../errors.ts';
import { sha256 } from '../security/passwords.ts';
import type { TokenClaims, TokenService } from '../security/tokens.ts';
import type {
  AccessDirectory,
  ApiKeyInfo,
  Application,
  BackOfficeKeyInfo,
  CredentialHolder,
  CredentialSources,
  Member,
  Tenant,
} from './access-directory.ts';
import { TtlCache } from './ttl-cache.ts';

/** An Api-Key as checked: the directory's record, and the SHA-256 (hex) it was found by (an open stream checks it again). */
export type CheckedApiKey = ApiKeyInfo & { readonly hash: string };

/** Who calls: the Api-Key, the token's claims and its tenant, all checked. */
export interface Caller {
  apiKey: CheckedApiKey;
  claims: TokenClaims;
  tenant: Tenant;
}

const MAX_CALLERS = 10_000;

/**
 * Credential checks, in the order API.md gives them: the Api-Key on every /v1 route, then the bearer
 * token (signature, algorithm, issuer, audience, expiry), its tenant (served, permitted for this Api-Key,
 * public access for anonymous tokens), and for member operations a member that still exists.
 */
export class Authenticator {
  private readonly keys = new TtlCache<CheckedApiKey | null>(10_000);
  private readonly tenants = new TtlCache<Tenant | null>(5_000);
  /**
   * Callers that passed every check, by their Authorization and Api-Key values, until the first of those
   * checks would be made again (the Api-Key's and the tenant's cache lifetimes or version, the token's
   * expiry): the same credentials on the next request cost one lookup instead of a hash, a token check and
   * two cache reads.
   */
  private readonly callers = new Map<string, { apiKeyHeader: string; caller: Caller; expires: number; version: string | null }>();

  constructor(
    private readonly directory: AccessDirectory,
    private readonly tokens: Pick<TokenService, 'verify' | 'tickets'>,
  ) {}

  async apiKey(req: Request): Promise<CheckedApiKey> {
    const key = req.headers['api-key'];
    if (typeof key !== 'string' || key.length === 0 || key.length > 200)
      throw new UnauthorizedError('api-key-invalid', 'The Api-Key header is missing or unknown.');
    const hash = sha256(key);
    const info = await this.keys.get(hash, () => this.checkedApiKey(hash), this.accessVersion());
    if (!info) throw new UnauthorizedError('api-key-invalid', 'The Api-Key header is missing or unknown.');
    return info;
  }

  /**
   * The back-office key of `Authorization: Bearer <key>` (BACKOFFICE.md "Credential"), checked at every request;
   * 401 when missing, unknown, revoked or replaced. An Api-Key header is not looked at, and a bidder token or
   * Api-Key sent as the bearer is unknown here.
   */
  async backOfficeKey(req: Request): Promise<BackOfficeKeyInfo> {
    const raw = this.bearer(req);
    const found = raw && this.directory.backOfficeKey ? await this.directory.backOfficeKey(sha256(raw)) : null;
    if (!found) throw new UnauthorizedError('backoffice-key-invalid', 'A valid back-office key is required (Authorization: Bearer <key>).');
    return found;
  }

  /** The Api-Key whose value has this SHA-256, as the directory has it now, with the hash. */
  private async checkedApiKey(hash: string): Promise<CheckedApiKey | null> {
    const info = await this.directory.apiKey(hash);
    return info ? { ...info, hash } : null;
  }

  tenant(id: string): Promise<Tenant | null> {
    return this.tenants.get(id, () => this.directory.tenant(id), this.accessVersion());
  }

  /** Where the Api-Keys and tenants stand (null: unknown, their caches then rely on their lifetimes alone). */
  private accessVersion(): string | null {
    return this.directory.accessVersion?.() ?? null;
  }

  /** A registered application by its ClientId (not cached: its secret is checked at every token request). */
  application(clientId: string): Promise<Application | null> {
    return this.directory.application(clientId);
  }

  bearer(req: Request): string | null {
    const header = req.headers.authorization;
    if (typeof header !== 'string') return null;
    const match = /^Bearer\s+([A-Za-z0-9._~+/=-]{10,4096})\s*$/i.exec(header);
    return match ? match[1] : null;
  }

  /** A valid token of a served tenant that this Api-Key may act for, or null. */
  async token(req: Request, apiKey: ApiKeyInfo): Promise<{ claims: TokenClaims; tenant: Tenant } | null> {
    const raw = this.bearer(req);
    if (!raw) return null;
    const claims = await this.tokens.verify(raw);
    if (!claims || !apiKey.tenants.includes(claims.tenant)) return null;
    const tenant = await this.tenant(claims.tenant);
    if (!tenant) return null;
    if (claims.kind === 'anonymous' && !tenant.PublicAccess) return null;
    return { claims, tenant };
  }

  /**
   * The caller a stream ticket stands for (API.md operation 63), instead of the Api-Key and bearer headers: a
   * valid, unexpired ticket of exactly this path, whose Api-Key still acts for its tenant and whose token's
   * tenant still takes it; else 401 `ticket-invalid`. Member checks follow as for a bearer token (requireMember).
   */
  async ticketCaller(ticket: string, path: string): Promise<Caller> {
    const found = await this.tokens.tickets.verify(ticket);
    if (!found || found.path !== path.replace(/\/+$/, '') || !/^[0-9a-f]{64}$/.test(found.apiKeyHash)) throw invalidTicket();
    const hash = found.apiKeyHash;
    const apiKey = await this.keys.get(hash, () => this.checkedApiKey(hash), this.accessVersion());
    const claims = found.token;
    if (!apiKey || !apiKey.tenants.includes(claims.tenant)) throw invalidTicket();
    const tenant = await this.tenant(claims.tenant);
    if (!tenant || (claims.kind === 'anonymous' && !tenant.PublicAccess)) throw invalidTicket();
    return { apiKey, claims, tenant };
  }

  async requireToken(req: Request, apiKey: CheckedApiKey) {
    const found = await this.token(req, apiKey);
    if (!found) throw new UnauthorizedError('token-invalid', 'A valid bearer token of the tenant is required.');
    this.remember(req, { apiKey, ...found });
    return found;
  }

  /**
   * The caller of these two header values when they passed every check of `requireToken` and none of
   * those checks is due again; null otherwise (the caller then goes through the checks).
   */
  knownCaller(apiKeyHeader: string | string[] | undefined, authorization: string | undefined, now = Date.now()): Caller | null {
    if (typeof apiKeyHeader !== 'string' || typeof authorization !== 'string') return null;
    // By the token (one per caller), then its Api-Key: no string is built to look a caller up.
    const hit = this.callers.get(authorization);
    return hit !== undefined && hit.apiKeyHeader === apiKeyHeader && hit.expires > now && hit.version === this.accessVersion()
      ? hit.caller
      : null;
  }

  private remember(req: Request, caller: Caller) {
    const apiKeyHeader = req.headers['api-key'];
    const authorization = req.headers.authorization;
    if (typeof apiKeyHeader !== 'string' || typeof authorization !== 'string') return;
    const now = Date.now();
    const version = this.accessVersion();
    const key = this.keys.peek(sha256(apiKeyHeader), now, version);
    const tenant = this.tenants.peek(caller.tenant.Tenant, now, version);
    // Only what the caches still hold as checked (a value reloaded meanwhile is checked again next time).
    if (key?.value !== caller.apiKey || tenant?.value !== caller.tenant) return;
    const expires = Math.min(key.expires, tenant.expires, caller.claims.exp * 1000);
    if (this.callers.size >= MAX_CALLERS) this.callers.delete(this.callers.keys().next().value as string);
    // A token sent with another Api-Key replaces the entry (that pair is then the one remembered).
    this.callers.set(authorization, { apiKeyHeader, caller, expires, version });
  }

  /**
   * The member of a member token, or null when it no longer exists or its sessions were ended after the
   * token was issued (a password reset). GET /v1/tokens/current says `Valid: false` for both.
   */
  async member(claims: TokenClaims): Promise<Member | null> {
    const member = await this.currentMember(claims.tenant, claims.sub);
    return member && sessionStillValid(claims, member) ? member : null;
  }

  /** Members as last read, with the directory's version then: reused while the version stands still. */
  private readonly members = new Map<string, { member: Member | null; version: string }>();

  private async currentMember(tenant: string, memberId: string): Promise<Member | null> {
    const version = this.directory.membersVersion?.() ?? null;
    if (version === null) return this.directory.member(tenant, memberId);
    const key = `${tenant}\n${memberId}`;
    const known = this.members.get(key);
    if (known && known.version === version) return known.member;
    const member = await this.directory.member(tenant, memberId);
    if (this.members.size >= MAX_CALLERS) this.members.delete(this.members.keys().next().value as string);
    this.members.set(key, { member, version });
    return member;
  }

  /** Where this caller's credential may change (AccessDirectory.credentialSources); null when the directory cannot tell. */
  credentialSources(holder: CredentialHolder): CredentialSources | null {
    return this.directory.credentialSources?.(holder) ?? null;
  }

  /**
   * Whether a caller checked at a stream's opening still passes the same checks, read now (no cache): its Api-Key
   * still acts for the token's tenant, the tenant is served (and open to anonymous tokens, for one), and with
   * `member` the member exists and its sessions were not ended since the token was issued.
   */
  async stillHolds(check: { apiKeyHash: string; claims: TokenClaims; member: boolean; asOf: number }): Promise<boolean> {
    const { apiKeyHash, claims, asOf } = check;
    const apiKey = await this.sharedRead(`k\n${apiKeyHash}`, asOf, () => this.directory.apiKey(apiKeyHash));
    if (!apiKey || !apiKey.tenants.includes(claims.tenant)) return false;
    const tenant = await this.sharedRead(`t\n${claims.tenant}`, asOf, () => this.directory.tenant(claims.tenant));
    if (!tenant || (claims.kind === 'anonymous' && !tenant.PublicAccess)) return false;
    if (!check.member) return true;
    const found = await this.sharedRead(`m\n${claims.tenant}\n${claims.sub}`, asOf, () => this.directory.member(claims.tenant, claims.sub));
    return found !== null && sessionStillValid(claims, found);
  }

  /** Reads under way for stillHolds, by record and log position. */
  private readonly reading = new Map<string, Promise<unknown>>();

  /**
   * One read of a record for every check that asks for it while it is under way after the read models reached the
   * same position `asOf` (one event re-checks every stream of a house: one read, not one per stream).
   */
  private sharedRead<T>(record: string, asOf: number, read: () => Promise<T>): Promise<T> {
    const key = `${asOf}\n${record}`;
    const known = this.reading.get(key) as Promise<T> | undefined;
    if (known) return known;
    const made = read().finally(() => this.reading.delete(key));
    this.reading.set(key, made);
    return made;
  }

  async requireMember(claims: TokenClaims): Promise<Member> {
    if (claims.kind !== 'member')
      throw new UnauthorizedError('member-token-required', 'This operation needs a member token (POST /v1/sessions).');
    const member = await this.member(claims);
    if (!member)
      throw new UnauthorizedError(
        'session-ended',
        'This token no longer works: its member was removed, or its sessions were ended by a password reset.',
      );
    return member;
  }
}

/** A ticket that is not valid for this request (its path, its tenant, expired, or not a ticket at all). */
function invalidTicket(): AppError {
  return new UnauthorizedError('ticket-invalid', 'The stream ticket is not valid for this stream, or has expired: ask for a new one.');
}

/**
 * Whether a member token was issued after the member's sessions were last ended. The token carries the
 * member's `SessionsValidFrom` as the sign-in saw it (with the password hash it checked), so the comparison
 * is exact: no clock is compared with JWT's whole-second `iat`, and a sign-in that checked the old password
 * just before a reset issues a token that no longer matches.
 */
export function sessionStillValid(claims: TokenClaims, member: Member): boolean {
  if (!member.SessionsValidFrom) return true;
  return (claims.sessionsValidFrom ?? 0) >= Date.parse(member.SessionsValidFrom);
}
