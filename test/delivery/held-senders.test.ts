/**
 * Set-up failures that are not a password (PRODUCTION.md "Deliveries an operator can trust"), on the network outbox
 * and a job queue of its own: a house's `mailFrom` the relay will not take holds that house's mail only, a wrong
 * Twilio URL (404) holds every text, and neither ends a message; once the relay takes the sender, or the URL is
 * right (a new outbox, as after a restart), each held message goes out once.
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSmtpPeer, startTwilioPeer, type SmtpPeer, type TwilioPeer } from '../support/mail-servers.ts';
import { SqliteJobQueue } from '../../src/adapters/embedded/sqlite-jobs.ts';
import { FileOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { QueuedOutbox, type EndedDelivery } from '../../src/adapters/delivery/queued-outbox.ts';
import { SmtpTransport } from '../../src/adapters/delivery/smtp.ts';
import { TwilioSms } from '../../src/adapters/delivery/twilio.ts';
import { noCounters } from '../../src/counters.ts';
import type { OutgoingMessage } from '../../src/ports/outbox.ts';
import { sleep } from '../support/until.ts';

describe('A refused sender or a wrong Twilio URL holds messages, and ends none', function () {
  this.timeout(60_000);
  let smtp: SmtpPeer;
  let twilio: TwilioPeer;
  const closers: Array<() => unknown> = [];
  const lines: string[] = [];
  const logger = {
    info: (_: object, msg: string) => lines.push(`info ${msg}`),
    warn: (_: object, msg: string) => lines.push(`warn ${msg}`),
    error: (o: object, msg: string) => lines.push(`error ${msg} ${JSON.stringify(o)}`),
  };
  const ended: EndedDelivery[] = [];

  const queue = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-held-'));
    const file = path.join(dir, 'jobs.sqlite');
    const open = () => {
      const db = new Database(file);
      const jobs = new SqliteJobQueue({ db, pollMs: 10 });
      closers.push(
        () => db.close(),
        () => jobs.close(),
      );
      return jobs;
    };
    return { dir, open };
  };
  const mail = (id: string, mailFrom: string | null): OutgoingMessage => ({
    id,
    channel: 'mail',
    tenant: 'demo',
    memberId: 42,
    kind: 'outbid',
    to: `${id}@example.com`,
    subject: id,
    body: 'You have been outbid.',
    sender: { name: 'A House', mailFrom },
  });

  before(async function () {
    [smtp, twilio] = await Promise.all([startSmtpPeer(), startTwilioPeer()]);
  });
  after(async function () {
    for (const close of closers.reverse()) await close();
    await Promise.all([smtp.close(), twilio.close()]);
  });
  beforeEach(() => {
    lines.length = 0;
    ended.length = 0;
  });

  it("holds the mail of a house whose mailFrom the relay refuses (553 to MAIL FROM), sends every other house's, and the held mail once the relay takes it", async function () {
    let refusing = true;
    smtp.answerMailFrom = (address) =>
      refusing && address === 'auktion@refused.example'
        ? { code: 553, message: `5.7.1 <${address}>: Sender address rejected: not owned by user` }
        : null;
    const jobs = queue().open();
    const transport = new SmtpTransport({ url: smtp.url, from: { name: 'Service', address: 'noreply@service.example' } });
    closers.push(() => transport.close());
    const outbox = new QueuedOutbox(
      jobs,
      { mail: transport },
      new FileOutbox(fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-held-files-'))),
      50,
    );
    for (const [name, processor] of Object.entries(
      outbox.processors({ logger, counters: noCounters, recordFailure: async (f) => void ended.push(f) }),
    ))
      jobs.process(name, processor);

    await outbox.send(mail('held-1', 'Auktion <auktion@refused.example>'));
    await sleep(300);
    await outbox.send(mail('other-1', null));
    await outbox.send(mail('held-2', 'Auktion <auktion@refused.example>'));
    await outbox.send(mail('other-2', 'Another <hello@another.example>'));
    await sleep(1200);
    expect(smtp.mails.map((m) => m.subject).sort()).to.deep.equal(['other-1', 'other-2']);
    expect(await jobs.getState('deliver-mail-held-1')).to.be.oneOf(['delayed', 'waiting', 'active']);
    expect(outbox.channels().mail).to.deep.equal({ state: 'up', sendersDown: 1 });
    const down = lines.filter((l) => l.includes(' down: '));
    expect(down).to.have.length(1);
    expect(down[0]).to.include('mail from a…@refused.example down: SMTP sender refused').and.not.include('auktion@');
    expect(ended).to.deep.equal([]);

    refusing = false;
    await jobs.whenIdle(20_000);
    expect(smtp.mails.map((m) => m.subject).sort()).to.deep.equal(['held-1', 'held-2', 'other-1', 'other-2']);
    expect(outbox.channels().mail).to.deep.equal({ state: 'up' });
    expect(lines.filter((l) => l.includes('up again'))).to.deep.equal([
      'info mail from a…@refused.example up again: its held messages go out',
    ]);
    expect(ended).to.deep.equal([]);
  });

  it('holds every text while TWILIO_API_URL is wrong (404), and sends them once with the right one', async function () {
    const { open } = queue();
    const jobs = open();
    const wrong = new TwilioSms({
      accountSid: twilio.accountSid,
      authToken: twilio.authToken,
      from: '+15005550006',
      apiUrl: `${twilio.url}/wrong`,
    });
    const outbox = new QueuedOutbox(jobs, { sms: wrong }, new FileOutbox(fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-held-files-'))), 50);
    for (const [name, processor] of Object.entries(
      outbox.processors({ logger, counters: noCounters, recordFailure: async (f) => void ended.push(f) }),
    ))
      jobs.process(name, processor);
    await outbox.verify(logger);
    expect(outbox.channels().sms).to.include({ state: 'down', about: 'Twilio account or URL not found' });
    for (const n of [1, 2, 3])
      await outbox.send({
        id: `code-${n}`,
        channel: 'sms',
        tenant: 'demo',
        memberId: n,
        kind: 'phone-code',
        to: `+4670111220${n}`,
        body: `code ${n}`,
      });
    await sleep(1000);
    expect(twilio.messages).to.deep.equal([]);
    expect(ended).to.deep.equal([]);
    expect(lines.filter((l) => l.includes('sms channel down'))).to.have.length(1);
    await jobs.close(5000);

    // The setting fixed, the service started again: the same queue, a new outbox.
    const again = open();
    const right = new TwilioSms({ accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006', apiUrl: twilio.url });
    const fixed = new QueuedOutbox(again, { sms: right }, new FileOutbox(fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-held-files-'))), 50);
    for (const [name, processor] of Object.entries(
      fixed.processors({ logger, counters: noCounters, recordFailure: async (f) => void ended.push(f) }),
    ))
      again.process(name, processor);
    await again.whenIdle(20_000);
    expect(twilio.messages.map((t) => t.body).sort()).to.deep.equal(['code 1', 'code 2', 'code 3']);
    expect(ended).to.deep.equal([]);
  });
});
