/**
 * Operations 38 and 39: POST /v1/password-resets (always 200, a key mailed when the account exists) and
 * POST /v1/password-resets/confirmation (a new password with the key; ends the member's sessions).
 */
import { expect } from 'chai';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { readOutbox, type OutboxFile } from '../../src/adapters/embedded/file-outbox.ts';
import { importAnyRecord } from '../../app/features/intake.ts';
import { OneTimeKeys } from '../../src/security/keys.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { ISSUE_PASSWORD_RESET } from '../../commands/members/jobs.ts';
import { signingKeyOf } from '../support/signing-key.ts';
import { expectProblem, startTestServer, TEST_PASSWORD, type TestServer } from '../support/server.ts';

const NEW_PASSWORD = 'a brand new passphrase';
const MINUTE = 60_000;

describe('password reset (operations 38 and 39)', () => {
  let server: TestServer;
  let addresses = 0;
  const fromNewAddress = () => ({ 'X-Forwarded-For': `192.0.2.${++addresses}` });
  const head = () => server.runtime.services.log.headPosition();
  const post = async (urlPath: string, body: unknown, headers: Record<string, string> = fromNewAddress()) =>
    server.request('POST', urlPath, { token: await server.anonymousToken('demo'), body, headers });
  const requestReset = (email: string, headers?: Record<string, string>) => post('/v1/password-resets', { Email: email }, headers);
  const resetWith = (email: string, key: string, password = NEW_PASSWORD) =>
    post('/v1/password-resets/confirmation', { Email: email, Key: key, Password: password });
  const signIn = (email: string, password: string) => post('/v1/sessions', { Email: email, Password: password });
  const settle = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle();
  };
  const mailsTo = async (to: string) => {
    await settle();
    return (await readOutbox(path.join(server.dataDir, 'outbox'))).filter((m) => m.To === to);
  };
  const keyOf = (message: OutboxFile) => /^([A-Za-z0-9_-]{32})$/m.exec(message.Body)![1];
  /** Asks for a reset and reads the newest key mailed for it. */
  const newKey = async (email: string) => {
    const count = (await mailsTo(email)).length;
    expect((await requestReset(email)).status).to.equal(200);
    const mails = await mailsTo(email);
    expect(mails, `a new mail to ${email}`).to.have.length(count + 1);
    return keyOf(mails[mails.length - 1]);
  };
  const member = (id: string) => memberAccounts(server.runtime.services.documents.forTenant('demo')).findById(id);
  const problemOf = (p: { type: string; title: string; detail: string; errors?: unknown }) => ({
    type: p.type,
    title: p.title,
    detail: p.detail,
    errors: p.errors,
  });

  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    // Members with the demo member's password (its hash, to spare slow scrypt hashing), imported as the back office would.
    const passwordHash = (await member('1'))!.PasswordHash;
    for (const [memberId, email, confirmed] of [
      [501, 'reset.one@example.com', true],
      [502, 'reset.two@example.com', true],
      [503, 'reset.three@example.com', true],
      [504, 'never.confirmed@example.com', false],
      [505, 'many.requests@example.com', true],
      [506, 'retried.job@example.com', true],
    ] as const)
      await importAnyRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId,
        email,
        passwordHash,
        firstName: 'Reset',
        lastName: 'Tester',
        language: 'en',
        phone: '',
        signedUpAt: new Date().toISOString(),
        confirmed,
        roles: ['bidder'],
      });
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  describe('the journey: ask, read the mail, set a new password', () => {
    const email = 'reset.one@example.com';
    let key: string;
    let oldToken: string;

    it('answers 200 {Accepted: true}, and mails the account a key valid 1 hour; the log holds only its hash', async () => {
      const signedIn = await signIn(email, TEST_PASSWORD);
      expect(signedIn.status, signedIn.text).to.equal(200);
      oldToken = signedIn.body.Token;

      const response = await requestReset('Reset.One@Example.com');
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ Accepted: true });
      const mails = await mailsTo(email);
      expect(mails).to.have.length(1);
      expect(mails[0]).to.include({ Channel: 'mail', Tenant: 'demo' });
      expect(mails[0].Subject).to.match(/reset/i);
      key = keyOf(mails[0]);
      const events = await server.events();
      const issued = events.filter((e) => e.type === 'PasswordResetKeyIssued' && e.data.memberId === 501);
      expect(issued).to.have.length(1);
      expect(issued[0].data.keyHash).to.equal(OneTimeKeys.hash(key));
      expect(Date.parse(String(issued[0].data.expiresAt)) - Date.parse(String(issued[0].data.issuedAt))).to.equal(60 * MINUTE);
      expect(JSON.stringify(events)).to.not.include(key);
    });

    it('sets the new password (200 {PasswordChanged: true}); member tokens issued before are 401 and no longer valid', async () => {
      expect((await server.request('GET', '/v1/me', { token: oldToken })).status).to.equal(200);
      const before = await head();
      const response = await resetWith(email, key);
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ PasswordChanged: true });
      const events = await server.runtime.services.log.readAll({ fromPosition: before, maxCount: 100 });
      expect(events.map((e) => e.type)).to.deep.equal(['MemberPasswordChanged']);
      expect(JSON.stringify(events)).to.not.include(NEW_PASSWORD);

      expectProblem(await server.request('GET', '/v1/me', { token: oldToken }), 401);
      expect((await server.request('GET', '/v1/tokens/current', { token: oldToken })).body).to.deep.include({ Valid: false });
    });

    it('signs in with the new password only, and the new token works', async () => {
      expectProblem(await signIn(email, TEST_PASSWORD), 401);
      const signedIn = await signIn(email, NEW_PASSWORD);
      expect(signedIn.status, signedIn.text).to.equal(200);
      const me = await server.request('GET', '/v1/me', { token: signedIn.body.Token });
      expect(me.status, me.text).to.equal(200);
      expect(me.body.Id).to.equal(501);
      expect((await server.request('GET', '/v1/tokens/current', { token: signedIn.body.Token })).body).to.deep.include({
        Valid: true,
        Kind: 'member',
      });
    });

    it("compares tokens with the reset exactly: issued in the reset's second but before it, 401; after it in that second, 200", async () => {
      const validFrom = Date.parse((await member('501'))!.SessionsValidFrom!);
      const { id: keyid, secret } = signingKeyOf(server.dataDir);
      const forge = (extra: Record<string, unknown>) =>
        jwt.sign(
          {
            iss: 'bidder-api',
            aud: 'bidder-api/v1',
            sub: '501',
            tenant: 'demo',
            kind: 'member',
            iat: Math.floor(validFrom / 1000),
            exp: Math.floor(Date.now() / 1000) + 600,
            jti: randomUUID(),
            ...extra,
          },
          secret,
          { algorithm: 'HS256', keyid },
        );
      // What a sign-in before the reset carries (it saw no reset), and one that saw an older reset.
      expectProblem(await server.request('GET', '/v1/me', { token: forge({}) }), 401);
      expectProblem(await server.request('GET', '/v1/me', { token: forge({ sessionsValidFrom: validFrom - 1 }) }), 401);
      // What a sign-in after the reset carries, in the same second.
      const after = await server.request('GET', '/v1/me', { token: forge({ sessionsValidFrom: validFrom }) });
      expect(after.status, after.text).to.equal(200);
    });

    it('takes the key once: the same key again is 400', async () => {
      const before = await head();
      const problem = expectProblem(await resetWith(email, key, 'yet another passphrase'), 400);
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.Key']);
      expect(await head()).to.equal(before);
    });
  });

  it('answers an address without an account exactly alike, as fast, and mails and appends nothing for it', async () => {
    const known = 'reset.three@example.com';
    const unknown = 'no.account.here@example.com';
    const timed = async (email: string) => {
      const started = performance.now();
      const response = await requestReset(email);
      return { response, ms: performance.now() - started };
    };
    const a = await timed(unknown);
    const b = await timed(known);
    expect(a.response.status).to.equal(200);
    expect(b.response.status).to.equal(200);
    expect(a.response.text).to.equal(b.response.text);
    expect(Math.abs(a.ms - b.ms), `${a.ms} ms vs ${b.ms} ms`).to.be.below(250);
    expect(await mailsTo(unknown)).to.have.length(0);
    expect(await mailsTo(known)).to.have.length(1);
    expect(JSON.stringify(await server.events())).to.not.include(unknown);
  });

  it('voids the older key when a newer one is asked for: only the newest works', async () => {
    const email = 'reset.two@example.com';
    const older = await newKey(email);
    const newer = await newKey(email);
    expect(newer).to.not.equal(older);
    expectProblem(await resetWith(email, older), 400);
    expect((await resetWith(email, newer)).status).to.equal(200);
  });

  it('refuses a key after its hour, and a new password that breaks the sign-up rules, appending nothing; the key still works after', async () => {
    const email = 'reset.three@example.com';
    const key = await newKey(email);
    const before = await head();
    const services = server.runtime.services;
    const realNow = services.now;
    services.now = () => new Date(Date.now() + 60 * MINUTE + 1000);
    try {
      expectProblem(await resetWith(email, key), 400);
    } finally {
      services.now = realNow;
    }
    for (const [password, fields] of [
      ['too short', ['body.Password']],
      ['x'.repeat(129), ['body.Password']],
      ['RESET.THREE@example.com', ['body.Password']],
    ] as const) {
      const problem = expectProblem(await resetWith(email, key, password), 400);
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(fields);
    }
    const missing = expectProblem(await post('/v1/password-resets/confirmation', {}), 400);
    expect(missing.errors.map((e: { field: string }) => e.field)).to.have.members(['body.Email', 'body.Key', 'body.Password']);
    expect(await head()).to.equal(before);
    expect((await resetWith(email, key)).status).to.equal(200);
  });

  it('answers the same 400 to a wrong key and to an address without an account', async () => {
    const before = await head();
    const wrong = expectProblem(await resetWith('reset.two@example.com', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 400);
    const unknown = expectProblem(await resetWith('no.account.here@example.com', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 400);
    expect(problemOf(unknown)).to.deep.equal(problemOf(wrong));
    expect(await head()).to.equal(before);
  });

  it('confirms the address of a member who never confirmed it: the reset key reached the mailbox', async () => {
    const email = 'never.confirmed@example.com';
    expectProblem(await signIn(email, TEST_PASSWORD), 403);
    expect((await resetWith(email, await newKey(email))).status).to.equal(200);
    expect((await member('504'))!.Validated).to.equal(true);
    expect((await signIn(email, NEW_PASSWORD)).status).to.equal(200);
  });

  it('mails at most 3 keys an hour to one account: further requests are answered alike and mail nothing', async () => {
    const email = 'many.requests@example.com';
    const responses = [];
    for (let i = 0; i < 5; i++) responses.push(await requestReset(email));
    expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(new Set(responses.map((r) => r.text)).size).to.equal(1);
    expect(await mailsTo(email)).to.have.length(3);
  });

  it('limits requests per client address: the 11th in an hour is 429 with Retry-After', async () => {
    const headers = fromNewAddress();
    for (let i = 0; i < 10; i++) expect((await requestReset(`nobody${i}@example.com`, headers)).status).to.equal(200);
    const limited = await requestReset('nobody@example.com', headers);
    expectProblem(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
  });

  it("issues and mails a retried job's key once", async () => {
    const email = 'retried.job@example.com';
    await newKey(email);
    const issued = (await server.events()).filter((e) => e.type === 'PasswordResetKeyIssued' && e.data.memberId === 506);
    expect(issued).to.have.length(1);
    const before = await head();
    const { keyId, requestedAt } = issued[0].data;
    await server.runtime.services.jobs.add(
      ISSUE_PASSWORD_RESET,
      { tenant: 'demo', email, keyId, requestedAt },
      { jobId: `retry-${keyId}`, attempts: 1 },
    );
    expect(await mailsTo(email)).to.have.length(1);
    expect(await head()).to.equal(before);
  });

  it('answers 400 naming a missing or malformed Email, and 401 without a token', async () => {
    for (const [body, fields] of [
      [{}, ['body.Email']],
      [{ Email: 'not an address' }, ['body.Email']],
    ] as const) {
      const problem = expectProblem(await post('/v1/password-resets', body), 400);
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(fields);
    }
    expectProblem(await server.request('POST', '/v1/password-resets', { body: { Email: 'x@example.com' } }), 401);
    expectProblem(
      await server.request('POST', '/v1/password-resets/confirmation', {
        body: { Email: 'x@example.com', Key: 'k', Password: NEW_PASSWORD },
      }),
      401,
    );
  });
});
