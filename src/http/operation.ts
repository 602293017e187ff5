// How an HTTP operation is declared (defineOperation) and what its handler is given: one declaration per
// operation, read by the router, the validation, the response cache and the OpenAPI document.
import type { Counters } from '../counters.ts';
import type { ProblemCode } from '../problem-codes.ts';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { TenantScope } from '../ports/read-models.ts';
import type { JobQueue } from '../ports/jobs.ts';
import type { PushService } from '../ports/push.ts';
import type { RateLimiter } from '../ports/rate-limit.ts';
import type { Commands } from '../command-streams.ts';
import type { Logger } from '../logger.ts';
import type { OneTimeKeys } from '../security/keys.ts';
import type { TokenClaims, TokenService } from '../security/tokens.ts';
import type { Authenticator, CheckedApiKey } from './auth.ts';
import type { EventFeed, TenantFeed } from '../events/feed.ts';
import type { PublicUrlGuard } from '../security/public-url.ts';
import type { TenantIntake } from '../intake-kind.ts';
import type { Member, Tenant } from './access-directory.ts';
import type { FileAnswer } from './file-answer.ts';
import type { StreamedAnswer } from './event-stream.ts';
import type { JsonAnswer } from './json-answer.ts';
import type { Group } from './groups.ts';
import type { TenantFiles, TenantGeneratedFiles, TenantSearch } from './tenant-engines.ts';
import type { UnsubscribeClaims } from '../security/mail-links.ts';

export type { ApiKeyInfo } from './access-directory.ts';

/**
 * Who may call an operation (API.md "Credentials and who may call what"):
 * open = Api-Key only; anon = Api-Key and any token of the tenant; member = Api-Key and a member token;
 * backoffice = a back-office key (`Authorization: Bearer <key>`, no Api-Key: BACKOFFICE.md), under /backoffice/v1;
 * link = no Api-Key and no token: the signed `token` of a link a mail carries, in the URL (`?token=`), names the
 * house and the member (the one-click unsubscribe of RFC 8058, whose POST carries no other credential).
 */
export type Auth = 'open' | 'anon' | 'member' | 'backoffice' | 'link';

/**
 * What a handler works with: the request, the caller, and the few engines it may use, never the whole set of
 * services. Everything that stores a tenant's data comes bound to the token's tenant (read models, search,
 * files), so a handler cannot read another tenant's data by accident; the write side comes without the raw
 * log or the projector (`commands`).
 */
export interface BaseContext {
  requestId: string;
  ip: string;
  apiKey: CheckedApiKey;
  auth: Authenticator;
  req: Request;
  res: Response;
  /** The request's time (the injected clock): one instant for the whole request. */
  now: Date;
  /** Rate limits; a limit per tenant names the tenant in its key. */
  limiter: RateLimiter;
  /** Tokens to issue, and stream tickets (operation 63). */
  tokens: Pick<TokenService, 'issue' | 'tickets'>;
  logger: Logger;
  /** What the operation counts of its decisions, for /metrics. */
  counters: Counters;
  /**
   * Where clients reach the API (PUBLIC_URL, no trailing slash), for the absolute URLs an answer gives; null: the
   * answer gives paths. Never the request's Host, which the caller chooses.
   */
  publicUrl: string | null;
}

export interface TenantContext extends BaseContext {
  claims: TokenClaims;
  tenant: Tenant;
  /** Negotiated language (Content-Language of the answer). */
  language: string;
  /** The tenant's read models: every read is confined to the token's tenant. */
  db: TenantScope;
  /** The tenant's part of the search index. */
  search: TenantSearch;
  /** The tenant's stored files. */
  files: TenantFiles;
  /** The tenant's files made from read models on first request (PDFs). */
  generatedFiles: TenantGeneratedFiles;
  /** Commands on streams (appends carry the request id), with read your writes. */
  commands: Commands;
  /** The tenant's public events in log order (the event feed; null where this process serves none). */
  events: TenantFeed | null;
  /** One-time keys and codes (confirmation, password reset, phone verification). */
  keys: OneTimeKeys;
  /** Background jobs, to add (workers run them). */
  jobs: Pick<JobQueue, 'add'>;
  /** Web Push: the VAPID public key, and whether an endpoint a browser gave may be used (PUSH.md). */
  push: Pick<PushService, 'publicKey' | 'checkEndpoint'>;
  /**
   * Tells when this answer changes by itself, without any event (epoch ms; Infinity: never), e.g. when the
   * next listed lot closes. A catalogue answer kept by the response cache is then reused up to that instant
   * (and at most a minute) while its read models stand still; one whose handler tells nothing, a second.
   */
  changesAt(time: number): void;
  /**
   * A value worked out from the catalogue read models (the next lot to close, a category's descendants),
   * kept per tenant and key while those read models stand still (the response cache's version) and, when
   * `stillTrue` is given, while it says so (e.g. until the time it names). Without a version: worked out.
   */
  derived<T>(key: string, compute: () => Promise<T>, stillTrue?: (value: T) => boolean): Promise<T>;
}

