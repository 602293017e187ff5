// The OpenAPI 3.1 documents (GET /openapi.json: the bidder API; GET /backoffice/openapi.json: the back office's)
// and the Swagger UI pages, made from the operations' own declarations (routes, zod schemas, docs), so the
// reference cannot drift from what the service validates and answers. One generator makes both: a document's
// kind (DocumentKind) gives what differs (info, credentials, wording), the operations' kinds the rest.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { INT32_MAX, INT32_MIN, problemSchema, z } from './schemas.ts';
import type { Auth, Operation } from './operation.ts';
import { GROUPS } from './groups.ts';
import { WRITE_CONTENTION_DETAIL } from '../errors.ts';
import { MAX_FEED_READERS } from '../events/feed.ts';

const CREDENTIALS: Record<Auth, string> = {
  open: 'Credentials: the `Api-Key` header only (no token needed).',
  anon: 'Credentials: the `Api-Key` header and a bearer token of the auction house (anonymous, application or member).',
  member: 'Credentials: the `Api-Key` header and a member token (from `POST /v1/sessions`).',
  backoffice: 'Credentials: a back-office key as the bearer token (`Authorization: Bearer <key>`), no `Api-Key`.',
};

const UNAUTHORIZED: Record<Auth, string> = {
  open: 'The `Api-Key` header is missing or unknown.',
  anon: 'The `Api-Key` header is missing or unknown, or no valid token of an auction house this Api-Key may act for is presented (missing, expired, badly signed, or an anonymous token after the house switched public access off).',
  member:
    'The `Api-Key` header is missing or unknown, or the token is missing, invalid or expired, is not a member token, or its member no longer exists.',
  backoffice:
    'The back-office key (`Authorization: Bearer <key>`) is missing, unknown, revoked or replaced. A bidder Api-Key or token is not a back-office key.',
};

/** The `detail` of a 401 as the service words it, by the operation's credentials. */
const UNAUTHORIZED_DETAIL: Partial<Record<Auth, string>> = {
  open: 'The Api-Key header is missing or unknown.',
  backoffice: 'A valid back-office key is required (Authorization: Bearer <key>).',
};

/** What an operation's credentials are in the document: the security requirement, naming its schemes. */
const SECURITY: Record<Auth, Array<Record<string, string[]>>> = {
  open: [{ ApiKey: [] }],
  anon: [{ ApiKey: [], Bearer: [] }],
  member: [{ ApiKey: [], Bearer: [] }],
  backoffice: [{ BackOfficeKey: [] }],
};

