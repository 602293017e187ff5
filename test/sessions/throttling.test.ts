/**
 * Operation 37's throttling under parallel requests: an attempt is reserved on every limit before the
 * password is checked, so no more wrong passwords are ever checked than the limits allow.
 */
import { expect } from 'chai';
import { MemoryRateLimiter } from '../../src/adapters/embedded/memory-rate-limiter.ts';
import { TooManyRequestsError } from '../../src/errors.ts';
import { reserveSignIn, SIGN_IN_LIMITS } from '../../queries/sessions/throttle.ts';
import { expectProblem, startTestServer, TEST_PASSWORD, type TestServer } from '../support/server.ts';

describe('sign-in throttling (operation 37)', () => {
  describe('the reservation', () => {
    const attempt = (ip: string, email = 'bidder@example.com') => ({ tenant: 'demo', email, ip });
    const refused = async (promise: Promise<unknown>) => {
      try {
        await promise;
      } catch (error) {
        return error instanceof TooManyRequestsError ? error : Promise.reject(error);
      }
      return null;
    };

    it('allows 5 wrong passwords per account from one address in 15 minutes, then refuses even before any check', async () => {
      const limiter = new MemoryRateLimiter();
      for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress.limit; i++) await reserveSignIn(limiter, attempt('10.0.0.1'));
      const error = await refused(reserveSignIn(limiter, attempt('10.0.0.1')));
      expect(error).to.be.instanceOf(TooManyRequestsError);
      expect(error!.extra.retryAfterSeconds).to.be.within(1, 15 * 60);
      // Another address, and another account from the same address, are not locked.
      expect(await refused(reserveSignIn(limiter, attempt('10.0.0.2')))).to.equal(null);
      expect(await refused(reserveSignIn(limiter, attempt('10.0.0.1', 'someone.else@example.com')))).to.equal(null);
    });

    it('gives a reservation back when the password was right, so only wrong passwords count', async () => {
      const limiter = new MemoryRateLimiter();
      for (let i = 0; i < 20; i++) await (await reserveSignIn(limiter, attempt('10.0.0.1'))).release();
      for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress.limit; i++) await reserveSignIn(limiter, attempt('10.0.0.1'));
      expect(await refused(reserveSignIn(limiter, attempt('10.0.0.1')))).to.be.instanceOf(TooManyRequestsError);
    });

    it('allows 20 wrong passwords from one address across accounts in 15 minutes', async () => {
      const limiter = new MemoryRateLimiter();
      for (let i = 0; i < SIGN_IN_LIMITS.perAddress.limit; i++) await reserveSignIn(limiter, attempt('10.0.0.1', `user${i}@example.com`));
      expect(await refused(reserveSignIn(limiter, attempt('10.0.0.1', 'one.more@example.com')))).to.be.instanceOf(TooManyRequestsError);
      expect(await refused(reserveSignIn(limiter, attempt('10.0.0.2', 'one.more@example.com')))).to.equal(null);
    });

    it('allows at most 100 wrong passwords per account per hour from all addresses together, and refused attempts do not use them up', async () => {
      let now = 0;
      const limiter = new MemoryRateLimiter(() => now);
      // A flood from one address: 5 reserved, the other 995 refused, and they take nothing from the account's hour.
      const flood = await Promise.allSettled(Array.from({ length: 1000 }, () => reserveSignIn(limiter, attempt('10.0.0.250'))));
      expect(flood.filter((r) => r.status === 'fulfilled')).to.have.length(5);
      let reserved = 5;
      for (let address = 1; reserved < SIGN_IN_LIMITS.perAccount.limit; address++)
        for (let i = 0; i < 5 && reserved < SIGN_IN_LIMITS.perAccount.limit; i++, reserved++)
          await reserveSignIn(limiter, attempt(`10.0.1.${address}`));
      const error = await refused(reserveSignIn(limiter, attempt('10.0.9.9')));
      expect(error).to.be.instanceOf(TooManyRequestsError);
      expect(error!.extra.retryAfterSeconds).to.be.within(1, 3600);
      // Another account is not concerned; after the hour the account is open again.
      expect(await refused(reserveSignIn(limiter, attempt('10.0.9.9', 'someone.else@example.com')))).to.equal(null);
      now += 60 * 60_000;
      expect(await refused(reserveSignIn(limiter, attempt('10.0.9.9')))).to.equal(null);
    });

    it('gives back the hits it took when a later one fails (no room to count it): the attempt was never checked', async () => {
      const limiter = new MemoryRateLimiter();
      const hit = limiter.hit.bind(limiter);
      let hits = 0;
      limiter.hit = async (...args) => {
        if (++hits === 2) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        return hit(...args);
      };
      let failed: unknown = null;
      await reserveSignIn(limiter, attempt('10.0.0.1')).catch((error: unknown) => (failed = error));
      expect(failed).to.include({ code: 'SQLITE_FULL' });
      limiter.hit = hit;
      // The first limit's hit was given back: that address still has its 5 wrong passwords for the account.
      for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress.limit; i++) await reserveSignIn(limiter, attempt('10.0.0.1'));
      expect(await refused(reserveSignIn(limiter, attempt('10.0.0.1')))).to.be.instanceOf(TooManyRequestsError);
    });
  });

  describe('over HTTP', () => {
    let server: TestServer;
    const signIn = async (password: string, address: string, email = 'bidder@example.com') =>
      server.request('POST', '/v1/sessions', {
        token: await server.anonymousToken('demo'),
        body: { Email: email, Password: password },
        headers: { 'X-Forwarded-For': address },
      });

    before(async () => {
      server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    });
    after(async () => server?.close());

    it('checks at most 5 of 60 parallel wrong passwords for one account from one address (401); the rest are 429 with Retry-After', async () => {
      const before = await server.runtime.services.log.headPosition();
      const responses = await Promise.all(Array.from({ length: 60 }, (_, i) => signIn(`wrong password ${i}`, '203.0.113.7')));
      const statuses = responses.map((r) => r.status);
      expect(
        statuses.filter((s) => s === 401),
        statuses.join(' '),
      ).to.have.length(SIGN_IN_LIMITS.perAccountAndAddress.limit);
      expect(statuses.filter((s) => s === 429)).to.have.length(60 - SIGN_IN_LIMITS.perAccountAndAddress.limit);
      for (const response of responses.filter((r) => r.status === 429)) {
        expectProblem(response, 429);
        expect(Number(response.headers.get('retry-after'))).to.be.within(1, 15 * 60);
      }
      expect(await server.runtime.services.log.headPosition()).to.equal(before);
    });

    it('keeps that address locked out of the account even with the right password', async () => {
      expectProblem(await signIn(TEST_PASSWORD, '203.0.113.7'), 429);
    });

    it('still lets the member sign in from another address', async () => {
      const response = await signIn(TEST_PASSWORD, '198.51.100.20');
      expect(response.status, response.text).to.equal(200);
      const me = await server.request('GET', '/v1/me', { token: response.body.Token });
      expect(me.status, me.text).to.equal(200);
    });

    it('does not count right passwords: after 3 sign-ins from one address, 5 wrong passwords are still checked there', async () => {
      // (At most 5 attempts of one account are in flight from one address at once: a right password is known only once checked.)
      for (let i = 0; i < 3; i++) expect((await signIn(TEST_PASSWORD, '198.51.100.21')).status).to.equal(200);
      for (let i = 0; i < 5; i++) expectProblem(await signIn(`wrong ${i}`, '198.51.100.21'), 401);
      expectProblem(await signIn('wrong again', '198.51.100.21'), 429);
    });
  });
});
