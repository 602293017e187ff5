// The API's errors as a front end reads them: RFC 9457 problems whose `code` (and `messageKey`) say what went wrong,
// and `ok()`, which turns an openapi-fetch answer into its data or a thrown ProblemError.
import type { components } from './schema.ts';

/**
 * What went wrong: one of the codes the OpenAPI document declares (docs/problems.md), or `http-<status>` for an answer
 * that was no problem, so a misspelled code in a comparison does not compile. A service newer than this package may
 * answer a code it does not list yet: it is kept as it came, and no branch of a front end's matches it.
 */
export type ProblemCode = components['schemas']['Problem']['code'] | `http-${number}`;

/**
 * A problem+json body as the document describes it: `code` says what went wrong (`bid-too-low`, `leader-must-raise`,
 * `bidding-ended`, `not-registered`, …), `messageKey` names the house's dictionary message for it (`message.bidTooLow`),
 * `minimumNextBid` and `reason` come with a refused bid.
 */
export type Problem = Omit<components['schemas']['Problem'], 'code'> & { code: ProblemCode };

/** An answer that was not a success, with its problem (one made up from the status when the body was none). */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${status} ${problem.title}: ${problem.detail}`);
    this.name = 'ProblemError';
  }
  /** The problem's `code` (`http-<status>` when the answer was no problem). */
  get code(): ProblemCode {
    return this.problem.code;
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
    code: `http-${response.status}`,
  };
}

/** The data of a successful openapi-fetch answer; throws ProblemError for any other. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.response.ok && answer.error === undefined) return answer.data as T;
  throw new ProblemError(answer.response.status, problemOf(answer.error, answer.response));
}
