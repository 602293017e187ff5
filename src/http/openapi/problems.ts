// The error answers of an operation in the documents: each status's description and its example problem, worded
// as the service words them (by the operation's credentials, method and body).
import type { Auth, Operation } from '../operation.ts';
import { SEARCH_AWAY_DETAIL, WRITE_CONTENTION_DETAIL } from '../../errors.ts';
import { isReason, messageKeyOf, PROBLEM_CODES, STATUS_CODES, type ProblemCode } from '../../problem-codes.ts';
import { MAX_FEED_READERS } from '../../events/feed.ts';

export const UNAUTHORIZED: Record<Auth, string> = {
  open: 'The `Api-Key` header is missing or unknown.',
  anon: 'The `Api-Key` header is missing or unknown, or no valid token of an auction house this Api-Key may act for is presented (missing, expired, badly signed, or an anonymous token after the house switched public access off).',
  member:
    'The `Api-Key` header is missing or unknown, or the token is missing, invalid or expired, is not a member token, or its member no longer exists.',
  backoffice:
    'The back-office key (`Authorization: Bearer <key>`) is missing, unknown, revoked or replaced. A bidder Api-Key or token is not a back-office key.',
  link: 'Not answered: a link that is not valid is a `400`.',
};

/** The `detail` of a 401 as the service words it, by the operation's credentials. */
const UNAUTHORIZED_DETAIL: Partial<Record<Auth, string>> = {
  open: 'The Api-Key header is missing or unknown.',
  backoffice: 'A valid back-office key is required (Authorization: Bearer <key>).',
};

