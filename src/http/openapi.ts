// The OpenAPI 3.1 document (GET /openapi.json) and the Swagger UI page, made from the operations' own declarations
// (routes, zod schemas, docs), so the reference cannot drift from what the service validates and answers.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { INT32_MAX, INT32_MIN, problemSchema, z } from './schemas.ts';
import type { Auth, Operation } from './operation.ts';
import { GROUPS } from './groups.ts';
import { WRITE_CONTENTION_DETAIL } from '../errors.ts';

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
  backoffice: 'The back-office key is missing, unknown or revoked.',
};

const STATUS_TEXT: Record<number, string> = {
  400: 'The request has invalid values: `errors` names each one (`path.id`, `query.PageSize`, `body.Email`). Also answered to a query parameter given twice or in bracket form (`x[]=1`), and to a body that is not valid JSON.',
  403: 'The caller may not do this.',
  404: "It does not exist, or it is not visible to the token's auction house (another house's resource is answered exactly as a missing one).",
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
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const DETAILS: Record<number, string> = {
  400: 'The request has invalid values.',
  401: 'A valid bearer token of the tenant is required.',
  403: 'The caller may not do this.',
  404: 'The resource does not exist.',
  409: 'It conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The request body must be application/json.',
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
    detail: status === 401 && op.route.auth === 'open' ? 'The Api-Key header is missing or unknown.' : DETAILS[status],
    instance: 'urn:request:0f8e2a4c-6b1d-4e3a-9c57-2d7e1b9a4f60',
    ...(status === 400 ? { errors: [badValue] } : {}),
  };
}

/** The largest request line plus headers Node accepts (a larger one is answered 431 before any operation runs). */
const HEADER_LIMIT = 16384;

const ref = (kind: 'headers' | 'parameters' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

function registerShared(registry: OpenAPIRegistry) {
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'Api-Key',
    description:
      'Identifies the calling application (a front end of one or more auction houses). Required on every `/v1` operation; a missing or unknown key is `401`. ' +
      'Issued by the operator; keep it out of URLs and logs.',
  });
  registry.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A JWT from `POST /v1/tokens/anonymous`, `POST /v1/tokens` or `POST /v1/sessions`, sent as `Authorization: Bearer <token>`. ' +
      'Tokens are signed with HS256, the one algorithm accepted (`alg: none` and every other algorithm are rejected), and carry `iss`, `aud`, `sub`, `exp`, `iat`, `jti`, ' +
      'the auction house (`tenant`) and the kind (`anonymous`, `application` or `member`); issuer, audience and expiry are checked on every call, following the JWT best current practices of RFC8725. ' +
      'Lifetimes: anonymous and application tokens 1 hour, member tokens 8 hours; `ExpiresAt` of the token answer says when. Treat the token as opaque.',
  });
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

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate the requests. */
export function buildOpenApiDocument(operations: Operation[]) {
  checkGroups(operations);
  const registry = new OpenAPIRegistry();
  registerShared(registry);
  registry.register('Problem', problemSchema);

  for (const op of [...operations].sort((a, b) => a.route.number - b.route.number)) {
    const { route, docs, input = {}, output } = op;
    const token = route.auth !== 'open';
    const binary = (output.produces?.length ?? 0) > 0;
    // Every operation reads its query (a repeated or bracketed parameter is 400, whatever the operation).
    const statuses = new Set<number>([400, 401, 500, ...(docs.errors ?? [])]);
    if (input.body || input.upload) statuses.add(413).add(415);
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
      ...(token ? { 'Content-Language': ref('headers', 'Content-Language') } : {}),
    };
    const responses: Record<string, object> = {
      200: binary
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
    if (route.method === 'get')
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
      if (status === 429 || status === 503) headers['Retry-After'] = ref('headers', 'Retry-After');
      responses[status] = {
        description: status === 401 ? UNAUTHORIZED[route.auth] : (STATUS_TEXT[status] ?? 'Error.'),
        headers,
        content: { 'application/problem+json': { schema: problemSchema, example: problemExample(status, op) } },
      };
    }

    const parameters = [
      ...(route.method === 'get' ? [ref('parameters', 'If-None-Match')] : []),
      ...(token ? [ref('parameters', 'Accept-Language')] : []),
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
      security: token ? [{ ApiKey: [], Bearer: [] }] : [{ ApiKey: [] }],
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
      },
      responses,
    });
  }
  const groups = new Set(operations.map((op) => op.route.group));
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
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

/** An interactive reference page (Swagger UI, served from the installed package; no CDN). */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Bidder API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true, tryItOutEnabled: true });
  </script>
</body>
</html>`;
}
