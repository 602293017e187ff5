// What a bidder reads when a call fails: the problem's `messageKey` when the house's dictionary has it, else a key
// chosen by its `code` (or a 403's `reason`), else the dictionary's generic message. Never the English `detail`.
import { ProblemError } from '../../../clients/typescript/src/index.ts';
import { hasText, t } from './i18n.ts';

/** Dictionary keys (or this page's own) by the problem's `code` or `reason`. */
const BY_CODE: Record<string, string> = {
  'bid-too-low': 'message.bidTooLow',
  'leader-must-raise': 'web.leaderMustRaise',
  'bidding-ended': 'message.lotClosed',
  'lot-closed': 'message.lotClosed',
  'auction-not-timed': 'web.auctionNotOpen',
  'auction-not-open': 'web.auctionNotOpen',
  'not-registered': 'message.registrationRequired',
  'registration-pending': 'web.registrationPending',
  'registration-rejected': 'web.registrationRejected',
  'terms-not-accepted': 'message.termsRequired',
  'member-token-required': 'message.signInRequired',
  unauthorized: 'message.signInRequired',
  'rate-limited': 'message.tooManyAttempts',
};

/** The key of the message for a failed call; `overrides` by code first (sign-in: `unauthorized` is a wrong password). */
export function messageKeyOf(error: unknown, overrides: Record<string, string> = {}): string {
  if (!(error instanceof ProblemError)) return 'message.genericError';
  const { problem } = error;
  // A service from before `code` named a too-low bid only by its `minimumNextBid`.
  const code = problem.minimumNextBid !== undefined && (!problem.code || problem.code === 'validation-failed') ? 'bid-too-low' : error.code;
  if (overrides[code]) return overrides[code];
  if (problem.messageKey && hasText(problem.messageKey)) return problem.messageKey;
  const key = BY_CODE[code] ?? (problem.reason ? BY_CODE[problem.reason] : undefined);
  return key && hasText(key) ? key : 'message.genericError';
}

export const messageOf = (error: unknown, overrides: Record<string, string> = {}) => t(messageKeyOf(error, overrides));
