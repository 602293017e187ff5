// The API's errors as a front end reads them: RFC 9457 problems whose `code` (and `messageKey`) say what went wrong,
// and `ok()`, which turns an openapi-fetch answer into its data or a thrown ProblemError.
import type { components } from './schema.ts';

/** A problem+json body: the documented fields, and the extensions a front end picks its message by. */
export type Problem = components['schemas']['Problem'] & {
  /** What went wrong, stable and kebab-case (`bid-too-low`, `leader-must-raise`, `bidding-ended`, `not-registered`). */
  code?: string;
  /** The key of the house's interface dictionary (GET /v1/translations) with a message for it (`message.bidTooLow`). */
  messageKey?: string;
  /** On `bid-too-low`: the least `MaxAmount` that would be taken, in minor units. */
  minimumNextBid?: number;
  /** On a `403` of a bid: why the caller may not bid (the `Reason` values of GET /v1/me/lots/{lotId}/registration). */
  reason?: string;
};

/** An answer that was not a success, with its problem (one made up from the status when the body was none). */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.title}: ${problem.detail}`);
    this.name = 'ProblemError';
  }
  /** The problem's `code`, or `network-error` / `http-<status>` when the answer carried none. */
  get code(): string {
    return this.problem.code ?? (this.status === 0 ? 'network-error' : `http-${this.status}`);
  }
}

/** The problem of a failed answer: its body when it is one, else one made from the status. */
export function problemOf(error: unknown, response: Response): Problem {
  if (error && typeof error === 'object' && typeof (error as Problem).status === 'number' && 'title' in error) return error as Problem;
  return {
    type: 'about:blank',
    title: response.statusText || 'Error',
    status: response.status,
    detail: typeof error === 'string' && error ? error.slice(0, 1000) : `The answer was ${response.status}.`,
  };
}

/** The data of a successful openapi-fetch answer; throws ProblemError for any other. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.response.ok && answer.error === undefined) return answer.data as T;
  throw new ProblemError(answer.response.status, problemOf(answer.error, answer.response));
}
