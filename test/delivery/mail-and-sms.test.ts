/**
 * Mail over SMTP and SMS through Twilio (PRODUCTION.md), through the API, against a real SMTP server and a
 * server of Twilio's Messages endpoint: a bidder's mails and texts arrive there in the bidder's language,
 * temporary failures are tried again until the message goes through (once), permanent ones are tried once
 * and counted, and nothing is written to the outbox folder.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSmtpPeer, startTwilioPeer, type SmtpPeer, type TwilioPeer } from '../support/mail-servers.ts';
import { importAnyRecord, importRecord } from '../../app/features/intake.ts';
import { demoRecords } from '../../app/seed/demo.ts';

const PASSWORD = 'a long enough password 42';

describe('Mail over SMTP and SMS through Twilio (PRODUCTION.md)', function () {
  this.timeout(60_000);
  let smtp: SmtpPeer;
  let twilio: TwilioPeer;
  let server: TestServer;
  let addresses = 0;
  let members = 9000;
  const logLines: string[] = [];

  const settle = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(20_000);
  };
  const post = async (urlPath: string, body: unknown, tenant = 'demo') =>
    server.request('POST', urlPath, {
      token: await server.anonymousToken(tenant),
      body,
      headers: { 'X-Forwarded-For': `203.0.113.${++addresses}` },
    });
  /** The value of one series of bidder_messages_total on /metrics (0 when absent). */
  const counted = async (labels: string) => {
    const text = (await server.request('GET', '/metrics', { apiKey: null, token: server.operatorToken })).text;
    const wanted = labels.split(',');
    const line = text.split('\n').find((l) => l.startsWith('bidder_messages_total{') && wanted.every((label) => l.includes(label)));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  /** The demo house as the seed configures it (its first record). */
  const demoTenant = () => demoRecords(server.credentials, server.seededAt).next().value as Record<string, unknown>;
  const keyIn = (text: string) => /^([A-Za-z0-9_-]{32})$/m.exec(text)?.[1];
  /** A confirmed member of demo with a language and a phone, and its token. */
  async function member(language: string, phone: string) {
    const memberId = ++members;
    await importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant: 'demo',
      memberId,
      email: `member${memberId}@example.com`,
      passwordHash: 'scrypt$disabled',
      firstName: 'Greta',
      lastName: `Member${memberId}`,
      language,
      phone,
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
    return { memberId, email: `member${memberId}@example.com`, token: server.issueMemberToken('demo', memberId) };
  }

  before(async function () {
    [smtp, twilio] = await Promise.all([startSmtpPeer(), startTwilioPeer()]);
    server = await startTestServer({
      logLines,
      env: {
        TRUST_PROXY: 'true',
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Bidder Service <noreply@service.example.test>',
        TWILIO_ACCOUNT_SID: twilio.accountSid,
        TWILIO_AUTH_TOKEN: twilio.authToken,
        TWILIO_FROM: '+15005550006',
        TWILIO_API_URL: twilio.url,
        DELIVERY_FIRST_RETRY_MS: '200',
      },
    });
  });
  after(async function () {
    await server?.close();
    await Promise.all([smtp?.close(), twilio?.close()]);
  });
  afterEach(function () {
    smtp.answer = () => null;
    twilio.answer = () => null;
  });

  it("mails a Swedish sign-up's confirmation over SMTP in Swedish, text and HTML, from the house; its key confirms the member", async function () {
    const email = 'sven.svensson@example.com';
    const signedUp = await post('/v1/members', {
      Email: email,
      Password: PASSWORD,
      FirstName: 'Sven',
      LastName: 'Svensson',
      Language: 'sv',
    });
    expect(signedUp.status, signedUp.text).to.equal(200);
    await settle();
    const [mail] = (await smtp.waitForMails(1)).filter((m) => m.to === email);
    expect(mail, 'a mail to the new member').to.not.equal(undefined);
    expect(mail.subject).to.equal('Demo Auctions: bekräfta din e-postadress');
    expect(mail.text).to.match(/^Hej Sven,\n\ntack för att du registrerade dig som budgivare hos Demo Auctions/);
    expect(mail.contentType).to.equal('multipart/alternative');
    expect(mail.html).to.include('<html lang="sv">').and.include('tack för att du registrerade dig');
    expect(mail.from).to.equal('"Demo Auctions" <noreply@service.example.test>');
    expect(mail.headers.get('auto-submitted')).to.equal('auto-generated');
    expect(mail.headers.get('content-language')).to.equal('sv');
    expect(mail.headers.get('date')).to.be.instanceOf(Date);
    expect(mail.messageId).to.match(/^<[0-9a-f]{32}@service\.example\.test>$/);
    const key = keyIn(mail.text);
    expect(key, mail.text).to.be.a('string');
    expect(mail.html).to.include(key!);

    const confirmed = await post('/v1/members/confirmation', { Email: email, Key: key });
    expect(confirmed.status, confirmed.text).to.equal(200);
    expect(confirmed.body).to.deep.equal({ Validated: true });
    // Nothing went to the outbox folder: the files are the default only without SMTP_URL.
    expect(fs.existsSync(path.join(server.dataDir, 'outbox'))).to.equal(false);
  });

  it("writes a member's password reset in the language of the profile, and a house's own mailFrom is the sender", async function () {
    const german = await member('en', '+491701234567');
    const changed = await server.request('PUT', '/v1/me', { token: german.token, body: { Language: 'de' } });
    expect(changed.status, changed.text).to.equal(200);
    await importAnyRecord(server.runtime.services.log, { ...demoTenant(), mailFrom: 'Demo Auktionen <auktion@demo.example.com>' });
    await server.runtime.services.projector.catchUp();
    try {
      expect((await post('/v1/password-resets', { Email: german.email })).status).to.equal(200);
      await settle();
      const mail = (await smtp.waitForMails(1)).find((m) => m.to === german.email);
      expect(mail?.subject).to.equal('Demo Auctions: Passwort zurücksetzen');
      expect(mail?.text).to.match(/^Hallo Greta,\n\njemand hat angefordert/);
      expect(mail?.headers.get('content-language')).to.equal('de');
      expect(mail?.from).to.equal('"Demo Auktionen" <auktion@demo.example.com>');
      expect(mail?.messageId).to.match(/@demo\.example\.com>$/);
    } finally {
      await importAnyRecord(server.runtime.services.log, demoTenant());
      await server.runtime.services.projector.catchUp();
    }
  });

  it('tries a mail the server answers 451 again, and it arrives once, under the same Message-ID', async function () {
    const m = await member('en', '+4915112345678');
    const retried = await counted('channel="mail",kind="password-reset",outcome="retried"');
    smtp.answer = (mail, attempt) => (mail.to === m.email && attempt === 1 ? { code: 451, message: '4.3.0 Try again later' } : null);
    expect((await post('/v1/password-resets', { Email: m.email })).status).to.equal(200);
    await settle();
    const arrived = smtp.mails.filter((mail) => mail.to === m.email);
    expect(arrived).to.have.length(1);
    expect(smtp.attempts.filter((id) => id === arrived[0].messageId)).to.have.length(2);
    expect(await counted('channel="mail",kind="password-reset",outcome="retried"')).to.equal(retried + 1);
  });

  it('tries a mail the server refuses with 550 once, logs and counts it as failed', async function () {
    const m = await member('en', '+4915112345679');
    const failed = await counted('channel="mail",kind="password-reset",outcome="failed"');
    let refusedId = '';
    smtp.answer = (mail) => (mail.to === m.email ? ((refusedId = mail.messageId), { code: 550, message: '5.1.1 Mailbox unknown' }) : null);
    expect((await post('/v1/password-resets', { Email: m.email })).status).to.equal(200);
    await settle();
    // Long enough for two retries had it been temporary (200 ms, then 400 ms).
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(refusedId).to.not.equal('');
    expect(smtp.attempts.filter((id) => id === refusedId)).to.have.length(1);
    expect(smtp.mails.filter((mail) => mail.to === m.email)).to.have.length(0);
    expect(await counted('channel="mail",kind="password-reset",outcome="failed"')).to.equal(failed + 1);
    // Logged with the server's reply, by message id: never the address or the text.
    const logged = logLines.filter((line) => line.includes('5.1.1 Mailbox unknown'));
    expect(logged).to.have.length(1);
    expect(JSON.parse(logged[0])).to.include({ msg: 'message refused, not tried again', kind: 'password-reset', channel: 'mail' });
    expect(logged[0]).to.not.include(m.email);
  });

  it("texts a phone code through Twilio in the member's language; a 429 is tried again, once delivered", async function () {
    const m = await member('sv', '+46701112233');
    let tries = 0;
    twilio.answer = (form) =>
      form.get('To') === '+46701112233' && ++tries === 1 ? { status: 429, code: 20429, message: 'Too Many Requests' } : null;
    const asked = await server.request('POST', '/v1/me/phone-verification', { token: m.token });
    expect(asked.status, asked.text).to.equal(200);
    await settle();
    const texts = twilio.messages.filter((t) => t.to === '+46701112233');
    expect(texts).to.have.length(1);
    expect(tries).to.equal(2);
    expect(texts[0].from).to.equal('+15005550006');
    expect(texts[0].body).to.match(/^\d{6} är din verifieringskod hos Demo Auctions\. Den gäller i 10 minuter\./);
    const code = /^(\d{6})/.exec(texts[0].body)![1];
    const verified = await server.request('POST', '/v1/me/phone-verification/confirmation', { token: m.token, body: { Code: code } });
    expect(verified.status, verified.text).to.equal(200);
  });

  it('tries a text Twilio refuses with 400 (code 21211, an invalid number) once, and counts it as failed', async function () {
    const m = await member('en', '+31612340000');
    const failed = await counted('channel="sms",kind="phone-code",outcome="failed"');
    let tries = 0;
    twilio.answer = (form) =>
      form.get('To') === '+31612340000'
        ? (++tries, { status: 400, code: 21211, message: "The 'To' number is not a valid phone number." })
        : null;
    expect((await server.request('POST', '/v1/me/phone-verification', { token: m.token })).status).to.equal(200);
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(tries).to.equal(1);
    expect(await counted('channel="sms",kind="phone-code",outcome="failed"')).to.equal(failed + 1);
    expect(twilio.refused, 'every request had the credentials and form Twilio asks for').to.equal(0);
  });
});
