/**
 * Operations 1–3 (credentials) and the Api-Key rule of every /v1 route.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { importRecord } from '../../app/features/intake.ts';
import { signingKeyOf } from '../support/signing-key.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

const ISSUER = 'bidder-api';
const AUDIENCE = 'bidder-api/v1';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function decode(token: string) {
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string') throw new Error(`not a JWT: ${token}`);
  return { header: decoded.header, payload: decoded.payload as jwt.JwtPayload & { tenant?: string; kind?: string } };
}

function expectTokenResponse(response: TestResponse) {
  expect(response.status, response.text).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/^application\/json/);
  expect(response.body).to.have.all.keys('Token', 'ExpiresAt');
  expect(response.body.Token).to.be.a('string');
  expect(response.body.ExpiresAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  expect(Date.parse(response.body.ExpiresAt)).to.be.greaterThan(Date.now());
  return decode(response.body.Token);
}

describe('credentials (operations 1–3) and the Api-Key', () => {
  let server: TestServer;
  let secret: Buffer;
  let keyId: string;
  const head = () => server.runtime.services.log.headPosition();

  /** A token signed with the server's own key (its id in the header), with claims and options the test chooses. */
  function forge(
    claims: Record<string, unknown>,
    options: { key?: Buffer | string; algorithm?: jwt.Algorithm; keyid?: string | null } = {},
  ) {
    const now = Math.floor(Date.now() / 1000);
    return jwt.sign(
      {
        iss: ISSUER,
        aud: AUDIENCE,
        sub: `anonymous:${randomUUID()}`,
        tenant: 'demo',
        kind: 'anonymous',
        iat: now,
        exp: now + 600,
        jti: randomUUID(),
        ...claims,
      },
      options.key ?? secret,
      { algorithm: options.algorithm ?? 'HS256', ...(options.keyid === null ? {} : { keyid: options.keyid ?? keyId }) },
    );
  }

  const current = (token?: string) => server.request('GET', '/v1/tokens/current', { token });

  before(async () => {
    server = await startTestServer();
    ({ id: keyId, secret } = signingKeyOf(server.dataDir));
  });
  after(async () => server?.close());

  describe('POST /v1/tokens (operation 1)', () => {
    it('issues an application token of the tenant for a registered ClientId and ClientSecret, and appends nothing', async () => {
      const before = await head();
      const response = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
      });
      const { header, payload } = expectTokenResponse(response);
      expect(header.alg).to.equal('HS256');
      expect(payload).to.include({ iss: ISSUER, aud: AUDIENCE, tenant: 'demo', kind: 'application' });
      for (const claim of ['sub', 'exp', 'iat', 'jti']) expect(payload, claim).to.have.property(claim);
      expect(payload.exp! * 1000).to.equal(Date.parse(response.body.ExpiresAt));
      expect(await head()).to.equal(before);
    });

    it('lets the application token read what an anonymous token reads', async () => {
      const issued = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
      });
      const auctions = await server.request('GET', '/v1/auctions', { token: issued.body.Token });
      expect(auctions.status, auctions.text).to.equal(200);
      const status = await current(issued.body.Token);
      expect(status.body).to.deep.equal({ Valid: true, Kind: 'application', ExpiresAt: issued.body.ExpiresAt });
    });

    it('answers 401 with the same body for a wrong secret and for an unknown client', async () => {
      const before = await head();
      const wrongSecret = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: 'not-the-secret-at-all' },
      });
      const unknownClient = await server.request('POST', '/v1/tokens', {
        body: { ClientId: 'no-such-client', ClientSecret: server.credentials.clientSecret },
      });
      const a = expectProblem(wrongSecret, 401);
      const b = expectProblem(unknownClient, 401);
      expect({ type: a.type, title: a.title, detail: a.detail }).to.deep.equal({ type: b.type, title: b.title, detail: b.detail });
      expect(await head()).to.equal(before);
    });

    it('answers 400 naming each missing field when ClientId or ClientSecret is left out', async () => {
      const before = await head();
      const cases: Array<[unknown, string[]]> = [
        [{}, ['body.ClientId', 'body.ClientSecret']],
        [{ ClientId: server.credentials.clientId }, ['body.ClientSecret']],
        [{ ClientSecret: server.credentials.clientSecret }, ['body.ClientId']],
        [{ ClientId: '', ClientSecret: '' }, ['body.ClientId', 'body.ClientSecret']],
        [{ ClientId: 42, ClientSecret: true }, ['body.ClientId', 'body.ClientSecret']],
      ];
      for (const [body, fields] of cases) {
        const problem = expectProblem(await server.request('POST', '/v1/tokens', { body }), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body),
        ).to.have.members(fields);
      }
      expectProblem(await server.request('POST', '/v1/tokens'), 400);
      expect(await head()).to.equal(before);
    });
  });

  describe('POST /v1/tokens/anonymous (operation 2)', () => {
    it('issues an anonymous token carrying the tenant for a clientId of a public tenant', async () => {
      const before = await head();
      for (const tenant of ['demo', 'demo2']) {
        const { header, payload } = expectTokenResponse(
          await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: tenant } }),
        );
        expect(header.alg).to.equal('HS256');
        expect(payload).to.include({ iss: ISSUER, aud: AUDIENCE, tenant, kind: 'anonymous' });
        for (const claim of ['sub', 'exp', 'iat', 'jti']) expect(payload, claim).to.have.property(claim);
      }
      expect(await head()).to.equal(before);
    });

    it('gives every anonymous token its own jti', async () => {
      const a = await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'demo' } });
      const b = await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'demo' } });
      expect(decode(a.body.Token).payload.jti).to.not.equal(decode(b.body.Token).payload.jti);
    });

    it('answers 400 when no clientId is supplied', async () => {
      const before = await head();
      expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: {} }), 400);
      expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: '' } }), 400);
      expectProblem(await server.request('POST', '/v1/tokens/anonymous'), 400);
      expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 5 } }), 400);
      expect(await head()).to.equal(before);
    });

    it('answers 404 for a tenant that is not served', async () => {
      expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'no-such-tenant' } }), 404);
      expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: '_system' } }), 404);
    });

    it('answers 404 for a tenant whose public access is switched off, exactly as for an unknown tenant', async () => {
      const closed = expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'demo-closed' } }), 404);
      const unknown = expectProblem(await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'nope' } }), 404);
      expect(closed.detail).to.equal(unknown.detail);
    });
  });

  describe('GET /v1/tokens/current (operation 3)', () => {
    it('reports an anonymous token as valid with its kind and expiry', async () => {
      const issued = await server.request('POST', '/v1/tokens/anonymous', { body: { clientId: 'demo' } });
      const response = await current(issued.body.Token);
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ Valid: true, Kind: 'anonymous', ExpiresAt: issued.body.ExpiresAt });
    });

    it('reports a member token as valid with kind member', async () => {
      const token = await server.memberToken('demo');
      const response = await current(token);
      expect(response.status).to.equal(200);
      expect(response.body.Valid).to.equal(true);
      expect(response.body.Kind).to.equal('member');
      expect(Date.parse(response.body.ExpiresAt)).to.equal(decode(token).payload.exp! * 1000);
    });

    it('accepts a token the test signs with the server secret and HS256 (so the forged negatives below are meaningful)', async () => {
      expect((await current(forge({}))).body).to.include({ Valid: true, Kind: 'anonymous' });
    });

    it('answers 200 with Valid false when no token is presented', async () => {
      const response = await current();
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ Valid: false, Kind: null, ExpiresAt: null });
    });

    it('answers Valid false for garbage, a non-Bearer scheme and an empty Bearer', async () => {
      const anon = await server.anonymousToken('demo');
      const variants: Array<Record<string, string>> = [
        { Authorization: 'Bearer this-is-not-a-jwt' },
        { Authorization: 'Bearer a.b.c' },
        { Authorization: 'Bearer ' },
        { Authorization: `Basic ${anon}` },
        { Authorization: `Bearer ${anon}x` },
      ];
      for (const headers of variants) {
        const response = await server.request('GET', '/v1/tokens/current', { headers });
        expect(response.status, JSON.stringify(headers)).to.equal(200);
        expect(response.body, JSON.stringify(headers)).to.deep.equal({ Valid: false, Kind: null, ExpiresAt: null });
      }
    });

    it('answers Valid false for an expired token', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect((await current(forge({ iat: now - 7200, exp: now - 60 }))).body.Valid).to.equal(false);
    });

    it('answers Valid false for a token with alg none', async () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: ISSUER,
        aud: AUDIENCE,
        sub: 'anonymous:x',
        tenant: 'demo',
        kind: 'anonymous',
        iat: now,
        exp: now + 600,
        jti: randomUUID(),
      };
      for (const alg of ['none', 'None', 'NONE']) {
        const token = `${b64({ alg, typ: 'JWT' })}.${b64(claims)}.`;
        expect((await current(token)).body.Valid, alg).to.equal(false);
      }
    });

    it('answers Valid false for a token signed with another secret', async () => {
      expect((await current(forge({}, { key: 'another-secret-of-at-least-32-bytes-long!!' }))).body.Valid).to.equal(false);
    });

    it('answers Valid false for a token signed with HS512 and the right secret', async () => {
      expect((await current(forge({}, { algorithm: 'HS512' }))).body.Valid).to.equal(false);
      expect((await current(forge({}, { algorithm: 'HS384' }))).body.Valid).to.equal(false);
    });

    it('answers Valid false for a wrong issuer, a wrong audience, an unknown kind or a missing tenant', async () => {
      for (const claims of [
        { iss: 'someone-else' },
        { aud: 'other-api' },
        { kind: 'admin' },
        { tenant: undefined },
        { tenant: 'no-such-tenant' },
      ]) {
        expect((await current(forge(claims))).body.Valid, JSON.stringify(claims)).to.equal(false);
      }
    });

    it('answers Valid false for an anonymous token of a tenant whose public access is off', async () => {
      expect((await current(forge({ tenant: 'demo-closed' }))).body.Valid).to.equal(false);
    });

    it('answers Valid false for the member token of a member who was removed', async () => {
      const log = server.runtime.services.log;
      await importRecord(log, {
        kind: 'member',
        tenant: 'demo',
        memberId: 2,
        email: 'leaving@example.com',
        passwordHash: 'scrypt$disabled',
        firstName: 'Leaving',
        lastName: 'Member',
        language: 'en',
        phone: '',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
      await server.runtime.services.projector.catchUp();
      // The member signs in with no password here: a member token for member 2, signed with the server's secret.
      const token = forge({ kind: 'member', sub: '2' });
      expect((await current(token)).body).to.include({ Valid: true, Kind: 'member' });

      await importRecord(log, { kind: 'memberRemoved', tenant: 'demo', memberId: 2, at: new Date().toISOString() });
      await server.runtime.services.projector.catchUp();
      expect((await current(token)).body).to.deep.equal({ Valid: false, Kind: null, ExpiresAt: null });
      // Nor is a member token of a member who never existed.
      expect((await current(forge({ kind: 'member', sub: '999' }))).body.Valid).to.equal(false);
    });
  });

  describe('the Api-Key', () => {
    const routes: Array<{ method: string; path: string; token?: 'anon' | 'member'; body?: unknown }> = [
      { method: 'POST', path: '/v1/tokens', body: { ClientId: 'demo-web', ClientSecret: 'x' } },
      { method: 'POST', path: '/v1/tokens/anonymous', body: { clientId: 'demo' } },
      { method: 'GET', path: '/v1/tokens/current', token: 'anon' },
      { method: 'GET', path: '/v1/auctions', token: 'anon' },
      { method: 'GET', path: '/v1/lots/1', token: 'anon' },
      { method: 'POST', path: '/v1/sessions', token: 'anon', body: { Email: 'bidder@example.com', Password: 'x' } },
      { method: 'GET', path: '/v1/me', token: 'member' },
      { method: 'GET', path: '/v1/me/watchlist', token: 'member' },
      { method: 'PUT', path: '/v1/me/watchlist/1', token: 'member' },
      { method: 'POST', path: '/v1/auctions/2/terms-acceptance', token: 'member' },
      { method: 'POST', path: '/v1/contact', token: 'anon', body: { Name: 'A', Email: 'a@example.com', Subject: 'S', Message: 'M' } },
    ];

    for (const [label, apiKey] of [
      ['missing', null],
      ['unknown', 'not-a-known-api-key-0123456789'],
      ['empty', ''],
    ] as const) {
      it(`answers 401 problem+json on every /v1 route when the Api-Key is ${label}, and appends nothing`, async () => {
        const before = await head();
        for (const route of routes) {
          const token =
            route.token === 'member'
              ? await server.memberToken('demo')
              : route.token === 'anon'
                ? await server.anonymousToken('demo')
                : undefined;
          const response = await server.request(route.method, route.path, { apiKey, token, body: route.body });
          expectProblem(response, 401);
        }
        expect(await head()).to.equal(before);
      });
    }

    it('does not need an Api-Key for /healthz, /readyz, /openapi.json and /docs', async () => {
      for (const p of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
        const response = await server.request('GET', p, { apiKey: null });
        expect(response.status, p).to.equal(200);
      }
    });
  });

  // Last: it leaves this client address locked out of POST /v1/tokens for the rest of the window.
  describe('POST /v1/tokens under repeated failures', () => {
    it('answers 429 with Retry-After after repeated failures from one address, even for the right secret', async () => {
      let limited: TestResponse | null = null;
      for (let i = 0; i < 12 && !limited; i++) {
        const response = await server.request('POST', '/v1/tokens', {
          body: { ClientId: server.credentials.clientId, ClientSecret: `wrong-${i}` },
        });
        if (response.status === 429) limited = response;
        else expectProblem(response, 401);
      }
      expect(limited, 'no 429 within 12 failures').to.not.equal(null);
      expectProblem(limited!, 429);
      const retryAfter = Number(limited!.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`).to.equal(true);

      const right = await server.request('POST', '/v1/tokens', {
        body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
      });
      expectProblem(right, 429);
      expect(right.headers.get('retry-after')).to.match(/^\d+$/);
    });
  });
});
