/**
 * A command that loses the race for its stream (another writer, often another process, appended first) is
 * decided again on the stream as it then is, after a short random wait, within a time budget (2 s from the
 * call by default); past it, the command fails with a WriteContentionError (503, Retry-After) and nothing of
 * it is appended. Background jobs and intake call runCommand directly and get the same error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { CONFLICT_BUDGET_MS, runCommand, type ConflictRetry } from '../../src/command-runner.ts';
import {
  WrongExpectedVersionError,
  type EventLog,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
} from '../../src/ports/event-log.ts';
import { AppError, WriteContentionError } from '../../src/errors.ts';
import { counted, counter, type CounterEvent } from '../support/counter.ts';

/** A clock that moves only when waited on, or when told (`advance`): a 2 s budget runs in no time. */
function fakeClock(random: () => number = pseudoRandom()) {
  let t = 1_700_000_000_000;
  const waits: number[] = [];
  const retry: Required<ConflictRetry> = {
    budgetMs: CONFLICT_BUDGET_MS,
    now: () => t,
    sleep: async (ms) => {
      waits.push(ms);
      t += ms;
    },
    random,
  };
  return { retry, waits, advance: (ms: number) => (t += ms), elapsed: () => t - 1_700_000_000_000 };
}

/** Deterministic values in (0, 1), all different. */
function pseudoRandom(seed = 7) {
  let x = seed;
  return () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
}

/** The window a wait after the k-th conflict in a row is drawn from (5 ms doubling, at most 100 ms). */
const window = (k: number) => Math.min(100, 5 * 2 ** (k - 1));