export const STATUS_TEXT: Record<number, string> = {
  400: 'The request has invalid values: `errors` names each one (`path.id`, `query.PageSize`, `body.Email`). Also answered to a query parameter given twice or in bracket form (`x[]=1`), and to a body that is not valid JSON. A text holding a control character (tab and line breaks only in a field that holds lines), a lone surrogate or a non-character is `text-invalid`.',
  403: 'The caller may not do this.',
  404: "It does not exist, or it is not visible to the token's auction house (another house's resource is answered exactly as a missing one).",
  408: 'The body arrived slower than the operation accepts; nothing of it was taken and the connection is closed.',
  409: 'It conflicts with the current state.',
  413: 'The JSON body is larger than 64 kB.',
  415: 'The body is not `application/json` (UTF-8).',
  422: 'The `Idempotency-Key` was used with another body in the last 24 hours: nothing was done.',
  429: 'Too many requests of this kind: wait the seconds `Retry-After` gives.',
  503: 'The change kept colliding with parallel changes to the same data (for 2 s) and was not made: nothing was stored (`unavailable`); or the service has no room left to store changes (`storage-full`). Repeat it after the seconds `Retry-After` gives.',
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

/** The 401 codes of each kind of credentials (src/http/auth.ts, src/http/request-steps.ts). */
export const CREDENTIAL_CODES: Record<Auth, ProblemCode[]> = {
  open: ['api-key-invalid'],
  anon: ['api-key-invalid', 'token-invalid'],
  member: ['api-key-invalid', 'token-invalid', 'member-token-required', 'session-ended'],
  backoffice: ['backoffice-key-invalid'],
  link: ['unsubscribe-link-invalid', 'unsubscribe-link-expired'],
};

/**
 * The problem codes an operation may answer, by status: those its credentials (401), input (400), body (413, 415),
 * kind (500, 503) bring, the operation's own (`docs.problems`), and the default code of any other status it names
 * in `docs.errors`. A status with no code of its own and no default (a 403, a 409) is refused: its codes must be
 * named.
 */
export function operationProblemCodes(op: Operation): Map<number, ProblemCode[]> {
  const { route, docs, input = {} } = op;
  const codes: ProblemCode[] = ['validation-failed', 'text-invalid', ...CREDENTIAL_CODES[route.auth], 'internal-error'];
  if (input.body || input.upload || input.ndjson || input.form) codes.push('too-large', 'unsupported-media-type');
  if (route.method !== 'get') codes.push('unavailable', 'storage-full');
  if (route.tickets) codes.push('ticket-invalid');
  codes.push(...(docs.problems ?? []));
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of new Set(codes)) {
    const { status } = PROBLEM_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const status of docs.errors ?? []) {
    if (byStatus.has(status)) continue;
    const fallback = STATUS_CODES[status];
    if (!fallback)
      throw new Error(`${route.operationId} answers ${status} but names none of its codes in docs.problems (src/problem-codes.ts)`);
    byStatus.set(status, [fallback]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** A response's description of its codes: a list of each with its meaning, and its messageKey where there is one. */
export function codesText(codes: readonly ProblemCode[]): string {
  const line = (code: ProblemCode) => {
    const key = messageKeyOf(code);
    return `- \`${code}\`: ${PROBLEM_CODES[code].meaning}${key ? ` (\`messageKey\`: \`${key}\`)` : ''}`;
  };
  return ['The `code` is one of:', ...codes.map(line)].join('\n');
}

/** An example problem of a status, as the service words it for this operation (with the first of its codes). */
export function problemExample(status: number, op: Operation, code: ProblemCode = STATUS_CODES[status] ?? 'internal-error') {
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
    code,
    ...(messageKeyOf(code) ? { messageKey: messageKeyOf(code) } : {}),
    ...(code === 'bid-too-low' ? { minimumNextBid: 13000 } : {}),
    ...(isReason(code) ? { reason: code } : {}),
    ...(status === 400 ? { errors: [badValue] } : {}),
  };
}

/** A 503 of a read: the process already serves its most event streams and waiting requests (src/events/feed.ts). */
export const BUSY_READ_TEXT = `This process already has as many event streams and waiting requests open as it serves (${MAX_FEED_READERS.toLocaleString('en-US')}): nothing was read. Try again in a moment (another process may take it).`;
const BUSY_READ_DETAIL = `This process serves ${MAX_FEED_READERS} streams and waiting requests already; try again later.`;

/** A 503 of a search: the search index cannot be reached or is behind (src/http/search-gate.ts). */
export const SEARCH_UNAVAILABLE_TEXT =
  'The search index cannot be reached, or is further behind the catalogue than the service allows: nothing was searched, and every other operation still answers. Try again after the seconds `Retry-After` gives.';

/** The `detail` of an example problem: the status's, or the operation's own where its credentials, method or body differ. */
function problemDetail(status: number, op: Operation): string {
  const ndjson = op.input?.ndjson;
  if (status === 401) return UNAUTHORIZED_DETAIL[op.route.auth] ?? DETAILS[401];
  if (status === 503 && op.docs.problems?.includes('search-unavailable')) return SEARCH_AWAY_DETAIL;
  if (status === 503 && op.route.method === 'get') return BUSY_READ_DETAIL;
  if (ndjson && status === 413) return `The body may be at most ${mebibytes(ndjson.maxBytes)} MiB.`;
  if (ndjson && status === 415) return 'The request body must be application/x-ndjson: one JSON record a line.';
  const form = op.input?.form;
  if (form && status === 413) return `The form body may be at most ${form.maxBytes} bytes.`;
  if (form && status === 415) return 'The request body must be application/x-www-form-urlencoded or multipart/form-data.';
  return DETAILS[status];
}

export const mebibytes = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 100) / 100;

/** The 413 and 415 of an NDJSON or form body, which have their own limits and types (the JSON wording stays for JSON bodies). */
export function bodyStatusText(status: number, op: Operation): string | undefined {
  const form = op.input?.form;
  if (form && status === 413) return `The form body is larger than ${form.maxBytes} bytes.`;
  if (form && status === 415)
    return 'The body is neither `application/x-www-form-urlencoded` nor `multipart/form-data`, or it comes with a `Content-Encoding`.';
  const ndjson = op.input?.ndjson;
  if (!ndjson) return undefined;
  if (status === 413)
    return `The body is larger than ${mebibytes(ndjson.maxBytes)} MiB. Nothing was taken: split the records over several requests.`;
  if (status === 415) return 'The body is not `application/x-ndjson`, or it comes with a `Content-Encoding` (send it uncompressed).';
  return undefined;
}
