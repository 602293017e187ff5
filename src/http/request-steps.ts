// The steps of answering an operation's request, each with one job, that the routes in src/http/app-operation-routes.ts
// run in order; they allocate nothing beyond the contexts and the answer (catalogue pages are answered at high rates).
import type { Request, Response } from 'express';
import { requestCommands } from '../command-streams.ts';
import { UnauthorizedError, ValidationError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Authenticator, Caller } from './auth.ts';
import { CATALOGUE_VARY, SHARED_CACHE_CONTROL } from './catalogue-fast-path.ts';
import type { DerivedValues } from './derived-values.ts';
import { languageOverride, rawQueryValue } from './input.ts';
import { jsonBytes } from './json-answer.ts';
import { negotiatedLanguage } from './language.ts';
import type { BackOfficeContext, BackOfficeDoor, BaseContext, LinkContext, MemberContext, Operation, TenantContext } from './operation.ts';
import { weakEtag, type CachedResponse, type ResponseCache } from './response-cache.ts';
import { addVary, sendBody } from './send.ts';
import { tenantFiles, tenantGeneratedFiles, tenantSearch } from './tenant-engines.ts';
import type { SearchGate } from './search-gate.ts';

/** How long a catalogue answer is reused when its handler does not say when it changes by itself. */
const RESPONSE_CACHE_TTL_MS = 1000;
/**
 * The longest a catalogue answer is reused when its handler says when it changes (changesAt): every read
 * model it depends on, the tenant's settings included, is in its version; this bounds what none covers.
 */
const RESPONSE_CACHE_MAX_TTL_MS = 60_000;

/** What the steps that need more than the request work with (made once per app). */
export interface StepDeps {
  services: Services;
  auth: Authenticator;
  derivedValues: DerivedValues;
  /** Null: answers are not cached. */
  responseCache: ResponseCache | null;
  /** The version of the projections catalogue reads come from (null: nothing is cached). */
  catalogueVersion: CatalogueVersion;
  /** What the back office's operations are served with (null: none in this process). */
  backOffice: BackOfficeDoor | null;
  /** PUBLIC_URL (null: unset). */
  publicUrl: string | null;
  /** The search index as search operations reach it (503 while it is away or behind). */
  searchGate: SearchGate;
}

/** The steps that need the app's services, caches and authenticator. */
export class RequestSteps {
  constructor(private readonly deps: StepDeps) {}

  /**
   * What every handler is given: the request, its Api-Key (checked: 401 when missing or unknown; or the one a
   * stream ticket was made with), the clock's instant.
   */
  async baseContext(req: Request, res: Response, ticketCaller: Caller | null = null): Promise<BaseContext> {
    const { services, auth } = this.deps;
    return {
      requestId: String(res.locals.requestId),
      ip: req.ip ?? 'unknown',
      apiKey: ticketCaller?.apiKey ?? (await auth.apiKey(req)),
      auth,
      req,
      res,
      now: services.now(),
      limiter: services.limiter,
      tokens: services.tokens,
      logger: services.logger,
      counters: services.counters,
      publicUrl: this.deps.publicUrl,
    };
  }

  /** The context of a back-office operation: its key checked (401 when missing, unknown or revoked), its tenant's feed. */
  async backOfficeContext(req: Request, res: Response): Promise<BackOfficeContext> {
    const { services, auth, backOffice } = this.deps;
    const key = await auth.backOfficeKey(req);
    if (!backOffice) throw new Error('the back office is not served in this process');
    // The last check that held: while its key's stream takes no event, asking again costs one index seek.
    let held = key;
    const { feed } = backOffice;
    const requestId = String(res.locals.requestId);
    return {
      requestId,
      ip: req.ip ?? 'unknown',
      req,
      res,
      now: services.now(),
      logger: services.logger,
      tenant: key.tenant,
      keyId: key.keyId,
      keyStillValid: async () => {
        if (held.unchanged && (await held.unchanged().catch(() => false))) return true;
        const now = await auth.backOfficeKey(req).catch(() => null);
        if (!now || now.tenant !== key.tenant || now.keyId !== key.keyId) return false;
        held = now;
        return true;
      },
      feed: feed.forTenant(key.tenant),
      feedTypes: feed.types,
      stopping: feed.stopping,
      db: services.documents.forTenant(key.tenant),
      commands: requestCommands(services, requestId),
      urls: backOffice.urls,
      intake: backOffice.intake(key.tenant),
    };
  }

