/**
 * What the delivery settings do to mail (PRODUCTION.md "Deliveries an operator can trust"), on the service as
 * createRuntime builds it: TLS is required to any SMTP host but a loopback one unless SMTP_URL opts out (and
 * the start says so), and mail queued for SMTP waits in the queue while a worker runs without SMTP_URL.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';
import { nonLoopbackAddress, startSmtpPeer, startTwilioPeer, type SmtpPeer, type TwilioPeer } from '../support/mail-servers.ts';
import { freePort, sleep } from '../support/service-process.ts';
import { deliveryJobName } from '../../src/adapters/delivery/channels.ts';
import { until } from '../support/until.ts';

const MAIL_FROM = 'Bidder Service <noreply@service.example.test>';
const PASSWORD = 'a long enough password 42';
let addresses = 0;

/** A sign-up through the API: its confirmation is the mail. */
async function signUp(server: TestServer, email: string) {
  const answer = await server.request('POST', '/v1/members', {
    token: await server.anonymousToken('demo'),
    body: { Email: email, Password: PASSWORD, FirstName: 'Tess', LastName: 'Tls', Language: 'en' },
    headers: { 'X-Forwarded-For': `198.51.100.${++addresses}` },
  });
  expect(answer.status, answer.text).to.equal(200);
  await server.runtime.services.projector.catchUp();
}

const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('SMTP off loopback: TLS or nothing (PRODUCTION.md "TLS")', function () {
  this.timeout(180_000); // a service starts in each (a minute on a loaded machine)
  let smtp: SmtpPeer;
  let server: TestServer | null = null;
  const logLines: string[] = [];
  const host = nonLoopbackAddress();

  beforeEach(async function () {
    if (!host) this.skip(); // a machine with no address but loopback cannot show it
    logLines.length = 0;
    smtp = await startSmtpPeer({ host: host!, auth: true });
  });
  afterEach(async function () {
    await server?.close();
    server = null;
    await smtp?.close();
  });

  const withPassword = (url: string, query = '') => `${url.replace('smtp://', 'smtp://mailer:s3cret-smtp-password@')}${query}`;

  it('sends neither the password nor the mail to a server that does not offer STARTTLS; the mail channel is down, the mail stays queued and the log says why', async function () {
    server = await startTestServer({
      logLines,
      env: { TRUST_PROXY: 'true', SMTP_URL: withPassword(smtp.url), MAIL_FROM, DELIVERY_FIRST_RETRY_MS: '30000' },
    });
    await signUp(server, 'tess.plain@example.com');
    const failed = await until(
      () => parsed(logLines).find((l) => String(l.reply ?? '').includes('ETLS')),
      'the try that found no STARTTLS',
    );
    // A set-up failure: the mail channel is down (said once, at the start's check or the first try), the mail waits.
    expect(failed.msg).to.match(/^mail channel down: SMTP TLS failed; its messages are kept/);
    expect(failed.reply).to.match(
      /the server does not offer STARTTLS .*neither the password nor the mail was sent; TLS is required off loopback/,
    );
    expect(smtp.logins, 'no AUTH over the plain connection').to.deep.equal([]);
    expect(smtp.attempts, 'no mail handed over').to.deep.equal([]);
    // The start's check found the channel down before the sign-up's mail was queued: it waits in the queue.
    const queued = () => server!.runtime.services.jobs.unfinished(deliveryJobName('mail'));
    for (const deadline = Date.now() + 15_000; (await queued()) === 0 && Date.now() < deadline;) await sleep(50);
    await sleep(500);
    // At least the sign-up's (the seed's invoice notices may wait beside it); none was handed over (above).
    expect(await queued(), 'kept in the queue').to.be.at.least(1);
    expect(logLines.join('\n')).to.not.include('s3cret-smtp-password').and.not.include('tess.plain@example.com');
  });

  it('sends in the clear when SMTP_URL says ?requireTLS=false, and the start warns about it', async function () {
    server = await startTestServer({
      logLines,
      env: { TRUST_PROXY: 'true', SMTP_URL: withPassword(smtp.url, '?requireTLS=false'), MAIL_FROM },
    });
    const warning = parsed(logLines).find((l) => String(l.msg).includes('requireTLS=false'));
    expect(warning, logLines.join('\n')).to.deep.include({ level: 40, channel: 'mail' });
    expect(warning!.msg).to.equal(
      `mail to ${new URL(smtp.url).host} may be sent unencrypted, with the SMTP password: SMTP_URL says requireTLS=false`,
    );
    await signUp(server, 'tess.clear@example.com');
    await until(() => smtp.mails.find((m) => m.to === 'tess.clear@example.com'), "the sign-up's mail"); // beside the seed's invoice notices
    // The start's check of the channel logs in too.
    expect(smtp.logins).to.include('mailer');
    expect(new Set(smtp.logins)).to.deep.equal(new Set(['mailer']));
  });
});

