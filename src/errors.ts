/**
 * One error hierarchy for the whole service. The HTTP shell renders every AppError once, as
 * application/problem+json (RFC 9457); anything else is a 500 with no detail.
 */
export interface FieldError {
  /** Where the bad value is: `query.Page`, `body.Email`, `path.id`. */
  field: string;
  message: string;
}

import { isReason, messageKeyOf, STATUS_CODES, type ProblemCode } from './problem-codes.ts';

export { PROBLEM_CODES, STATUS_CODES, type ProblemCode } from './problem-codes.ts';

type Extensions = Record<string, string | number | boolean | null>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    readonly extra: {
      errors?: FieldError[];
      retryAfterSeconds?: number;
      type?: string;
      /** Problem extension members (RFC 9457 §3.2), e.g. `reason`, `minimumNextBid`; never the standard ones. */
      extensions?: Extensions;
      /** The problem's stable `code` (src/problem-codes.ts); left out: its status's own. */
      code?: ProblemCode;
    } = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
  get type(): string {
    // An absolute URI that names the kind of problem (not a web page): urn:bidder-api:problem:not-found.
    return this.extra.type ?? `urn:bidder-api:problem:${this.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  }
  /** What went wrong, for a front end to pick its own message by: the error's own code, else its status's. */
  get code(): ProblemCode {
    return this.extra.code ?? STATUS_CODES[this.status] ?? 'internal-error';
  }
  /** The interface dictionary's key of a message for the code, where the house has one. */
  get messageKey(): string | undefined {
    return messageKeyOf(this.code);
  }
}

export class ValidationError extends AppError {
  constructor(detail: string, errors: FieldError[] = [], options: { code?: ProblemCode; extensions?: Extensions } = {}) {
    super(400, 'Bad Request', detail, { errors, ...options });
  }
}
/** A 401: `code` tells a bad Api-Key, a bad token, a missing member token and wrong credentials apart. */
export class UnauthorizedError extends AppError {
  constructor(code: ProblemCode, detail = 'A valid credential is required.') {
    super(401, 'Unauthorized', detail, { code });
  }
}
/** A 403; a code that is a `Reason` of operation 33 is repeated in the extension `reason`. */
export class ForbiddenError extends AppError {
  constructor(code: ProblemCode, detail: string, extensions?: Extensions) {
    super(403, 'Forbidden', detail, { code, extensions: isReason(code) ? { reason: code, ...extensions } : extensions });
  }
}
export class NotFoundError extends AppError {
  constructor(detail = 'The resource does not exist.') {
    super(404, 'Not Found', detail);
  }
}
export class ConflictError extends AppError {
  constructor(code: ProblemCode, detail: string, retryAfterSeconds?: number) {
    super(409, 'Conflict', detail, retryAfterSeconds === undefined ? { code } : { code, retryAfterSeconds });
  }
}
export class PayloadTooLargeError extends AppError {
  constructor(detail = 'The request body is too large.') {
    super(413, 'Payload Too Large', detail);
  }
}
export class UnsupportedMediaTypeError extends AppError {
  constructor(detail = 'The request body must be application/json.') {
    super(415, 'Unsupported Media Type', detail);
  }
}
/** A request body that arrived slower than the service accepts (the connection is closed after the answer). */
export class RequestTimeoutError extends AppError {
  constructor(detail: string) {
    super(408, 'Request Timeout', detail);
  }
}
export class TooManyRequestsError extends AppError {
  constructor(detail: string, retryAfterSeconds: number, code: ProblemCode = 'rate-limited') {
    super(429, 'Too Many Requests', detail, { retryAfterSeconds, code });
  }
}
export class ServiceUnavailableError extends AppError {
  constructor(detail: string, retryAfterSeconds?: number) {
    super(503, 'Service Unavailable', detail, retryAfterSeconds === undefined ? {} : { retryAfterSeconds });
  }
}

/** Seconds a caller is told to wait (Retry-After) when an engine cannot be reached: about a database's restart. */
export const ENGINE_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;
export const ENGINE_UNAVAILABLE_DETAIL =
  'The service cannot reach its storage at the moment, and the request may not have been carried out. Try again shortly.';

/** Socket errors of a server that is gone, refusing, or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * PostgreSQL's SQLSTATEs of a server that ended or refuses the session, or of a bounded wait that ran out:
 * admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down), too_many_connections,
 * idle_in_transaction_session_timeout and idle_session_timeout (the session ended), query_canceled (the statement
 * time-out), lock_not_available (the lock time-out); class 08 (connection exceptions) is matched whole.
 */
const SQL_STATES = new Set(['57P01', '57P02', '57P03', '53300', '25P03', '57P05', '57014', '55P03']);
/** node-postgres's own messages of a lost connection or a bounded wait that ran out. */
const CLIENT_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable$/,
  /^Client has encountered a connection error/,
];
/**
 * The EventStoreDB client's error types (`@eventstore/db-client` `dist/utils/CommandError.js` `ErrorType`) of a
 * server that is gone, restarting, changing leader, or slower than the call's deadline.
 */
const ESDB_TYPES = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader']);
/**
 * The MongoDB driver's error classes (`mongodb` `lib/error.js`, `lib/cmap/errors.js`) of a server it cannot select
 * or reach, or of a pool it cleared or could not check a connection out of; the Typesense client's `ServerError`
 * (a node's 5xx, e.g. 503 "Not Ready or Lagging", after its retries).
 */
const ERROR_NAMES = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoWaitQueueTimeoutError',
  'ServerError',
]);
/**
 * The MongoDB labels (`MongoErrorLabel`, `mongodb` `lib/error.js`) of an error that trying again may cure: the server
 * or the driver says so (a step-down, a node shutting down, a transaction aborted under it, a pool cleared), whatever
 * the error's class; the driver has already retried what it retries by itself.
 */
const MONGO_LABELS = [
  'RetryableWriteError',
  'TransientTransactionError',
  'UnknownTransactionCommitResult',
  'PoolRequestedRetry',
  'RetryableError',
  'SystemOverloadedError',
];
/**
 * MongoDB server codes (`src/mongo/base/error_codes.yml`) that a read carries without a label: a node not primary,
 * recovering or shutting down (the driver's SDAM codes, `lib/error.js`), an unreachable or timed-out peer, and
 * MaxTimeMSExpired (50), the service's own bound on an operation (as PostgreSQL's statement time-out).
 */
const MONGO_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10058, 10107, 11600, 11602, 13435, 13436]);

/** Whether a MongoDB driver error carries a label or a code of a passing fault. */
function isMongoTransient(error: Record<string, unknown>): boolean {
  const { name, code, hasErrorLabel, errorLabels } = error;
  if (typeof hasErrorLabel === 'function' && MONGO_LABELS.some((label) => hasErrorLabel.call(error, label) === true)) return true;
  if (Array.isArray(errorLabels) && MONGO_LABELS.some((label) => errorLabels.includes(label))) return true;
  return typeof name === 'string' && name.startsWith('Mongo') && typeof code === 'number' && MONGO_CODES.has(code);
}

/** Whether an error (or its cause, or one of an AggregateError's) says an engine could not be reached. */
export function isEngineUnreachable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const { code, message, cause, errors, type, name } = error as Record<string, unknown>;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQL_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof type === 'string' && ESDB_TYPES.has(type)) return true;
  if (typeof name === 'string' && ERROR_NAMES.has(name)) return true;
  if (isMongoTransient(error as Record<string, unknown>)) return true;
  if (typeof message === 'string' && CLIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((e) => isEngineUnreachable(e, depth + 1))) return true;
  return isEngineUnreachable(cause, depth + 1);
}

/** Errno codes of a write refused for want of space: a full file system, a user's quota spent. */
const FULL_ERRNO = new Set(['ENOSPC', 'EDQUOT']);
/**
 * A store's own codes of a write refused for want of space or memory: SQLite's `SQLITE_FULL` (better-sqlite3's
 * `SqliteError.code`), PostgreSQL's `53100` disk_full and `53200` out_of_memory, MongoDB's `OutOfDiskSpace`
 * (14031, `src/mongo/base/error_codes.yml`).
 */
const FULL_CODES = new Set(['SQLITE_FULL', '53100', '53200', 14031]);

/** Whether an error (or its cause, or one of an AggregateError's) says a store has no room for a write. */
export function isStorageFull(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const { code, cause, errors } = error as Record<string, unknown>;
  if ((typeof code === 'string' || typeof code === 'number') && (FULL_CODES.has(code) || FULL_ERRNO.has(String(code)))) return true;
  if (Array.isArray(errors) && errors.some((e) => isStorageFull(e, depth + 1))) return true;
  return isStorageFull(cause, depth + 1);
}

/**
 * Whether the room a write lacked is this machine's disk (SQLite's `SQLITE_FULL`, a file's `ENOSPC` or `EDQUOT`:
 * the data folder), rather than a database server's, whose disk the service cannot look at.
 */
export function isLocalStorageFull(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const { code, cause, errors } = error as Record<string, unknown>;
  if (code === 'SQLITE_FULL' || (typeof code === 'string' && FULL_ERRNO.has(code))) return true;
  if (Array.isArray(errors) && errors.some((e) => isLocalStorageFull(e, depth + 1))) return true;
  return isLocalStorageFull(cause, depth + 1);
}

/**
 * A fault of the machine rather than of the work: an engine away, or a store out of room. Work that failed on
 * one is tried again as it is, never set aside as poison, since it will succeed once the fault heals.
 */
export function isTransientFault(error: unknown): boolean {
  return isEngineUnreachable(error) || isStorageFull(error);
}

/**
 * The one mapping of an unreachable engine (PostgreSQL restarting, a refused or lost connection, a wait that ran
 * out) to its answer: 503 with Retry-After. Null for any other error.
 */
export function unavailableFrom(error: unknown): ServiceUnavailableError | null {
  if (error instanceof AppError || !isEngineUnreachable(error)) return null;
  return new ServiceUnavailableError(ENGINE_UNAVAILABLE_DETAIL, ENGINE_UNAVAILABLE_RETRY_AFTER_SECONDS);
}
/** Seconds a caller of a search is told to wait while the search index is away or behind the catalogue. */
export const SEARCH_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
export const SEARCH_AWAY_DETAIL =
  'Search cannot answer at the moment (its index cannot be reached). Everything else works. Try again shortly.';
export const SEARCH_BEHIND_DETAIL =
  'Search cannot answer at the moment (its index is behind the catalogue). Everything else works. Try again shortly.';
/** A search while the search index is away or behind (src/http/search-gate.ts): 503 `search-unavailable`, never a 500. */
export class SearchUnavailableError extends AppError {
  constructor(detail = SEARCH_AWAY_DETAIL) {
    super(503, 'Service Unavailable', detail, { retryAfterSeconds: SEARCH_UNAVAILABLE_RETRY_AFTER_SECONDS, code: 'search-unavailable' });
  }
}
/** Seconds a caller is told to wait when the storage is full: room comes back when an operator makes it, not in a moment. */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 30;
export const STORAGE_FULL_DETAIL =
  'The service cannot store changes at the moment, and this request may not have been carried out. Reading still works. Try again later.';
/** A write refused because a store has no room left (a full disk): 503 `storage-full` with Retry-After. */
export class StorageFullError extends AppError {
  constructor(options: { cause?: unknown } = {}) {
    super(503, 'Service Unavailable', STORAGE_FULL_DETAIL, { retryAfterSeconds: STORAGE_FULL_RETRY_AFTER_SECONDS, code: 'storage-full' });
    if (options.cause !== undefined) this.cause = options.cause;
  }
}
/** The answer to a write that failed for want of room (isStorageFull): 503 `storage-full`. Null for any other error. */
export function storageFullFrom(error: unknown): StorageFullError | null {
  if (error instanceof AppError || !isStorageFull(error)) return null;
  return new StorageFullError({ cause: error });
}

/**
 * A command that kept losing the race for its stream (other writers, often other processes, appended first
 * each time it tried) for longer than its retry budget: nothing of it was appended, and trying again shortly
 * will most likely succeed. `streamId` and `tries` are for logs; the problem shows only the detail.
 */
export const WRITE_CONTENTION_DETAIL =
  'Too many changes to the same data were being made at once, and this one was not made. Try again in a moment.';
export class WriteContentionError extends AppError {
  constructor(
    readonly streamId: string,
    readonly tries: number,
    retryAfterSeconds = 1,
  ) {
    super(503, 'Service Unavailable', WRITE_CONTENTION_DETAIL, { retryAfterSeconds });
  }
}
