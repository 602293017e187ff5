// The one catalogue of problem codes (API.md "Front ends in a browser", "Errors"): what each stable kebab-case
// `code` means, the status it comes with, and the interface dictionary's message for it where the house has one.
// The errors take their codes from here, the OpenAPI document and docs/problems.md list them from here.

export interface ProblemCodeInfo {
  status: number;
  /** What went wrong, in a line: for the documents. */
  meaning: string;
  /** The interface dictionary's key of a message a front end can show (app/seed/interface-dictionary.ts). */
  messageKey?: string;
  /** A `Reason` of operation 33, which the problem repeats in the extension `reason`. */
  reason?: true;
  /** Where it occurs when no operation lists it (docs/problems.md). */
  where?: string;
}

export const PROBLEM_CODES = {
  // 400
  'validation-failed': {
    status: 400,
    meaning:
      'An input is invalid or missing: `errors` names each one (`path.id`, `query.PageSize`, `body.Email`); also a body that is not valid JSON.',
  },
  'text-invalid': {
    status: 400,
    meaning:
      'A text holds a character no text may hold (U+0000 or another control character, a lone surrogate, a non-character such as U+FFFE; tab and line breaks only in a field that holds lines), or a key of a map is empty, starts with `$` or holds a control character: `errors` names each one.',
  },
  'bid-too-low': {
    status: 400,
    meaning: "`MaxAmount` is below the lot's minimum next bid, which the extension `minimumNextBid` names.",
    messageKey: 'message.bidTooLow',
  },
  'leader-must-raise': {
    status: 400,
    meaning: 'The caller leads the lot already: a new maximum must be higher than their own.',
    messageKey: 'message.leaderMustRaise',
  },
  'key-invalid': {
    status: 400,
    meaning: 'The confirmation or password-reset key is wrong, used or expired.',
    messageKey: 'message.linkExpired',
  },
  'verification-code-invalid': {
    status: 400,
    meaning: 'The phone verification code is wrong, expired, used, or was sent to another number: request a new one.',
    messageKey: 'message.codeInvalid',
  },
  'phone-number-required': {
    status: 400,
    meaning: 'The profile has no phone number a text can be sent to (phone verification, an SMS reminder).',
    messageKey: 'message.phoneRequired',
  },
  'amount-invalid': {
    status: 400,
    meaning: 'A cost estimate was asked for an `amount` that is not a positive integer of minor units (at most 1,000,000,000,000).',
  },
  'country-unknown': {
    status: 400,
    meaning: 'A cost estimate was asked for a `country` that is not an ISO 3166-1 alpha-2 country (`DE`, `US`).',
  },
  'country-required': {
    status: 400,
    meaning: "A cost estimate needs the destination: give `country`, or call with a member token whose profile names the member's country.",
  },
  'vat-number-invalid': {
    status: 400,
    meaning:
      'A cost estimate was given a `vatNumber` that is not written as a VAT number (a country prefix, then 2 to 13 letters or digits).',
  },
  'channel-unknown': { status: 400, meaning: 'A cost estimate was asked for a `channel` other than `live` or `timed`.' },
  'currency-unknown': {
    status: 400,
    meaning:
      'A cost estimate was asked for a `displayCurrency` that is not an ISO 4217 code, or one the house publishes no display rate for.',
  },
  'stream-path-invalid': {
    status: 400,
    meaning: 'A stream ticket was asked for a `Path` that is neither `/v1/auctions/{id}/stream` (an int32 id) nor `/v1/me/stream`.',
  },
  'unsubscribe-link-invalid': {
    status: 400,
    meaning:
      'The `token` of a one-click unsubscribe link is missing, or is not one this service signed (changed, cut short, or made for another house or member).',
  },
  'unsubscribe-link-expired': {
    status: 400,
    meaning:
      'The one-click unsubscribe link is older than it works (90 days): use the link of a newer mail, or change the reminders in the account.',
  },
  'push-endpoint-refused': {
    status: 400,
    meaning:
      "A push subscription's endpoint the service will not POST to: not at a push service the deployment lists (`PUSH_ENDPOINT_HOSTS`), not `https` on port 443, or at an address that is not public.",
  },
  // 401
  'api-key-invalid': { status: 401, meaning: 'The `Api-Key` header is missing or unknown.' },
  'token-invalid': {
    status: 401,
    meaning:
      'No valid token of an auction house this Api-Key may act for: missing, expired, badly signed, or anonymous while public access is off.',
  },
  'ticket-invalid': {
    status: 401,
    meaning:
      'A stream ticket (`?ticket=`) that is not valid for this stream: another path or house, expired with its token, its member removed or signed out, or not a ticket.',
  },
  'member-token-required': {
    status: 401,
    meaning: 'A member operation was called with an anonymous or application token, or with none: sign in (`POST /v1/sessions`).',
    messageKey: 'message.signInRequired',
  },
  'session-ended': {
    status: 401,
    meaning: "The member token's member was removed, or its sessions were ended by a password reset: sign in again.",
    messageKey: 'message.signInRequired',
  },
  'invalid-credentials': {
    status: 401,
    meaning: 'Wrong email or password (sign-in), or unknown ClientId or wrong ClientSecret (application token).',
    messageKey: 'message.invalidCredentials',
  },
  'backoffice-key-invalid': { status: 401, meaning: 'The back-office key is missing, unknown, revoked or replaced.' },
  'operator-token-invalid': {
    status: 401,
    meaning:
      "`/metrics`, or `/readyz` with an `Authorization` header, on `PORT` without the operator's token (`OPERATOR_TOKEN`), or with none set there.",
    where: '`GET /metrics` and `GET /readyz` on `PORT` (docs/operations.md "Secrets")',
  },
  // 403: the `reason` values of GET /v1/me/lots/{lotId}/registration (operation 33), and the others
  'lot-closed': { status: 403, meaning: 'The lot is closed.', messageKey: 'message.lotClosed', reason: true },
  'auction-not-open': {
    status: 403,
    meaning: 'The auction is not open for bidding (not current, not live).',
    messageKey: 'message.auctionNotOpen',
    reason: true,
  },
  'terms-not-accepted': {
    status: 403,
    meaning: "The auction's terms must be accepted first (`POST /v1/auctions/{id}/terms-acceptance`).",
    messageKey: 'message.termsRequired',
    reason: true,
  },
  'not-registered': {
    status: 403,
    meaning: 'The caller is not registered for the auction.',
    messageKey: 'message.registrationRequired',
    reason: true,
  },
  'registration-pending': {
    status: 403,
    meaning: "The caller's registration awaits the house's decision.",
    messageKey: 'message.registrationPending',
    reason: true,
  },
  'registration-rejected': {
    status: 403,
    meaning: "The house rejected the caller's registration.",
    messageKey: 'message.registrationRejected',
    reason: true,
  },
  'email-not-confirmed': {
    status: 403,
    meaning: 'The account exists but its email address is not confirmed yet: follow the link of the confirmation mail.',
    messageKey: 'message.confirmEmailFirst',
  },
  'owner-not-caller': { status: 403, meaning: '`OwnerId` names another member than the signed-in one.' },
  // 404
  'not-found': {
    status: 404,
    meaning:
      "It does not exist, or it is not visible to the token's auction house (answered exactly as a missing one); also an unknown route.",
  },
  'unsubscribe-link-used': {
    status: 404,
    meaning: 'The one-click unsubscribe link was used already: what it stops is stopped, and a link works once.',
  },
  // 405, 408
  'method-not-allowed': {
    status: 405,
    meaning: 'The path exists, not with this method (`Allow` names those it takes).',
    where: 'any path, with a method it does not take',
  },
  'request-timeout': { status: 408, meaning: 'The body arrived slower than the operation accepts; nothing of it was taken.' },
  // 409
  'bidding-ended': {
    status: 409,
    meaning: "The lot's end time has passed (by the service's clock) or it is closed: no bid, no reminder.",
    messageKey: 'message.lotClosed',
  },
  'auction-not-timed': {
    status: 409,
    meaning: "The lot's auction does not take bids over this API (its bids come from the auction house).",
  },
  'auction-timed': {
    status: 409,
    meaning: 'Intake of a bid on a lot of a timed auction, whose bids bidders place over the API.',
    where: 'a line of back-office intake (its `Detail`)',
  },
  'auction-closed': {
    status: 409,
    meaning: 'The auction is closed: registration is no longer possible.',
    messageKey: 'message.auctionClosed',
  },
  'email-taken': { status: 409, meaning: 'The email address is already registered.', messageKey: 'message.emailTaken' },
  'member-email-mismatch': {
    status: 409,
    meaning: 'Intake: the member exists with another email address, or its id is closed (an abandoned sign-up).',
    where: 'a line of back-office intake (its `Detail`)',
  },
  'idempotency-key-in-use': {
    status: 409,
    meaning: 'A request with this `Idempotency-Key` is still running: ask again after `Retry-After`.',
  },
  'cost-rules-missing': {
    status: 409,
    meaning: 'The auction house has published no cost rules: no cost estimate can be given for its lots.',
  },
  'reminder-exists': { status: 409, meaning: 'A reminder with this subscription id exists already.' },
  'reminder-limit-reached': {
    status: 409,
    meaning: 'The member holds the most active reminders (notifications) allowed: remove some first.',
    messageKey: 'message.limitReached',
  },
  'push-subscriptions-full': {
    status: 409,
    meaning: 'The member has the most push subscriptions allowed (20 browsers and phones): remove one first.',
    messageKey: 'message.limitReached',
  },
  'watchlist-full': {
    status: 409,
    meaning: 'The watchlist holds the most lots allowed: remove some first.',
    messageKey: 'message.limitReached',
  },
  'identity-document-limit-reached': {
    status: 409,
    meaning: 'The member holds the most identity documents allowed: remove one first.',
    messageKey: 'message.limitReached',
  },
  'webhook-limit-reached': { status: 409, meaning: 'The house holds the most webhooks allowed: delete one first.' },
  'invoice-issued': {
    status: 409,
    meaning: 'Intake: the invoice was issued already with other content; an issued invoice never changes.',
    where: 'a line of back-office intake (its `Detail`)',
  },
  'invoice-number-taken': {
    status: 409,
    meaning: 'Intake: the invoice number belongs to another invoice.',
    where: 'a line of back-office intake (its `Detail`)',
  },
  'invoice-paid': { status: 409, meaning: 'The invoice is paid: its shipping can no longer change.' },
  'invoice-numbers-exhausted': {
    status: 409,
    meaning: 'The house has no invoice id or number left (int32).',
    where: 'a line of back-office intake (its `Detail`); `raiseInvoice` when none is left',
  },
  // 413, 415
  'too-large': { status: 413, meaning: 'The body, the file, or the change it makes is larger than the operation takes.' },
  'unsupported-media-type': {
    status: 415,
    meaning:
      'The body is not of the type the operation takes (JSON in UTF-8, multipart, NDJSON), or its `Content-Encoding` is not taken, or an uploaded file is not a PDF, JPEG or PNG.',
  },
  'headers-too-large': { status: 431, meaning: 'The request line and headers are larger than 16 KB.', where: 'any request' },
  // 422
  'idempotency-key-reused': { status: 422, meaning: 'This `Idempotency-Key` was used with another body in the last 24 hours.' },
  // 429
  'rate-limited': {
    status: 429,
    meaning: 'Too many requests of this kind: wait the seconds `Retry-After` gives.',
    messageKey: 'message.tooManyAttempts',
  },
  'too-many-attempts': {
    status: 429,
    meaning: 'Too many failed sign-ins or client credentials: wait the seconds `Retry-After` gives.',
    messageKey: 'message.tooManyAttempts',
  },
  'too-many-streams': {
    status: 429,
    meaning:
      'The client address, or the house, holds the most open streams (or waiting feed requests) of this process: close one, or wait `Retry-After`.',
  },
  // 5xx
  'internal-error': {
    status: 500,
    meaning: 'An unexpected failure; quote `instance` when reporting it.',
    messageKey: 'message.genericError',
  },
  unavailable: {
    status: 503,
    meaning:
      'A store is unreachable, the change kept colliding with parallel ones, or the process serves its most readers: try again after `Retry-After`.',
    messageKey: 'message.genericError',
  },
  'search-unavailable': {
    status: 503,
    meaning:
      'The search index cannot be reached or is behind the catalogue: searches answer nothing until it is back, every other operation still does. Try again after `Retry-After`.',
    messageKey: 'message.genericError',
  },
  'storage-full': {
    status: 503,
    meaning:
      'The service has no room left to store changes (its disk is full): nothing is written until room is made, while reads still answer. Try again after `Retry-After`.',
    messageKey: 'message.genericError',
  },
} as const satisfies Record<string, ProblemCodeInfo>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/** The code of a problem that names none of its own, by status. */
export const STATUS_CODES: Record<number, ProblemCode> = {
  400: 'validation-failed',
  404: 'not-found',
  405: 'method-not-allowed',
  408: 'request-timeout',
  413: 'too-large',
  415: 'unsupported-media-type',
  422: 'idempotency-key-reused',
  429: 'rate-limited',
  500: 'internal-error',
  503: 'unavailable',
};

/** The codes of one status, in the catalogue's order. */
export function codesOfStatus(status: number): ProblemCode[] {
  return (Object.keys(PROBLEM_CODES) as ProblemCode[]).filter((code) => PROBLEM_CODES[code].status === status);
}

export function messageKeyOf(code: string): string | undefined {
  const info = (PROBLEM_CODES as Record<string, ProblemCodeInfo>)[code];
  return info?.messageKey;
}

/** Whether the code is a `Reason` of operation 33, which its problem repeats in the extension `reason`. */
export function isReason(code: string): boolean {
  return (PROBLEM_CODES as Record<string, ProblemCodeInfo>)[code]?.reason === true;
}