describe('Mail queued for SMTP while a worker runs without SMTP_URL', function () {
  this.timeout(600_000); // four starts of the service (seconds each, a minute each on a loaded machine)
  let smtp: SmtpPeer;
  let twilio: TwilioPeer;
  let server: TestServer | null = null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-unset-smtp-'));
  const logLines: string[] = [];

  before(async function () {
    [smtp, twilio] = await Promise.all([startSmtpPeer(), startTwilioPeer()]);
  });
  after(async function () {
    await server?.close();
    await Promise.all([smtp?.close(), twilio?.close()]);
  });
  const restart = async (env: Record<string, string>) => {
    await server?.close();
    logLines.length = 0;
    server = await startTestServer({ dataDir, logLines, env: { TRUST_PROXY: 'true', ...env } });
    return server;
  };
  const readyz = async () =>
    (await server!.request('GET', '/readyz', { apiKey: null, token: server!.operatorToken })).body as Record<string, unknown>;

  it('waits in the queue with its tries unspent, says so at the start and in /readyz, and goes once SMTP_URL is back', async function () {
    // Queued for SMTP: the server is not there yet (a refused connection: the mail channel is down, the mail waits).
    await restart({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, MAIL_FROM, DELIVERY_FIRST_RETRY_MS: '500' });
    await signUp(server!, 'queued@example.com');
    await until(() => logLines.some((l) => l.includes('mail channel down: SMTP server unreachable')), 'the channel down');
    for (const deadline = Date.now() + 15_000; (await server!.runtime.services.jobs.unfinished(deliveryJobName('mail'))) === 0;)
      if (Date.now() > deadline) throw new Error('waited 15000 ms for the queued mail');
      else await sleep(50);
    await sleep(1000);
    // The sign-up's mail, and the seed's invoice notices queued beside it.
    const total = await server!.runtime.services.jobs.unfinished(deliveryJobName('mail'));

    // SMTP_URL removed (Twilio stays, so the worker still runs deliveries): the mail waits, and is counted.
    await restart({
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM: '+15005550006',
      TWILIO_API_URL: twilio.url,
    });
    const notes = parsed(logLines).filter((l) => l.channel === 'mail' && l.queued === total);
    expect(notes, logLines.join('\n')).to.have.length(1);
    expect(notes[0]).to.include({
      level: 40,
      msg: `mail: ${total} message(s) queued for smtp wait until a worker starts with SMTP_URL; new mail goes to the outbox folder`,
    });
    expect((await readyz()).deliveries).to.deep.equal({
      mail: { via: 'outbox-folder', queued: total, waitsFor: 'SMTP_URL' },
      sms: { via: 'twilio', state: 'up' },
    });
    await sleep(2500); // past the retry's time: a worker that ran it would spend tries
    expect(logLines.filter((l) => l.includes('deliver-mail') || l.includes('no transport for mail'))).to.deep.equal([]);
    expect(await server!.runtime.services.jobs.unfinished(deliveryJobName('mail'))).to.equal(total);

    // Nothing set at all: the same.
    await restart({});
    expect(parsed(logLines).filter((l) => l.queued === total)).to.have.length(1);
    expect((await readyz()).deliveries).to.deep.equal({
      mail: { via: 'outbox-folder', queued: total, waitsFor: 'SMTP_URL' },
      sms: { via: 'outbox-folder' },
    });

    // SMTP_URL back: it goes, once.
    await restart({ SMTP_URL: smtp.url, MAIL_FROM });
    await smtp.waitForMails(total, 20_000);
    await server!.runtime.services.jobs.whenIdle(10_000);
    expect(smtp.mails.filter((m) => m.to === 'queued@example.com')).to.have.length(1);
    expect(smtp.mails).to.have.length(total);
    expect((await readyz()).deliveries).to.deep.equal({ mail: { via: 'smtp', state: 'up' }, sms: { via: 'outbox-folder' } });
    expect(parsed(logLines).filter((l) => l.queued !== undefined)).to.deep.equal([]);
  });
});
