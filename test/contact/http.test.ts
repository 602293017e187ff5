/**
 * Operation 54: POST /v1/contact, delivered in the background to the tenant's contact address.
 */
import { expect } from 'chai';
import path from 'node:path';
import { DELIVER_CONTACT } from '../../commands/contact/jobs.ts';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /v1/contact (operation 54)', () => {
  let server: TestServer;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });
  const outbox = () => readOutbox(path.join(server.dataDir, 'outbox'));
  const delivered = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle();
    return outbox();
  };
  const message = (overrides: Record<string, unknown> = {}) => ({
    Name: 'Ada Lovelace',
    Email: 'ada@example.org',
    Subject: 'Condition of lot 5',
    Message: 'Is the frame original?\nThanks, Ada',
    LotId: 5,
    ...overrides,
  });
  const send = async (body: unknown, tenant = 'demo', token?: string | null) =>
    server.request('POST', '/v1/contact', { token: token === undefined ? await server.anonymousToken(tenant) : token, body });

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it('answers 200 {Id} and appends one ContactMessageSubmitted', async () => {
    const before = await head();
    const response = await send(message());
    expect(response.status, response.text).to.equal(200);
    expect(response.body).to.have.all.keys('Id');
    expect(response.body.Id).to.match(UUID);
    const events = await since(before);
    expect(events.map((e) => e.type)).to.deep.equal(['ContactMessageSubmitted']);
    expect(events[0].streamId).to.equal(`contact-demo-${response.body.Id}`);
    expect(events[0].data).to.include({
      tenant: 'demo',
      messageId: response.body.Id,
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      subject: 'Condition of lot 5',
      message: 'Is the frame original?\nThanks, Ada',
      lotId: 5,
      memberId: null,
    });
  });

  it("writes one mail to the tenant's contact address in the outbox, with the message, exactly once even if the job is added twice", async () => {
    const response = await send(message({ Subject: 'Delivery check', Message: 'Please call me back about shipping.' }));
    expect(response.status, response.text).to.equal(200);
    const id = response.body.Id;

    const mails = (await delivered()).filter((m) => m.Id === `contact-${id}`);
    expect(mails).to.have.length(1);
    const [mail] = mails;
    expect(mail).to.include({ Channel: 'mail', Tenant: 'demo', To: 'contact@demo.example.com', ReplyTo: 'ada@example.org' });
    expect(mail.Subject).to.include('Delivery check');
    expect(mail.Body).to.include('Please call me back about shipping.');
    expect(mail.Body).to.include('Ada Lovelace');
    expect(mail.Body).to.include('Lot: 5');
    const total = (await outbox()).length;

    // The same job again (a replayed event), and the same delivery under another job id (a retried send).
    const jobs = server.runtime.services.jobs;
    const again = await jobs.add(DELIVER_CONTACT, { tenant: 'demo', messageId: id }, { jobId: `contact-${id}` });
    expect(again.added).to.equal(false);
    await jobs.add(DELIVER_CONTACT, { tenant: 'demo', messageId: id }, { jobId: `contact-${id}-retry`, attempts: 1 });
    const after = await delivered();
    expect(after.filter((m) => m.Id === `contact-${id}`)).to.have.length(1);
    expect(after).to.have.length(total);
  });

  it('records the member of a member token and leaves LotId out when it is not given', async () => {
    const before = await head();
    const response = await send(message({ LotId: undefined, Subject: 'General question' }), 'demo', await server.memberToken('demo'));
    expect(response.status, response.text).to.equal(200);
    const [event] = await since(before);
    expect(event.data).to.include({ memberId: 1, lotId: null });
    const mail = (await delivered()).find((m) => m.Id === `contact-${response.body.Id}`);
    expect(mail).to.not.equal(undefined);
    expect(mail!.Body).to.include('Member: 1');
    expect(mail!.Body).to.not.include('Lot:');
  });

  it("delivers a message sent with another tenant's token to that tenant's contact address", async () => {
    const response = await send(message({ LotId: 7 }), 'demo2');
    expect(response.status, response.text).to.equal(200);
    const mail = (await delivered()).find((m) => m.Id === `contact-${response.body.Id}`);
    expect(mail).to.include({ Tenant: 'demo2', To: 'contact@demo2.example.com' });
  });

  it('answers 400 naming the field for an invalid email or a missing or blank field, and appends nothing', async () => {
    const before = await head();
    const mailsBefore = (await outbox()).length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [message({ Email: 'not-an-email' }), 'body.Email'],
      [message({ Email: 'ada@' }), 'body.Email'],
      [message({ Email: undefined }), 'body.Email'],
      [message({ Name: undefined }), 'body.Name'],
      [message({ Name: '   ' }), 'body.Name'],
      [message({ Subject: undefined }), 'body.Subject'],
      [message({ Subject: '' }), 'body.Subject'],
      [message({ Message: undefined }), 'body.Message'],
      [message({ Message: 'x'.repeat(5001) }), 'body.Message'],
      [message({ LotId: 0 }), 'body.LotId'],
      [message({ LotId: '5' }), 'body.LotId'],
      [message({ LotId: 1.5 }), 'body.LotId'],
      [message({ LotId: 2147483648 }), 'body.LotId'],
    ];
    for (const [body, field] of cases) {
      const problem = expectProblem(await send(body), 400);
      expect(
        problem.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body).slice(0, 120),
      ).to.include(field);
    }
    expectProblem(await send({}), 400);
    expectProblem(await server.request('POST', '/v1/contact', { token: await server.anonymousToken('demo') }), 400);
    expect(await head()).to.equal(before);
    expect((await delivered()).length).to.equal(mailsBefore);
  });

  it('answers 404 for an unknown LotId or a lot of another tenant, and appends nothing', async () => {
    const before = await head();
    expectProblem(await send(message({ LotId: 999_999 })), 404);
    // demo2 has lots 1..60; lot 100 exists in demo only.
    expectProblem(await send(message({ LotId: 100 }), 'demo2'), 404);
    expect(await head()).to.equal(before);
  });

  it('answers 401 with no token or no Api-Key, and appends nothing', async () => {
    const before = await head();
    expectProblem(await send(message(), 'demo', null), 401);
    expectProblem(
      await server.request('POST', '/v1/contact', { apiKey: null, token: await server.anonymousToken('demo'), body: message() }),
      401,
    );
    expect(await head()).to.equal(before);
  });

  // Last: it uses up this address's allowance for demo.
  it('answers 429 with Retry-After once 10 messages came from one address, and the 429 appends nothing', async () => {
    let limited: TestResponse | null = null;
    let accepted = 0;
    for (let i = 0; i < 12 && !limited; i++) {
      const response = await send(message({ Subject: `Flood ${i}` }));
      if (response.status === 429) limited = response;
      else {
        expect(response.status, response.text).to.equal(200);
        accepted++;
      }
    }
    expect(limited, 'no 429 within 12 messages').to.not.equal(null);
    expectProblem(limited!, 429, 'rate-limited');
    expect(accepted).to.be.greaterThan(0);
    // Every demo message of this file so far was sent from this address: the 429 comes once 10 were sent
    // (one request of the 404 test also reached the limiter, so 9 or 10 were stored).
    const stored = (await server.events()).filter((e) => e.type === 'ContactMessageSubmitted' && e.data.tenant === 'demo').length;
    expect(stored).to.be.within(9, 10);
    const retryAfter = Number(limited!.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600, `Retry-After ${retryAfter}`).to.equal(true);

    const before = await head();
    expectProblem(await send(message()), 429);
    // A forwarded-for header does not make a new address (trust proxy is off).
    expectProblem(
      await server.request('POST', '/v1/contact', {
        token: await server.anonymousToken('demo'),
        body: message(),
        headers: { 'X-Forwarded-For': '203.0.113.9' },
      }),
      429,
    );
    expect(await head()).to.equal(before);

    // The allowance is per tenant.
    expect((await send(message({ LotId: 7 }), 'demo2')).status).to.equal(200);
  });
});