const STATUS_TEXT: Record<number, string> = {
  400: 'The request has invalid values: `errors` names each one (`path.id`, `query.PageSize`, `body.Email`). Also answered to a query parameter given twice or in bracket form (`x[]=1`), and to a body that is not valid JSON.',
  403: 'The caller may not do this.',
  404: "It does not exist, or it is not visible to the token's auction house (another house's resource is answered exactly as a missing one).",
  408: 'The body arrived slower than the operation accepts; nothing of it was taken and the connection is closed.',
  409: 'It conflicts with the current state.',
  413: 'The JSON body is larger than 64 kB.',
  415: 'The body is not `application/json` (UTF-8).',
  429: 'Too many requests of this kind: wait the seconds `Retry-After` gives.',
  503: 'The change kept colliding with parallel changes to the same data (for 2 s) and was not made: nothing was stored. Repeat it after the seconds `Retry-After` gives.',
  500: 'An unexpected failure of the service. The problem carries no details; quote its `instance` (the `X-Request-Id`) when reporting it.',
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const DETAILS: Record<number, string> = {
  400: 'The request has invalid values.',
  401: 'A valid bearer token of the tenant is required.',
  403: 'The caller may not do this.',
  404: 'The resource does not exist.',
  408: 'The body arrived slower than 16 KiB in 10 s; it was not taken. Send it again at a steadier pace.',
  409: 'It conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The request body must be application/json.',
  422: 'This Idempotency-Key was used with another body in the last 24 hours.',
  429: 'Too many requests; try again later.',
  500: 'An unexpected error occurred.',
  503: WRITE_CONTENTION_DETAIL,
};

/** An example problem of a status, as the service words it for this operation. */
function problemExample(status: number, op: Operation) {
  const firstKey = (schema: { shape?: object } | undefined) => Object.keys(schema?.shape ?? {})[0];
  const { params, query, body } = op.input ?? {};
  const badValue = params
    ? { field: `path.${firstKey(params)}`, message: 'must be an int32' }
    : body && firstKey(body as { shape?: object })
      ? { field: `body.${firstKey(body as { shape?: object })}`, message: 'Invalid input: expected string, received number' }
      : query
        ? { field: `query.${firstKey(query)}`, message: 'must be given once' }
        : { field: 'query.x[]', message: 'bracket form is not accepted: give the parameter once, as name=value' };
  return {
    type: `urn:bidder-api:problem:${TITLES[status].toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
    title: TITLES[status],
    status,
    detail: problemDetail(status, op),
    instance: 'urn:request:0f8e2a4c-6b1d-4e3a-9c57-2d7e1b9a4f60',
    ...(status === 400 ? { errors: [badValue] } : {}),
  };
}

/** A 503 of a read: the process already serves its most event streams and waiting requests (src/events/feed.ts). */
const BUSY_READ_TEXT = `This process already has as many event streams and waiting requests open as it serves (${MAX_FEED_READERS.toLocaleString('en-US')}): nothing was read. Try again in a moment (another process may take it).`;
const BUSY_READ_DETAIL = `This process serves ${MAX_FEED_READERS} streams and waiting requests already; try again later.`;

/** The `detail` of an example problem: the status's, or the operation's own where its credentials, method or body differ. */
function problemDetail(status: number, op: Operation): string {
  const ndjson = op.input?.ndjson;
  if (status === 401) return UNAUTHORIZED_DETAIL[op.route.auth] ?? DETAILS[401];
  if (status === 503 && op.route.method === 'get') return BUSY_READ_DETAIL;
  if (ndjson && status === 413) return `The body may be at most ${mebibytes(ndjson.maxBytes)} MiB.`;
  if (ndjson && status === 415) return 'The request body must be application/x-ndjson: one JSON record a line.';
  return DETAILS[status];
}

const mebibytes = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 100) / 100;

/** The largest request line plus headers Node accepts (a larger one is answered 431 before any operation runs). */
const HEADER_LIMIT = 16384;

const ref = (kind: 'headers' | 'parameters' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The bidder API's credentials: the application's Api-Key, and a JWT of the auction house. */
const BIDDER_SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Api-Key',
    description:
      'Identifies the calling application (a front end of one or more auction houses). Required on every `/v1` operation; a missing or unknown key is `401`. ' +
      'Issued by the operator; keep it out of URLs and logs.',
  },
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A JWT from `POST /v1/tokens/anonymous`, `POST /v1/tokens` or `POST /v1/sessions`, sent as `Authorization: Bearer <token>`. ' +
      'Tokens are signed with HS256, the one algorithm accepted (`alg: none` and every other algorithm are rejected), and carry `iss`, `aud`, `sub`, `exp`, `iat`, `jti`, ' +
      'the auction house (`tenant`) and the kind (`anonymous`, `application` or `member`); issuer, audience and expiry are checked on every call, following the JWT best current practices of RFC8725. ' +
      'Lifetimes: anonymous and application tokens 1 hour, member tokens 8 hours; `ExpiresAt` of the token answer says when. Treat the token as opaque.',
  },
} as const;

/** The back office's credential: a key of one auction house, as the bearer (BACKOFFICE.md "Credential"). */
const BACK_OFFICE_SECURITY_SCHEMES = {
  BackOfficeKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The back-office key of one auction house, sent as `Authorization: Bearer <key>`, with no `Api-Key` header. It is an opaque secret (not a JWT), issued by the operator ' +
      'through intake (record `backOfficeKey`; the service keeps only its hash) and revoked with `backOfficeKeyRevoked`, which holds at once. ' +
      "Everything a key reaches is its own house's. A bidder Api-Key or token is not accepted here, and a back-office key does not open `/v1`. Keep it out of URLs and logs.",
  },
} as const;

function registerShared(registry: OpenAPIRegistry, kind: DocumentKind) {
  for (const [name, scheme] of Object.entries(kind.securitySchemes)) registry.registerComponent('securitySchemes', name, scheme as never);
  registry.registerComponent('schemas', 'BinaryFile', {
    type: 'string',
    format: 'binary',
    description: "The file's bytes; its size is in `Content-Length` when known.",
  });

  const header = (name: string, object: Record<string, unknown>) => registry.registerComponent('headers', name, object as never);
  header('X-Request-Id', {
    description:
      "Identifies this request in the service's logs: the request's own `X-Request-Id` when it is 1 to 64 letters, digits, `.`, `_` or `-`, else a new UUID. A problem answer repeats it in `instance`.",
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', maxLength: 64 },
  });
  header('ETag', {
    description: 'Identifies this representation. Send it back in `If-None-Match` to get `304 Not Modified` while it is unchanged.',
    required: true,
    schema: { type: 'string', pattern: '^(W/)?"[^"]*"$', maxLength: 200 },
  });
  header('Content-Language', {
    description:
      "The language of the answer's texts: the `lang` (or the operation's own language) query parameter, else the best match of `Accept-Language`, among the languages the auction house publishes; else its default language. " +
      'A stored document (terms, a condition report) names its own language.',
    required: true,
    schema: { type: 'string', pattern: '^[a-z]{2}(-[A-Z]{2})?$', maxLength: 5 },
  });
  header('Cache-Control', {
    description:
      "`private, no-cache` on catalogue answers (store them, but revalidate with `If-None-Match`); `no-store` on answers that carry the caller's own data.",
    required: true,
    schema: { type: 'string', enum: ['private, no-cache', 'no-store'] },
  });
  header('Vary', {
    description:
      'The request headers the answer depends on: `Accept-Language, Authorization, Api-Key` on operations that take a token, `Accept-Encoding` on answers over 1 KB, `Origin` when only some origins may call.',
    required: false,
    schema: { type: 'string', pattern: '^[A-Za-z-]+(, ?[A-Za-z-]+)*$', maxLength: 200 },
  });
  header('Content-Encoding', {
    description: 'JSON and problem answers over 1 KB are compressed when `Accept-Encoding` allows: `br` preferred, else `gzip`.',
    required: false,
    schema: { type: 'string', enum: ['br', 'gzip'] },
  });
  header('Content-Disposition', {
    description:
      "The file's name (RFC 6266: an ASCII `filename` and the full UTF-8 `filename*`); `inline` for documents a browser shows, `attachment` for downloads.",
    required: true,
    // A name of up to 2,505 characters (a dictionary text and a title), percent-encoded in filename*.
    schema: { type: 'string', pattern: '^(inline|attachment); filename=".*"; filename\\*=UTF-8\'\'.*$', maxLength: 25600 },
  });
  header('X-Content-Type-Options', {
    description: 'Files are never to be sniffed as another type.',
    required: true,
    schema: { type: 'string', enum: ['nosniff'] },
  });
  header('Retry-After', {
    description: "Seconds to wait before trying again: the rest of the limit's window (at most an hour) on a `429`, 1 on a `503`.",
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 3600 },
  });
  header('WWW-Authenticate', {
    description: 'The authentication scheme the operation takes.',
    required: true,
    schema: { type: 'string', enum: ['Bearer'] },
  });
  header('Access-Control-Allow-Origin', {
    description:
      'CORS: sent when the request has an `Origin` the service allows (any origin unless the operator restricts them with `CORS_ORIGINS`): `*`, or that origin. ' +
      'Credentials travel in headers, never in cookies. `Access-Control-Expose-Headers` lets the page read `ETag`, `Content-Language`, `Retry-After`, `X-Request-Id` and `Allow`.',
    required: false,
    schema: { type: 'string', pattern: '^(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^\\s/]+)$', maxLength: 2048 },
  });

  const parameter = (name: string, object: Record<string, unknown>) => registry.registerComponent('parameters', name, object as never);
  parameter('If-None-Match', {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'The `ETag` of a representation the client holds (or several, comma-separated, or `*`): when it still matches, the answer is `304` with no body.',
    schema: { type: 'string', pattern: '^(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)$', maxLength: HEADER_LIMIT },
  });
  parameter('Accept-Language', {
    name: 'Accept-Language',
    in: 'header',
    required: false,
    description:
      "Preferred languages with q-values (`sv-SE, sv;q=0.9, en;q=0.5`), matched against the auction house's published languages (`sv-SE` falls back to `sv`); " +
      "the house's default language when none matches. The query parameter `lang` (and an operation's own language parameter) overrides it. `Content-Language` says which language was used.",
    schema: { type: 'string', pattern: '^[A-Za-z0-9*;=.,\\s-]*$', maxLength: HEADER_LIMIT },
    example: 'sv-SE, sv;q=0.9, en;q=0.5',
  });
  parameter('X-Request-Id', {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      "A request id of the caller's choice, echoed in the answer's `X-Request-Id` and logged; another form is replaced by a new UUID (never rejected).",
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', maxLength: 64 },
  });
}

/**
 * Refuses an operation whose group is not a declared one (groups.ts): the type of `group` already says so, but an
 * operation can reach the document through a cast (a feature's operation list is typed loosely), and the document
 * would then tag it with an undescribed group that its tag list leaves out.
 */
export function checkGroups(operations: readonly Operation[]): void {
  const declared = new Set<string>(GROUPS.map((group) => group.name));
  const unknown = operations.filter((op) => !declared.has(op.route.group));
  if (unknown.length > 0)
    throw new Error(
      `operations in undeclared groups: ${unknown.map((op) => `${op.route.operationId} ("${op.route.group}")`).join(', ')}; ` +
        `the groups are ${[...declared].map((name) => `"${name}"`).join(', ')} (src/http/groups.ts)`,
    );
}

/** What differs between the two documents; everything else is the one generator's (buildDocument). */
interface DocumentKind {
  info: { title: string; version: string; description: string };
  /** The security schemes its operations' credentials name (SECURITY); an operation naming another is refused. */
  securitySchemes: Readonly<Record<string, object>>;
  /** Descriptions of error statuses where this interface words them otherwise than STATUS_TEXT. */
  statusText?: Partial<Record<number, string>>;
  /** What the document says beyond its operations (the back office's webhooks), once they are registered. */
  extend?: (registry: OpenAPIRegistry, operations: readonly Operation[]) => void;
}

const BIDDER: DocumentKind = {
  info: {
    title: 'Bidder API',
    version: '1.0.0',
    description:
      "The bidder-facing API of an auction house: its auctions, lots, categories and documents, and a signed-in member's own data (watchlist, consignments, profile).\n\n" +
      "**Credentials.** Every `/v1` call sends the calling application's `Api-Key` header. Most also send `Authorization: Bearer <token>`: an anonymous token " +
      "(`POST /v1/tokens/anonymous`) or an application token (`POST /v1/tokens`) opens the catalogue of one auction house; a member token (`POST /v1/sessions`) opens the member's own data as well. " +
      'A resource of another auction house is answered exactly as a missing one (`404`).\n\n' +
      '**Conventions.** JSON bodies use PascalCase names and are at most 64 kB. Ids are int32. Money is an integer number of minor units beside an ISO 4217 `Currency`. ' +
      'Timestamps are RFC 3339 in UTC. Paged lists answer `{Items, TotalCount, Page, PageSize, TotalPages}` (at most 100 items a page). ' +
      'Texts come in the language negotiated from `Accept-Language` (or `lang`), named in `Content-Language`.\n\n' +
      '**Caching.** Every `GET` answer carries an `ETag`; send it back in `If-None-Match` for a `304` while it is unchanged. Answers over 1 KB are compressed (`br` or `gzip`) when `Accept-Encoding` allows.\n\n' +
      '**Errors** are `application/problem+json` (RFC 9457) with `type`, `title`, `status`, `detail`, `instance` (the request id) and, for `400`, an `errors` array naming each bad value. ' +
      'Every answer carries `X-Request-Id`. Sign-in, application tokens and the contact form are rate-limited (`429` with `Retry-After`). ' +
      'Before any operation runs, a request line and headers over 16 KB are `431`, an unknown path `404`, and another method on a known path `405` with `Allow`.',
  },
  securitySchemes: BIDDER_SECURITY_SCHEMES,
};

/** The retries of a failed delivery (BACKOFFICE.md "Webhooks"; the dispatcher's RETRY_SCHEDULE_MS). */
const RETRY_SCHEDULE_TEXT = '5 seconds, 5 minutes, 30 minutes, 2 hours, 5 hours, 10 hours and 10 hours';

const BACK_OFFICE: DocumentKind = {
  info: {
    title: 'Bidder API: back office',
    version: '1.0.0',
    description:
      "The interface of an auction house's own systems (ERP, accounting, CRM, mailing) under `/backoffice/v1`: the house's events as a paged feed, as a stream and as signed webhooks, " +
      'and catalogue intake over HTTP. The bidder-facing API (`/v1`) has its own document at `/openapi.json`.\n\n' +
      '**Credential.** A back-office key belongs to one auction house and is sent as `Authorization: Bearer <key>`, with no `Api-Key`. ' +
      'The operator issues keys through intake (record `backOfficeKey`; only a hash is kept) and revokes them (`backOfficeKeyRevoked`), which holds at once. ' +
      "A missing, unknown or revoked key is `401`; bidder Api-Keys and tokens never open `/backoffice/v1`, and a back-office key never opens `/v1`. Everything a key reaches is its own house's: " +
      "another house's webhook is answered as a missing one (`404`), and its events are not in the feed.\n\n" +
      "**Event feed.** `GET /backoffice/v1/events` gives the house's events in log order, `{Items, Next, HasMore}`: pass `Next` as `after` for the next page, and `wait` (up to 60 s) to long-poll " +
      'when nothing newer exists. `GET /backoffice/v1/events/stream` gives the same items as Server-Sent Events and resumes from `Last-Event-ID`. ' +
      'Positions (`Position`, `Next`, `after`, `Last-Event-ID`) are opaque strings: give them back as they came and compare them only for equality. ' +
      "An item's `Id` is the event's, the same forever (deduplicate by it); `Data` is the event's data less its private fields; the operator's own records are never in a house's feed.\n\n" +
      "**Webhooks.** A delivery is `POST Url` with a feed item as its JSON body and the headers of the Standard Webhooks specification: `webhook-id` (the event's `Id`), " +
      '`webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`): ' +
      'any Standard Webhooks library verifies it as it is (see `webhooks` below). A `2xx` answer within 10 seconds is delivered; anything else is retried after ' +
      `${RETRY_SCHEDULE_TEXT}, and after the last failure the webhook is \`disabled\` until it is enabled again. ` +
      'Each webhook gets its events in log order, one at a time (a failing event holds the later ones back), at least once: deduplicate by `webhook-id`. Redirects are not followed. ' +
      '`Url` must be `https`, carry no user or password, and name a host that resolves only to public addresses (checked at registration and again at each delivery); at most 20 webhooks a house.\n\n' +
      "**Intake.** `POST /backoffice/v1/intake` takes `application/x-ndjson`: the intake records, one a line, for the key's own house, at most 64 MiB. " +
      'Good lines are taken even when others fail; `Errors` names the others by line. With an `Idempotency-Key` header, the same key and body within 24 hours answer the first answer again ' +
      'and append nothing; the same key with another body is `422`.\n\n' +
      '**Conventions and errors.** As in the bidder API: PascalCase JSON bodies of at most 64 kB, int32 ids, RFC 3339 UTC times. Answers are `no-store`; a JSON `GET` answer carries an `ETag` ' +
      "(`304` to a matching `If-None-Match`), and answers over 1 KB are compressed when `Accept-Encoding` allows. Errors are `application/problem+json` (RFC 9457) with `instance` the request's `X-Request-Id`.",
  },
  securitySchemes: BACK_OFFICE_SECURITY_SCHEMES,
  statusText: {
    400: 'The request has invalid values: `errors` names each one (`query.after`, `body.Url`, `header.Last-Event-ID`). Also answered to a query parameter given twice or in bracket form (`x[]=1`), and to a JSON body that is not valid JSON.',
    404: "It does not exist, or it belongs to another auction house than the key's (answered exactly as a missing one).",
    422: 'The `Idempotency-Key` was used with another body in the last 24 hours: nothing was taken. A new body needs a new key.',
  },
  extend: registerDeliveryWebhook,
};

/**
 * The webhook delivery (OpenAPI 3.1 `webhooks`): what the service POSTs to a registered `Url`. Its body is the
 * feed's item, so it is described where the feed's operations put `FeedItem` in the document.
 */
function registerDeliveryWebhook(registry: OpenAPIRegistry, operations: readonly Operation[]) {
  if (!operations.some((op) => op.route.operationId === 'listBackOfficeEvents')) return;
  const header = (name: string, description: string, schema: object, example: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
    example,
  });
  registry.registerWebhook({
    method: 'post',
    path: 'eventDelivery',
    operationId: 'deliverEvent',
    tags: ['Back office'],
    summary: "An event delivered to a webhook's Url",
    description:
      "`POST` to the webhook's `Url`, one event at a time in log order, with the feed's item as the body (exactly as the feed gives it) and the Standard Webhooks headers. " +
      "Verify the signature over the raw body with any Standard Webhooks library and the webhook's `Secret`, and reject a `webhook-timestamp` far from now (the libraries allow 5 minutes). " +
      `Answer \`2xx\` within 10 seconds; anything else (a redirect included) is retried after ${RETRY_SCHEDULE_TEXT}, then the webhook is \`disabled\`. ` +
      'A delivery may come more than once (after a crash, or a replay): deduplicate by `webhook-id`.',
    parameters: [
      header(
        'webhook-id',
        "The event's `Id` (a uuid): the same on every try and replay of this event.",
        { type: 'string', format: 'uuid', maxLength: 36 },
        FEED_ITEM_EXAMPLE.Id,
      ),
      header(
        'webhook-timestamp',
        'When this try was signed, in Unix seconds.',
        { type: 'string', pattern: '^[0-9]{1,12}$', maxLength: 12 },
        '1795167001',
      ),
      header(
        'webhook-signature',
        "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the webhook's `Secret` after `whsec_`.",
        { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}$', maxLength: 200 },
        'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      ),
    ] as never,
    request: {
      body: {
        required: true,
        description:
          'The feed item of the event, as `GET /backoffice/v1/events` gives it. Verify the signature over these bytes as they came, before parsing them.',
        content: { 'application/json': { schema: ref('schemas', 'FeedItem') as never, example: FEED_ITEM_EXAMPLE } },
      },
    },
    responses: {
      '2XX': { description: 'Delivered: any `2xx` within 10 seconds (the answer is not read beyond 64 KB).' },
      default: {
        description: `Not delivered: any other status, a redirect, or no answer within 10 seconds. Tried again after ${RETRY_SCHEDULE_TEXT}; then the webhook is \`disabled\`.`,
      },
    },
  });
}

/** The bidder API's OpenAPI 3.1 document (GET /openapi.json), generated from the same zod schemas that validate the requests. */
export function buildOpenApiDocument(operations: Operation[]) {
  return buildDocument(operations, BIDDER);
}

/** The back office's OpenAPI 3.1 document (GET /backoffice/openapi.json): its operations only, its own credential. */
export function buildBackOfficeOpenApiDocument(operations: Operation[]) {
  const document = buildDocument(operations, BACK_OFFICE);
  dropUnusedComponents(document);
  return document;
}

/** Whether an operation answers Server-Sent Events (its other non-JSON answers are files). */
const streams = (op: Operation) => op.output.produces?.includes('text/event-stream') ?? false;

function buildDocument(operations: Operation[], kind: DocumentKind) {
  checkGroups(operations);
  checkCredentials(operations, kind);
  const registry = new OpenAPIRegistry();
  registerShared(registry, kind);
  if (operations.some(streams)) registerEventStream(registry);
  if (operations.some((op) => op.input?.ndjson)) registerIdempotencyKey(registry);
  registry.register('Problem', problemSchema);
  const statusText = { ...STATUS_TEXT, ...kind.statusText };

  for (const op of [...operations].sort((a, b) => a.route.number - b.route.number)) {
    const { route, docs, input = {}, output } = op;
    // Bidder operations that take a token answer in a negotiated language.
    const language = route.auth === 'anon' || route.auth === 'member';
    const stream = streams(op);
    const binary = !stream && (output.produces?.length ?? 0) > 0;
    // Every operation reads its query (a repeated or bracketed parameter is 400, whatever the operation).
    const statuses = new Set<number>([400, 401, 500, ...(docs.errors ?? [])]);
    if (input.body || input.upload || input.ndjson) statuses.add(413).add(415);
    // A change may lose the race for its stream for longer than its budget (src/command-runner.ts).
    if (route.method !== 'get') statuses.add(503);

    const common = {
      'X-Request-Id': ref('headers', 'X-Request-Id'),
      'Access-Control-Allow-Origin': ref('headers', 'Access-Control-Allow-Origin'),
    };
    const representation = {
      ...common,
      ETag: ref('headers', 'ETag'),
      'Cache-Control': ref('headers', 'Cache-Control'),
      Vary: ref('headers', 'Vary'),
      ...(language ? { 'Content-Language': ref('headers', 'Content-Language') } : {}),
    };
    const responses: Record<string, object> = {
      200: stream
        ? {
            description:
              'The stream, open until the client leaves or the service stops: an event per change (`id:` an opaque position, `event:` its kind, `data:` JSON on one line), ' +
              'and a comment line at least every 15 seconds.',
            headers: {
              ...common,
              'Cache-Control': ref('headers', 'Cache-Control'),
              ...(language ? { 'Content-Language': ref('headers', 'Content-Language') } : {}),
            },
            content: {
              'text/event-stream': {
                schema: ref('schemas', 'EventStream'),
                // An operation's own example of its stream, else the feed's.
                example: typeof op.docs.examples?.response === 'string' ? op.docs.examples.response : EVENT_STREAM_EXAMPLE,
              },
            },
          }
        : binary
          ? {
              description: 'The file.',
              headers: {
                ...representation,
                'Content-Disposition': ref('headers', 'Content-Disposition'),
                'X-Content-Type-Options': ref('headers', 'X-Content-Type-Options'),
              },
              content: Object.fromEntries(output.produces!.map((type) => [type, { schema: ref('schemas', 'BinaryFile') }])),
            }
          : {
              description: 'Success.',
              headers: { ...representation, 'Content-Encoding': ref('headers', 'Content-Encoding') },
              content: {
                'application/json': {
                  schema: output.response,
                  ...(docs.examples?.response !== undefined ? { example: docs.examples.response } : {}),
                },
              },
            },
    };
    // A stream has no representation to compare; every other GET answers 304 to a matching ETag.
    const conditional = route.method === 'get' && !stream;
    if (conditional)
      responses[304] = {
        description: 'Not modified: the `If-None-Match` of the request names the current `ETag`. No body; reuse the copy held.',
        headers: representation,
      };
    for (const status of [...statuses].sort()) {
      const headers: Record<string, object> = {
        ...common,
        Vary: ref('headers', 'Vary'),
        'Content-Encoding': ref('headers', 'Content-Encoding'),
      };
      if (status === 401) headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
      // A read is 503 only when its process holds its most readers (src/events/feed.ts), with no Retry-After.
      const busyRead = status === 503 && route.method === 'get';
      if (status === 429 || (status === 503 && !busyRead)) headers['Retry-After'] = ref('headers', 'Retry-After');
      responses[status] = {
        description:
          status === 401
            ? UNAUTHORIZED[route.auth]
            : busyRead
              ? BUSY_READ_TEXT
              : (bodyStatusText(status, op) ?? statusText[status] ?? 'Error.'),
        headers,
        content: { 'application/problem+json': { schema: problemSchema, example: problemExample(status, op) } },
      };
    }

    const parameters = [
      ...(conditional ? [ref('parameters', 'If-None-Match')] : []),
      ...(stream ? [ref('parameters', 'Last-Event-ID')] : []),
      ...(input.ndjson ? [ref('parameters', 'Idempotency-Key')] : []),
      ...(language ? [ref('parameters', 'Accept-Language')] : []),
      ref('parameters', 'X-Request-Id'),
    ];
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      tags: [route.group],
      summary: docs.summary,
      description: [docs.description, `${CREDENTIALS[route.auth]}${input.query ? ' Query parameter names are case-insensitive.' : ''}`]
        .filter(Boolean)
        .join('\n\n'),
      security: SECURITY[route.auth],
      parameters: parameters as never,
      request: {
        ...(input.params ? { params: input.params } : {}),
        ...(input.query ? { query: input.query } : {}),
        ...(input.body
          ? {
              body: {
                required: !input.bodyOptional,
                content: {
                  'application/json': {
                    schema: input.body,
                    ...(docs.examples?.body !== undefined ? { example: docs.examples.body } : {}),
                  },
                },
              },
            }
          : {}),
        ...(input.upload
          ? {
              body: {
                required: true,
                description: input.upload.description,
                content: {
                  'multipart/form-data': {
                    schema: input.upload.fields.extend({
                      // For a binary part, maxLength bounds its octets: the upload's byte limit, enforced while it is read.
                      [input.upload.file]: z.string().openapi({
                        type: 'string',
                        format: 'binary',
                        maxLength: input.upload.maxBytes,
                        description: `The file, at most ${input.upload.maxBytes} bytes.`,
                      }),
                    }),
                  },
                },
              },
            }
          : {}),
        ...(input.ndjson
          ? {
              body: {
                required: true,
                description: input.ndjson.description,
                content: {
                  'application/x-ndjson': {
                    // Characters never outnumber UTF-8 bytes, so the byte limit bounds the text's length too.
                    schema: {
                      type: 'string',
                      maxLength: input.ndjson.maxBytes,
                      description: `One JSON object a line (UTF-8, LF or CRLF line ends, no \`Content-Encoding\`), at most ${mebibytes(input.ndjson.maxBytes)} MiB.`,
                    },
                    example: input.ndjson.example,
                  },
                },
              },
            }
          : {}),
      },
      responses,
    });
  }
  kind.extend?.(registry, operations);
  const groups = new Set(operations.map((op) => op.route.group));
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: kind.info,
    servers: [
      {
        url: '/',
        description: 'The server that serves this document, in whichever environment it runs (local, staging or production).',
        'x-internal': false,
      } as never,
    ],
    tags: GROUPS.filter((group) => groups.has(group.name)),
  });
  integerFormats(document);
  return document;
}

