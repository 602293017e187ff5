// Tokens: an application's, an anonymous one and the check of the current one (`POST /v1/tokens`,
// `POST /v1/tokens/anonymous`, `GET /v1/tokens/current`); declared once (defineOperation) for routing, validation
// and the OpenAPI document.
import { timingSafeEqual } from 'node:crypto';
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { NotFoundError, TooManyRequestsError, UnauthorizedError, ValidationError } from '../../src/errors.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { tokenExample, tokenSchema } from './dto.ts';

const FAILED_CLIENT_LIMIT = 10;
const FAILED_CLIENT_WINDOW_MS = 60_000;

export const issueApplicationToken = defineOperation({
  route: { number: 1, operationId: 'issueApplicationToken', group: 'Credentials', method: 'post', path: '/v1/tokens', auth: 'open' },
  docs: {
    summary: 'Application token for a registered application (ClientId + ClientSecret)',
    description:
      'For a server-side application registered with an auction house: the token reaches what an anonymous token reaches, for that house. ' +
      'An unknown ClientId, a wrong ClientSecret, or an application of a house this Api-Key may not act for is 401. After 10 failures from one address within a minute, 429 with Retry-After.',
    errors: [429],
    problems: ['invalid-credentials', 'too-many-attempts'],
    examples: { body: { ClientId: 'demo-web', ClientSecret: 'kX9v2QmT7pLr4sWz8yBn' }, response: tokenExample },
  },
  input: {
    body: z.object({ ClientId: z.string().min(1).max(200), ClientSecret: z.string().min(1).max(200) }).openapi('AccessTokenRequest'),
  },
  output: { response: tokenSchema },
  async handler({ body }, ctx) {
    const { limiter, tokens } = ctx;
    // A failure is reserved before the secret is checked (an atomic hit), so parallel requests never check more
    // secrets than the limit; a refused request and a right secret give their hit back. Refused only because
    // others are being checked at this moment (not yet failures): try again in a second.
    const key = `client-fail:${ctx.ip}`;
    const reserved = await limiter.hit(key, FAILED_CLIENT_LIMIT, FAILED_CLIENT_WINDOW_MS);
    if (!reserved.allowed) {
      await limiter.release(key);
      const failures = await limiter.peek(key, FAILED_CLIENT_LIMIT);
      throw new TooManyRequestsError(
        'Too many failed attempts; try again later.',
        failures.allowed ? 1 : reserved.retryAfterSeconds,
        'too-many-attempts',
      );
    }
    let app;
    try {
      app = await ctx.auth.application(body.ClientId);
    } catch (error) {
      await limiter.release(key);
      throw error;
    }
    const given = Buffer.from(sha256(body.ClientSecret), 'hex');
    const expected = Buffer.from(app?.SecretHash ?? sha256(''), 'hex');
    const ok = app !== null && timingSafeEqual(given, expected) && ctx.apiKey.tenants.includes(app.Tenant);
    if (!ok || !app) throw new UnauthorizedError('invalid-credentials', 'Unknown ClientId or wrong ClientSecret.');
    await limiter.release(key);
    return tokens.issue('application', app.Tenant, `application:${app.ClientId}`);
  },
});

export const issueAnonymousToken = defineOperation({
  route: {
    number: 2,
    operationId: 'issueAnonymousToken',
    group: 'Credentials',
    method: 'post',
    path: '/v1/tokens/anonymous',
    auth: 'open',
  },
  docs: {
    summary: 'Short-lived anonymous token for a tenant (no secret)',
    description:
      'The body names the tenant in `clientId` (`ClientId` is accepted too). Unknown tenant, one this Api-Key may not act for, or public access off: 404.',
    errors: [404],
    examples: { body: { clientId: 'demo' }, response: tokenExample },
  },
  input: {
    body: z
      .object({
        clientId: z.string().max(100).optional().openapi({ description: 'The tenant identifier (not a secret).' }),
        ClientId: z.string().max(100).optional(),
      })
      .openapi('PublicTokenRequest'),
    bodyOptional: true,
  },
  output: { response: tokenSchema },
  async handler({ body }, ctx) {
    const clientId = body?.clientId ?? body?.ClientId;
    if (!clientId) throw new ValidationError('clientId is required.', [{ field: 'body.clientId', message: 'is required' }]);
    const tenant = ctx.apiKey.tenants.includes(clientId) ? await ctx.auth.tenant(clientId) : null;
    if (!tenant || !tenant.PublicAccess) throw new NotFoundError('This tenant is not served, or its public access is switched off.');
    return ctx.tokens.issue('anonymous', tenant.Tenant, `anonymous:${crypto.randomUUID()}`);
  },
});

export const currentToken = defineOperation({
  route: { number: 3, operationId: 'currentToken', group: 'Credentials', method: 'get', path: '/v1/tokens/current', auth: 'open' },
  docs: {
    summary: 'Whether the presented token is still valid',
    description: 'Always 200: `Valid: false` when no token, or a bad, expired or foreign one, is presented.',
    examples: { response: { Valid: true, Kind: 'member', ExpiresAt: '2026-11-23T02:00:00.000Z' } },
  },
  output: {
    response: z
      .object({
        Valid: z.boolean(),
        Kind: z.enum(['anonymous', 'application', 'member']).nullable().openapi({ description: 'The kind of token; null when not valid.' }),
        ExpiresAt: z.string().max(30).openapi({ format: 'date-time' }).nullable(),
      })
      .openapi('TokenStatus'),
  },
  async handler(_input, ctx) {
    const found = await ctx.auth.token(ctx.req, ctx.apiKey);
    const invalid = { Valid: false, Kind: null, ExpiresAt: null };
    if (!found) return invalid;
    if (found.claims.kind === 'member' && !(await ctx.auth.member(found.claims))) return invalid;
    return { Valid: true, Kind: found.claims.kind, ExpiresAt: new Date(found.claims.exp * 1000).toISOString() };
  },
});

export const credentialsQueryOperations = [issueApplicationToken, issueAnonymousToken, currentToken];
