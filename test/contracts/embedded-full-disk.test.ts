/**
 * The embedded stores when the data folder's disk is full. SQLite answers a write it has no room for with
 * `SQLITE_FULL`, and may then end the whole transaction (sqlite.org/lang_transaction.html, "Response To Errors
 * Within A Transaction"): a group commit fails as one, every append of it answered and none written. While the
 * storage's record knows the folder full, the stores requests write to refuse a write before it starts; a job's try
 * that found no room keeps its attempt; a file that could not be written leaves nothing behind. Once there is room,
 * every store writes again and nothing acknowledged is lost.
 *
 * SQLite's `max_page_count` stands for a full disk where a spec needs no root; the rest runs on a small tmpfs (as
 * root: mounting one takes it; otherwise that part says it skipped).
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteRateLimiter } from '../../src/adapters/embedded/sqlite-rate-limiter.ts';
import { SqliteJobQueue } from '../../src/adapters/embedded/sqlite-jobs.ts';
import { FolderFileStore } from '../../src/adapters/embedded/folder-files.ts';
import { isStorageFull, StorageFullError } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import type { NewEvent } from '../../src/ports/event-log.ts';
import { StorageRoom, type DataFolderRoom, type StorageFaults, type WriteSource } from '../../src/storage-room.ts';
import { fillToLastBlock, mountTmpfs, unmountTmpfs } from '../support/tmpfs.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (n: number, bytes = 10): NewEvent => ({
  type: 'Noted',
  version: 1,
  data: { n, text: 'x'.repeat(bytes) },
  metadata: { tenant: 'demo' },
});
const reasonOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );
/** A store's SQLite connection (private to its adapter): to limit its file as a full disk would. */
const dbOf = (store: object) => (store as { db: Database.Database }).db;

/** A record of a full storage with a switch: full or not, and what it was told. */
function switchedRoom() {
  const told: WriteSource[] = [];
  const room = {
    full: false,
    told,
    assertRoom() {
      if (room.full) throw new StorageFullError({ cause: Object.assign(new Error('no room'), { code: 'ENOSPC' }) });
    },
    refused(error: unknown, source: WriteSource) {
      if (!isStorageFull(error)) return false;
      told.push(source);
      return true;
    },
  };
  return room satisfies DataFolderRoom & StorageFaults;
}