describe('a command that loses the race for its stream', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-conflict-'));
  let file: string;
  let log: SqliteEventLog;
  let other: SqliteEventLog;
  beforeEach(() => {
    file = path.join(dir, `${Math.random().toString(36).slice(2)}.sqlite`);
    log = new SqliteEventLog(file);
    // Another writer on the same file: another process's log.
    other = new SqliteEventLog(file);
  });
  afterEach(async () => {
    await log.close();
    await other.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * This runner's log, where another writer appends to the stream just before each of the first `times`
   * appends (a real conflict: the runner must read the stream again to win); `onAppend` sees every append.
   */
  function racedLog(times: number, onAppend: (events: NewEvent[]) => void = () => {}): EventLog {
    let raced = 0;
    return Object.assign(Object.create(log), {
      appendDecided: undefined,
      appendToStream: async (streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }) => {
        onAppend(events);
        if (raced < times) {
          raced++;
          const n = (await other.readStream(streamId)).length + 1;
          await other.appendToStream(streamId, [counted(n, 'elsewhere')], { expectedRevision: 'any' });
        }
        return log.appendToStream(streamId, events, options);
      },
    });
  }

  it('decides again on the stream as it is when a state it kept would append nothing (another writer wrote since)', async () => {
    // This process counts to 1 and keeps that state; another process then counts to 2.
    expect((await runCommand(log, 'counter-a', counter, { by: 'here' })).view).to.equal(1);
    await other.appendToStream('counter-a', [counted(2, 'elsewhere')], { expectedRevision: 0 });
    // "Count if the counter is at 2": on the kept state (1) a no-op nothing would check; on the stream, a count.
    const result = await runCommand(log, 'counter-a', counter, { by: 'here', expect: 2 });
    expect(result.events.map((e) => e.data.n)).to.deep.equal([3]);
    expect(result.view).to.equal(3);
    expect((await log.readStream('counter-a')).map((e) => (e.data as { n: number }).n)).to.deep.equal([1, 2, 3]);
  });

  it('gives up after its time budget with a 503 problem (Retry-After), having appended nothing', async () => {
    const clock = fakeClock();
    let appends = 0;
    // Every append conflicts, and each try takes 1 ms.
    const stubborn: EventLog = Object.assign(Object.create(log), {
      appendDecided: undefined,
      appendToStream: async (streamId: string) => {
        appends++;
        clock.advance(1);
        throw new WrongExpectedVersionError(streamId, 0, 1);
      },
    });
    let error: unknown;
    try {
      await runCommand(stubborn, 'counter-a', counter, { by: 'x' }, { retry: clock.retry });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(WriteContentionError);
    const problem = error as WriteContentionError;
    expect(problem).to.be.instanceOf(AppError);
    expect(problem.status).to.equal(503);
    expect(problem.extra.retryAfterSeconds).to.equal(1);
    expect(problem.message).to.not.match(/stream|revision|counter|WrongExpected/i);
    // Tried for the whole budget (and not much past it), then stopped: no endless loop.
    expect(clock.elapsed())
      .to.be.at.least(CONFLICT_BUDGET_MS)
      .and.below(CONFLICT_BUDGET_MS + 2 * window(99));
    expect(appends).to.equal(problem.tries).and.to.be.above(20);
    expect(clock.waits).to.have.length(appends - 1);
    expect(await log.readStream('counter-a')).to.deep.equal([]);
  });

  it('waits a random time between tries, in a window that doubles from 5 ms up to 100 ms', async () => {
    const clock = fakeClock(pseudoRandom(11));
    const stubborn: EventLog = Object.assign(Object.create(log), {
      appendDecided: undefined,
      appendToStream: async (streamId: string) => {
        clock.advance(1);
        throw new WrongExpectedVersionError(streamId, 0, 1);
      },
    });
    await runCommand(stubborn, 'counter-b', counter, { by: 'x' }, { retry: { ...clock.retry, budgetMs: 1000 } }).catch(() => {});
    const waits = clock.waits.slice(0, -1); // the last one is cut short by the budget
    waits.forEach((ms, i) =>
      expect(ms, `wait ${i + 1}`)
        .to.be.at.least(0)
        .and.below(window(i + 1)),
    );
    // Randomised: two writers that collided do not try again at the same instant.
    expect(new Set(waits.map((ms) => ms.toFixed(3))).size).to.be.above(waits.length * 0.9);
    // Full jitter with the right windows: on average half of each window.
    const late = waits.slice(10);
    expect(late.reduce((a, b) => a + b, 0) / late.length).to.be.within(30, 70);
  });

  it('gives up in real time too when the budget is short', async () => {
    const stubborn: EventLog = Object.assign(Object.create(log), {
      appendDecided: undefined,
      appendToStream: async (streamId: string) => {
        throw new WrongExpectedVersionError(streamId, 0, 1);
      },
    });
    const started = Date.now();
    const outcome = await runCommand(stubborn, 'counter-c', counter, { by: 'x' }, { retry: { budgetMs: 50 } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(outcome).to.be.instanceOf(WriteContentionError);
    expect(Date.now() - started)
      .to.be.at.least(45)
      .and.below(1000);
  });

  it('is decided again on the new state after each lost race, and appended once when it wins', async () => {
    await runCommand(log, 'counter-d', counter, { by: 'first' });
    const clock = fakeClock();
    let appends = 0;
    const raced = racedLog(3, () => appends++);
    const result = await runCommand(raced, 'counter-d', counter, { by: 'me' }, { retry: clock.retry });
    expect(appends).to.equal(4);
    expect(result.retries).to.equal(3);
    expect(clock.waits).to.have.length(3);
    // Decided on the stream with the other writer's three events in it: it counts 5, once.
    expect(result.events.map((e) => e.data.n)).to.deep.equal([5]);
    const stored = (await other.readStream('counter-d')).map((e) => `${e.data.by}:${e.data.n}`);
    expect(stored).to.deep.equal(['first:1', 'elsewhere:2', 'elsewhere:3', 'elsewhere:4', 'me:5']);
    // The state kept for the stream is the stream's: the next command counts on from it.
    const next = await runCommand(raced, 'counter-d', counter, { by: 'next' });
    expect(next.events.map((e) => e.data.n)).to.deep.equal([6]);
    expect(next.retries).to.equal(0);
  });

  it("keeps the stream's state right after giving up: the next command decides on what the other writer appended", async () => {
    await runCommand(log, 'counter-e', counter, { by: 'first' });
    const outcome = await runCommand(
      racedLog(Number.POSITIVE_INFINITY),
      'counter-e',
      counter,
      { by: 'loser' },
      { retry: { budgetMs: 30 } },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(outcome).to.be.instanceOf(WriteContentionError);
    const stored = await other.readStream('counter-e');
    expect(stored.map((e) => e.data.by)).to.not.include('loser');
    const next = await runCommand(log, 'counter-e', counter, { by: 'next' });
    expect(next.events.map((e) => e.data.n)).to.deep.equal([stored.length + 1]);
    expect((await log.readStream('counter-e')).map((e) => e.data.n)).to.deep.equal(
      Array.from({ length: stored.length + 1 }, (_, i) => i + 1),
    );
  });

  it('lets a command of a batch whose budget is spent give up alone; the others are appended, each with its own events', async () => {
    await runCommand(log, 'counter-f', counter, { by: 'first' });
    const clock = fakeClock();
    // Conflicts for 40 tries of about 4 ms each (waits included), then none.
    const raced = racedLog(40, () => clock.advance(1));
    const [short, long1, long2] = await Promise.allSettled([
      runCommand(raced, 'counter-f', counter, { by: 'short' }, { retry: { ...clock.retry, budgetMs: 20 } }),
      runCommand(raced, 'counter-f', counter, { by: 'long1' }, { retry: clock.retry }),
      runCommand(raced, 'counter-f', counter, { by: 'long2' }, { retry: clock.retry }),
    ]);
    expect(short.status).to.equal('rejected');
    expect((short as PromiseRejectedResult).reason).to.be.instanceOf(WriteContentionError);
    expect(long1.status).to.equal('fulfilled');
    expect(long2.status).to.equal('fulfilled');
    const a = (long1 as PromiseFulfilledResult<{ events: CounterEvent[]; position: number }>).value;
    const b = (long2 as PromiseFulfilledResult<{ events: CounterEvent[]; position: number }>).value;
    expect(a.events.map((e) => e.data.by)).to.deep.equal(['long1']);
    expect(b.events.map((e) => e.data.by)).to.deep.equal(['long2']);
    const stored = await log.readStream('counter-f');
    expect(stored.map((e) => e.data.n)).to.deep.equal(Array.from({ length: stored.length }, (_, i) => i + 1));
    expect(stored.map((e) => e.data.by).filter((by) => by !== 'elsewhere')).to.deep.equal(['first', 'long1', 'long2']);
    expect(stored.filter((e) => e.data.by === 'elsewhere')).to.have.length(40);
  });

  it('takes the commands that arrived during its wait into the batch it decides again (one append for all)', async () => {
    await runCommand(log, 'counter-g', counter, { by: 'first' });
    const appended: string[][] = [];
    const raced = racedLog(1, (events) => appended.push(events.map((e) => String(e.data.by))));
    let late: Promise<unknown>[] = [];
    const retry: ConflictRetry = {
      // While the batch waits after its conflict, two more commands for the stream arrive.
      sleep: async () => {
        late = [runCommand(raced, 'counter-g', counter, { by: 'late1' }), runCommand(raced, 'counter-g', counter, { by: 'late2' })];
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    };
    const first = await runCommand(raced, 'counter-g', counter, { by: 'early' }, { retry });
    const [l1, l2] = (await Promise.all(late)) as Array<{ events: CounterEvent[]; position: number }>;
    expect(appended).to.deep.equal([['early'], ['early', 'late1', 'late2']]);
    expect(first.events.map((e) => e.data.n)).to.deep.equal([3]);
    expect(l1.events.map((e) => e.data.n)).to.deep.equal([4]);
    expect(l2.events.map((e) => e.data.n)).to.deep.equal([5]);
    expect(new Set([first.position, l1.position, l2.position]).size).to.equal(1);
  });
  it("keeps a contended stream's state across conflicts when the decider can copy it: only the other writer's events are read again", async () => {
    const copying = { ...counter, copy: (state: { n: number }) => ({ ...state }) };
    // One log as this runner sees it (its state cache is per log): another writer wins the next `races` races.
    let races = 0;
    const reads: number[] = [];
    const runnerLog: EventLog = Object.assign(Object.create(log), {
      appendDecided: undefined,
      appendToStream: async (streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }) => {
        if (races > 0) {
          races--;
          const n = (await other.readStream(streamId)).length + 1;
          await other.appendToStream(streamId, [counted(n, 'elsewhere')], { expectedRevision: 'any' });
        }
        return log.appendToStream(streamId, events, options);
      },
      readStream: (streamId: string, options?: { fromRevision?: number }) => {
        reads.push(options?.fromRevision ?? 0);
        return log.readStream(streamId, options);
      },
    });
    for (const by of ['a', 'b', 'c']) await runCommand(runnerLog, 'counter-h', copying, { by });
    reads.length = 0;
    const clock = fakeClock();
    // The state this runner appended is decided on without a read; the first conflict marks the stream contended
    // (its state is then read again from the start, once) ...
    races = 1;
    const first = await runCommand(runnerLog, 'counter-h', copying, { by: 'first' }, { retry: clock.retry });
    // ... from then on the state before each try is kept: a conflict reads on from where it stood.
    races = 2;
    const second = await runCommand(runnerLog, 'counter-h', copying, { by: 'second' }, { retry: clock.retry });
    expect(first.events.map((e) => e.data.n)).to.deep.equal([5]);
    expect(second.events.map((e) => e.data.n)).to.deep.equal([8]);
    expect(reads).to.deep.equal([0, 5, 5, 6]);
    const stored = await log.readStream('counter-h');
    expect(stored.map((e) => e.data.n)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
  });
  describe('on a log that decides under its write lock (EventLog.appendDecided)', () => {
    /**
     * The runner's view of `log`: another writer wins the first `races` optimistic appends; `before` runs before
     * each locked append, and while `fail()` a locked append fails after its decision (nothing written).
     */
    function lockedLog(races: number, hooks: { before?: (streamId: string) => Promise<void>; fail?: () => boolean } = {}) {
      const calls = { optimistic: 0, locked: 0 };
      const view: EventLog = Object.assign(Object.create(log), {
        appendToStream: async (streamId: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }) => {
          calls.optimistic++;
          if (races > 0) {
            races--;
            const n = (await other.readStream(streamId)).length + 1;
            await other.appendToStream(streamId, [counted(n, 'elsewhere')], { expectedRevision: 'any' });
          }
          return log.appendToStream(streamId, events, options);
        },
        appendDecided: async (streamId: string, fromRevision: number, decide: (newer: RecordedEvent[]) => NewEvent[]) => {
          calls.locked++;
          await hooks.before?.(streamId);
          const failing = hooks.fail?.() ?? false;
          return log.appendDecided(streamId, fromRevision, (newer) => {
            const events = decide(newer);
            if (failing) throw new Error('disk I/O error');
            return events;
          });
        },
      });
      return { view, calls };
    }

    it('decides a stream that met another writer under the lock: what the other wrote meanwhile is read there, with no conflict and no wait', async () => {
      let raceLocked = false;
      const { view, calls } = lockedLog(1, {
        before: async (streamId) => {
          if (!raceLocked) return;
          raceLocked = false;
          // Another process appends after this runner's state was read, before its transaction.
          const n = (await other.readStream(streamId)).length + 1;
          await other.appendToStream(streamId, [counted(n, 'elsewhere')], { expectedRevision: n - 2 });
        },
      });
      await runCommand(log, 'counter-l', counter, { by: 'first' });
      const clock = fakeClock();
      // The first conflict: one wait, then decided under the lock.
      const first = await runCommand(view, 'counter-l', counter, { by: 'me' }, { retry: clock.retry });
      expect(first.retries).to.equal(1);
      expect(calls).to.deep.equal({ optimistic: 1, locked: 1 });
      await other.appendToStream('counter-l', [counted(4, 'elsewhere')], { expectedRevision: 2 });
      raceLocked = true;
      const [second, third] = await Promise.all([
        runCommand(view, 'counter-l', counter, { by: 'me2' }, { retry: clock.retry }),
        runCommand(view, 'counter-l', counter, { by: 'me3' }, { retry: clock.retry }),
      ]);
      expect([second.retries, third.retries]).to.deep.equal([0, 0]);
      expect(clock.waits).to.have.length(1);
      // One locked append for the two, none optimistic.
      expect(calls).to.deep.equal({ optimistic: 1, locked: 2 });
      expect([...second.events, ...third.events].map((e) => e.data.n)).to.deep.equal([6, 7]);
      const stored = (await other.readStream('counter-l')).map((e) => `${e.data.by}:${e.data.n}`);
      expect(stored).to.deep.equal(['first:1', 'elsewhere:2', 'me:3', 'elsewhere:4', 'elsewhere:5', 'me2:6', 'me3:7']);
    });

    it('fails every command of a batch whose locked append failed, appends nothing of it, and reads the stream again after', async () => {
      let failing = false;
      const { view, calls } = lockedLog(1, { fail: () => failing });
      await runCommand(log, 'counter-m', counter, { by: 'first' });
      await runCommand(view, 'counter-m', counter, { by: 'contended' }, { retry: fakeClock().retry });
      failing = true;
      // The second decides nothing (it expects another count): it fails too, instead of being decided again for ever.
      const outcomes = await Promise.allSettled([
        runCommand(view, 'counter-m', counter, { by: 'lost' }),
        runCommand(view, 'counter-m', counter, { by: 'nothing', expect: 99 }),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
      expect(((outcomes[0] as PromiseRejectedResult).reason as Error).message).to.equal('disk I/O error');
      expect(calls.locked).to.equal(2);
      failing = false;
      const next = await runCommand(view, 'counter-m', counter, { by: 'next' });
      const stored = (await log.readStream('counter-m')).map((e) => `${e.data.by}:${e.data.n}`);
      expect(stored).to.deep.equal(['first:1', 'elsewhere:2', 'contended:3', 'next:4']);
      expect(next.events.map((e) => e.data.n)).to.deep.equal([4]);
    });
  });
});
