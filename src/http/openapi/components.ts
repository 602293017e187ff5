// The components the documents share (headers, parameters, schemas, security schemes) and the examples of the
// feed's item and stream; operations and webhooks refer to them with `ref`.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { DocumentKind } from './document-kind.ts';

/** The largest request line plus headers Node accepts (a larger one is answered 431 before any operation runs). */
const HEADER_LIMIT = 16384;

export const ref = (kind: 'headers' | 'parameters' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The components every document has: its credentials' schemes, the file schema, and the headers and parameters operations refer to. */
export function registerShared(registry: OpenAPIRegistry, kind: DocumentKind) {
  for (const [name, scheme] of Object.entries(kind.securitySchemes)) registry.registerComponent('securitySchemes', name, scheme as never);
  registry.registerComponent('schemas', 'BinaryFile', {
    type: 'string',
    format: 'binary',
    description: "The file's bytes; its size is in `Content-Length` when known.",
  });
  registerHeaders(registry);
  registerParameters(registry);
}

/** The headers of the answers (ETag, Cache-Control, Retry-After, CORS...). */
function registerHeaders(registry: OpenAPIRegistry) {
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
      "`private, no-cache` on catalogue answers (store them, but revalidate with `If-None-Match`); `no-store` on answers that carry the caller's own data; `max-age=60` on a cost estimate for a caller without a member token (keep it a minute).",
    required: true,
    schema: { type: 'string', enum: ['private, no-cache', 'no-store', 'max-age=60'] },
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
      'Credentials travel in headers, never in cookies. `Access-Control-Expose-Headers` lets the page read `ETag`, `Content-Language`, `Date` (for countdowns on the service clock), `Retry-After`, `X-Request-Id` and `Allow`.',
    required: false,
    schema: { type: 'string', pattern: '^(\\*|[A-Za-z][A-Za-z0-9+.-]*://[^\\s/]+)$', maxLength: 2048 },
  });
}

/** The request headers operations take (If-None-Match, Accept-Language, X-Request-Id). */
function registerParameters(registry: OpenAPIRegistry) {
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

/** A feed item, as the feed, the stream and a webhook delivery give it. */
export const FEED_ITEM_EXAMPLE = {
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
export const EVENT_STREAM_EXAMPLE =
  ': stream open\n\n' +
  `id: ${FEED_ITEM_EXAMPLE.Position}\nevent: ${FEED_ITEM_EXAMPLE.Type}\ndata: ${JSON.stringify(FEED_ITEM_EXAMPLE)}\n\n` +
  ': heartbeat\n\n';

export function registerEventStream(registry: OpenAPIRegistry) {
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

export function registerIdempotencyKey(registry: OpenAPIRegistry) {
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
