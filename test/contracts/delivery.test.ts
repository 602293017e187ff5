/**
 * The network outbox (src/adapters/delivery) on the Outbox contract, against a real SMTP server and a server of
 * Twilio's Messages endpoint: what arrives there is what the contract calls delivered.
 */
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { outboxContract } from './outbox.contract.ts';
import { startSmtpPeer, startTwilioPeer, type SmtpPeer, type TwilioPeer } from '../support/mail-servers.ts';
import { SqliteJobQueue } from '../../src/adapters/embedded/sqlite-jobs.ts';
import { FileOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { QueuedOutbox } from '../../src/adapters/delivery/queued-outbox.ts';
import { SmtpTransport } from '../../src/adapters/delivery/smtp.ts';
import { TwilioSms } from '../../src/adapters/delivery/twilio.ts';
import { messageIdHeader } from '../../src/adapters/delivery/transport.ts';
import type { OutgoingMessage } from '../../src/ports/outbox.ts';
import { noCounters } from '../../src/counters.ts';
import { BullMqJobQueue } from '../../src/adapters/redis/bullmq-jobs.ts';
import type { JobQueue } from '../../src/ports/jobs.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

describe('Network outbox on the Outbox contract', function () {
  let smtp: SmtpPeer;
  let twilio: TwilioPeer;
  const closers: Array<() => Promise<unknown> | unknown> = [];
  const quiet = { info() {}, warn() {}, error() {} };

  before(async function () {
    [smtp, twilio] = await Promise.all([startSmtpPeer(), startTwilioPeer()]);
  });
  after(async function () {
    for (const close of closers.splice(0).reverse()) await close();
    await Promise.all([smtp.close(), twilio.close()]);
  });

  const onSqlite = () => {
    const db = new Database(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-delivery-jobs-')), 'jobs.sqlite'));
    closers.push(() => db.close());
    return new SqliteJobQueue({ db, pollMs: 10 });
  };
  // BullMQ on the local Redis (as redis.test.ts: CI has it), under a prefix of its own, removed after.
  const prefix = `bidder-test-delivery-${randomUUID()}`;
  const onBullMq = () => new BullMqJobQueue({ url: REDIS_URL, prefix, queueName: 'delivery' });
  after(async function () {
    const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await admin.quit();
  });

  for (const [engine, makeQueue] of [
    ['embedded jobs', onSqlite],
    ['BullMQ', onBullMq],
  ] as const)
    outboxContract(`QueuedOutbox (SMTP and Twilio, ${engine})`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-delivery-'));
      const jobs: JobQueue = makeQueue();
      const mail = new SmtpTransport({ url: smtp.url, from: { name: 'Auctions', address: 'auctions@example.test' } });
      const sms = new TwilioSms({ accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006', apiUrl: twilio.url });
      const outbox = new QueuedOutbox(jobs, { mail, sms }, new FileOutbox(path.join(dir, 'outbox')), 50);
      for (const [name, processor] of Object.entries(outbox.processors({ logger: quiet, counters: noCounters })))
        jobs.process(name, processor);
      closers.push(
        () => jobs.close(),
        () => mail.close(),
      );
      // Arrivals name no message id of ours: the Message-ID (mail) and the text (SMS, of this test) lead back to it.
      const sent = new Map<string, string>();
      const earlierTexts = twilio.messages.length;
      return {
        outbox: {
          send(message: OutgoingMessage) {
            sent.set(message.channel === 'mail' ? messageIdHeader(message, 'example.test') : `${message.to}\0${message.body}`, message.id);
            return outbox.send(message);
          },
        },
        delivered: async () => {
          await jobs.whenIdle(10_000);
          return [
            ...smtp.mails
              .filter((m) => sent.has(m.messageId))
              .map((m) => ({ id: sent.get(m.messageId)!, channel: 'mail' as const, to: m.to, subject: m.subject, body: m.text })),
            ...twilio.messages
              .slice(earlierTexts)
              .filter((m) => sent.has(`${m.to}\0${m.body}`))
              .map((m) => ({ id: sent.get(`${m.to}\0${m.body}`)!, channel: 'sms' as const, to: m.to, body: m.body })),
          ];
        },
      };
    });
});
