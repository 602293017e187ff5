// The bidder API's and the back office's own words: each document's introduction, credentials and wording of
// statuses (a DocumentKind each); the rest of a document comes from its operations.
import type { DocumentKind } from './document-kind.ts';
import { BACK_OFFICE_SECURITY_SCHEMES, BIDDER_SECURITY_SCHEMES } from './credentials.ts';
import { registerDeliveryWebhook, RETRY_SCHEDULE_TEXT } from './webhooks.ts';

export const BIDDER: DocumentKind = {
  info: {
    title: 'Bidder API',
    version: '1.0.0',
    description:
      "The bidder-facing API of an auction house: its auctions, lots, categories and documents, and a signed-in member's own data (watchlist, consignments, profile).\n\n" +
      "**Credentials.** Every `/v1` call sends the calling application's `Api-Key` header. Most also send `Authorization: Bearer <token>`: an anonymous token " +
      "(`POST /v1/tokens/anonymous`) or an application token (`POST /v1/tokens`) opens the catalogue of one auction house; a member token (`POST /v1/sessions`) opens the member's own data as well. " +
      'A resource of another auction house is answered exactly as a missing one (`404`).\n\n' +
      '**Conventions.** JSON bodies use PascalCase names and are at most 64 kB. Ids are int32. Money is an integer number of minor units beside an ISO 4217 `Currency`. ' +
      'Timestamps are RFC 3339 in UTC. Paged lists answer `{Items, TotalCount, Page, PageSize, TotalPages}` (at most 100 items a page). ' +
      'Texts come in the language negotiated from `Accept-Language` (or `lang`), named in `Content-Language`.\n\n' +
      '**Caching.** Every `GET` answer carries an `ETag`; send it back in `If-None-Match` for a `304` while it is unchanged. Answers over 1 KB are compressed (`br` or `gzip`) when `Accept-Encoding` allows.\n\n' +
      '**Errors** are `application/problem+json` (RFC 9457) with `type`, `title`, `status`, `detail`, `instance` (the request id) and, for `400`, an `errors` array naming each bad value. ' +
      'Every answer carries `X-Request-Id`. Sign-in, application tokens and the contact form are rate-limited (`429` with `Retry-After`). ' +
      'Before any operation runs, a request line and headers over 16 KB are `431`, an unknown path `404`, and another method on a known path `405` with `Allow`.',
  },
  securitySchemes: BIDDER_SECURITY_SCHEMES,
};

export const BACK_OFFICE: DocumentKind = {
  info: {
    title: 'Bidder API: back office',
    version: '1.0.0',
    description:
      "The interface of an auction house's own systems (ERP, accounting, CRM, mailing) under `/backoffice/v1`: the house's events as a paged feed, as a stream and as signed webhooks, " +
      'and catalogue intake over HTTP. The bidder-facing API (`/v1`) has its own document at `/openapi.json`.\n\n' +
      '**Credential.** A back-office key belongs to one auction house and is sent as `Authorization: Bearer <key>`, with no `Api-Key`. ' +
      'The operator issues keys through intake (record `backOfficeKey`; only a hash is kept) and revokes them (`backOfficeKeyRevoked`), which holds at once. ' +
      "A missing, unknown or revoked key is `401`; bidder Api-Keys and tokens never open `/backoffice/v1`, and a back-office key never opens `/v1`. Everything a key reaches is its own house's: " +
      "another house's webhook is answered as a missing one (`404`), and its events are not in the feed.\n\n" +
      "**Event feed.** `GET /backoffice/v1/events` gives the house's events in log order, `{Items, Next, HasMore}`: pass `Next` as `after` for the next page, and `wait` (up to 60 s) to long-poll " +
      'when nothing newer exists. `GET /backoffice/v1/events/stream` gives the same items as Server-Sent Events and resumes from `Last-Event-ID`. ' +
      'Positions (`Position`, `Next`, `after`, `Last-Event-ID`) are opaque strings: give them back as they came and compare them only for equality. ' +
      "An item's `Id` is the event's, the same forever (deduplicate by it); `Data` is the event's data less its private fields; the operator's own records are never in a house's feed.\n\n" +
      "**Webhooks.** A delivery is `POST Url` with a feed item as its JSON body and the headers of the Standard Webhooks specification: `webhook-id` (the event's `Id`), " +
      '`webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`): ' +
      'any Standard Webhooks library verifies it as it is (see `webhooks` below). A `2xx` answer within 10 seconds is delivered; anything else is retried after ' +
      `${RETRY_SCHEDULE_TEXT}, and after the last failure the webhook is \`disabled\` until it is enabled again. ` +
      'Each webhook gets its events in log order, one at a time (a failing event holds the later ones back), at least once: deduplicate by `webhook-id`. Redirects are not followed. ' +
      '`Url` must be `https`, carry no user or password, and name a host that resolves only to public addresses (checked at registration and again at each delivery); at most 20 webhooks a house.\n\n' +
      "**Intake.** `POST /backoffice/v1/intake` takes `application/x-ndjson`: the intake records, one a line, for the key's own house, at most 64 MiB. " +
      'Good lines are taken even when others fail; `Errors` names the others by line. With an `Idempotency-Key` header, the same key and body within 24 hours answer the first answer again ' +
      'and append nothing; the same key with another body is `422`.\n\n' +
      '**Conventions and errors.** As in the bidder API: PascalCase JSON bodies of at most 64 kB, int32 ids, RFC 3339 UTC times. Answers are `no-store`; a JSON `GET` answer carries an `ETag` ' +
      "(`304` to a matching `If-None-Match`), and answers over 1 KB are compressed when `Accept-Encoding` allows. Errors are `application/problem+json` (RFC 9457) with `instance` the request's `X-Request-Id`.",
  },
  securitySchemes: BACK_OFFICE_SECURITY_SCHEMES,
  statusText: {
    400: 'The request has invalid values: `errors` names each one (`query.after`, `body.Url`, `header.Last-Event-ID`). Also answered to a query parameter given twice or in bracket form (`x[]=1`), and to a JSON body that is not valid JSON.',
    404: "It does not exist, or it belongs to another auction house than the key's (answered exactly as a missing one).",
    422: 'The `Idempotency-Key` was used with another body in the last 24 hours: nothing was taken. A new body needs a new key.',
  },
  extend: registerDeliveryWebhook,
};