/** Refuses an operation whose credentials the document does not describe (a back-office one in the bidder API's, or the reverse). */
function checkCredentials(operations: readonly Operation[], kind: DocumentKind): void {
  const foreign = operations.filter((op) =>
    SECURITY[op.route.auth].some((requirement) => Object.keys(requirement).some((name) => !(name in kind.securitySchemes))),
  );
  if (foreign.length > 0)
    throw new Error(
      `operations whose credentials the "${kind.info.title}" document does not describe: ${foreign.map((op) => `${op.route.operationId} (${op.route.auth})`).join(', ')}`,
    );
}

/** The 413 and 415 of an NDJSON body, which has its own limit and type (the JSON wording stays for JSON bodies). */
function bodyStatusText(status: number, op: Operation): string | undefined {
  const ndjson = op.input?.ndjson;
  if (!ndjson) return undefined;
  if (status === 413)
    return `The body is larger than ${mebibytes(ndjson.maxBytes)} MiB. Nothing was taken: split the records over several requests.`;
  if (status === 415) return 'The body is not `application/x-ndjson`, or it comes with a `Content-Encoding` (send it uncompressed).';
  return undefined;
}

/** A feed item, as the feed, the stream and a webhook delivery give it. */
const FEED_ITEM_EXAMPLE = {
  Id: '0b6f1f8e-2a0c-4f4e-9d71-5c3a7f9b8e21',
  Type: 'LotWatched',
  Version: 1,
  Stream: 'watchlist-demo-42',
  Revision: 3,
  Position: 'HTH6bF7FdqN-CPwJg4Zi1w',
  Time: '2026-11-20T09:30:00.000Z',
  Data: { tenant: 'demo', memberId: 42, lotId: 1017, watchType: 'watch', at: '2026-11-20T09:30:00.000Z' },
};

