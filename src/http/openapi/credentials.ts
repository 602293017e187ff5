// How each kind of credentials (Auth) reads in the documents: the security schemes of each document, the
// requirement an operation names, and the line its description ends with.
import type { Auth } from '../operation.ts';

export const CREDENTIALS: Record<Auth, string> = {
  open: 'Credentials: the `Api-Key` header only (no token needed).',
  anon: 'Credentials: the `Api-Key` header and a bearer token of the auction house (anonymous, application or member).',
  member: 'Credentials: the `Api-Key` header and a member token (from `POST /v1/sessions`).',
  backoffice: 'Credentials: a back-office key as the bearer token (`Authorization: Bearer <key>`), no `Api-Key`.',
  link: "Credentials: the link's own signed `token` in the URL alone; no `Api-Key`, no bearer token, no sign-in.",
};

/** What an operation's credentials are in the document: the security requirement, naming its schemes. */
export const SECURITY: Record<Auth, Array<Record<string, string[]>>> = {
  open: [{ ApiKey: [] }],
  anon: [{ ApiKey: [], Bearer: [] }],
  member: [{ ApiKey: [], Bearer: [] }],
  backoffice: [{ BackOfficeKey: [] }],
  link: [{ UnsubscribeToken: [] }],
};

/** The bidder API's credentials: the application's Api-Key, and a JWT of the auction house. */
export const BIDDER_SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Api-Key',
    description:
      'Identifies the calling application (a front end of one or more auction houses). Required on every `/v1` operation; a missing or unknown key is `401`. ' +
      'Issued by the operator; keep it out of URLs and logs.',
  },
  Bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A JWT from `POST /v1/tokens/anonymous`, `POST /v1/tokens` or `POST /v1/sessions`, sent as `Authorization: Bearer <token>`. ' +
      'Tokens are signed with HS256, the one algorithm accepted (`alg: none` and every other algorithm are rejected), and carry `iss`, `aud`, `sub`, `exp`, `iat`, `jti`, ' +
      'the auction house (`tenant`) and the kind (`anonymous`, `application` or `member`); issuer, audience and expiry are checked on every call, following the JWT best current practices of RFC8725. ' +
      'Lifetimes: anonymous and application tokens 1 hour, member tokens 8 hours; `ExpiresAt` of the token answer says when. Treat the token as opaque.',
  },
  UnsubscribeToken: {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description:
      'The token of a one-click unsubscribe link (RFC 8058), which the service puts in the `List-Unsubscribe` header of each notification mail it sends: signed by the service (HMAC-SHA256), ' +
      'it names the auction house, the member and the kind of notification, works for 90 days and once. A mailbox provider POSTs to the link with no other credential (RFC 8058 forbids cookies and authorization), ' +
      'so the token is in the URL; it stops notifications and does nothing else. Opaque: use the link as the mail gives it.',
  },
} as const;

/** The back office's credential: a key of one auction house, as the bearer (BACKOFFICE.md "Credential"). */
export const BACK_OFFICE_SECURITY_SCHEMES = {
  BackOfficeKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The back-office key of one auction house, sent as `Authorization: Bearer <key>`, with no `Api-Key` header. It is an opaque secret (not a JWT), issued by the operator ' +
      'through intake (record `backOfficeKey`; the service keeps only its hash) and revoked with `backOfficeKeyRevoked`, which holds at once. ' +
      "Everything a key reaches is its own house's. A bidder Api-Key or token is not accepted here, and a back-office key does not open `/v1`. Keep it out of URLs and logs.",
  },
} as const;
