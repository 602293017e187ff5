/**
 * Every count and rate limit of docs/api-decisions.md ("Limits under parallel requests") holds when the
 * requests come at once, half of them to a second `api` process on the same DATA_DIR: rate limits are
 * atomic hits in the shared limiter (a SQLite file, or Redis: both run), counts are decided on one
 * stream with its expected revision. Each case fires more requests than the limit from one client address
 * (of its own) and finds exactly the limit let through. The limits specified elsewhere: sign-in
 * (test/sessions/throttling.test.ts), identity documents (test/identity-documents/http.test.ts), reminders
 * (test/notifications/member-stream.test.ts), body sizes (body-limits.test.ts).
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { importRecord } from '../../app/features/intake.ts';
import { MEMBER_LIMITS } from '../../commands/members/rules.ts';
import { ISSUE_PASSWORD_RESET } from '../../commands/members/jobs.ts';
import { CONTACT_LIMIT } from '../../commands/contact/operations.ts';
import { MAX_FAILED_ATTEMPTS } from '../../commands/phone-verification/decide.ts';
import { MAX_WATCHED, watchlistDecider } from '../../commands/watchlist/decide.ts';
import { watchlistStreamId } from '../../commands/watchlist/events.ts';
import { commandStreams } from '../../src/command-streams.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { expectProblem, startTestServer, type RequestOptions, type TestResponse, type TestServer } from '../support/server.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const redisPrefix = `limits-test-${randomUUID()}`;

for (const [engine, engineEnv] of [
  ['the embedded limiter', {}],
  ['Redis (jobs on BullMQ)', { REDIS_URL, REDIS_PREFIX: redisPrefix }],
] as const) {
  describe(`limits under parallel requests to two api processes, on ${engine}`, function () {
    this.timeout(120_000);
    let server: TestServer;
    let api: TestServer;
    let addresses = 0;
    let members = 100;

    /** A client address of its own for each case (the processes trust X-Forwarded-For here). */
    const newAddress = () => `203.0.113.${++addresses}`;
    /** `n` requests at once, every other one to the second process; answers in the order asked. */
    const parallel = (n: number, request: (i: number, target: TestServer) => Promise<TestResponse>) =>
      Promise.all(Array.from({ length: n }, (_, i) => request(i, i % 2 ? api : server)));
    const post = (target: TestServer, urlPath: string, address: string, options: RequestOptions) =>
      target.request('POST', urlPath, { ...options, headers: { 'X-Forwarded-For': address, ...options.headers } });
    /** The statuses counted; every 429 is a problem with a Retry-After of whole seconds. */
    const tally = (responses: TestResponse[]) => {
      const counts: Record<number, number> = {};
      for (const response of responses) {
        counts[response.status] = (counts[response.status] ?? 0) + 1;
        if (response.status === 429) {
          expectProblem(response, 429);
          expect(response.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
        }
      }
      return counts;
    };
    const settle = async () => {
      await server.runtime.services.projector.catchUp();
      await server.runtime.services.jobs.whenIdle(30_000);
    };
    const eventsOf = async (type: string, where: (data: Record<string, unknown>) => boolean = () => true) =>
      (await server.events()).filter((e) => e.type === type && where(e.data));
    async function newMember(phone = '') {
      const memberId = ++members;
      const email = `limits${memberId}@example.com`;
      await importRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId,
        email,
        passwordHash: 'scrypt$disabled',
        firstName: 'L',
        lastName: String(memberId),
        language: 'en',
        phone,
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
      await server.runtime.services.projector.catchUp();
      return { memberId, email, token: server.issueMemberToken('demo', memberId) };
    }

    before(async () => {
      server = await startTestServer({ env: { TRUST_PROXY: 'true', ...engineEnv } });
      api = await startTestServer({ dataDir: server.dataDir, seed: false, env: { ROLE: 'api', TRUST_PROXY: 'true', ...engineEnv } });
    });
    after(async () => {
      await api?.close();
      await server?.close();
      if ('REDIS_PREFIX' in engineEnv) {
        const redis = new Redis(REDIS_URL);
        const keys = await redis.keys(`${redisPrefix}*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
    });

    describe('rate limits per client address (the shared limiter)', () => {
      it(`lets ${MEMBER_LIMITS.signUpsPerAddress.limit} of 14 parallel sign-ups through, and stores only theirs`, async () => {
        const address = newAddress();
        const anonymous = await server.anonymousToken('demo');
        const responses = await parallel(14, (i, target) =>
          post(target, '/v1/members', address, {
            token: anonymous,
            body: { Email: `parallel.signup${i}@example.com`, Password: 'a long enough passphrase' },
          }),
        );
        expect(tally(responses)).to.deep.equal({ 200: MEMBER_LIMITS.signUpsPerAddress.limit, 429: 4 });
        const stored = await eventsOf('MemberSignedUp', (d) => String(d.email).startsWith('parallel.signup'));
        expect(stored).to.have.length(MEMBER_LIMITS.signUpsPerAddress.limit);
      });

      it(`answers ${MEMBER_LIMITS.availabilityPerAddress.limit} of 66 parallel availability look-ups`, async () => {
        const address = newAddress();
        const anonymous = await server.anonymousToken('demo');
        const responses = await parallel(66, (i, target) =>
          target.request('GET', `/v1/members/availability?email=lookup${i}@example.com`, {
            token: anonymous,
            headers: { 'X-Forwarded-For': address },
          }),
        );
        expect(tally(responses)).to.deep.equal({ 200: MEMBER_LIMITS.availabilityPerAddress.limit, 429: 6 });
      });

      it(`checks ${MEMBER_LIMITS.confirmationsPerAddress.limit} of 34 parallel email confirmations`, async () => {
        const address = newAddress();
        const anonymous = await server.anonymousToken('demo');
        const responses = await parallel(34, (i, target) =>
          post(target, '/v1/members/confirmation', address, {
            token: anonymous,
            body: { Email: `nobody${i}@example.com`, Key: 'A'.repeat(32) },
          }),
        );
        expect(tally(responses)).to.deep.equal({ 400: MEMBER_LIMITS.confirmationsPerAddress.limit, 429: 4 });
      });

      it(`takes ${MEMBER_LIMITS.resetRequestsPerAddress.limit} of 14 parallel password-reset requests`, async () => {
        const address = newAddress();
        const anonymous = await server.anonymousToken('demo');
        const responses = await parallel(14, (i, target) =>
          post(target, '/v1/password-resets', address, { token: anonymous, body: { Email: `forgetful${i}@example.com` } }),
        );
        expect(tally(responses)).to.deep.equal({ 200: MEMBER_LIMITS.resetRequestsPerAddress.limit, 429: 4 });
      });

      it(`takes ${MEMBER_LIMITS.resetMailsPerAccount.limit} key requests of 8 parallel ones for one account from 8 addresses, answering each alike`, async () => {
        const { memberId, email } = await newMember();
        const anonymous = await server.anonymousToken('demo');
        // The key jobs each process enqueues for this account: what the limiter let through.
        const asked: string[] = [];
        for (const target of [server, api]) {
          const jobs = target.runtime.services.jobs;
          const add = jobs.add.bind(jobs);
          jobs.add = (name, data, options) => {
            const job = data as { email?: string; keyId?: string };
            if (name === ISSUE_PASSWORD_RESET && job.email === email) asked.push(job.keyId!);
            return add(name, data, options);
          };
        }
        const responses = await parallel(8, (_, target) =>
          post(target, '/v1/password-resets', newAddress(), { token: anonymous, body: { Email: email } }),
        );
        expect(tally(responses)).to.deep.equal({ 200: 8 });
        expect(new Set(responses.map((r) => r.text)).size).to.equal(1);
        expect(asked).to.have.length(MEMBER_LIMITS.resetMailsPerAccount.limit);
        await settle();
        // Each job issues its key, unless a newer request's key was issued first (its job ran sooner, in either
        // process): the older request is then voided, so 1 to 3 keys, all of them asked for.
        const issued = (await eventsOf('PasswordResetKeyIssued', (d) => d.memberId === memberId)).map((e) => String(e.data.keyId));
        expect(issued.length).to.be.within(1, MEMBER_LIMITS.resetMailsPerAccount.limit);
        expect(asked).to.include.members(issued);
        // A key voided by a newer one before its mail went out is not mailed: at most one mail per key.
        const mails = (await readOutbox(path.join(server.dataDir, 'outbox'))).filter((m) => m.To === email);
        expect(mails.length).to.be.within(1, issued.length);
      });

      it(`checks ${MEMBER_LIMITS.resetConfirmationsPerAddress.limit} of 24 parallel reset confirmations`, async () => {
        const address = newAddress();
        const anonymous = await server.anonymousToken('demo');
        const responses = await parallel(24, (i, target) =>
          post(target, '/v1/password-resets/confirmation', address, {
            token: anonymous,
            body: { Email: `nobody${i}@example.com`, Key: 'A'.repeat(32), Password: 'a long enough passphrase' },
          }),
        );
        expect(tally(responses)).to.deep.equal({ 400: MEMBER_LIMITS.resetConfirmationsPerAddress.limit, 429: 4 });
      });

      it(`records ${CONTACT_LIMIT.count} of 14 parallel contact messages`, async () => {
        const address = newAddress();
        const anonymous = await server.anonymousToken('demo');
        const responses = await parallel(14, (i, target) =>
          post(target, '/v1/contact', address, {
            token: anonymous,
            body: { Name: 'P', Email: 'p@example.com', Subject: `Parallel ${i}`, Message: 'Hello.' },
          }),
        );
        expect(tally(responses)).to.deep.equal({ 200: CONTACT_LIMIT.count, 429: 4 });
        expect(await eventsOf('ContactMessageSubmitted', (d) => String(d.subject).startsWith('Parallel '))).to.have.length(
          CONTACT_LIMIT.count,
        );
      });

      it('checks 10 of 16 parallel wrong client secrets (401), refusing the rest without a check (429)', async () => {
        const address = newAddress();
        const responses = await parallel(16, (i, target) =>
          post(target, '/v1/tokens', address, { body: { ClientId: server.credentials.clientId, ClientSecret: `wrong-secret-${i}` } }),
        );
        expect(tally(responses)).to.deep.equal({ 401: 10, 429: 6 });
      });

      it('does not count a right client secret against the failures, whether sent one by one or at once', async () => {
        const address = newAddress();
        const right = { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret };
        for (let i = 0; i < 12; i++) expect((await post(server, '/v1/tokens', address, { body: right })).status).to.equal(200);
        // At once: at most 10 are checked at a time; one refused only for that may try again in a second.
        const atOnce = await parallel(12, (_, target) => post(target, '/v1/tokens', address, { body: right }));
        const counts = tally(atOnce);
        expect(counts[200]).to.be.at.least(10);
        expect((counts[200] ?? 0) + (counts[429] ?? 0)).to.equal(12);
        for (const response of atOnce.filter((r) => r.status === 429)) expect(response.headers.get('retry-after')).to.equal('1');
        const wrong = await parallel(12, (i, target) =>
          post(target, '/v1/tokens', address, { body: { ...right, ClientSecret: `wrong-${i}` } }),
        );
        expect(tally(wrong)).to.deep.equal({ 401: 10, 429: 2 });
      });
    });

    describe("counts decided on the member's stream (its expected revision)", () => {
      it('texts 3 of 6 parallel phone-code requests of one member', async () => {
        const { memberId, token } = await newMember('+31612345601');
        const responses = await parallel(6, (_, target) => target.request('POST', '/v1/me/phone-verification', { token }));
        expect(tally(responses)).to.deep.equal({ 200: 3, 429: 3 });
        expect(await eventsOf('PhoneVerificationCodeIssued', (d) => d.memberId === memberId)).to.have.length(3);
      });

      it(`counts each of 8 parallel wrong codes once: the ${MAX_FAILED_ATTEMPTS}th voids the code, and the right one no longer works`, async () => {
        const phone = '+31612345602';
        const { memberId, token } = await newMember(phone);
        expect((await server.request('POST', '/v1/me/phone-verification', { token })).status).to.equal(200);
        await settle();
        const text = (await readOutbox(path.join(server.dataDir, 'outbox'))).find((m) => m.Channel === 'sms' && m.To === phone);
        const code = /\b(\d{6})\b/.exec(text!.Body)![1];
        const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
        const responses = await parallel(8, (_, target) =>
          target.request('POST', '/v1/me/phone-verification/confirmation', { token, body: { Code: wrong } }),
        );
        expect(tally(responses)).to.deep.equal({ 400: 8 });
        const rejected = await eventsOf('PhoneVerificationCodeRejected', (d) => d.memberId === memberId);
        expect(rejected.map((e) => e.data.failedAttempts)).to.deep.equal([1, 2, 3, 4, 5]);
        expectProblem(await server.request('POST', '/v1/me/phone-verification/confirmation', { token, body: { Code: code } }), 400);
      });

      it(`watches 5 of 10 lots asked for at once by a member with ${MAX_WATCHED - 5} watched: the watchlist ends full, never over`, async () => {
        const { memberId, token } = await newMember();
        const streams = commandStreams(server.runtime.services.log);
        const at = new Date().toISOString();
        // Lots the catalogue does not have (the decider is told they exist): the list is full without 5,000 lots.
        await Promise.all(
          Array.from({ length: MAX_WATCHED - 5 }, (_, i) =>
            streams.run(watchlistStreamId('demo', memberId), watchlistDecider, {
              type: 'WatchLot',
              tenant: 'demo',
              memberId,
              lotId: 900_000 + i,
              watchType: 'watch',
              at,
              lotExists: true,
            }),
          ),
        );
        const responses = await parallel(10, (i, target) => target.request('PUT', `/v1/me/watchlist/${i + 1}`, { token }));
        const counts = tally(responses);
        expect(counts).to.deep.equal({ 200: 5, 409: 5 });
        for (const response of responses.filter((r) => r.status === 409)) expectProblem(response, 409);
        const state = await streams.fold(watchlistStreamId('demo', memberId), watchlistDecider);
        expect(state.size).to.equal(MAX_WATCHED);
      });
    });
  });
}
