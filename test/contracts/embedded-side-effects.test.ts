/**
 * The side-effect contracts (jobs, outbox, rate limits) run against the embedded adapters, plus what
 * only the embedded adapters promise.
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteJobQueue } from '../../src/adapters/embedded/sqlite-jobs.ts';
import { FileOutbox, outboxFileName, readOutbox, safeOutboxId } from '../../src/adapters/embedded/file-outbox.ts';
import { MemoryRateLimiter } from '../../src/adapters/embedded/memory-rate-limiter.ts';
import { jobQueueContract } from './jobs.contract.ts';
import { outboxContract } from './outbox.contract.ts';
import { rateLimiterContract } from './rate-limit.contract.ts';
import { leaseStoreContract } from './leases.contract.ts';
import { SqliteLeases } from '../../src/adapters/embedded/sqlite-leases.ts';

const tempDirs: string[] = [];
const databases: Database.Database[] = [];

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'embedded-side-effects-'));
  tempDirs.push(dir);
  return dir;
}

function openDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  databases.push(db);
  return db;
}

after(async function () {
  for (const db of databases.splice(0)) if (db.open) db.close();
  for (const dir of tempDirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('embedded side-effect adapters', function () {
  jobQueueContract('SqliteJobQueue', async () => {
    const file = path.join(await tempDir(), 'jobs.sqlite');
    const db = openDb(file);
    return {
      queue: new SqliteJobQueue({ db, pollMs: 50 }),
      reopen: async () => {
        db.close(); // a restart: the first process's connection is gone
        return new SqliteJobQueue({ db: openDb(file), pollMs: 50 });
      },
    };
  });

  let outboxDir: string;
  outboxContract('FileOutbox', async () => {
    outboxDir = path.join(await tempDir(), 'outbox');
    return {
      outbox: new FileOutbox(outboxDir),
      delivered: async () =>
        (await readOutbox(outboxDir)).map((m) => ({ id: m.Id, channel: m.Channel, to: m.To, subject: m.Subject, body: m.Body })),
    };
  });

  rateLimiterContract('MemoryRateLimiter', async () => new MemoryRateLimiter());

  leaseStoreContract('SqliteLeases', async () => new SqliteLeases(path.join(await tempDir(), 'leases.sqlite')));

  describe('SqliteJobQueue (embedded only)', function () {
    let db: Database.Database;
    const queues: SqliteJobQueue[] = [];
    const queue = (options: Partial<ConstructorParameters<typeof SqliteJobQueue>[0]> = {}) => {
      const q = new SqliteJobQueue({ db, pollMs: 50, ...options });
      queues.push(q);
      return q;
    };

    beforeEach(async function () {
      db = openDb(path.join(await tempDir(), 'jobs.sqlite'));
    });
    afterEach(async function () {
      for (const q of queues.splice(0)) await q.close();
    });

    it('shares its database file with other tables', async function () {
      db.exec('CREATE TABLE events (seq INTEGER PRIMARY KEY, body TEXT)');
      db.prepare('INSERT INTO events (body) VALUES (?)').run('x');
      const q = queue();
      await q.add('n', {}, { jobId: 'j' });
      queue(); // a second construction on the same file is harmless
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all();
      expect(tables).to.deep.equal(['events', 'jobs']);
      expect(
        db
          .prepare(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' AND sql LIKE '%state%run_at%'`)
          .pluck()
          .get(),
      ).to.equal(1);
    });

    it('puts jobs left active by a crash back to waiting when a worker starts, and runs them', async function () {
      const first = queue();
      await first.add('n', { x: 1 }, { jobId: 'crashed', attempts: 2 });
      db.prepare(`UPDATE jobs SET state = 'active', attempts_made = 2 WHERE id = 'crashed'`).run(); // died on its last try
      await first.close();

      // A queue that only adds jobs (an `api` process) leaves a running job alone; a worker takes it back.
      const adding = queue();
      expect(await adding.getState('crashed')).to.equal('active');
      await adding.close();
      const second = queue();
      const attempts: number[] = [];
      second.process('n', async (job) => {
        attempts.push(job.attemptsMade);
      });
      await second.whenIdle(2000);
      expect(attempts).to.deep.equal([2]); // the interrupted try counts, but a job keeps one more
      expect(await second.getState('crashed')).to.equal('completed');
    });

    it('is woken by add at once rather than on the next poll', async function () {
      const q = queue({ pollMs: 10_000 });
      let ranAt = 0;
      q.process('n', async () => {
        ranAt = Date.now();
      });
      await sleep(20); // the loop's first look found nothing and now sleeps 10 s
      const addedAt = Date.now();
      await q.add('n', {}, { jobId: 'fast' });
      await q.whenIdle(1000);
      expect(ranAt - addedAt).to.be.below(100);
    });

    it('runs at most concurrency jobs at once', async function () {
      const q = queue({ concurrency: 2 });
      let running = 0;
      let most = 0;
      q.process('n', async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(20);
        running -= 1;
      });
      for (let i = 0; i < 6; i++) await q.add('n', {}, { jobId: `c${i}` });
      await q.whenIdle(2000);
      expect(most).to.equal(2);
    });

    it('leaves jobs of names it has no processor for alone, and whenIdle does not wait for them', async function () {
      const q = queue();
      q.process('known', async () => {});
      await q.add('unknown', {}, { jobId: 'u' });
      await q.add('known', {}, { jobId: 'k' });
      await q.whenIdle(1000);
      expect(await q.getState('u')).to.equal('waiting');
      expect(await q.getState('k')).to.equal('completed');
    });

    it('stores the error message of a failed job and never logs job data', async function () {
      const logs: Array<{ level: string; obj: object; msg: string }> = [];
      const logger = {
        warn: (obj: object, msg: string) => logs.push({ level: 'warn', obj, msg }),
        error: (obj: object, msg: string) => logs.push({ level: 'error', obj, msg }),
      };
      const q = queue({ logger });
      q.process('mail', async (job) => {
        throw new Error(`smtp refused (attempt ${job.attemptsMade})`);
      });
      await q.add('mail', { email: 'secret.person@example.test' }, { jobId: 'm1', attempts: 2, backoffMs: 5 });
      await q.whenIdle(2000);
      const row = db.prepare(`SELECT state, attempts_made, last_error, finished_at FROM jobs WHERE id = 'm1'`).get() as {
        state: string;
        attempts_made: number;
        last_error: string;
        finished_at: number;
      };
      expect(row).to.deep.include({ state: 'failed', attempts_made: 2, last_error: 'smtp refused (attempt 2)' });
      expect(row.finished_at).to.be.a('number');
      expect(logs.map((l) => l.level)).to.deep.equal(['warn', 'error']);
      expect(logs[1].obj).to.deep.include({ jobId: 'm1', name: 'mail', attempt: 2, err: 'smtp refused (attempt 2)' });
      expect(JSON.stringify(logs)).not.to.include('secret.person');
    });

    it('keeps job data as JSON and hands it back parsed', async function () {
      const q = queue();
      await q.add('n', { a: [1, 2], b: 'é' }, { jobId: 'json' });
      const stored = db.prepare(`SELECT data FROM jobs WHERE id = 'json'`).pluck().get() as string;
      expect(JSON.parse(stored)).to.deep.equal({ a: [1, 2], b: 'é' });
    });

    it('refuses a second processor for one name, and add or process after close', async function () {
      const q = queue();
      q.process('n', async () => {});
      expect(() => q.process('n', async () => {})).to.throw(Error);
      await q.close();
      expect(() => q.process('m', async () => {})).to.throw(Error);
      let error: unknown;
      await q.add('n', {}, { jobId: 'late' }).catch((err) => (error = err));
      expect(error).to.be.instanceOf(Error);
    });
  });

  describe('FileOutbox (embedded only)', function () {
    let dir: string;
    beforeEach(async function () {
      dir = path.join(await tempDir(), 'nested', 'outbox'); // created on first send
    });

    it('writes each message as a whole JSON file with the fields Id, Channel, Tenant, To, Subject, Body, ReplyTo, CreatedAt', async function () {
      const outbox = new FileOutbox(dir);
      const before = Date.now();
      await outbox.send({
        id: 'm-1',
        channel: 'mail',
        tenant: 't1',
        to: 'a@example.test',
        subject: 'Hi',
        body: 'Body',
        replyTo: 'r@example.test',
      });
      await outbox.send({ id: 's-1', channel: 'sms', tenant: 't1', to: '+3247', body: 'Text' });
      expect((await fs.readdir(dir)).sort()).to.deep.equal(['mail-m-1.json', 'sms-s-1.json']);

      const mail = JSON.parse(await fs.readFile(path.join(dir, 'mail-m-1.json'), 'utf8'));
      expect(Object.keys(mail).sort()).to.deep.equal(['Body', 'Channel', 'CreatedAt', 'Id', 'ReplyTo', 'Subject', 'Tenant', 'To']);
      expect(mail).to.deep.include({
        Id: 'm-1',
        Channel: 'mail',
        Tenant: 't1',
        To: 'a@example.test',
        Subject: 'Hi',
        Body: 'Body',
        ReplyTo: 'r@example.test',
      });
      expect(Date.parse(mail.CreatedAt)).to.be.at.least(before - 1);

      const sms = JSON.parse(await fs.readFile(path.join(dir, 'sms-s-1.json'), 'utf8'));
      expect(sms).to.deep.include({ Id: 's-1', Channel: 'sms', Subject: null, ReplyTo: null, Body: 'Text' });
    });

    it('sanitises ids in file names, hashing ids with other characters', async function () {
      const outbox = new FileOutbox(dir);
      const odd = 'bid/../../etc passwd:ü';
      expect(safeOutboxId('Ab9._-')).to.equal('Ab9._-');
      expect(safeOutboxId(odd)).to.match(/^[0-9a-f]{64}$/);
      expect(safeOutboxId('x'.repeat(500))).to.match(/^[0-9a-f]{64}$/);
      expect(outboxFileName('mail', odd)).to.equal(`mail-${safeOutboxId(odd)}.json`);

      expect(await outbox.send({ id: odd, channel: 'mail', tenant: 't', to: 'a@example.test', body: 'b' })).to.deep.equal({
        delivered: true,
      });
      expect(await outbox.send({ id: odd, channel: 'mail', tenant: 't', to: 'a@example.test', body: 'b' })).to.deep.equal({
        delivered: false,
      });
      expect(await fs.readdir(dir)).to.deep.equal([outboxFileName('mail', odd)]);
      const [message] = await readOutbox(dir);
      expect(message.Id).to.equal(odd); // the file keeps the original id
    });

    it('keeps mail and sms with one id apart', async function () {
      const outbox = new FileOutbox(dir);
      expect((await outbox.send({ id: 'same', channel: 'mail', tenant: 't', to: 'a', body: 'b' })).delivered).to.equal(true);
      expect((await outbox.send({ id: 'same', channel: 'sms', tenant: 't', to: 'a', body: 'b' })).delivered).to.equal(true);
    });

    it('leaves no temp files behind and readOutbox ignores foreign files', async function () {
      const outbox = new FileOutbox(dir);
      await Promise.all([1, 2, 3].map((i) => outbox.send({ id: `p${i}`, channel: 'mail', tenant: 't', to: 'a', body: `${i}` })));
      await Promise.all([1, 2, 3].map((i) => outbox.send({ id: `p${i}`, channel: 'mail', tenant: 't', to: 'a', body: `${i}` })));
      expect((await fs.readdir(dir)).filter((n) => n.startsWith('.'))).to.deep.equal([]);
      await fs.writeFile(path.join(dir, 'README.txt'), 'not a message');
      expect((await readOutbox(dir)).map((m) => m.Id).sort()).to.deep.equal(['p1', 'p2', 'p3']);
    });

    it('reads messages back oldest first, and an absent directory as empty', async function () {
      expect(await readOutbox(path.join(dir, 'missing'))).to.deep.equal([]);
      const outbox = new FileOutbox(dir);
      for (const id of ['z-first', 'a-second', 'm-third']) {
        await outbox.send({ id, channel: 'mail', tenant: 't', to: 'a', body: id });
        await sleep(3);
      }
      expect((await readOutbox(dir)).map((m) => m.Id)).to.deep.equal(['z-first', 'a-second', 'm-third']);
    });

    it('refuses a message with an unknown channel', async function () {
      const outbox = new FileOutbox(dir);
      let error: unknown;
      await outbox.send({ id: 'x', channel: 'fax' as 'mail', tenant: 't', to: 'a', body: 'b' }).catch((err) => (error = err));
      expect(error).to.be.instanceOf(TypeError);
    });
  });

  describe('MemoryRateLimiter (embedded only)', function () {
    it('resets the window on the injected clock', async function () {
      let now = 1_000_000;
      const limiter = new MemoryRateLimiter(() => now);
      expect((await limiter.hit('k', 1, 60_000)).allowed).to.equal(true);
      const refused = await limiter.hit('k', 1, 60_000);
      expect(refused).to.deep.include({ allowed: false, count: 2, retryAfterSeconds: 60 });
      now += 59_001;
      expect((await limiter.hit('k', 1, 60_000)).retryAfterSeconds).to.equal(1);
      now += 999;
      expect(await limiter.hit('k', 1, 60_000)).to.deep.include({ allowed: true, count: 1 });
    });

    it('sweeps expired keys so memory stays bounded', async function () {
      let now = 0;
      const limiter = new MemoryRateLimiter({ now: () => now, sweepMs: 1000 });
      for (let i = 0; i < 100; i++) await limiter.hit(`k${i}`, 5, 500);
      expect(limiter.size).to.equal(100);
      now = 1000;
      await limiter.hit('fresh', 5, 500);
      expect(limiter.size).to.equal(1);
    });

    it('caps the number of keys, evicting expired then oldest windows', async function () {
      let now = 0;
      const limiter = new MemoryRateLimiter({ now: () => now, maxKeys: 3 });
      await limiter.hit('old', 1, 100_000);
      await limiter.hit('old', 1, 100_000);
      await limiter.hit('b', 1, 100_000);
      await limiter.hit('c', 1, 100_000);
      now = 10;
      await limiter.hit('d', 1, 100_000);
      expect(limiter.size).to.equal(3);
      expect((await limiter.peek('old', 1)).count).to.equal(0); // the oldest window went
      expect((await limiter.peek('b', 1)).count).to.equal(1);

      now = 0;
      const short = new MemoryRateLimiter({ now: () => now, maxKeys: 2 });
      await short.hit('live', 1, 100_000); // the oldest window, but still open
      await short.hit('e1', 1, 50);
      now = 2000; // e1 has expired, and a sweep is allowed again
      await short.hit('new', 1, 100_000);
      expect((await short.peek('live', 1)).count).to.equal(1); // the expired one went, not the live one
      expect(short.size).to.equal(2);
    });

    it('refuses invalid limits and windows', async function () {
      const limiter = new MemoryRateLimiter();
      for (const call of [() => limiter.hit('k', -1, 1000), () => limiter.hit('k', 1.5, 1000), () => limiter.hit('k', 1, 0)]) {
        let error: unknown;
        await call().catch((err) => (error = err));
        expect(error).to.be.instanceOf(RangeError);
      }
    });
  });
});