  /**
   * The context of an operation of a mail's link: its `token` (the query's) checked, a `400` when it is missing,
   * not one this service signed (changed, or made for another house) or expired; the engines of the house it names.
   */
  linkContext(req: Request, res: Response): LinkContext {
    const { services } = this.deps;
    const now = services.now();
    const token = rawQueryValue(req, 'token');
    const check = token === undefined ? ({ ok: false, reason: 'invalid' } as const) : services.links.verify(token, now.getTime());
    if (!check.ok)
      throw check.reason === 'expired'
        ? new ValidationError('This link has expired.', [{ field: 'query.token', message: 'expired' }], {
            code: 'unsubscribe-link-expired',
          })
        : new ValidationError('This link is not valid.', [{ field: 'query.token', message: 'not a link of this service' }], {
            code: 'unsubscribe-link-invalid',
          });
    const requestId = String(res.locals.requestId);
    return {
      requestId,
      ip: req.ip ?? 'unknown',
      req,
      res,
      now,
      logger: services.logger,
      counters: services.counters,
      link: check.claims,
      tenant: check.claims.tenant,
      db: services.documents.forTenant(check.claims.tenant),
      commands: requestCommands(services, requestId),
    };
  }

  /**
   * The context of an operation that takes a token (checked: 401): the token's tenant, the negotiated language
   * and the engines bound to the tenant; with the member for a member operation. `changesAt` receives what the
   * handler tells of when its answer changes by itself.
   */
  async tenantContext(
    operation: Operation,
    base: BaseContext,
    changesAt: (time: number) => void,
    ticketCaller: Caller | null = null,
  ): Promise<TenantContext | MemberContext> {
    const { services, auth, derivedValues } = this.deps;
    const req = base.req;
    const { claims, tenant } =
      ticketCaller ??
      (await auth.requireToken(req, base.apiKey).catch((error: unknown) => {
        // A member operation called with no token at all needs a member token (sign in), not another anonymous one.
        if (operation.route.auth === 'member' && auth.bearer(req) === null)
          throw new UnauthorizedError('member-token-required', 'A valid bearer token of the tenant is required.');
        throw error;
      }));
    const override = languageOverride(req.query as Record<string, unknown>, operation.input?.languageParam);
    const id = tenant.Tenant;
    const tenantCtx: TenantContext = {
      ...base,
      claims,
      tenant,
      language: negotiatedLanguage(tenant, req.headers['accept-language'], override),
      db: services.documents.forTenant(id),
      search: tenantSearch(this.deps.searchGate, id),
      files: tenantFiles(services.files, id),
      generatedFiles: tenantGeneratedFiles(services.generatedFiles, id),
      commands: requestCommands(services, base.requestId),
      events: this.deps.backOffice?.feed.forTenant(id) ?? null,
      keys: services.keys,
      jobs: services.jobs,
      push: services.push,
      changesAt,
      derived: (key, compute, stillTrue) => derivedValues.get(id, key, compute, stillTrue),
    };
    if (operation.route.auth !== 'member') return tenantCtx;
    // The member added to the same context (a copy of its two dozen fields per request costs more than it says).
    const memberCtx = tenantCtx as MemberContext;
    memberCtx.member = await auth.requireMember(claims);
    return memberCtx;
  }

  /**
   * The caller of a stream ticket (`?ticket=`, API.md operation 63) on an operation that takes one: it then
   * stands in for the Api-Key and bearer headers, which are not looked at (401 when not valid for this path).
   * Null: no ticket, the headers decide.
   */
  async ticketCaller(operation: Operation, req: Request): Promise<Caller | null> {
    if (operation.route.tickets !== true) return null;
    const ticket = rawQueryValue(req, 'ticket');
    return ticket === undefined ? null : this.deps.auth.ticketCaller(ticket, req.path);
  }

  /** The version a shared answer is kept and found under; null when answers are not cached. */
  cacheVersion(tenant: string): string | null {
    return this.deps.responseCache ? this.deps.catalogueVersion(tenant) : null;
  }

  /** The one auction a request names for its answer (CachePolicy.auction without the answer), and its version now. */
  scopeBefore(operation: Operation, input: { params: Record<string, unknown>; query: Record<string, unknown> }, tenant: string) {
    const auction = operation.cache?.auction?.(input, undefined);
    return auction === undefined ? null : { auction, version: this.deps.catalogueVersion(tenant, auction) };
  }

