/**
 * One error hierarchy for the whole service. The HTTP shell renders every AppError once, as
 * application/problem+json (RFC 9457); anything else is a 500 with no detail.
 */
export interface FieldError {
  /** Where the bad value is: `query.Page`, `body.Email`, `path.id`. */
  field: string;
  message: string;
}

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
      extensions?: Record<string, string | number | boolean | null>;
    } = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }
  get type(): string {
    // An absolute URI that names the kind of problem (not a web page): urn:bidder-api:problem:not-found.
    return this.extra.type ?? `urn:bidder-api:problem:${this.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  }
}

export class ValidationError extends AppError {
  constructor(detail: string, errors: FieldError[] = [], extensions?: Record<string, string | number | boolean | null>) {
    super(400, 'Bad Request', detail, { errors, extensions });
  }
}
export class UnauthorizedError extends AppError {
  constructor(detail = 'A valid credential is required.') {
    super(401, 'Unauthorized', detail);
  }
}
export class ForbiddenError extends AppError {
  constructor(detail: string, extensions?: Record<string, string | number | boolean | null>) {
    super(403, 'Forbidden', detail, { extensions });
  }
}
export class NotFoundError extends AppError {
  constructor(detail = 'The resource does not exist.') {
    super(404, 'Not Found', detail);
  }
}
export class ConflictError extends AppError {
  constructor(detail: string) {
    super(409, 'Conflict', detail);
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
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, 'Too Many Requests', detail, { retryAfterSeconds });
  }
}
export class ServiceUnavailableError extends AppError {
  constructor(detail: string) {
    super(503, 'Service Unavailable', detail);
  }
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
