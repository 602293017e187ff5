/**
 * After the server's 250: a delivery job does not send a message the server accepted again. Once the job has
 * saved the acceptance, a later try (a failure after the send) skips the send; the window that remains, a
 * process killed between the server's reply and that save, sends the message again under the same Message-ID
 * (docs/architecture.md "Mail and SMS").
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSmtpPeer, type SmtpPeer } from '../support/mail-servers.ts';
import { freePort, ready, sleep, startService, SERVICE_API_KEY, type ServiceProcess } from '../support/service-process.ts';
import { SqliteJobQueue } from '../../src/adapters/embedded/sqlite-jobs.ts';
import { FileOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { QueuedOutbox } from '../../src/adapters/delivery/queued-outbox.ts';
import { deliveryJobName } from '../../src/adapters/delivery/channels.ts';
import { SmtpTransport } from '../../src/adapters/delivery/smtp.ts';
import { noCounters } from '../../src/counters.ts';

const quiet = { info() {}, warn() {}, error() {} };

describe('Mail after the server accepted it: not sent again', function () {
  this.timeout(120_000);
  let smtp: SmtpPeer;
  const stop: Array<() => Promise<unknown> | unknown> = [];

  before(async function () {
    smtp = await startSmtpPeer();
  });
  after(async function () {
    for (const close of stop.splice(0).reverse()) await close();
    await smtp.close();
  });

  it('skips the send on a later try of a job that saved the acceptance (a failure after the send)', async function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-delivery-'));
    const db = new Database(path.join(dir, 'jobs.sqlite'));
    const jobs = new SqliteJobQueue({ db, pollMs: 10 });
    const mail = new SmtpTransport({ url: smtp.url, from: { name: 'Auctions', address: 'auctions@example.test' } });
    stop.push(
      () => db.close(),
      () => jobs.close(),
      () => mail.close(),
    );
    const outbox = new QueuedOutbox(jobs, { mail }, new FileOutbox(path.join(dir, 'outbox')), 20);
    const deliver = outbox.processor({ logger: quiet, counters: noCounters });
    let tries = 0;
    jobs.process(deliveryJobName('mail'), async (job) => {
      tries += 1;
      await deliver(job);
      if (job.attemptsMade === 1) throw new Error('the worker failed after the send');
    });
    await outbox.send({
      id: 'after-accept-1',
      channel: 'mail',
      tenant: 'demo',
      to: 'once@example.test',
      subject: 'Once',
      body: 'Only once.',
    });
    await jobs.whenIdle(10_000);
    expect(tries).to.equal(2);
    expect(smtp.mails.filter((m) => m.to === 'once@example.test')).to.have.length(1);
    expect(smtp.attempts).to.have.length(new Set(smtp.attempts).size);
  });

  it('sends again under the same Message-ID when the process is killed right after the server answered 250', async function () {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-delivery-crash-'));
    const env = { SMTP_URL: smtp.url, MAIL_FROM: 'Auctions <auctions@example.test>', DELIVERY_FIRST_RETRY_MS: '100' };
    const start = async () => {
      const proc = startService({ port: await freePort(), dataDir, env });
      stop.push(() => proc.child.kill('SIGKILL'));
      await ready(proc);
      return proc;
    };
    let first: ServiceProcess | null = await start();
    const email = 'crash.test@example.com';
    // Killed as soon as the server has written its 250 for this member's mail, before the job can save it.
    smtp.onAccepted = (mail) => {
      if (mail.to === email && first) first.child.kill('SIGKILL');
    };
    const anon = await fetch(`${first.base}/v1/tokens/anonymous`, {
      method: 'POST',
      headers: { 'Api-Key': SERVICE_API_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ clientId: 'demo' }),
    });
    const token = ((await anon.json()) as { Token: string }).Token;
    const signUp = await fetch(`${first.base}/v1/members`, {
      method: 'POST',
      headers: { 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ Email: email, Password: 'a long enough password 42', Language: 'de' }),
    });
    expect(signUp.status).to.equal(200);
    await smtp.waitForMails(1 + smtp.mails.filter((m) => m.to !== email).length, 30_000);
    await first.exited;
    first = null;

    // The restarted worker takes the job up again; it ends completed, with the server's reply saved.
    await start();
    const jobsDb = new Database(path.join(dataDir, 'jobs.sqlite'), { readonly: true });
    stop.push(() => jobsDb.close());
    const deadline = Date.now() + 30_000;
    let row: { state: string; progress: string | null } | undefined;
    while (Date.now() < deadline) {
      row = jobsDb
        .prepare(`SELECT state, progress FROM jobs WHERE name = ? AND id LIKE '%member-confirmation%'`)
        .get(deliveryJobName('mail')) as typeof row;
      if (row?.state === 'completed') break;
      await sleep(100);
    }
    expect(row?.state).to.equal('completed');
    expect(JSON.parse(row!.progress!).accepted).to.match(/^250 /);
    const arrived = smtp.mails.filter((m) => m.to === email);
    // Once when the save won the race with the kill, else twice: never with another Message-ID.
    expect(arrived.length).to.be.within(1, 2);
    expect(new Set(arrived.map((m) => m.messageId)).size).to.equal(1);
    expect(arrived[0].subject).to.equal('Demo Auctions: Bestätigen Sie Ihre E-Mail-Adresse');
  });
});
