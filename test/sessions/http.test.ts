/**
 * Operation 37: POST /v1/sessions (sign in with email and password, answers a member token).
 */
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { importRecord } from '../../app/features/intake.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { expectProblem, startTestServer, TEST_PASSWORD, type TestResponse, type TestServer } from '../support/server.ts';

describe('POST /v1/sessions (operation 37)', () => {
  let server: TestServer;
  const head = () => server.runtime.services.log.headPosition();
  const signIn = async (tenant: string, body: unknown, token?: string | null) =>
    server.request('POST', '/v1/sessions', { token: token === undefined ? await server.anonymousToken(tenant) : token, body });
  const sameProblem = (a: { type: string; title: string; detail: string }, b: { type: string; title: string; detail: string }) =>
    expect({ type: a.type, title: a.title, detail: a.detail }).to.deep.equal({ type: b.type, title: b.title, detail: b.detail });

  before(async () => {
    server = await startTestServer();
    // A second confirmed member in demo2, for "another email still works" while bidder@example.com is locked there.
    // It gets member 1's password hash (so its password is TEST_PASSWORD too) to spare a slow scrypt hash.
    const bidder = await memberAccounts(server.runtime.services.documents.forTenant('demo2')).findById('1');
    await importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant: 'demo2',
      memberId: 2,
      email: 'other@example.com',
      passwordHash: bidder!.PasswordHash,
      firstName: 'O',
      lastName: 'T',
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  it('answers 200 with a member token of the tenant for the right email and password, and appends nothing', async () => {
    const before = await head();
    const response = await signIn('demo', { Email: 'bidder@example.com', Password: TEST_PASSWORD });
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.have.all.keys('Token', 'ExpiresAt');
    expect(Date.parse(response.body.ExpiresAt)).to.be.greaterThan(Date.now());
    const decoded = jwt.decode(response.body.Token, { complete: true })!;
    const payload = decoded.payload as jwt.JwtPayload;
    expect(decoded.header.alg).to.equal('HS256');
    expect(payload).to.include({ kind: 'member', tenant: 'demo', sub: '1', iss: 'bidder-api', aud: 'bidder-api/v1' });
    for (const claim of ['exp', 'iat', 'jti']) expect(payload, claim).to.have.property(claim);
    expect(payload.exp! * 1000).to.equal(Date.parse(response.body.ExpiresAt));

    const status = await server.request('GET', '/v1/tokens/current', { token: response.body.Token });
    expect(status.body).to.include({ Valid: true, Kind: 'member' });
    const me = await server.request('GET', '/v1/me', { token: response.body.Token });
    expect(me.status, me.text).to.equal(200);
    expect(me.body.Email).to.equal('bidder@example.com');
    expect(await head()).to.equal(before);
  });

  it('answers 401 with identical bodies for a wrong password and for an unknown email', async () => {
    const before = await head();
    const wrongPassword = expectProblem(
      await signIn('demo', { Email: 'bidder@example.com', Password: 'not-the-password' }),
      401,
      'invalid-credentials',
    );
    const unknownEmail = expectProblem(
      await signIn('demo', { Email: 'nobody@example.com', Password: 'not-the-password' }),
      401,
      'invalid-credentials',
    );
    sameProblem(wrongPassword, unknownEmail);
    expect(await head()).to.equal(before);
  });

  it('matches the email case-insensitively', async () => {
    const response = await signIn('demo', { Email: 'BIDDER@Example.COM', Password: TEST_PASSWORD });
    expect(response.status, response.text).to.equal(200);
    expect((jwt.decode(response.body.Token) as jwt.JwtPayload).sub).to.equal('1');
  });

  it('answers 400 naming each missing or invalid field, without counting it as a failed sign-in', async () => {
    const before = await head();
    const cases: Array<[unknown, string[]]> = [
      [{}, ['body.Email', 'body.Password']],
      [{ Email: 'bidder@example.com' }, ['body.Password']],
      [{ Password: TEST_PASSWORD }, ['body.Email']],
      [{ Email: '', Password: '' }, ['body.Email', 'body.Password']],
      [{ Email: 1, Password: false }, ['body.Email', 'body.Password']],
    ];
    for (const [body, fields] of cases) {
      const problem = expectProblem(await signIn('demo', body), 400);
      expect(
        problem.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).to.have.members(fields);
    }
    expectProblem(await server.request('POST', '/v1/sessions', { token: await server.anonymousToken('demo') }), 400);
    expectProblem(
      await server.request('POST', '/v1/sessions', {
        token: await server.anonymousToken('demo'),
        rawBody: '{"Email":',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
    );
    expect(await head()).to.equal(before);
    // Far more than five bad requests for this email, yet it still signs in: validation errors are not failures.
    expect((await signIn('demo', { Email: 'bidder@example.com', Password: TEST_PASSWORD })).status).to.equal(200);
  });

  it('needs a tenant token: no token, a bad token or no Api-Key is 401', async () => {
    const body = { Email: 'bidder@example.com', Password: TEST_PASSWORD };
    expectProblem(await signIn('demo', body, null), 401, 'token-invalid');
    expectProblem(await signIn('demo', body, 'not-a-valid-token-at-all'), 401, 'token-invalid');
    expectProblem(
      await server.request('POST', '/v1/sessions', { apiKey: null, token: await server.anonymousToken('demo'), body }),
      401,
      'api-key-invalid',
    );
  });

  it('answers 401 for a member of another tenant only (other@example.com exists in demo2, not demo)', async () => {
    expectProblem(await signIn('demo', { Email: 'other@example.com', Password: TEST_PASSWORD }), 401);
  });

  it('answers 429 with Retry-After after 5 failures for one email, even with the right password, while another email still works', async () => {
    const before = await head();
    for (let i = 1; i <= 5; i++) expectProblem(await signIn('demo2', { Email: 'bidder@example.com', Password: `wrong-${i}` }), 401);

    const locked: TestResponse = await signIn('demo2', { Email: 'bidder@example.com', Password: TEST_PASSWORD });
    expectProblem(locked, 429, 'too-many-attempts');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`).to.equal(true);
    // The lock is on the email, whatever its case.
    expectProblem(await signIn('demo2', { Email: 'Bidder@Example.com', Password: TEST_PASSWORD }), 429);

    const other = await signIn('demo2', { Email: 'other@example.com', Password: TEST_PASSWORD });
    expect(other.status, other.text).to.equal(200);
    expect(jwt.decode(other.body.Token)).to.include({ tenant: 'demo2', sub: '2', kind: 'member' });
    // The lock is per tenant: the same email still signs in to demo.
    expect((await signIn('demo', { Email: 'bidder@example.com', Password: TEST_PASSWORD })).status).to.equal(200);
    expect(await head()).to.equal(before);
  });
});
