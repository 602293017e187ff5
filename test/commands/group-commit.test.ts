/**
 * Group commit (issue 8): the embedded log writes the appends asked for in one turn of the event loop in one
 * transaction, each checked against its own expected revision; the command runner decides the commands that
 * wait for one stream together and appends them in one append. Durability and the expected-revision rules
 * are those of single appends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { EsdbEventLog } from '../../src/adapters/esdb/esdb-event-log.ts';
import { toEventData } from '../../src/adapters/esdb/mapping.ts';
import { appendBytes, MAX_APPEND_BYTES, runCommand } from '../../src/command-runner.ts';
import { WrongExpectedVersionError, type EventLog, type NewEvent } from '../../src/ports/event-log.ts';
import { ConflictError, PayloadTooLargeError, WriteContentionError } from '../../src/errors.ts';
import { counted, counter } from '../support/counter.ts';
import { FakeEsdbClient, sizeOnDisk } from '../support/fake-esdb-client.ts';

const event = (n: number): NewEvent => counted(n, 'direct');

describe('group commit', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-group-'));
  let file: string;
  let log: SqliteEventLog;
  beforeEach(() => {
    file = path.join(dir, `${Math.random().toString(36).slice(2)}.sqlite`);
    log = new SqliteEventLog(file);
  });
  afterEach(async () => log.close());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('the embedded log', () => {
    it('commits appends asked for together, each checked against its own expected revision: a stale one fails alone', async () => {
      await log.appendToStream('s-1', [event(1)], { expectedRevision: 'no_stream' });
      const outcomes = await Promise.allSettled([
        log.appendToStream('s-1', [event(2)], { expectedRevision: 0 }),
        log.appendToStream('s-2', [event(1)], { expectedRevision: 'no_stream' }),
        log.appendToStream('s-1', [event(9)], { expectedRevision: 0 }), // stale: the first one took revision 1
        log.appendToStream('s-3', [event(1), event(2)], { expectedRevision: 'no_stream' }),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason).to.be.instanceOf(WrongExpectedVersionError);
      expect((await log.readStream('s-1')).map((e) => e.data.n)).to.deep.equal([1, 2]);
      expect((await log.readStream('s-3')).map((e) => e.revision)).to.deep.equal([0, 1]);
    });

    it('lets an append see the appends of the same group asked for before it, in the order asked', async () => {
      const [a, b] = await Promise.all([
        log.appendToStream('s-4', [event(1)], { expectedRevision: 'no_stream' }),
        log.appendToStream('s-4', [event(2)], { expectedRevision: 0 }),
      ]);
      expect(a.nextExpectedRevision).to.equal(0);
      expect(b.nextExpectedRevision).to.equal(1);
      expect(b.position).to.be.greaterThan(a.position);
    });

    it('answers an append only once it is committed: another connection reads it then', async () => {
      const reader = new SqliteEventLog(file);
      try {
        const pending = log.appendToStream('s-5', [event(1)]);
        const result = await pending;
        const read = await reader.readStream('s-5');
        expect(read.map((e) => e.position)).to.deep.equal([result.position]);
      } finally {
        await reader.close();
      }
    });

    it('waits for the write lock another process holds without blocking the event loop, then commits what came meanwhile in one group', async () => {
      await log.appendToStream('s-7', [event(1)], { expectedRevision: 'no_stream' });
      // Another process's transaction, holding the write lock.
      const other = new Database(file);
      other.exec('BEGIN IMMEDIATE');
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 1);
      try {
        const first = log.appendToStream('s-7', [event(2)], { expectedRevision: 0 });
        await new Promise((resolve) => setTimeout(resolve, 30));
        const second = log.appendToStream('s-7', [event(3)], { expectedRevision: 1 });
        await new Promise((resolve) => setTimeout(resolve, 20));
        // The loop went on (timers ran) while the appends waited: nothing is written yet.
        expect(ticks).to.be.above(10);
        expect((await log.readStream('s-7')).map((e) => e.data.n)).to.deep.equal([1]);
        other.exec('COMMIT');
        const [a, b] = await Promise.all([first, second]);
        expect([a.nextExpectedRevision, b.nextExpectedRevision]).to.deep.equal([1, 2]);
        expect((await log.readStream('s-7')).map((e) => e.data.n)).to.deep.equal([1, 2, 3]);
      } finally {
        clearInterval(ticker);
        if (other.inTransaction) other.exec('ROLLBACK');
        other.close();
      }
    });

    it('commits what was asked for before a close, and refuses appends after it', async () => {
      const pending = log.appendToStream('s-6', [event(1)]);
      await log.close();
      expect((await pending).position).to.be.greaterThan(0);
      let refused = false;
      try {
        await log.appendToStream('s-6', [event(2)]);
      } catch {
        refused = true;
      }
      expect(refused).to.equal(true);
      log = new SqliteEventLog(file);
      expect(await log.readStream('s-6')).to.have.length(1);
    });
  });

  describe('the command runner', () => {
    it('decides commands waiting for one stream one after another on the state each leaves, and appends them together', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => runCommand(log, 'counter-a', counter, { by: `c${i}` })));
      const stored = await log.readStream('counter-a');
      expect(stored.map((e) => e.data.n)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(stored.map((e) => e.data.by)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `c${i}`));
      // Each command answers its own events, the state right after them (its view), and a position that includes them.
      results.forEach((r, i) => {
        expect(r.events.map((e) => e.data.by)).to.deep.equal([`c${i}`]);
        expect(r.view).to.equal(i + 1);
        expect(r.position).to.be.at.least(stored[i].position);
      });
      // Fewer appends than commands: the ones that waited went together (the first went alone).
      const positions = new Set(results.map((r) => r.position));
      expect(positions.size).to.be.lessThan(20);
    });

    it('fails a command whose decision fails alone; the others of its batch are appended', async () => {
      const outcomes = await Promise.allSettled([
        runCommand(log, 'counter-b', counter, { by: 'one' }),
        runCommand(log, 'counter-b', counter, { by: 'two' }),
        runCommand(log, 'counter-b', counter, { by: 'refused', fail: true }),
        runCommand(log, 'counter-b', counter, { by: 'three' }),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason).to.be.instanceOf(ConflictError);
      expect((await log.readStream('counter-b')).map((e) => e.data.by)).to.deep.equal(['one', 'two', 'three']);
    });

    it('decides a whole batch again on the new state when another writer appended first, never writing over it', async () => {
      await runCommand(log, 'counter-c', counter, { by: 'first' });
      const other = new SqliteEventLog(file);
      // A log whose next append finds that another process appended to the stream just before.
      let intercepted = false;
      const racing: EventLog = Object.assign(Object.create(log), {
        appendToStream: async (
          streamId: string,
          events: NewEvent[],
          options?: { expectedRevision?: number | 'any' | 'no_stream' | 'stream_exists' },
        ) => {
          if (!intercepted) {
            intercepted = true;
            await other.appendToStream(streamId, [counted(2, 'elsewhere')], { expectedRevision: 0 });
          }
          return log.appendToStream(streamId, events, options);
        },
      });
      try {
        const [a, b] = await Promise.all([
          runCommand(racing, 'counter-c', counter, { by: 'a' }),
          // Counts only from 2: decided after "a" on the stale state it would count; decided again on the new
          // state (2 from "elsewhere", then 3 from "a") it appends nothing.
          runCommand(racing, 'counter-c', counter, { by: 'b', expect: 2 }),
        ]);
        expect(a.events.map((e) => e.data.n)).to.deep.equal([3]);
        expect(b.events).to.deep.equal([]);
        expect((await log.readStream('counter-c')).map((e) => `${e.data.by}:${e.data.n}`)).to.deep.equal(['first:1', 'elsewhere:2', 'a:3']);
      } finally {
        await other.close();
      }
    });

    it('gives up on a command after its tries, each on a stale revision (a log that cannot decide under its lock)', async () => {
      const stubborn: EventLog = Object.assign(Object.create(log), {
        appendDecided: undefined,
        appendToStream: async (streamId: string) => {
          throw new WrongExpectedVersionError(streamId, 0, 1);
        },
      });
      let error: unknown;
      try {
        await runCommand(stubborn, 'counter-d', counter, { by: 'x' }, { attempts: 3 });
      } catch (e) {
        error = e;
      }
      // A 503 problem with Retry-After (test/commands/conflict-retry.test.ts), never the log's own error.
      expect(error).to.be.instanceOf(WriteContentionError);
      expect((error as WriteContentionError).tries).to.equal(3);
      expect(await log.readStream('counter-d')).to.deep.equal([]);
    });
  });

  describe('the command runner on EventStoreDB (over the fake client, which refuses an append over 1 MiB as the server does)', () => {
    let esdb: FakeEsdbClient;
    let onEsdb: EsdbEventLog;
    beforeEach(() => {
      esdb = new FakeEsdbClient();
      onEsdb = new EsdbEventLog(esdb);
    });
    afterEach(async () => onEsdb.close());
    const large = (i: number, bytes = 100_000) => `c${i}-${'x'.repeat(bytes)}`;

    it('bounds a batch by bytes: many large commands asked for at once all succeed, in appends the server takes', async () => {
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => runCommand(onEsdb, 'counter-big', counter, { by: large(i) })));
      const stored = await onEsdb.readStream('counter-big');
      expect(stored.map((e) => e.data.n)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(results.map((r) => r.view)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
      // About 4 MB of events: at least 4 appends, still grouped (far fewer than 40).
      const appends = new Set(results.map((r) => r.position)).size;
      expect(appends).to.be.within(4, 20);
    });

    it('refuses with a 413 a command whose events alone exceed one append; the others of its batch are appended', async () => {
      const outcomes = await Promise.allSettled([
        runCommand(onEsdb, 'counter-huge', counter, { by: 'one' }),
        runCommand(onEsdb, 'counter-huge', counter, { by: 'two' }),
        runCommand(onEsdb, 'counter-huge', counter, { by: large(3, MAX_APPEND_BYTES) }),
        runCommand(onEsdb, 'counter-huge', counter, { by: 'three' }),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[2] as PromiseRejectedResult).reason).to.be.instanceOf(PayloadTooLargeError);
      expect((await onEsdb.readStream('counter-huge')).map((e) => e.data.by)).to.deep.equal(['one', 'two', 'three']);
    });

    it("counts an event's bytes at least as the server does, with the adapter's own metadata", () => {
      const news = { ...counted(1, large(1, 5000)), metadata: { tenant: 'demo', correlationId: 'req-'.repeat(10) } };
      expect(appendBytes(news)).to.be.at.least(sizeOnDisk(toEventData(news, 'id')));
    });
  });
});
