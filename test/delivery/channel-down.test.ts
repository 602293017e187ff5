/**
 * A wrong setting loses no message (PRODUCTION.md "Deliveries an operator can trust"): with a password the SMTP
 * server refuses (`535`) and a Twilio token Twilio refuses (`401`), the channels are down from the start-up check
 * on, said once each in the log, in /readyz and in /metrics; every message waits, none is refused or recorded as
 * failed. Started again on the same data with the right settings, the service sends each of them, once. Against a
 * real SMTP server that asks for a login and a server of Twilio's endpoints (test/support/mail-servers.ts).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSmtpPeer, startTwilioPeer, type SmtpPeer, type TwilioPeer } from '../support/mail-servers.ts';
import { importRecord } from '../../app/features/intake.ts';
import { listDeliveries } from '../../src/adapters/delivery/queued-outbox.ts';
import { sleep, until } from '../support/until.ts';

const LOGIN = { user: 'bidder-service', pass: 'the right password' };

describe('A wrong delivery setting loses no message', function () {
  this.timeout(180_000);
  let smtp: SmtpPeer;
  let twilio: TwilioPeer;
  let dataDir: string;
  let server: TestServer | null = null;
  const firstLog: string[] = [];
  const secondLog: string[] = [];
  const members = [
    { memberId: 7101, email: 'held.one@example.com', phone: '+46701110001' },
    { memberId: 7102, email: 'held.two@example.com', phone: '+46701110002' },
    { memberId: 7103, email: 'held.three@example.com', phone: '+46701110003' },
  ];
  let addresses = 0;

  const env = (password: string, token: string) => ({
    TRUST_PROXY: 'true',
    SMTP_URL: `smtp://${LOGIN.user}:${encodeURIComponent(password)}@${new URL(smtp.url).host}`,
    MAIL_FROM: 'Bidder Service <noreply@service.example.test>',
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: token,
    TWILIO_FROM: '+15005550006',
    TWILIO_API_URL: twilio.url,
    DELIVERY_FIRST_RETRY_MS: '100',
  });
  const heldJobs = async (states: Array<'waiting' | 'active' | 'delayed' | 'failed' | 'completed'>) =>
    (await listDeliveries(server!.runtime.services.jobs, states)).filter((job) =>
      members.some((m) => (job.data as { memberId?: number }).memberId === m.memberId),
    );

  before(async function () {
    [smtp, twilio] = await Promise.all([startSmtpPeer({ auth: LOGIN }), startTwilioPeer()]);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-channel-down-'));
  });
  after(async function () {
    await server?.close();
    await Promise.all([smtp?.close(), twilio?.close()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('holds every mail and text while the password and the token are wrong: the channels are down, said once, nothing is refused', async function () {
    server = await startTestServer({ dataDir, logLines: firstLog, env: env('a wrong password', 'a wrong token') });
    // The start-up check finds both before any message is sent.
    await until(
      () => firstLog.some((l) => l.includes('mail channel down')) && firstLog.some((l) => l.includes('sms channel down')),
      'the start-up check',
    );
    const ready = await server.request('GET', '/readyz', { apiKey: null, token: server.operatorToken });
    expect(ready.status, 'the process serves all the same').to.equal(200);
    expect(ready.body.deliveries.mail).to.include({ state: 'down', about: 'SMTP authentication refused' });
    expect(ready.body.deliveries.sms).to.include({ state: 'down', about: 'Twilio credentials refused' });
    const metrics = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
    expect(metrics).to.match(/^bidder_delivery_channel_down\{channel="mail"[^}]*\} 1$/m);
    expect(metrics).to.match(/^bidder_delivery_channel_down\{channel="sms"[^}]*\} 1$/m);

    for (const m of members) {
      await importRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId: m.memberId,
        email: m.email,
        passwordHash: 'scrypt$disabled',
        firstName: 'Held',
        lastName: `Member${m.memberId}`,
        language: 'en',
        phone: m.phone,
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    }
    await server.runtime.services.projector.catchUp();
    const token = await server.anonymousToken('demo');
    for (const m of members) {
      const asked = await server.request('POST', '/v1/password-resets', {
        token,
        body: { Email: m.email },
        headers: { 'X-Forwarded-For': `198.51.100.${++addresses}` },
      });
      expect(asked.status, asked.text).to.equal(200);
    }
    const texted = await server.request('POST', '/v1/me/phone-verification', {
      token: server.issueMemberToken('demo', members[0].memberId),
    });
    expect(texted.status, texted.text).to.equal(200);
    await until(async () => (await heldJobs(['waiting', 'active', 'delayed'])).length === 4 && true, 'four held deliveries');
    // Long enough for several probes (100, 200, 400, 800 ms) had anything been refused.
    await sleep(2000);

    expect(smtp.mails.filter((mail) => members.some((m) => m.email === mail.to))).to.deep.equal([]);
    expect(twilio.messages).to.deep.equal([]);
    const held = await heldJobs(['waiting', 'active', 'delayed']);
    expect(held).to.have.length(4);
    expect(
      held.every((job) => job.attemptsMade === 0),
      'no try counted',
    ).to.equal(true);
    expect(await heldJobs(['failed', 'completed'])).to.deep.equal([]);
    expect((await server.events()).filter((e) => e.type === 'MessageDeliveryFailed')).to.deep.equal([]);
    // One line per channel for the whole episode; the server was asked again only at each probe, not once per message and try.
    expect(firstLog.filter((l) => l.includes('channel down'))).to.have.length(2);
    expect(firstLog.filter((l) => l.includes('message refused') || l.includes('out of tries'))).to.deep.equal([]);
    expect(smtp.loginsRefused).to.be.within(1, 10);
    for (const m of members) {
      expect(firstLog.filter((l) => l.includes(m.email) || l.includes(m.phone))).to.deep.equal([]);
    }
    await server.close();
    server = null;
  });

  it('sends each held message once after a restart with the right password and token', async function () {
    expect(fs.existsSync(path.join(dataDir, 'jobs.sqlite'))).to.equal(true);
    server = await startTestServer({ dataDir, seed: false, logLines: secondLog, env: env(LOGIN.pass, twilio.authToken) });
    await until(
      () => members.every((m) => smtp.mails.some((mail) => mail.to === m.email)) && twilio.messages.length >= 1,
      'the held messages',
    );
    await until(async () => (await heldJobs(['completed'])).length === 4 && true, 'four completed deliveries');
    await sleep(500);
    for (const m of members) {
      const arrived = smtp.mails.filter((mail) => mail.to === m.email);
      expect(arrived, m.email).to.have.length(1);
      expect(arrived[0].subject).to.equal('Demo Auctions: reset your password');
    }
    expect(twilio.messages.map((t) => t.to)).to.deep.equal([members[0].phone]);
    expect(secondLog.some((l) => l.includes('mail channel checked at start: it answers'))).to.equal(true);
    expect(secondLog.filter((l) => l.includes('channel down'))).to.deep.equal([]);
    expect((await server.request('GET', '/readyz', { apiKey: null, token: server.operatorToken })).body.deliveries).to.deep.equal({
      mail: { via: 'smtp', state: 'up' },
      sms: { via: 'twilio', state: 'up' },
    });
    expect((await server.events()).filter((e) => e.type === 'MessageDeliveryFailed')).to.deep.equal([]);
  });
});
