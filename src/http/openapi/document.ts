// The one generator of both OpenAPI documents: each operation's entry (parameters, bodies, answers and their
// examples) from its own declaration, and the checks that refuse an operation a document cannot describe.
import { OpenAPIRegistry, OpenApiGeneratorV31, type ZodRequestBody } from '@asteasolutions/zod-to-openapi';
import { problemSchema, z } from '../schemas.ts';
import type { Operation } from '../operation.ts';
import type { ProblemCode } from '../../problem-codes.ts';
import { GROUPS } from '../groups.ts';
import { CREDENTIALS, SECURITY } from './credentials.ts';
import type { DocumentKind } from './document-kind.ts';
import { BACK_OFFICE, BIDDER } from './prose.ts';
import {
  bodyStatusText,
  BUSY_READ_TEXT,
  SEARCH_UNAVAILABLE_TEXT,
  codesText,
  mebibytes,
  operationProblemCodes,
  problemExample,
  STATUS_TEXT,
  UNAUTHORIZED,
} from './problems.ts';
import { registerStreamEvents } from './stream-events.ts';
import { FORM_MEDIA_TYPES } from '../form-body.ts';
import { EVENT_STREAM_EXAMPLE, ref, registerEventStream, registerIdempotencyKey, registerShared } from './components.ts';
import { dropUnusedComponents, integerFormats } from './post-process.ts';

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

/** A document of the kind: the shared components, an entry per operation in number order, and the kind's own additions. */
function buildDocument(operations: Operation[], kind: DocumentKind) {
  checkGroups(operations);
  checkCredentials(operations, kind);
  const registry = new OpenAPIRegistry();
  registerShared(registry, kind);
  if (operations.some(streams)) registerEventStream(registry);
  if (operations.some((op) => op.input?.idempotencyKey)) registerIdempotencyKey(registry);
  registry.register('Problem', problemSchema);
  const statusText = { ...STATUS_TEXT, ...kind.statusText };
  for (const op of [...operations].sort((a, b) => a.route.number - b.route.number)) registerOperation(registry, op, statusText);
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

/** What an operation's entry is made of, found once: its kind of answer and the headers its answers share. */
interface Shape {
  /** Bidder operations that take a token answer in a negotiated language. */
  language: boolean;
  stream: boolean;
  binary: boolean;
  /** A stream has no representation to compare; every other GET answers 304 to a matching ETag. */
  conditional: boolean;
  /** The headers of every answer. */
  common: Record<string, object>;
  /** The headers of an answer with a representation (a success, a 304). */
  representation: Record<string, object>;
}

/** One operation's path entry: its parameters, request and answers. */
function registerOperation(registry: OpenAPIRegistry, op: Operation, statusText: Partial<Record<number, string>>) {
  const { route, docs, input = {} } = op;
  const language = route.auth === 'anon' || route.auth === 'member';
  const stream = streams(op);
  const common = {
    'X-Request-Id': ref('headers', 'X-Request-Id'),
    'Access-Control-Allow-Origin': ref('headers', 'Access-Control-Allow-Origin'),
  };
  const shape: Shape = {
    language,
    stream,
    binary: !stream && (op.output.produces?.length ?? 0) > 0,
    conditional: route.method === 'get' && !stream,
    common,
    representation: {
      ...common,
      ETag: ref('headers', 'ETag'),
      'Cache-Control': ref('headers', 'Cache-Control'),
      Vary: ref('headers', 'Vary'),
      ...(language ? { 'Content-Language': ref('headers', 'Content-Language') } : {}),
    },
  };
  // The codes of each error status: of its credentials, input, body and kind, and its own (problems.ts).
  const problemCodes = operationProblemCodes(op);
  const itemSchema = stream ? registerStreamEvents(registry, op) : null;
  const responses: Record<string, object> = { 200: successResponse(op, shape, itemSchema) };
  if (shape.conditional)
    responses[304] = {
      description: 'Not modified: the `If-None-Match` of the request names the current `ETag`. No body; reuse the copy held.',
      headers: shape.representation,
    };
  for (const [status, codes] of problemCodes) responses[status] = problemResponse(op, status, codes, shape, statusText);

  const parameters = [
    ...(shape.conditional ? [ref('parameters', 'If-None-Match')] : []),
    ...(stream ? [ref('parameters', 'Last-Event-ID')] : []),
    ...(input.idempotencyKey ? [ref('parameters', 'Idempotency-Key')] : []),
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
      ...requestBody(op),
    },
    responses,
  });
}

