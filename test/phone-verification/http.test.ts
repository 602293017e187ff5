/**
 * Operations 40 and 41: POST /v1/me/phone-verification (a code by SMS to the profile's phone) and
 * POST /v1/me/phone-verification/confirmation (the code sets SmsVerificationCompleted). The texts are read
 * from the outbox, as a person would read their phone.
 */
import { expect } from 'chai';
import path from 'node:path';
import { importRecord } from '../../app/features/intake.ts';
import { SEND_PHONE_CODE } from '../../commands/phone-verification/jobs.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

describe('phone verification (operations 40 and 41)', () => {
  let server: TestServer;
  let nextMember = 300;
  let clockOffsetMs = 0;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 10_000 });
  const requestCode = (token?: string) => server.request('POST', '/v1/me/phone-verification', { token });
  const confirm = (token: string | undefined, body: unknown) =>
    server.request('POST', '/v1/me/phone-verification/confirmation', { token, body });
  const me = async (token: string) => (await server.request('GET', '/v1/me', { token })).body;
  /** Moves the service's clock forward. */
  const advance = (ms: number) => {
    clockOffsetMs += ms;
  };

  /** A new member (with a phone, or none), and its token. */
  async function newMember(tenant = 'demo', phone = '+31612345678') {
    const memberId = ++nextMember;
    await importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant,
      memberId,
      email: `phone${memberId}@example.com`,
      passwordHash: 'scrypt$disabled',
      firstName: 'Piet',
      lastName: `Phone${memberId}`,
      language: 'en',
      phone,
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
    return { memberId, token: server.issueMemberToken(tenant, memberId) };
  }

  /** The texts sent so far to a number, oldest first, once the background work is done. */
  async function texts(to: string) {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(30_000);
    const all = await readOutbox(path.join(server.dataDir, 'outbox'));
    return all.filter((m) => m.Channel === 'sms' && m.To === to).sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));
  }

  /** Asks for a code and reads it from the text it sent. */
  async function codeFor(token: string, phone: string) {
    const before = (await texts(phone)).length;
    const response = await requestCode(token);
    expect(response.status, response.text).to.equal(200);
    const sent = await texts(phone);
    expect(sent, 'one new text').to.have.length(before + 1);
    const code = /\b(\d{6})\b/.exec(sent[sent.length - 1].Body)?.[1];
    expect(code, sent[sent.length - 1].Body).to.be.a('string');
    return code!;
  }

  before(async () => {
    server = await startTestServer();
    const services = server.runtime.services;
    services.now = () => new Date(Date.now() + clockOffsetMs);
  });
  after(async () => server?.close());

  it("texts a 6-digit code to the profile's phone, valid 10 minutes, and keeps neither the code nor a hash of it in the log", async () => {
    const { memberId, token } = await newMember();
    const before = await head();
    const response = await requestCode(token);
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.have.all.keys('Phone', 'ExpiresAt');
    expect(response.body.Phone).to.equal('+31612345678');
    const ttl = Date.parse(response.body.ExpiresAt) - Date.now();
    expect(ttl).to.be.within(9 * 60_000, 10 * 60_000 + 1000);

    const events = await since(before);
    expect(events.map((e) => e.type)).to.deep.equal(['PhoneVerificationCodeIssued']);
    expect(events[0].streamId).to.equal(`phone-demo-${memberId}`);
    expect(events[0].data).to.include({ tenant: 'demo', memberId, phone: '+31612345678', expiresAt: response.body.ExpiresAt });

    const [text] = await texts('+31612345678').then((all) =>
      all.filter((m) => m.Id === `phone-code-demo-${(events[0].data as any).codeId}`),
    );
    expect(text).to.include({ Channel: 'sms', Tenant: 'demo', To: '+31612345678' });
    const code = /\b(\d{6})\b/.exec(text.Body)![1];
    expect(text.Body).to.match(/10 minutes/);
    const logged = JSON.stringify(events);
    expect(logged).to.not.include(code);
    expect(logged).to.not.match(/[0-9a-f]{64}/);
  });

  it('confirms the phone with the code: SmsVerificationCompleted is set, and a GET right after shows it', async () => {
    const { memberId, token } = await newMember();
    expect((await me(token)).SmsVerificationCompleted).to.equal(false);
    const code = await codeFor(token, '+31612345678');
    const before = await head();
    const response = await confirm(token, { Code: code });
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.deep.equal({ Phone: '+31612345678', SmsVerificationCompleted: true });
    const events = await since(before);
    expect(events.map((e) => e.type)).to.deep.equal(['MemberPhoneVerified']);
    expect(events[0].data).to.include({ tenant: 'demo', memberId, phone: '+31612345678' });
    expect(await me(token)).to.include({ Phone: '+31612345678', SmsVerificationCompleted: true });
  });

  it('takes a code once: a used code is a 400, and appends nothing', async () => {
    const { token } = await newMember();
    const code = await codeFor(token, '+31612345678');
    expect((await confirm(token, { Code: code })).status).to.equal(200);
    const before = await head();
    const problem = expectProblem(await confirm(token, { Code: code }), 400, 'verification-code-invalid');
    expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.Code']);
    expect(await head()).to.equal(before);
  });

  it('counts wrong codes in the log, and the 5th voids the code: the right one is refused then', async () => {
    const { token } = await newMember();
    const code = await codeFor(token, '+31612345678');
    const wrong = code === '000000' ? '111111' : '000000';
    const before = await head();
    for (let i = 1; i <= 5; i++) {
      const problem = expectProblem(await confirm(token, { Code: wrong }), 400, 'verification-code-invalid');
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.Code']);
      expect(problem.detail).to.match(i < 5 ? new RegExp(`${5 - i} more`) : /void/);
    }
    const events = await since(before);
    expect(events.map((e) => e.type)).to.deep.equal(Array(5).fill('PhoneVerificationCodeRejected'));
    expect(events.map((e) => e.data.failedAttempts)).to.deep.equal([1, 2, 3, 4, 5]);

    const after = await head();
    expectProblem(await confirm(token, { Code: code }), 400);
    expect(await head()).to.equal(after);
    expect((await me(token)).SmsVerificationCompleted).to.equal(false);

    // A new code works again.
    const fresh = await codeFor(token, '+31612345678');
    expect((await confirm(token, { Code: fresh })).status).to.equal(200);
  });

  it('refuses a code after its 10 minutes, and appends nothing', async () => {
    const { token } = await newMember();
    const code = await codeFor(token, '+31612345678');
    advance(10 * 60_000 + 1000);
    const before = await head();
    expectProblem(await confirm(token, { Code: code }), 400);
    expect(await head()).to.equal(before);
    expect((await me(token)).SmsVerificationCompleted).to.equal(false);
  });

  it('accepts only the latest code: asking again voids the previous one', async () => {
    const { token } = await newMember();
    const first = await codeFor(token, '+31612345678');
    const second = await codeFor(token, '+31612345678');
    if (first !== second) expectProblem(await confirm(token, { Code: first }), 400);
    expect((await confirm(token, { Code: second })).status).to.equal(200);
  });

  it('sends at most 3 codes per member an hour: then 429 with Retry-After, appending nothing; an hour later again', async () => {
    const { token } = await newMember('demo', '+31687654321');
    for (let i = 0; i < 3; i++) expect((await requestCode(token)).status).to.equal(200);
    const before = await head();
    const textsBefore = (await texts('+31687654321')).length;
    const limited = await requestCode(token);
    expectProblem(limited, 429, 'rate-limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(3500, 3600);
    expect(await head()).to.equal(before);
    expect(await texts('+31687654321')).to.have.length(textsBefore);

    // Another member is not limited by this one.
    const other = await newMember('demo', '+31687654321');
    expect((await requestCode(other.token)).status).to.equal(200);

    advance(retryAfter * 1000);
    expect((await requestCode(token)).status).to.equal(200);
  });

  it('answers 400 when the profile has no phone, and appends nothing', async () => {
    const { token } = await newMember('demo', '');
    const before = await head();
    const problem = expectProblem(await requestCode(token), 400, 'phone-number-required');
    expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['profile.Phone']);
    expect(problem.detail).to.match(/no phone/);

    // Also after a replacement that leaves the phone out.
    const { token: other } = await newMember();
    expect((await server.request('PUT', '/v1/me', { token: other, body: { FirstName: 'Piet' } })).status).to.equal(200);
    const mid = await head();
    expectProblem(await requestCode(other), 400, 'phone-number-required');
    expect(await head()).to.equal(mid);
    expect(mid).to.be.greaterThan(before);
  });

  it("texts the phone as the profile has it now (the house's country for a national number)", async () => {
    const { token } = await newMember('demo2', '');
    expect((await server.request('PUT', '/v1/me', { token, body: { Phone: '070-123 45 99' } })).status).to.equal(200);
    const response = await requestCode(token);
    expect(response.body.Phone).to.equal('+46701234599');
    expect(await texts('+46701234599')).to.have.length(1);
  });

  it('clears SmsVerificationCompleted when the phone changes, and a code sent to the old phone no longer verifies', async () => {
    const { token } = await newMember();
    const code = await codeFor(token, '+31612345678');
    expect((await confirm(token, { Code: code })).status).to.equal(200);

    const changed = await server.request('PUT', '/v1/me', { token, body: { Phone: '+31 6 11112222' } });
    expect(changed.body).to.include({ Phone: '+31611112222', SmsVerificationCompleted: false });
    expect((await me(token)).SmsVerificationCompleted).to.equal(false);

    // Changing back is a change too: the old number is not verified again by itself.
    const back = await server.request('PUT', '/v1/me', { token, body: { Phone: '+31612345678' } });
    expect(back.body.SmsVerificationCompleted).to.equal(false);

    // A code texted before a change does not verify the new phone.
    const pending = await codeFor(token, '+31612345678');
    expect((await server.request('PUT', '/v1/me', { token, body: { Phone: '+31633334444' } })).status).to.equal(200);
    const before = await head();
    const problem = expectProblem(await confirm(token, { Code: pending }), 400);
    expect(problem.detail).to.match(/another phone number/);
    expect(await head()).to.equal(before);
    expect((await me(token)).SmsVerificationCompleted).to.equal(false);

    // The new phone is verified with a code of its own; the rest of the profile keeps it verified.
    const own = await codeFor(token, '+31633334444');
    expect((await confirm(token, { Code: own })).body).to.deep.equal({ Phone: '+31633334444', SmsVerificationCompleted: true });
    const other = await server.request('PUT', '/v1/me', { token, body: { Phone: '+31633334444', City: 'Utrecht' } });
    expect(other.body).to.include({ City: 'Utrecht', SmsVerificationCompleted: true });
  });

  it('texts once when its job is duplicated or retried (one outbox message per code)', async () => {
    const { memberId, token } = await newMember('demo', '+31655556666');
    const before = await head();
    await codeFor(token, '+31655556666');
    const issued = (await since(before)).find((e) => e.type === 'PhoneVerificationCodeIssued')!;
    const codeId = (issued.data as any).codeId as string;
    const jobs = server.runtime.services.jobs;
    const data = { tenant: 'demo', memberId, codeId };
    expect((await jobs.add(SEND_PHONE_CODE, data, { jobId: `phone-code-demo-${codeId}` })).added).to.equal(false);
    await jobs.add(SEND_PHONE_CODE, data, { jobId: `phone-code-demo-${codeId}-retry`, attempts: 1 });
    const sent = await texts('+31655556666');
    expect(sent).to.have.length(1);
    expect(sent[0].Id).to.equal(`phone-code-demo-${codeId}`);
  });

  it('answers 400 naming body.Code for a code that is not 6 digits, and appends nothing', async () => {
    const { token } = await newMember();
    await codeFor(token, '+31612345678');
    const before = await head();
    for (const body of [
      {},
      { Code: '12345' },
      { Code: '1234567' },
      { Code: 'abcdef' },
      { Code: 123456 },
      { Code: null },
      { Code: ' 123456' },
    ]) {
      const problem = expectProblem(await confirm(token, body), 400);
      expect(
        problem.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).to.include('body.Code');
    }
    expectProblem(await server.request('POST', '/v1/me/phone-verification/confirmation', { token }), 400);
    expect(await head()).to.equal(before);
  });

  it('answers 401 without a member token, and appends nothing', async () => {
    const before = await head();
    expectProblem(await requestCode(), 401);
    expectProblem(await requestCode(await server.anonymousToken('demo')), 401);
    expectProblem(await confirm(undefined, { Code: '123456' }), 401);
    expectProblem(await confirm(await server.anonymousToken('demo'), { Code: '123456' }), 401);
    expect(await head()).to.equal(before);
  });

  it("verifies only the caller's phone: another member, and the same member id in another tenant, stay as they were", async () => {
    const a = await newMember('demo', '+31622223333');
    const b = await newMember('demo', '+31622223333');
    const code = await codeFor(a.token, '+31622223333');
    // b has no code of its own: a's code means nothing for b.
    expectProblem(await confirm(b.token, { Code: code }), 400);
    expect((await confirm(a.token, { Code: code })).status).to.equal(200);
    expect((await me(a.token)).SmsVerificationCompleted).to.equal(true);
    expect((await me(b.token)).SmsVerificationCompleted).to.equal(false);

    // The demo member: verified in demo (the demo data), not in demo2.
    expect((await me(server.issueMemberToken('demo', 1))).SmsVerificationCompleted).to.equal(true);
    expect((await me(server.issueMemberToken('demo2', 1))).SmsVerificationCompleted).to.equal(false);
  });
});
