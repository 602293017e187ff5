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
      requireTLS: false,
      warnings: [],
    });
    expect(delivery.twilio).to.deep.equal({
      accountSid: 'AC123',
      authToken: 'token',
      from: '+15005550006',
      apiUrl: 'https://api.twilio.com',
    });
  });

  it('requires STARTTLS on smtp:// to any host but a loopback one, unless SMTP_URL says requireTLS=false, which it warns of', function () {
    const smtp = (url: string) => loadConfig({ SMTP_URL: url, MAIL_FROM: 'a@example.com' }).delivery.smtp!;
    for (const url of [
      'smtp://mail.example.com:587',
      'smtp://u:p@192.0.2.25:25',
      'smtp://[2001:db8::25]:25',
      'smtp://127.0.0.1:25?requireTLS=true',
    ])
      expect(smtp(url), url).to.include({ requireTLS: true }).and.have.property('warnings').that.is.empty;
    for (const url of [
      'smtp://127.0.0.1:25',
      'smtp://localhost:25',
      'smtp://[::1]:25',
      'smtp://127.0.0.2:1025',
      'smtp://127.0.0.1:25?requireTLS=false',
    ])
      expect(smtp(url), url).to.include({ requireTLS: false }).and.have.property('warnings').that.is.empty;
    expect(smtp('smtps://mail.example.com:465')).to.include({ requireTLS: false }).and.have.property('warnings').that.is.empty;
    expect(smtp('smtp://u:secret@mail.example.com:587?requireTLS=false')).to.deep.include({
      requireTLS: false,
      warnings: ['mail to mail.example.com:587 may be sent unencrypted, with the SMTP password: SMTP_URL says requireTLS=false'],
    });
    expect(smtp('smtps://mail.example.com:465?tls.rejectUnauthorized=false').warnings).to.deep.equal([
      'the certificate of mail.example.com:465 is not verified: SMTP_URL says tls.rejectUnauthorized=false',
    ]);
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
    [{ SMTP_URL: 'smtp://mail.example.com:25?requireTLS=no', MAIL_FROM: 'a@example.com' }, /^SMTP_URL: requireTLS must be true or false$/],
    [{ DELIVERY_FIRST_RETRY_MS: 'abc' }, /^DELIVERY_FIRST_RETRY_MS must be a non-negative integer \(got "abc"\)$/],
    [{ PORT: '70000' }, /^PORT must be a non-negative integer up to 65535 \(got "70000"\)$/],
    [{ POSTGRES_QUERY_TIMEOUT_MS: '-1' }, /^POSTGRES_QUERY_TIMEOUT_MS must be a non-negative integer/],
    [{ MONGODB_TIMEOUT_MS: '5s' }, /^MONGODB_TIMEOUT_MS must be a non-negative integer/],
    [{ READY_MAX_LAG_SECONDS: '2.5' }, /^READY_MAX_LAG_SECONDS must be a non-negative integer/],
    [{ ROLE: 'mailer' }, /^ROLE must be one of all, api, projector, worker/],
    [{ API_PROCESSES: 'many' }, /^API_PROCESSES must be auto or an integer >= 1/],
    [{ EMBEDDED_SEARCH: 'lucene' }, /^EMBEDDED_SEARCH must be fts5 or minisearch/],
    [{ TYPESENSE_URL: 'http://typesense:8108' }, /^TYPESENSE_URL is set without TYPESENSE_API_KEY/],
    [{ DEMO_API_KEY: 'short-key' }, /^DEMO_API_KEY must be at least 16 characters$/],
    [{ DEMO_CLIENT_SECRET: 'x'.repeat(201) }, /^DEMO_CLIENT_SECRET must be at most 200 characters$/],
    [{ DEMO_MEMBER_PASSWORD: 'abc' }, /^DEMO_MEMBER_PASSWORD must be at least 8 characters$/],
    [{ DEMO_BACKOFFICE_KEY: 'a key with spaces in it, long enough' }, /^DEMO_BACKOFFICE_KEY must be letters, digits and \._~\+\/=- only$/],
  ];
  for (const [env, message] of refused)
    it(`refuses ${JSON.stringify(env)}`, function () {
      expect(() => loadConfig(env))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(message)
        .and.does.not.include('\n');
    });

  it('reads no demo secret with SEED_DEMO=false', function () {
    expect(loadConfig({ SEED_DEMO: 'false', DEMO_API_KEY: 'short-key' }).seedDemo).to.equal(false);
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

  it('is passed to the service by both compose files, each variable optional (empty: its default)', function () {
    for (const file of ['docker-compose.yml', 'docker-compose.postgres.yml']) {
      const compose = fs.readFileSync(file, 'utf8');
      for (const name of [
        'SMTP_URL',
        'MAIL_FROM',
        'TWILIO_ACCOUNT_SID',
        'TWILIO_AUTH_TOKEN',
        'TWILIO_FROM',
        'TWILIO_API_URL',
        'DELIVERY_FIRST_RETRY_MS',
      ])
        expect(compose, `${file} ${name}`).to.include(`    ${name}: \${${name}:-}\n`);
    }
    expect(loadConfig({ TWILIO_API_URL: '', DELIVERY_FIRST_RETRY_MS: '' }).delivery).to.deep.equal({
      smtp: null,
      twilio: null,
      firstRetryMs: 15_000,
    });
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

  const stopped: Array<[Record<string, string>, string]> = [
    [{ SMTP_URL: 'smtp://mail.example.com:25', MAIL_FROM: 'nobody' }, 'MAIL_FROM must be Name <address> or an address'],
    [{ DELIVERY_FIRST_RETRY_MS: 'abc' }, 'DELIVERY_FIRST_RETRY_MS must be a non-negative integer (got "abc")'],
    [{ DEMO_API_KEY: 'too-short' }, 'DEMO_API_KEY must be at least 16 characters'],
    [{ ROLE: 'mailer' }, 'ROLE must be one of all, api, projector, worker (got "mailer")'],
  ];
  for (const [env, line] of stopped)
    it(`stops the start with one line that names the variable, no stack: ${Object.keys(env).join(', ')}`, async function () {
      this.timeout(30_000);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-delivery-config-'));
      const proc = startService({ port: await freePort(), dataDir, env });
      const { code } = await proc.exited;
      expect(code).to.equal(1);
      expect(proc.output().trim()).to.equal(`fatal: ${line}`);
    });
});