/** An example of a Server-Sent Events stream as the feed writes it. */
const EVENT_STREAM_EXAMPLE =
  ': stream open\n\n' +
  `id: ${FEED_ITEM_EXAMPLE.Position}\nevent: ${FEED_ITEM_EXAMPLE.Type}\ndata: ${JSON.stringify(FEED_ITEM_EXAMPLE)}\n\n` +
  ': heartbeat\n\n';

function registerEventStream(registry: OpenAPIRegistry) {
  registry.registerComponent('schemas', 'EventStream', {
    type: 'string',
    description:
      'A `text/event-stream` (Server-Sent Events, WHATWG HTML): events of `id:`, `event:` and `data:` lines, each ended by an empty line, and comment lines (`:`) between them. ' +
      'It has no end and so no length: it lasts while the connection does.',
  });
  registry.registerComponent('parameters', 'Last-Event-ID', {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description:
      'The `id:` of the last event received (a `Position`), which `EventSource` sends by itself when it reconnects: the stream goes on after it, missing nothing and repeating nothing. It wins over `after`; an id the feed did not give is `400`.',
    schema: { type: 'string', maxLength: 100 },
  });
}

function registerIdempotencyKey(registry: OpenAPIRegistry) {
  registry.registerComponent('parameters', 'Idempotency-Key', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key of your choice (1 to 200 visible ASCII characters, a UUID for instance) that makes a retry safe: the same key with the same body within 24 hours answers the first answer again ' +
      'and takes nothing; the same key with another body is `422`; while the first request with the key still runs, another is `409`.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$', maxLength: 200 },
    example: '5f0c7a52-1d2b-4c1e-8a47-0e9b3f6d2c11',
  });
}