/**
 * What a back-office operation works with: the request and the key's one tenant, with that tenant's part of
 * the event feed; no Api-Key, no token, no store it could point at another tenant.
 */
export interface BackOfficeContext {
  requestId: string;
  ip: string;
  req: Request;
  res: Response;
  now: Date;
  logger: Logger;
  /** The tenant of the back-office key. */
  tenant: string;
  keyId: string;
  /**
   * Whether the request's key still holds (not revoked nor replaced since the request began), read from the log:
   * a reader that waits or streams asks it before it hands over events read meanwhile.
   */
  keyStillValid(): Promise<boolean>;
  /** The tenant's events (never an operator's record; data without private fields). */
  feed: TenantFeed;
  /** The event types a tenant's feed carries. */
  feedTypes: readonly string[];
  /** Aborted when the process stops: a stream ends. */
  stopping: AbortSignal;
  /** The tenant's read models. */
  db: TenantScope;
  /** Commands on streams (appends carry the request id), with read your writes. */
  commands: Commands;
  /** The rules of URLs the service will call (webhooks). */
  urls: PublicUrlGuard;
  /** The tenant's intake (records of other tenants and the operator's kinds are line errors). */
  intake: TenantIntake;
}

/** What the back office's operations are served with (buildApp). */
export interface BackOfficeDoor {
  feed: EventFeed;
  urls: PublicUrlGuard;
  intake: (tenant: string) => TenantIntake;
}

/**
 * What an operation of a mail's link works with: the link's claims (checked: signed by this service, not expired)
 * and the engines of the house it names, bound to that house; no Api-Key, no token.
 */
export interface LinkContext {
  requestId: string;
  ip: string;
  req: Request;
  res: Response;
  now: Date;
  logger: Logger;
  counters: Counters;
  /** What the link's token says: house, member, kind of notification and its scope, the link's id. */
  link: UnsubscribeClaims;
  /** The house the link names. */
  tenant: string;
  /** The house's read models. */
  db: TenantScope;
  /** Commands on streams (appends carry the request id), with read your writes. */
  commands: Commands;
}

export interface MemberContext extends TenantContext {
  member: Member;
}

type ContextOf<A extends Auth> = A extends 'member'
  ? MemberContext
  : A extends 'anon'
    ? TenantContext
    : A extends 'backoffice'
      ? BackOfficeContext
      : A extends 'link'
        ? LinkContext
        : BaseContext;

export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The `Idempotency-Key` header, checked, when the operation takes one (`InputSpec.idempotencyKey`). */
  idempotencyKey?: string;
}

/** Where an operation is served and who may call it. */
export interface Route<A extends Auth = Auth> {
  /** Number in API.md's table of 57 operations (a back-office operation: its row in BACKOFFICE.md's tables). */
  number: number;
  operationId: string;
  /** The group it is listed under in the OpenAPI document (its tag): one of the declared groups (groups.ts). */
  group: Group;
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI-style path: /v1/lots/{id}. */
  path: string;
  auth: A;
  /**
   * A `GET` a browser's own EventSource opens: a stream ticket in the URL (`?ticket=`, operation 63) then stands
   * in for the Api-Key and bearer headers (src/http/request-steps.ts).
   */
  tickets?: true;
}

/** What the OpenAPI document says of an operation beyond its schemas. */
export interface Docs {
  summary: string;
  description?: string;
  /** Extra status codes the operation answers (401 and 400 are added by auth/input; 413, 415 and 503 by its kind). */
  errors?: number[];
  /**
   * The problem codes of its own the operation may answer (src/problem-codes.ts), beyond those its credentials,
   * input, body and `errors` bring (a status of `errors` without a code here is documented with its default code).
   */
  problems?: ProblemCode[];
  /** Examples for the OpenAPI document (checked against the schemas by a test). */
  examples?: { body?: unknown; response?: unknown };
}

