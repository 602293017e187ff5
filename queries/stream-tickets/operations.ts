// POST /v1/stream-tickets (API.md operation 63): a URL of one stream that a browser's own EventSource opens with
// no header, for the caller's tenant, member and Api-Key, as long as the caller's token is valid (at most 12 hours).
import { AppError } from '../../src/errors.ts';
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { findAuction } from '../../projections/catalogue/index.ts';
import { streamPathOf } from './paths.ts';

export const createStreamTicket = defineOperation({
  route: {
    number: 63,
    operationId: 'createStreamTicket',
    group: 'Timed bidding',
    method: 'post',
    path: '/v1/stream-tickets',
    auth: 'anon',
  },
  docs: {
    summary: "A URL that opens one stream without headers (for a browser's EventSource)",
    description:
      '`Path`: `/v1/auctions/{id}/stream` (any token of the house) or `/v1/me/stream` (a member token; another token is `401` with the code `member-token-required`). ' +
      "The answer's `Url` is that stream's URL with `?ticket=…`: absolute under the service's configured public URL, else a path (`/v1/me/stream?ticket=…`) to resolve against the URL you call the API at (`new URL(Url, apiBase)`); " +
      "it is never built from the request's `Host`. Open it with `new EventSource(Url)`, no header. The ticket authenticates a `GET` of that one path " +
      "for the house, member and Api-Key of the token it was made from, until `ExpiresAt`: when that token expires, and at most 12 hours. The browser's own reconnects " +
      '(the same URL with `Last-Event-ID`) keep working until then; afterwards, or once the member is removed or signed out by a password reset, the stream answers `401` ' +
      '(code `ticket-invalid`): ask for a new ticket. With a ticket in the URL the `Api-Key` and `Authorization` headers are not looked at. Another path is `400` (code ' +
      "`stream-path-invalid`); an auction the house does not have is `404`. Keep the URL as you would keep the token: it never appears in the service's logs.",
    errors: [404],
    problems: ['stream-path-invalid', 'member-token-required', 'session-ended'],
    examples: {
      body: { Path: '/v1/auctions/10/stream' },
      response: {
        Url: 'https://api.example.com/v1/auctions/10/stream?ticket=eyJhbGciOiJIUzI1NiJ9.eyJwYXRoIjoiL3YxL2F1Y3Rpb25zLzEwL3N0cmVhbSJ9.c2lnbmF0dXJl',
        ExpiresAt: '2026-12-01T18:00:00.000Z',
      },
    },
  },
  input: {
    body: z
      .object({
        Path: z
          .string()
          .min(1)
          .max(200)
          .openapi({ description: 'The stream to open: `/v1/auctions/{id}/stream` or `/v1/me/stream`.', example: '/v1/me/stream' }),
      })
      .openapi('StreamTicketRequest'),
  },
  output: {
    response: z
      .object({
        Url: z.string().max(5000).openapi({
          format: 'uri-reference',
          description:
            "The stream's URL with its ticket: absolute under the service's public URL when one is configured, else a path from the API's root (`/v1/...`), resolved against the URL the API is called at.",
        }),
        ExpiresAt: z.string().max(30).openapi({
          format: 'date-time',
          description: "When the ticket stops opening the stream (its token's expiry, at most 12 hours).",
        }),
      })
      .openapi('StreamTicket'),
  },
  async handler({ body }, ctx) {
    const stream = streamPathOf(body.Path);
    if (stream.kind === 'member') {
      if (ctx.claims.kind !== 'member')
        throw new AppError(401, 'Unauthorized', 'A ticket for /v1/me/stream needs a member token (POST /v1/sessions).', {
          code: 'member-token-required',
        });
      await ctx.auth.requireMember(ctx.claims);
    } else await findAuction(ctx.db, stream.auctionId);
    // The Api-Key is checked already (the context's); the ticket names it by its hash, checked again at every open.
    const apiKeyHash = sha256(String(ctx.req.headers['api-key']));
    const { ticket, expiresAt } = ctx.tokens.tickets.issue(ctx.claims, apiKeyHash, stream.path);
    // Under PUBLIC_URL when it is set, else a path: never from the request's Host, which whoever calls chooses.
    const url = `${ctx.publicUrl ?? ''}${stream.path}?ticket=${ticket}`;
    return { Url: url, ExpiresAt: expiresAt.toISOString() };
  },
});

export const streamTicketOperations = [createStreamTicket];