  /**
   * The version an answer is kept with: its one auction's (CachePolicy.auction) when that did not move while it
   * was read (taken before when the request names it, else when nothing in the tenant moved meanwhile), else the
   * tenant's version from before (`before`): a change meanwhile leaves the answer with the older version.
   */
  keptVersion(
    tenant: string,
    before: string,
    scope: { auction: number | undefined; version: string | null },
  ): { version: string; auction?: number } {
    const { auction } = scope;
    if (auction === undefined) return { version: before };
    if (scope.version !== null)
      return this.deps.catalogueVersion(tenant, auction) === scope.version ? { version: scope.version, auction } : { version: before };
    if (this.deps.catalogueVersion(tenant) !== before) return { version: before };
    const version = this.deps.catalogueVersion(tenant, auction);
    return version === null ? { version: before } : { version, auction };
  }

  /** Sends the answer the response cache holds for the key at this instant, while current; false when it holds none. */
  sendCached(req: Request, res: Response, key: string, tenant: string, nowMs: number): boolean {
    const cache = this.deps.responseCache!;
    const cached = cache.get(key, (auction) => this.deps.catalogueVersion(tenant, auction), nowMs);
    if (!cached) return false;
    sendBody(req, res, cached.body, cached.etag, { entry: cached, cache });
    return true;
  }

  /** Keeps a shared JSON answer in the response cache under its key, and sends it. */
  sendAndKeep(req: Request, res: Response, key: string, entry: CachedResponse): void {
    const cache = this.deps.responseCache!;
    cache.set(key, entry);
    sendBody(req, res, entry.body, entry.etag, { entry, cache });
  }
}

/**
 * Whether the answer is shared: catalogue reads carry no member data, so the same URL in the same tenant and
 * language is one answer, unless this request makes it the caller's own (`personal`).
 */
export function isShared(operation: Operation, req: Request): boolean {
  const cache = operation.cache;
  return cache?.catalogue === true && !cache.personal?.(req.query as Record<string, unknown>);
}

/**
 * The headers that say what the answer depends on and how it may be kept: with a token, its language and the
 * credentials and language it varies on; Cache-Control (revalidated when shared, else `no-store`).
 */
export function representationHeaders(res: Response, language: string | null, shared: boolean): void {
  if (language !== null) {
    res.setHeader('Content-Language', language);
    addVary(res, CATALOGUE_VARY);
  }
  res.setHeader('Cache-Control', shared ? SHARED_CACHE_CONTROL : 'no-store');
}

/** The response cache key of a shared answer: its tenant, language and URL (as the fast path looks it up). */
export function responseCacheKey(ctx: TenantContext, req: Request): string {
  return `${ctx.tenant.Tenant}\n${ctx.language}\n${req.originalUrl}`;
}

/**
 * Until when a shared answer is kept: the handler's own horizon (changesAt, null when it told none) within
 * MAX_TTL, else DEFAULT_TTL. The lifetime is spread (0.5 to 1 of it) so entries filled together do not all
 * expire, and get recomputed, in the same instant.
 */
export function expiresAt(nowMs: number, changesAt: number | null): number {
  const spread = 0.5 + Math.random() / 2;
  return changesAt !== null ? Math.min(changesAt, nowMs + RESPONSE_CACHE_MAX_TTL_MS * spread) : nowMs + RESPONSE_CACHE_TTL_MS * spread;
}

/** A handler's result as a response cache entry: its JSON bytes, once, with their ETag. */
export function jsonEntry(
  result: unknown,
  operationId: string,
  kept: { version: string; auction?: number },
  expires: number,
): CachedResponse {
  const body = jsonBytes(result);
  return { body, etag: weakEtag(body), version: kept.version, auction: kept.auction, expires, operationId };
}

/**
 * The version of what catalogue answers are read from (ProjectionVersions.scoped): of one tenant's answers, or
 * of those that depend on one of its auctions alone; null: not known yet, nothing is cached.
 */
export type CatalogueVersion = (tenant: string, auction?: number) => string | null;

/** Sends a handler's result as JSON (an answer not kept: its ETag made from its bytes). */
export function sendJson(req: Request, res: Response, result: unknown): void {
  const body = jsonBytes(result);
  sendBody(req, res, body, weakEtag(body));
}