describe('the embedded stores on a full disk', function () {
  this.timeout(30_000);
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-full-disk-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('fails a group commit as one when SQLite ends its transaction for want of room: every append answered, none written', async () => {
    const log = new SqliteEventLog(path.join(tempDir(), 'events.sqlite'));
    try {
      await log.appendToStream('a', [event(0)]);
      const db = dbOf(log);
      // No page more: the large append in the middle of the group needs new ones, and SQLite ends the transaction.
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
      const group = [
        log.appendToStream('a', [event(1)]),
        log.appendToStream('b', [event(2, 200_000)]),
        log.appendToStream('c', [event(3)]),
      ];
      const reasons = await Promise.all(group.map(reasonOf));
      expect(
        reasons.map((r) => isStorageFull(r)),
        String(reasons),
      ).to.deep.equal([true, true, true]);
      expect(db.inTransaction, 'a transaction left open').to.equal(false);
      expect((await log.readAll({ fromPosition: 0, maxCount: 10 })).map((e) => e.data.n)).to.deep.equal([0]);
      // Room again: the same group commits whole.
      db.pragma('max_page_count = 1073741823');
      await Promise.all([
        log.appendToStream('a', [event(1)]),
        log.appendToStream('b', [event(2, 200_000)]),
        log.appendToStream('c', [event(3)]),
      ]);
      expect((await log.readAll({ fromPosition: 0, maxCount: 10 })).map((e) => e.data.n)).to.deep.equal([0, 1, 2, 3]);
    } finally {
      await log.close();
    }
  });

  it('refuses writes before they start while the data folder is known to have no room, reads on, and writes again after', async () => {
    const dir = tempDir();
    const room = switchedRoom();
    const log = new SqliteEventLog(path.join(dir!, 'events.sqlite'), { room });
    const limiter = new SqliteRateLimiter({ file: path.join(dir!, 'limits.sqlite'), room });
    const files = new FolderFileStore(path.join(dir!, 'files'), room);
    const jobsDb = new Database(path.join(dir!, 'jobs.sqlite'));
    const jobs = new SqliteJobQueue({ db: jobsDb, storage: room });
    try {
      await log.appendToStream('a', [event(0)]);
      await limiter.hit('k', 5, 60_000);
      await files.put('demo', 'kept', Buffer.from('kept'), 'text/plain');
      room.full = true;
      const refused = [
        await reasonOf(log.appendToStream('a', [event(1)])),
        await reasonOf(log.appendDecided('a', 1, () => [event(2)])),
        await reasonOf(limiter.hit('k', 5, 60_000)),
        await reasonOf(files.put('demo', 'new', Buffer.from('new'), 'text/plain')),
        await reasonOf(files.putStream('demo', 'streamed', Readable.from([Buffer.from('new')]), 'text/plain', 100)),
        await reasonOf(jobs.add('mail', {}, { jobId: 'mail-1' })),
      ];
      expect(refused.map((r) => r instanceof StorageFullError && r.code)).to.deep.equal(Array(6).fill('storage-full'));
      // Nothing of them written; everything there read.
      expect((await log.readStream('a')).map((e) => e.data.n)).to.deep.equal([0]);
      expect((await limiter.peek('k', 5)).count).to.equal(1);
      expect((await files.get('demo', 'kept'))?.bytes.toString()).to.equal('kept');
      expect(await files.get('demo', 'new')).to.equal(null);
      expect(await jobs.getState('mail-1')).to.equal(null);
      expect(fs.readdirSync(path.join(dir!, 'files', 'demo')).filter((f) => f.includes('.tmp-'))).to.deep.equal([]);
      room.full = false;
      await log.appendToStream('a', [event(1)]);
      expect((await limiter.hit('k', 5, 60_000)).count).to.equal(2);
      await files.put('demo', 'new', Buffer.from('new'), 'text/plain');
      expect((await jobs.add('mail', {}, { jobId: 'mail-1' })).added).to.equal(true);
    } finally {
      await jobs.close();
      jobsDb.close();
      limiter.close();
      await log.close();
    }
  });

  it('gives a job’s try that found no room its attempt back, runs it again later, and logs it not', async () => {
    const room = switchedRoom();
    const logs: string[] = [];
    const logger = { warn: (_: object, msg: string) => logs.push(msg), error: (_: object, msg: string) => logs.push(msg) };
    const db = new Database(path.join(tempDir(), 'jobs.sqlite'));
    const jobs = new SqliteJobQueue({ db, storage: room, logger, pollMs: 20, storageFullRetryMs: 50 });
    try {
      const tries: number[] = [];
      jobs.process('pdf', async (job) => {
        tries.push(job.attemptsMade);
        if (tries.length < 3) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      });
      // One attempt only: a try burnt by the full disk would end it failed.
      await jobs.add('pdf', {}, { jobId: 'pdf-1', attempts: 1 });
      await jobs.whenIdle(5000);
      expect(await jobs.getState('pdf-1')).to.equal('completed');
      expect(tries).to.deep.equal([1, 1, 1]);
      expect(room.told).to.deep.equal(['job', 'job']);
      expect(logs).to.deep.equal([]);
    } finally {
      await jobs.close();
      db.close();
    }
  });

  describe('on a tmpfs filled to its last block', function () {
    let dir: string | null = null;
    const filler = () => path.join(dir!, 'filler');
    const fill = () => fillToLastBlock(filler());
    before(function () {
      dir = mountTmpfs('16m', 'bidder-full-disk-');
      if (!dir) this.skip();
    });
    after(async () => {
      if (dir) await unmountTmpfs(dir);
    });
    afterEach(() => dir && fs.rmSync(filler(), { force: true }));

    it('finds the folder full by looking at it, and with room once the filler is gone', async () => {
      const lines: Array<{ msg: string; found?: string }> = [];
      const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
      const storage = new StorageRoom({ dataDir: dir!, logger });
      try {
        expect(await storage.check()).to.equal(false);
        fill();
        await sleep(300);
        expect(await storage.check()).to.equal(true);
        expect(() => storage.assertRoom()).to.throw(StorageFullError);
        fs.rmSync(filler());
        await sleep(300);
        expect(await storage.check()).to.equal(false);
        // The probe left no file of its own behind.
        expect(fs.readdirSync(dir!).filter((f) => f.startsWith('.room-probe'))).to.deep.equal([]);
        expect(lines.map((l) => [l.msg, l.found])).to.deep.equal([
          ['storage full: writes are refused until there is room again', 'check'],
          ['storage has room again: writes resumed', undefined],
        ]);
      } finally {
        storage.close();
      }
    });

    it('answers every append of a group with no room SQLITE_FULL, none left open; refuses the next before a try once the record looked; appends again after', async () => {
      const file = path.join(dir!, 'events.sqlite');
      const storage = new StorageRoom({ dataDir: dir!, logger: createLogger({ level: 'silent' }) });
      const log = new SqliteEventLog(file, { room: storage });
      const acknowledged: number[] = [];
      try {
        for (let n = 0; n < 200; n++) acknowledged.push((await log.appendToStream(`s-${n % 5}`, [event(n, 100)])).position);
        fill();
        // Appends go on while the file still has room of its own (its WAL's), until a group finds none.
        let failed: unknown[] = [];
        for (let n = 200; failed.length === 0 && n < 20_000; n += 3) {
          const group = [0, 1, 2].map((i) => log.appendToStream(`s-${(n + i) % 5}`, [event(n + i, 100)]));
          const outcomes = await Promise.allSettled(group);
          for (const o of outcomes) if (o.status === 'fulfilled') acknowledged.push(o.value.position);
          failed = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
        }
        expect(failed.length, 'appends refused').to.be.greaterThan(0);
        expect(
          failed.every((r) => isStorageFull(r) && !(r instanceof StorageFullError)),
          String(failed[0]),
        ).to.equal(true);
        expect(dbOf(log).inTransaction).to.equal(false);
        // The record looks at the folder (as /readyz does): from then on a group is refused before it is tried.
        expect(await storage.check()).to.equal(true);
        expect(await reasonOf(log.appendToStream('s-0', [event(-1)]))).to.be.instanceOf(StorageFullError);
        fs.rmSync(filler());
        for (const deadline = Date.now() + 5000; (await storage.check()) && Date.now() < deadline;) await sleep(300);
        acknowledged.push((await log.appendToStream('s-0', [event(-1)])).position);
      } finally {
        storage.close();
        await log.close();
      }
      // Every acknowledged append, read back from the file by a new connection.
      const reopened = new SqliteEventLog(file);
      try {
        const positions = new Set((await reopened.readAll({ fromPosition: 0, maxCount: 100_000 })).map((e) => e.position));
        expect(acknowledged.filter((p) => !positions.has(p))).to.deep.equal([]);
      } finally {
        await reopened.close();
      }
    });

    it('leaves no temp file of a file it could not store, and keeps a finished job’s outcome until it can write it', async () => {
      const files = new FolderFileStore(path.join(dir!, 'files'));
      const db = new Database(path.join(dir!, 'jobs.sqlite'));
      db.pragma('journal_mode = WAL');
      const room = switchedRoom();
      const jobs = new SqliteJobQueue({ db, storage: room, pollMs: 20 });
      let release: () => void = () => undefined;
      const running = new Promise<void>((resolve) => (release = resolve));
      try {
        await files.put('demo', 'kept', Buffer.alloc(100, 1), 'text/plain');
        jobs.process('pdf', () => running);
        await jobs.add('pdf', {}, { jobId: 'pdf-1' });
        for (const deadline = Date.now() + 5000; (await jobs.getState('pdf-1')) !== 'active' && Date.now() < deadline;) await sleep(10);
        fill();
        expect(await reasonOf(files.put('demo', 'big', Buffer.alloc(4 * 1024 * 1024, 1), 'text/plain'))).to.include({ code: 'ENOSPC' });
        expect(fs.readdirSync(path.join(dir!, 'files', 'demo')).filter((f) => f.includes('.tmp-'))).to.deep.equal([]);
        // The queue's file is full too (other jobs added until it refused one): the finished job cannot be marked.
        for (let n = 0; !(await reasonOf(jobs.add('other', { text: 'x'.repeat(1000) }, { jobId: `other-${n}` }))); n++);
        release();
        await sleep(200);
        expect(await jobs.getState('pdf-1'), 'not marked while full').to.equal('active');
        expect(room.told.length, 'told of the outcome it could not write').to.be.greaterThan(0);
        fs.rmSync(filler());
        for (const deadline = Date.now() + 5000; (await jobs.getState('pdf-1')) !== 'completed' && Date.now() < deadline;) await sleep(20);
        expect(await jobs.getState('pdf-1')).to.equal('completed');
        expect((await files.get('demo', 'kept'))?.size).to.equal(100);
      } finally {
        release();
        await jobs.close();
        db.close();
      }
    });
  });
});
