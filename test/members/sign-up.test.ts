/**
 * Operations 34–36: sign-up (POST /v1/members), email confirmation (POST /v1/members/confirmation) and
 * address availability (GET /v1/members/availability). Mails are read from the outbox, as a person would.
 */
import { expect } from 'chai';
import path from 'node:path';
import { readOutbox, type OutboxFile } from '../../src/adapters/embedded/file-outbox.ts';
import { OneTimeKeys } from '../../src/security/keys.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { SIGN_UP_ID_RANGE } from '../../commands/members/handlers.ts';
import { confirmationJobId, SEND_MEMBER_CONFIRMATION } from '../../commands/members/jobs.ts';
import { confirmationMailReactor } from '../../commands/members/reactors.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

const PASSWORD = 'a long enough passphrase';
const HOUR = 60 * 60_000;

describe('sign-up, email confirmation and availability (operations 34–36)', () => {
  let server: TestServer;
  let addresses = 0;
  /** Each call a client address of its own (the server trusts X-Forwarded-For here), so limits meet only where a test wants them to. */
  const fromNewAddress = () => ({ 'X-Forwarded-For': `198.51.100.${++addresses}` });
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });
  const post = async (urlPath: string, body: unknown, o: { headers?: Record<string, string>; tenant?: string } = {}) =>
    server.request('POST', urlPath, {
      token: await server.anonymousToken(o.tenant ?? 'demo'),
      body,
      headers: o.headers ?? fromNewAddress(),
    });
  const availability = async (query: string, headers: Record<string, string> = fromNewAddress()) =>
    server.request('GET', `/v1/members/availability${query}`, { token: await server.anonymousToken('demo'), headers });
  const signUp = (body: Record<string, unknown>, o: { headers?: Record<string, string>; tenant?: string } = {}) =>
    post('/v1/members', body, o);
  const signIn = (email: string, password: string, tenant = 'demo') =>
    post('/v1/sessions', { Email: email, Password: password }, { tenant });
  const confirm = (email: string, key: string, tenant = 'demo') => post('/v1/members/confirmation', { Email: email, Key: key }, { tenant });
  /** Delivered mail: the projector and the job worker have done their work. */
  const mail = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle();
    return readOutbox(path.join(server.dataDir, 'outbox'));
  };
  const mailsTo = async (to: string) => (await mail()).filter((m) => m.To === to);
  const keyOf = (message: OutboxFile) => {
    const match = /^([A-Za-z0-9_-]{32})$/m.exec(message.Body);
    if (!match) throw new Error(`no key in ${message.Body}`);
    return match[1];
  };
  const problemOf = (p: { type: string; title: string; detail: string; errors?: unknown }) => ({
    type: p.type,
    title: p.title,
    detail: p.detail,
    errors: p.errors,
  });

  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  after(async () => server?.close());

  describe('the journey: sign up, read the mail, confirm, sign in', () => {
    let id: number;
    let key: string;
    const email = 'anna.berg@example.com';

    it('answers 200 {Id} with an int32 id, and appends the address claim, the member and its confirmation key (never the password or the key)', async () => {
      const before = await head();
      const response = await signUp({
        Email: 'Anna.Berg@Example.com',
        Password: PASSWORD,
        FirstName: ' Anna ',
        LastName: 'Berg',
        Language: 'sv',
        Phone: '+46 70 123 45 67',
        // Server-owned MemberDto fields, and unknown ones: ignored.
        Id: 5,
        Validated: true,
        Roles: ['consigner'],
        IsConsigner: true,
        SmsVerificationCompleted: true,
        City: 'Lund',
      });
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.have.all.keys('Id');
      id = response.body.Id;
      expect(id).to.be.a('number').within(SIGN_UP_ID_RANGE.min, SIGN_UP_ID_RANGE.max);

      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['MemberEmailClaimed', 'MemberSignedUp', 'MemberConfirmationKeyIssued']);
      expect(events[0].data).to.include({ tenant: 'demo', email, memberId: id });
      expect(events[1].streamId).to.equal(`member-demo-${id}`);
      expect(events[1].data).to.include({
        tenant: 'demo',
        memberId: id,
        email,
        firstName: 'Anna',
        lastName: 'Berg',
        language: 'sv',
        phone: '+46701234567',
      });
      expect(String(events[1].data.passwordHash)).to.match(/^scrypt\$/);
      const issued = events[2].data;
      expect(Date.parse(String(issued.expiresAt)) - Date.parse(String(issued.issuedAt))).to.equal(24 * HOUR);
      expect(JSON.stringify(events)).to.not.include(PASSWORD);
    });

    it('mails the confirmation key to the address, once; the log holds only its hash', async () => {
      const mails = await mailsTo(email);
      expect(mails).to.have.length(1);
      expect(mails[0]).to.include({ Channel: 'mail', Tenant: 'demo' });
      // In the language Anna chose at sign-up (Swedish), not the house's first.
      expect(mails[0].Subject).to.equal('Demo Auctions: bekräfta din e-postadress');
      expect(mails[0].Body).to.match(/^Hej Anna,\n\ntack för att du registrerade dig som budgivare hos Demo Auctions/);
      key = keyOf(mails[0]);
      const events = await server.events();
      const issued = events.find((e) => e.type === 'MemberConfirmationKeyIssued' && e.data.memberId === id)!;
      expect(issued.data.keyHash).to.equal(OneTimeKeys.hash(key));
      expect(JSON.stringify(events)).to.not.include(key);

      // The same job again (the reactor's, after a crash) and a retried send: still one mail.
      const jobs = server.runtime.services.jobs;
      const job = { tenant: 'demo', memberId: id, keyId: issued.data.keyId };
      expect(
        (await jobs.add(SEND_MEMBER_CONFIRMATION, job, { jobId: confirmationJobId('demo', String(issued.data.keyId)) })).added,
      ).to.equal(false);
      await jobs.add(SEND_MEMBER_CONFIRMATION, job, { jobId: `retry-${issued.data.keyId}`, attempts: 1 });
      expect(await mailsTo(email)).to.have.length(1);
    });

    it('answers 403 to a sign-in with the right password until the address is confirmed', async () => {
      expectProblem(await signIn(email, PASSWORD), 403);
      expectProblem(await signIn(email, 'not the password at all'), 401);
    });

    it('confirms the address with the key (200 {Validated: true}), after which the member signs in and is Validated', async () => {
      const before = await head();
      const response = await confirm('ANNA.BERG@example.com', key);
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ Validated: true });
      expect((await since(before)).map((e) => [e.type, e.data.memberId])).to.deep.equal([['MemberEmailConfirmed', id]]);

      const session = await signIn(email, PASSWORD);
      expect(session.status, session.text).to.equal(200);
      const me = await server.request('GET', '/v1/me', { token: session.body.Token });
      expect(me.status, me.text).to.equal(200);
      expect(me.body).to.include({
        Id: id,
        Email: email,
        FirstName: 'Anna',
        LastName: 'Berg',
        Language: 'sv',
        Validated: true,
        IsConsigner: false,
      });
      expect(me.text).to.not.include(key);
    });

    it('takes a key once: the same key again is 400', async () => {
      const before = await head();
      const problem = expectProblem(await confirm(email, key), 400);
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.Key']);
      expect(await head()).to.equal(before);
    });

    it('answers 409 to the same address again, in any case; the address signs up in another tenant', async () => {
      const before = await head();
      expectProblem(await signUp({ Email: email, Password: PASSWORD }), 409, 'email-taken');
      expectProblem(await signUp({ Email: 'ANNA.berg@EXAMPLE.com', Password: PASSWORD }), 409, 'email-taken');
      expect(await head()).to.equal(before);
      const other = await signUp({ Email: email, Password: PASSWORD }, { tenant: 'demo2' });
      expect(other.status, other.text).to.equal(200);
    });
  });

  it('answers 409 to the address of the imported demo member, in any case, appending nothing', async () => {
    const before = await head();
    for (const address of ['bidder@example.com', 'Bidder@Example.COM']) {
      const problem = expectProblem(await signUp({ Email: address, Password: PASSWORD }), 409);
      expect(problem.detail).to.match(/already registered/);
    }
    expect(await head()).to.equal(before);
  });

  it('gives one of several parallel sign-ups with one address the account, and 409 to the others', async () => {
    const email = 'parallel@example.com';
    const responses = await Promise.all([1, 2, 3].map(() => signUp({ Email: email, Password: PASSWORD })));
    expect(responses.map((r) => r.status).sort()).to.deep.equal([200, 409, 409]);
    const created = (await server.events()).filter((e) => e.type === 'MemberSignedUp' && e.data.email === email);
    expect(created).to.have.length(1);
  });

  it('answers the same 400 to a wrong key, an expired key and an address with no account, appending nothing', async () => {
    const email = 'late.confirmer@example.com';
    expect((await signUp({ Email: email, Password: PASSWORD })).status).to.equal(200);
    const key = keyOf((await mailsTo(email))[0]);
    const before = await head();
    const wrong = expectProblem(await confirm(email, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 400);
    const unknown = expectProblem(await confirm('nobody.here@example.com', key), 400);
    const services = server.runtime.services;
    const realNow = services.now;
    services.now = () => new Date(Date.now() + 24 * HOUR + 1000);
    let expired;
    try {
      expired = expectProblem(await confirm(email, key), 400);
    } finally {
      services.now = realNow;
    }
    expect(problemOf(unknown)).to.deep.equal(problemOf(wrong));
    expect(problemOf(expired)).to.deep.equal(problemOf(wrong));
    expect(await head()).to.equal(before);
    // Within its 24 hours the key still works.
    expect((await confirm(email, key)).status).to.equal(200);
  });

  it('answers 400 naming each bad field, before any limit or write', async () => {
    const before = await head();
    const headers = fromNewAddress();
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{}, ['body.Email', 'body.Password']],
      [{ Email: 'not-an-address', Password: PASSWORD }, ['body.Email']],
      [{ Email: 'short@example.com', Password: '123456789' }, ['body.Password']],
      [{ Email: 'long@example.com', Password: 'x'.repeat(129) }, ['body.Password']],
      [{ Email: 'Same.As.Email@example.com', Password: 'same.as.email@EXAMPLE.com' }, ['body.Password']],
      [{ Email: 'lang@example.com', Password: PASSWORD, Language: 'fr' }, ['body.Language']],
      [{ Email: 'lang@example.com', Password: PASSWORD, Language: 'EN_us' }, ['body.Language']],
      [{ Email: 'phone@example.com', Password: PASSWORD, Phone: 'call me maybe' }, ['body.Phone']],
      [{ Email: 'name@example.com', Password: PASSWORD, FirstName: 'x'.repeat(201) }, ['body.FirstName']],
      [{ Email: 42, Password: false }, ['body.Email', 'body.Password']],
    ];
    for (let i = 0; i < 2; i++)
      for (const [body, fields] of cases) {
        const problem = expectProblem(await signUp(body, { headers }), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body),
        ).to.have.members(fields);
      }
    expect(await head()).to.equal(before);
    // Twenty bad requests from that address, and it can still sign up (409 here: the address is taken, but it was not a 429).
    expectProblem(await signUp({ Email: 'bidder@example.com', Password: PASSWORD }, { headers }), 409);
  });

  it('limits sign-ups per client address: the 11th in an hour is 429 with Retry-After; another address is not limited', async () => {
    const headers = fromNewAddress();
    for (let i = 0; i < 10; i++) expectProblem(await signUp({ Email: 'bidder@example.com', Password: PASSWORD }, { headers }), 409);
    const limited = await signUp({ Email: 'new.person@example.com', Password: PASSWORD }, { headers });
    expectProblem(limited, 429, 'rate-limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 3600);
    expectProblem(await signUp({ Email: 'bidder@example.com', Password: PASSWORD }), 409);
  });

  it('needs a token of the tenant: none is 401', async () => {
    expectProblem(await server.request('POST', '/v1/members', { body: { Email: 'x@example.com', Password: PASSWORD } }), 401);
    expectProblem(await server.request('POST', '/v1/members/confirmation', { body: { Email: 'x@example.com', Key: 'k' } }), 401);
    expectProblem(await server.request('GET', '/v1/members/availability?email=x@example.com'), 401);
  });

  it("makes the reactor add the sign-up's own job (one mail), so a crash between the append and the job loses nothing", async () => {
    const email = 'reactor@example.com';
    const before = await head();
    expect((await signUp({ Email: email, Password: PASSWORD })).status).to.equal(200);
    const issued = (await since(before)).find((e) => e.type === 'MemberConfirmationKeyIssued')!;
    const added: Array<{ name: string; jobId: string }> = [];
    const reactor = confirmationMailReactor({
      jobs: {
        add: async (name: string, _data: unknown, o: { jobId: string }) => (
          added.push({ name, jobId: o.jobId }),
          { id: o.jobId, added: true }
        ),
      } as never,
      documents: server.runtime.services.documents,
    });
    await reactor.react(issued);
    expect(added).to.deep.equal([{ name: SEND_MEMBER_CONFIRMATION, jobId: confirmationJobId('demo', String(issued.data.keyId)) }]);
    expect(await mailsTo(email)).to.have.length(1);
  });

  describe('GET /v1/members/availability (operation 36)', () => {
    it('says whether an address can still sign up, without regard to case, appending nothing', async () => {
      const before = await head();
      for (const [address, available] of [
        ['free.address@example.com', true],
        ['bidder@example.com', false],
        ['BIDDER@Example.com', false],
        ['anna.berg@example.com', false],
      ] as const) {
        const response = await availability(`?email=${encodeURIComponent(address)}`);
        expect(response.status, response.text).to.equal(200);
        expect(response.body, address).to.deep.equal({ Available: available });
      }
      // Query names are matched case-insensitively.
      expect((await availability('?Email=bidder%40example.com')).body).to.deep.equal({ Available: false });
      expect(await head()).to.equal(before);
    });

    it('is false as soon as a sign-up answered, confirmed or not', async () => {
      expect((await signUp({ Email: 'fresh.signup@example.com', Password: PASSWORD })).status).to.equal(200);
      expect((await availability('?email=fresh.signup%40example.com')).body).to.deep.equal({ Available: false });
    });

    it('answers 400 to a missing or malformed address', async () => {
      for (const query of ['', '?email=', '?email=not-an-address', `?email=${'a'.repeat(320)}%40example.com`]) {
        const problem = expectProblem(await availability(query), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          query,
        ).to.deep.equal(['query.email']);
      }
    });

    it('limits look-ups per client address: the 61st in an hour is 429 with Retry-After', async () => {
      const headers = fromNewAddress();
      for (let i = 0; i < 60; i++) expect((await availability(`?email=probe${i}%40example.com`, headers)).status).to.equal(200);
      const limited = await availability('?email=probe%40example.com', headers);
      expectProblem(limited, 429);
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 3600);
      expect((await availability('?email=probe%40example.com')).status).to.equal(200);
    });
  });
});
