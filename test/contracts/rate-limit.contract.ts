/**
 * Contract of the RateLimiter port (src/ports/rate-limit.ts), run against every adapter: the embedded
 * in-memory one and, later, Redis. Real time is used (windows of a few hundred ms). Keys are unique per
 * test run, so a factory may share its store between tests.
 *
 * Semantics pinned here:
 * - fixed window, opened by a key's first hit; every hit counts, refused ones included;
 * - allowed = count <= limit; retryAfterSeconds is a whole number >= 1 while the window is open;
 * - peek(key, limit) does not count; its allowed says whether a hit now would be allowed (count < limit);
 *   for a key with no open window it returns count 0.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RateLimiter } from '../../src/ports/rate-limit.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function rateLimiterContract(name: string, makeLimiter: () => Promise<RateLimiter>): void {
  describe(`RateLimiter contract: ${name}`, function () {
    let limiter: RateLimiter;
    let run: string;
    const key = (label: string) => `contract:${run}:${label}`;

    beforeEach(async function () {
      run = randomUUID();
      limiter = await makeLimiter();
    });

    it('allows hits up to the limit, then refuses with a whole retryAfterSeconds of at least 1', async function () {
      const k = key('login');
      for (let i = 1; i <= 3; i++) {
        const decision = await limiter.hit(k, 3, 5000);
        expect(decision.allowed, `hit ${i}`).to.equal(true);
        expect(decision.count).to.equal(i);
      }
      for (let i = 4; i <= 5; i++) {
        const refused = await limiter.hit(k, 3, 5000);
        expect(refused.allowed).to.equal(false);
        expect(refused.count).to.equal(i);
        expect(Number.isInteger(refused.retryAfterSeconds)).to.equal(true);
        expect(refused.retryAfterSeconds).to.be.within(1, 5);
      }
    });

    it('gives a retryAfterSeconds of at least 1 even when less than a second is left', async function () {
      const k = key('short');
      await limiter.hit(k, 1, 200);
      const refused = await limiter.hit(k, 1, 200);
      expect(refused.allowed).to.equal(false);
      expect(refused.retryAfterSeconds).to.equal(1);
    });

    it('counts keys independently', async function () {
      const a = key('a');
      const b = key('b');
      await limiter.hit(a, 1, 5000);
      expect((await limiter.hit(a, 1, 5000)).allowed).to.equal(false);
      const other = await limiter.hit(b, 1, 5000);
      expect(other).to.deep.include({ allowed: true, count: 1 });
    });

    it('opens a new window once the previous one has passed', async function () {
      const k = key('window');
      await limiter.hit(k, 2, 200);
      await limiter.hit(k, 2, 200);
      expect((await limiter.hit(k, 2, 200)).allowed).to.equal(false);
      await sleep(260);
      const fresh = await limiter.hit(k, 2, 200);
      expect(fresh).to.deep.include({ allowed: true, count: 1 });
    });

    it('does not extend the window with refused hits', async function () {
      const k = key('hammer');
      await limiter.hit(k, 1, 300);
      for (let i = 0; i < 5; i++) {
        await sleep(40);
        await limiter.hit(k, 1, 300);
      }
      await sleep(150); // about 350 ms after the first hit
      expect((await limiter.hit(k, 1, 300)).allowed).to.equal(true);
    });

    it('clears a key on reset', async function () {
      const k = key('reset');
      await limiter.hit(k, 1, 5000);
      expect((await limiter.hit(k, 1, 5000)).allowed).to.equal(false);
      await limiter.reset(k);
      expect(await limiter.hit(k, 1, 5000)).to.deep.include({ allowed: true, count: 1 });
      await limiter.reset(key('never-hit')); // resetting an unknown key is fine
    });

    it('takes a hit back on release, never below zero, and counts parallel reservations exactly', async function () {
      const k = key('release');
      await limiter.hit(k, 2, 5000);
      await limiter.hit(k, 2, 5000);
      await limiter.release(k);
      expect(await limiter.peek(k, 2)).to.deep.include({ allowed: true, count: 1 });
      await limiter.release(k);
      await limiter.release(k);
      expect(await limiter.peek(k, 2)).to.deep.include({ count: 0 });
      await limiter.release(key('never-hit')); // releasing an unknown key is fine
      const parallel = key('parallel');
      const decisions = await Promise.all(Array.from({ length: 60 }, () => limiter.hit(parallel, 5, 5000)));
      expect(decisions.filter((d) => d.allowed)).to.have.length(5);
    });

    it('reads without counting on peek', async function () {
      const k = key('peek');
      expect(await limiter.peek(k, 3)).to.deep.include({ allowed: true, count: 0 });
      await limiter.hit(k, 3, 5000);
      await limiter.hit(k, 3, 5000);
      for (let i = 0; i < 3; i++) expect(await limiter.peek(k, 3)).to.deep.include({ allowed: true, count: 2 });
      expect(await limiter.hit(k, 3, 5000)).to.deep.include({ allowed: true, count: 3 });
      const full = await limiter.peek(k, 3);
      expect(full).to.deep.include({ allowed: false, count: 3 });
      expect(full.retryAfterSeconds).to.be.within(1, 5);
    });

    it('forgets a window on peek once it has passed', async function () {
      const k = key('peek-expired');
      await limiter.hit(k, 1, 150);
      await sleep(200);
      expect(await limiter.peek(k, 1)).to.deep.include({ allowed: true, count: 0 });
    });
  });
}