/** The 200 answer: the stream, the file, or the JSON body. */
function successResponse(op: Operation, shape: Shape, itemSchema: object | null): object {
  const { docs, output } = op;
  if (shape.stream)
    return {
      description:
        'The stream, open until the client leaves or the service stops: an event per change (`id:` an opaque position, `event:` its kind, `data:` JSON on one line), ' +
        'and a comment line at least every 15 seconds.',
      headers: {
        ...shape.common,
        'Cache-Control': ref('headers', 'Cache-Control'),
        ...(shape.language ? { 'Content-Language': ref('headers', 'Content-Language') } : {}),
      },
      content: {
        'text/event-stream': {
          schema: ref('schemas', 'EventStream'),
          // Each event's shape (OpenAPI 3.2's `itemSchema`, an extension in 3.1).
          ...(itemSchema ? { 'x-item-schema': itemSchema } : {}),
          // An operation's own example of its stream, else the feed's.
          example: typeof docs.examples?.response === 'string' ? docs.examples.response : EVENT_STREAM_EXAMPLE,
        },
      },
    };
  if (shape.binary)
    return {
      description: 'The file.',
      headers: {
        ...shape.representation,
        'Content-Disposition': ref('headers', 'Content-Disposition'),
        'X-Content-Type-Options': ref('headers', 'X-Content-Type-Options'),
      },
      content: Object.fromEntries(output.produces!.map((type) => [type, { schema: ref('schemas', 'BinaryFile') }])),
    };
  return {
    description: 'Success.',
    headers: { ...shape.representation, 'Content-Encoding': ref('headers', 'Content-Encoding') },
    content: {
      'application/json': {
        schema: output.response,
        ...(docs.examples?.response !== undefined ? { example: docs.examples.response } : {}),
      },
    },
  };
}

/** An error status's answer: a Problem whose `code` is one of the status's codes of the operation. */
function problemResponse(
  op: Operation,
  status: number,
  codes: ProblemCode[],
  shape: Shape,
  statusText: Partial<Record<number, string>>,
): object {
  const { route } = op;
  const headers: Record<string, object> = {
    ...shape.common,
    Vary: ref('headers', 'Vary'),
    'Content-Encoding': ref('headers', 'Content-Encoding'),
  };
  if (status === 401) headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
  // A read is 503 when its process holds its most readers (src/events/feed.ts), with no Retry-After; or, a search,
  // when the search index is away or behind (src/http/search-gate.ts), with Retry-After.
  const searchDown = status === 503 && codes.includes('search-unavailable');
  const busyRead = status === 503 && route.method === 'get' && !searchDown;
  if (status === 429 || (status === 503 && !busyRead)) headers['Retry-After'] = ref('headers', 'Retry-After');
  return {
    description: `${
      status === 401
        ? UNAUTHORIZED[route.auth]
        : searchDown
          ? SEARCH_UNAVAILABLE_TEXT
          : busyRead
            ? BUSY_READ_TEXT
            : (bodyStatusText(status, op) ?? statusText[status] ?? 'Error.')
    }\n\n${codesText(codes)}`,
    headers,
    content: {
      'application/problem+json': {
        // The Problem with `code` narrowed to this status's codes of the operation.
        schema: {
          allOf: [ref('schemas', 'Problem'), { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } }],
        },
        // The example's code fits its detail (a 401 of an operation that takes a token: the token's).
        example: problemExample(status, op, codes.includes('token-invalid') ? 'token-invalid' : codes[0]),
      },
    },
  };
}

/** The request's body, of whichever kind the operation takes (JSON, a multipart upload, a form, NDJSON), or none. */
function requestBody(op: Operation): { body?: ZodRequestBody } {
  const { docs, input = {} } = op;
  return {
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
    ...(input.form
      ? {
          body: {
            required: true,
            description: input.form.description,
            content: Object.fromEntries(
              FORM_MEDIA_TYPES.map((type) => [type, { schema: input.form!.fields, example: input.form!.example }]),
            ),
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
  };
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