/** What a request carries: each part given is validated before the handler runs and documented. */
export interface InputSpec<P extends z.ZodObject = z.ZodObject, Q extends z.ZodObject = z.ZodObject, B extends z.ZodType = z.ZodType> {
  params?: P;
  /** Query parameters; names are matched case-insensitively. */
  query?: Q;
  /** A JSON body; `bodyOptional` lets it be left out entirely. */
  body?: B;
  bodyOptional?: boolean;
  /**
   * A `multipart/form-data` body (a file upload) instead of JSON: the shell lets it through unread, and the
   * handler reads it from `ctx.req` (src/http/multipart.ts). `fields` and `file` describe it for the OpenAPI
   * document.
   */
  upload?: { file: string; fields: z.ZodObject; maxBytes: number; description: string };
  /**
   * An `application/x-ndjson` body (intake over HTTP) instead of JSON: the shell lets it through unread and the
   * handler reads it from `ctx.req` (src/http/ndjson-body.ts), at most `maxBytes`.
   */
  ndjson?: { maxBytes: number; description: string; example: string };
  /**
   * A small HTML-form body (`application/x-www-form-urlencoded` or `multipart/form-data`, text fields only) instead
   * of JSON: the shell reads it whole, at most `maxBytes` (src/http/form-body.ts), and checks its fields against
   * `fields` as it checks a JSON body (`input.body` of the handler).
   */
  form?: { fields: z.ZodObject; maxBytes: number; description: string; example: Record<string, string> };
  /** The query parameter that overrides Accept-Language (`LanguageCode`); `lang` is accepted everywhere. */
  languageParam?: string;
  /**
   * The operation honours an `Idempotency-Key` header (src/idempotency/): it is checked (400) and handed to the
   * handler as `input.idempotencyKey`, and the OpenAPI document lists it.
   */
  idempotencyKey?: boolean;
}

/** What an operation answers. */
export interface OutputSpec<R extends z.ZodType = z.ZodType> {
  /** The JSON answer's schema. */
  response: R;
  /**
   * A binary answer (a PDF, a spreadsheet, a stored document): the handler returns a FileAnswer and the
   * 200 of the OpenAPI document describes these media types instead of `response`.
   */
  produces?: string[];
  /**
   * A `text/event-stream` answer's event types, each with the schema of its `data:` (JSON), for the OpenAPI
   * document and the typed client.
   */
  streamEvents?: Record<string, z.ZodType>;
}

/** How an answer may be reused; an operation without it answers `no-store`. */
export interface CachePolicy {
  /** Catalogue read: its answer is shared (Cache-Control, the response cache and its fast path), Vary on the credentials and language. */
  catalogue: true;
  /**
   * Whether, for this request, the answer depends on the caller (e.g. `OwnerId` on /v1/lots): it is then
   * neither taken from nor put into the shared response cache. It looks at the query alone, so an answer kept
   * for a URL was found shared for every request to that URL (the cache's fast path relies on it).
   */
  personal?: (query: Record<string, unknown>) => boolean;
  /**
   * The one auction the answer depends on, when it depends on one alone (with the tenant's settings, categories
   * and translations): it then stays cached while other auctions change (bids on their lots). Undefined: any
   * change in the tenant renews it. Asked first without the answer (undefined: the request does not name it).
   */
  auction?: (input: { params: Record<string, unknown>; query: Record<string, unknown> }, answer: unknown) => number | undefined;
}

/** CachePolicy.auction of an operation whose path names the auction (`/v1/auctions/{id}/…`). */
export const auctionInPath = ({ params }: { params: Record<string, unknown> }): number => Number(params.id);

/** An HTTP operation, declared once: it drives routing, validation, caching, the OpenAPI document and examples. */
export interface Operation<
  A extends Auth = Auth,
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  route: Route<A>;
  docs: Docs;
  /** Left out: the operation takes no parameters and no body. */
  input?: InputSpec<P, Q, B>;
  output: OutputSpec<R>;
  cache?: CachePolicy;
  /**
   * Seconds a caller without a member token may keep the answer (`Cache-Control: max-age=N`) without asking again:
   * for an answer that is a pure function of its inputs and of data that changes seldom (a cost estimate). A
   * member's answer stays `no-store` (it carries what the profile says).
   */
  anonymousMaxAge?: number;
  handler: (
    input: Input<z.output<P>, z.output<Q>, z.output<B>>,
    ctx: ContextOf<A>,
  ) => Promise<z.input<R> | FileAnswer | StreamedAnswer | JsonAnswer>;
}

export function defineOperation<
  A extends Auth,
  P extends z.ZodObject = z.ZodObject<Record<never, never>>,
  Q extends z.ZodObject = z.ZodObject<Record<never, never>>,
  B extends z.ZodType = z.ZodUndefined,
  R extends z.ZodType = z.ZodType,
>(operation: Operation<A, P, Q, B, R>): Operation<A, P, Q, B, R> {
  return operation;
}