/**
 * Leaves out the components nothing in the document refers to (the shared headers of files and languages, which
 * the back office's answers do not carry), following references from the paths and webhooks.
 */
function dropUnusedComponents(document: { paths?: unknown; webhooks?: unknown; components?: unknown }): void {
  const components = document.components as Record<string, Record<string, unknown>> | undefined;
  if (!components) return;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !used.has(value)) {
        used.add(value);
        const [, group, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value) ?? [];
        if (group) visit(components[group]?.[name]);
      } else visit(value);
    }
  };
  visit(document.paths);
  visit(document.webhooks);
  for (const [group, entries] of Object.entries(components)) {
    // Security schemes are named by the operations' security requirements, not by $ref.
    if (group === 'securitySchemes') continue;
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${group}/${name}`)) delete entries[name];
    if (Object.keys(entries).length === 0) delete components[group];
  }
}

/**
 * Every bounded integer gets the format its bounds imply (`int32` within the int32 range, else `int64`), so the
 * zod schemas state each bound once. An integer without both bounds keeps no format (and the lint says so).
 */
function integerFormats(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(integerFormats);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const integer = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
  if (integer && schema.format === undefined && typeof schema.minimum === 'number' && typeof schema.maximum === 'number')
    schema.format = schema.minimum >= INT32_MIN && schema.maximum <= INT32_MAX ? 'int32' : 'int64';
  Object.values(schema).forEach(integerFormats);
}

/** A reference page: its title and the document it shows. */
export interface DocsPage {
  title: string;
  documentUrl: string;
}

export const BIDDER_DOCS: DocsPage = { title: 'Bidder API reference', documentUrl: '/openapi.json' };
export const BACK_OFFICE_DOCS: DocsPage = { title: 'Bidder API: back office reference', documentUrl: '/backoffice/openapi.json' };

/**
 * An interactive reference page (Swagger UI, served from the installed package; no CDN), with links between the
 * bidder API's page (/docs) and the back office's (/docs/backoffice).
 */
export function docsPage(page: DocsPage = BIDDER_DOCS): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${page.title}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <nav style="font-family: sans-serif; padding: 8px 20px">References: <a href="/docs">bidder API</a> · <a href="/docs/backoffice">back office</a></nav>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '${page.documentUrl}', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true, tryItOutEnabled: true });
  </script>
</body>
</html>`;
}
