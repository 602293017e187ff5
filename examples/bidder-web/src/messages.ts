// What a bidder reads when a call fails: the problem's `messageKey` when the house's dictionary has it, else a key
// chosen by its `code` (or a 403's `reason`), else the dictionary's generic message. Never the English `detail`.
import { ProblemError } from '../../../clients/typescript/src/index.ts';
import { hasText, t } from './i18n.ts';

/** Keys by the problem's `code` or a `reason`: the house's dictionary's first, this page's own where a house has none. */
const BY_CODE: Record<string, string[]> = {
  'bid-too-low': ['message.bidTooLow'],
  'leader-must-raise': ['message.leaderMustRaise', 'web.leaderMustRaise'],
  'bidding-ended': ['message.lotClosed'],
  'lot-closed': ['message.lotClosed'],
  'auction-not-timed': ['web.auctionNotTimed'],
  'auction-not-open': ['message.auctionNotOpen', 'web.auctionNotOpen'],
  'not-registered': ['message.registrationRequired'],
  'registration-pending': ['message.registrationPending', 'web.registrationPending'],
  'registration-rejected': ['message.registrationRejected', 'web.registrationRejected'],
  'terms-not-accepted': ['message.termsRequired'],
  'member-token-required': ['message.signInRequired'],
  'session-ended': ['message.signInRequired'],
  'token-invalid': ['message.signInRequired'],
  'invalid-credentials': ['message.invalidCredentials'],
  'rate-limited': ['message.tooManyAttempts'],
  'too-many-attempts': ['message.tooManyAttempts'],
};

/** The message key for a code or a reason (`not-registered`), or the generic message's. */
export const keyForCode = (code: string): string => BY_CODE[code]?.find(hasText) ?? 'message.genericError';

/** The key of the message for a failed call. */
export function messageKeyOf(error: unknown): string {
  if (!(error instanceof ProblemError)) return 'message.genericError';
  const { problem } = error;
  if (problem.messageKey && hasText(problem.messageKey)) return problem.messageKey;
  return keyForCode(BY_CODE[problem.code] ? problem.code : (problem.reason ?? problem.code));
}

export const messageOf = (error: unknown) => t(messageKeyOf(error));

/** Whether a call failed as `404`: the lot, auction or document does not exist (for this house). */
export const notFound = (error: unknown) => error instanceof ProblemError && error.status === 404;
