/**
 * The delivery settings (PRODUCTION.md): SMTP_URL with MAIL_FROM, Twilio's four variables; a value that cannot
 * be used stops the start with one line that names the variable.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { freePort, startService } from '../support/service-process.ts';
import { deliveryAttempts, RETRY_WINDOW_MS } from '../../src/adapters/delivery/queued-outbox.ts';
import { parseMailbox } from '../../src/text/mailbox.ts';

const twilio = { TWILIO_ACCOUNT_SID: 'AC123', TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '+15005550006' };

describe('Delivery settings', function () {
  it('leaves mail and SMS to the outbox files when nothing is set', function () {
    expect(loadConfig({}).delivery).to.deep.equal({ smtp: null, twilio: null, firstRetryMs: 15_000 });
  });

  it('reads SMTP_URL with MAIL_FROM, and Twilio with its default API address', function () {
    const { delivery } = loadConfig({ SMTP_URL: 'smtps://user:pw@mail.example.com:465', MAIL_FROM: 'Auctions <a@example.com>', ...twilio });
    expect(delivery.smtp).to.deep.equal({
      url: 'smtps://user:pw@mail.example.com:465',
      from: { name: 'Auctions', address: 'a@example.com' },
    });
    expect(delivery.twilio).to.deep.equal({
      accountSid: 'AC123',
      authToken: 'token',
      from: '+15005550006',
      apiUrl: 'https://api.twilio.com',
    });
  });

  const refused: Array<[Record<string, string>, RegExp]> = [
    [{ SMTP_URL: 'mail.example.com:25', MAIL_FROM: 'a@example.com' }, /^SMTP_URL must be/],
    [{ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'a@example.com' }, /^SMTP_URL must be/],
    [{ SMTP_URL: 'smtp://mail.example.com:25' }, /^MAIL_FROM is required with SMTP_URL/],
    [{ SMTP_URL: 'smtp://mail.example.com:25', MAIL_FROM: 'Auctions <not an address>' }, /^MAIL_FROM must be/],
    [{ SMTP_URL: 'smtp://mail.example.com:25', MAIL_FROM: 'a@example.com\r\nBcc: x@example.com' }, /^MAIL_FROM must be/],
    [{ MAIL_FROM: 'a@example.com' }, /^MAIL_FROM is set without SMTP_URL/],
    [{ TWILIO_ACCOUNT_SID: 'AC123', TWILIO_FROM: '+15005550006' }, /^TWILIO_AUTH_TOKEN is required/],
    [{ ...twilio, TWILIO_API_URL: 'ftp://twilio.example' }, /^TWILIO_API_URL must be/],
    [{ TWILIO_API_URL: 'https://api.twilio.com' }, /^TWILIO_API_URL is set without/],
    [{ DELIVERY_FIRST_RETRY_MS: '60000' }, /^DELIVERY_FIRST_RETRY_MS must be 1 to 30000/],
  ];
  for (const [env, message] of refused)
    it(`refuses ${JSON.stringify(env)}`, function () {
      expect(() => loadConfig(env))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(message)
        .and.does.not.include('\n');
    });

  it('tries a temporary failure again within 30 s, then with doubling waits for at least six hours', function () {
    for (const first of [1, 200, 15_000, 30_000]) {
      const attempts = deliveryAttempts(first);
      const waits = Array.from({ length: attempts - 1 }, (_, i) => first * 2 ** i);
      expect(waits.reduce((a, b) => a + b, 0)).to.be.at.least(RETRY_WINDOW_MS);
      expect(
        waits.slice(0, -1).reduce((a, b) => a + b, 0),
        'no try more than needed',
      ).to.be.below(RETRY_WINDOW_MS);
    }
    expect(deliveryAttempts(15_000)).to.equal(12);
  });

  it('parses senders as Name <address> or an address, and nothing else', function () {
    expect(parseMailbox('"Demo, Auctions" <a@example.com>')).to.deep.equal({ name: 'Demo, Auctions', address: 'a@example.com' });
    expect(parseMailbox('  a@example.com ')).to.deep.equal({ name: null, address: 'a@example.com' });
    for (const bad of [
      '',
      'Auctions',
      'a@',
      '<a@example.com',
      'A <a@example.com> B',
      'a@example.com\nBcc: b@example.com',
      `${'x'.repeat(320)}@e.com`,
    ])
      expect(parseMailbox(bad), bad).to.equal(null);
  });

  it('stops the start with one line that names the variable', async function () {
    this.timeout(30_000);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-delivery-config-'));
    const proc = startService({ port: await freePort(), dataDir, env: { SMTP_URL: 'smtp://mail.example.com:25', MAIL_FROM: 'nobody' } });
    const { code } = await proc.exited;
    expect(code).to.equal(1);
    expect(proc.output().trim()).to.equal('fatal: MAIL_FROM must be Name <address> or an address');
  });
});
