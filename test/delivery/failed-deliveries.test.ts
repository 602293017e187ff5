/**
 * A failed delivery is visible to the house (PRODUCTION.md "Deliveries an operator can trust"): a mail the relay
 * refuses for its recipient (`550` to RCPT TO) and a text Twilio refuses for its number (`21211`) each end their job
 * `failed`, append MessageDeliveryFailed to the member's stream once, and reach the member's own stream (SSE), the
 * back office's feed and its webhooks. `npm run deliveries` lists them and sends one again. No log line, event or
 * listing names the address or the number. Against a real SMTP server and a server of Twilio's endpoint.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSmtpPeer, startTwilioPeer, type SmtpPeer, type TwilioPeer } from '../support/mail-servers.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { openStream, type OpenStream } from '../support/sse.ts';
import { importRecord } from '../../app/features/intake.ts';
import { listDeliveries } from '../../src/adapters/delivery/queued-outbox.ts';
import { sleep, until } from '../support/until.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('A failed delivery is visible to the house', function () {
  this.timeout(180_000);
  let smtp: SmtpPeer;
  let twilio: TwilioPeer;
  let receiver: Receiver;
  let server: TestServer;
  let stream: OpenStream;
  const logLines: string[] = [];
  const mailed = { memberId: 7201, email: 'refused.member@example.com', phone: '+46701119901' };
  const texted = { memberId: 7202, email: 'texted.member@example.com', phone: '+46701119999' };

  const backOffice = (method: string, url: string, body?: unknown) =>
    server.request(method, `/backoffice/v1${url}`, {
      apiKey: null,
      body,
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys.demo}` },
    });
  const failedEvents = async () =>
    (await server.events()).filter((e) => e.type === 'MessageDeliveryFailed') as Array<{
      type: string;
      streamId: string;
      data: Record<string, unknown>;
    }>;
  /** `npm run deliveries -- ...args` on the server's data: its exit code and output. */
  const deliveries = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'app/cli/deliveries.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: server.dataDir, LOG_LEVEL: 'warn' },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  before(async function () {
    [smtp, twilio, receiver] = await Promise.all([startSmtpPeer(), startTwilioPeer(), startReceiver()]);
    server = await startTestServer({
      logLines,
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Bidder Service <noreply@service.example.test>',
        TWILIO_ACCOUNT_SID: twilio.accountSid,
        TWILIO_AUTH_TOKEN: twilio.authToken,
        TWILIO_FROM: '+15005550006',
        TWILIO_API_URL: twilio.url,
        DELIVERY_FIRST_RETRY_MS: '100',
      },
    });
    for (const m of [mailed, texted])
      await importRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId: m.memberId,
        email: m.email,
        passwordHash: 'scrypt$disabled',
        firstName: 'Refused',
        lastName: `Member${m.memberId}`,
        language: 'en',
        phone: m.phone,
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    await server.runtime.services.projector.catchUp();
    const hook = await backOffice('POST', '/webhooks', { Url: receiver.url, Types: ['MessageDeliveryFailed'], Description: 'CRM' });
    expect(hook.status, hook.text).to.equal(200);
    receiver.secret = hook.body.Secret;
    stream = await openStream(server.base, '/v1/me/stream', {
      'Api-Key': server.credentials.apiKey,
      Authorization: `Bearer ${server.issueMemberToken('demo', mailed.memberId)}`,
    });
    expect(stream.status).to.equal(200);
    // The relay refuses the one address, naming it; Twilio the one number, naming it.
    smtp.answerRcptTo = (address) =>
      address === mailed.email ? { code: 550, message: `5.1.1 <${address}>: Recipient address rejected: User unknown` } : null;
    twilio.answer = (form) =>
      form.get('To') === texted.phone
        ? { status: 400, code: 21211, message: `The 'To' number ${texted.phone} is not a valid phone number.` }
        : null;
  });
  after(async function () {
    stream?.close();
    await server?.close();
    await Promise.all([smtp?.close(), twilio?.close(), receiver?.close()]);
  });

  it("ends a mail refused for its recipient, once: its job failed, MessageDeliveryFailed on the member's stream", async function () {
    const asked = await server.request('POST', '/v1/password-resets', {
      token: await server.anonymousToken('demo'),
      body: { Email: mailed.email },
    });
    expect(asked.status, asked.text).to.equal(200);
    const [failed] = await until(async () => {
      const jobs = await listDeliveries(server.runtime.services.jobs, ['failed']);
      return jobs.length > 0 && jobs;
    }, 'the failed job');
    expect(failed.attemptsMade, 'tried once').to.equal(1);
    expect((failed.progress as { refused: { reason: string } }).refused.reason).to.equal('recipient-refused');
    await sleep(500);
    const events = await failedEvents();
    expect(events).to.have.length(1);
    expect(events[0].streamId).to.equal(`member-demo-${mailed.memberId}`);
    expect(events[0].data).to.deep.include({
      tenant: 'demo',
      memberId: mailed.memberId,
      channel: 'mail',
      template: 'password-reset',
      reason: 'recipient-refused',
    });
    expect(events[0].data.deliveryId).to.match(/^[a-f0-9]{32}$/);
    // Nothing of the relay's answer or the address; the random id and the time are left out of the look for "550".
    const { deliveryId: _id, at: _at, ...told } = events[0].data as Record<string, unknown>;
    expect(JSON.stringify(events[0].data)).to.not.include('example.com').and.not.include('Recipient address rejected');
    expect(JSON.stringify(told)).to.not.include('550').and.not.include('5.1.1');
  });

  it("tells the member's own stream, the back office's feed and its webhook", async function () {
    const [told] = await stream.events(1, 10_000);
    expect(told.event).to.equal('delivery-failed');
    const [event] = await failedEvents();
    expect(JSON.parse(told.data!)).to.deep.equal({
      Channel: 'mail',
      Template: 'password-reset',
      Reason: 'recipient-refused',
      At: event.data.at,
    });

    const feed = await backOffice('GET', '/events?types=MessageDeliveryFailed');
    expect(feed.status, feed.text).to.equal(200);
    expect(feed.body.Items).to.have.length(1);
    expect(feed.body.Items[0]).to.deep.include({
      Type: 'MessageDeliveryFailed',
      Stream: `member-demo-${mailed.memberId}`,
      Data: event.data,
    });

    const [delivered] = await receiver.waitFor(1, 15_000);
    expect(delivered.verified).to.equal(true);
    expect(delivered.body).to.deep.equal(feed.body.Items[0]);
  });

  it('ends a text Twilio refuses for its number (21211) as invalid-number', async function () {
    const asked = await server.request('POST', '/v1/me/phone-verification', { token: server.issueMemberToken('demo', texted.memberId) });
    expect(asked.status, asked.text).to.equal(200);
    const event = await until(
      async () => (await failedEvents()).find((e) => e.data.memberId === texted.memberId) ?? null,
      'the second event',
    );
    expect(event.data).to.deep.include({ channel: 'sms', template: 'phone-code', reason: 'invalid-number' });
    expect(twilio.messages).to.deep.equal([]);
  });

  it('logs each refusal once, with the address and the number masked', async function () {
    const refusals = logLines.filter((l) => l.includes('message refused, not tried again'));
    expect(refusals).to.have.length(2);
    expect(refusals.some((l) => l.includes('<r…@example.com>: Recipient address rejected'))).to.equal(true);
    expect(refusals.some((l) => l.includes("The 'To' number +46…99 is not a valid phone number"))).to.equal(true);
    for (const secret of [mailed.email, texted.phone, texted.phone.slice(1), 'refused.member'])
      expect(
        logLines.filter((l) => l.includes(secret)),
        secret,
      ).to.deep.equal([]);
  });

  it('lists the failed deliveries for the operator, and sends one again on retry', async function () {
    const listed = await deliveries('failed', '--tenant', 'demo');
    expect(listed.code, listed.stderr).to.equal(0);
    const lines = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [mail] = (await failedEvents()).filter((e) => e.data.memberId === mailed.memberId);
    expect(lines.map((l) => l.deliveryId)).to.include(mail.data.deliveryId);
    const line = lines.find((l) => l.deliveryId === mail.data.deliveryId)!;
    expect(line).to.deep.include({
      tenant: 'demo',
      memberId: mailed.memberId,
      channel: 'mail',
      template: 'password-reset',
      state: 'failed',
    });
    expect(line.reason).to.equal('recipient-refused');
    for (const secret of [mailed.email, texted.phone]) expect(listed.stdout).to.not.include(secret);
    expect((await deliveries('held')).stdout).to.equal('');
    expect((await deliveries('failed', '--tenant', 'demo2')).stdout).to.equal('');

    // The member fixed the mailbox: the operator sends it again, and it arrives once.
    smtp.answerRcptTo = () => null;
    const retried = await deliveries('retry', String(mail.data.deliveryId));
    expect(retried.code, retried.stderr).to.equal(0);
    expect(JSON.parse(retried.stdout)).to.deep.equal({ retried: mail.data.deliveryId, tenant: 'demo' });
    await until(() => smtp.mails.some((m) => m.to === mailed.email), 'the mail sent again');
    await sleep(300);
    expect(smtp.mails.filter((m) => m.to === mailed.email)).to.have.length(1);
    expect(smtp.mails.find((m) => m.to === mailed.email)!.messageId).to.equal(`<${String(mail.data.deliveryId)}@service.example.test>`);

    const again = await deliveries('retry', String(mail.data.deliveryId));
    expect(again.code).to.equal(2);
    expect(again.stderr).to.match(/^deliveries: no failed delivery [a-f0-9]{32}/);
    expect((await deliveries('retry', 'nope')).code).to.equal(2);
    expect((await deliveries('whatever')).code).to.equal(2);
  });
});
