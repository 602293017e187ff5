/**
 * Contract of the JobQueue port (src/ports/jobs.ts), run against every adapter: the embedded SQLite one
 * and BullMQ on Redis. The factory's queue is built with its defaults, which the suite checks against
 * JOB_DEFAULTS.
 *
 * makeQueue() returns a fresh, empty queue; reopen(), when given, stands for a process restart: it gives
 * a new queue on the same storage (the suite closes the first queue before calling it). Job ids are
 * unique per test run, so a factory may share its storage between tests.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Job, JobQueue } from '../../src/ports/jobs.ts';
import { JOB_DEFAULTS, JobDeferred, JobFailedForGood } from '../../src/ports/jobs.ts';

export interface JobQueueFixture {
  queue: JobQueue;
  reopen?: () => Promise<JobQueue>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

export function jobQueueContract(name: string, makeQueue: () => Promise<JobQueueFixture>): void {
  describe(`JobQueue contract: ${name}`, function () {
    const opened: JobQueue[] = [];
    let fixture: JobQueueFixture;
    let queue: JobQueue;
    let run: string;

    const id = (label: string) => `${run}-${label}`;
    const jobName = (label: string) => `${label}-${run}`;

    beforeEach(async function () {
      run = randomUUID();
      fixture = await makeQueue();
      queue = fixture.queue;
      opened.push(queue);
    });

    afterEach(async function () {
      for (const q of opened.splice(0)) await q.close();
    });

    it('runs an added job once, with its data and attemptsMade 1', async function () {
      const seen: Job[] = [];
      const name = jobName('send');
      queue.process(name, async (job) => {
        seen.push(job);
      });
      const result = await queue.add(name, { to: 'a@example.test', n: 1 }, { jobId: id('one') });
      expect(result).to.deep.equal({ id: id('one'), added: true });
      await queue.whenIdle(5000);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.deep.include({ id: id('one'), name, attemptsMade: 1 });
      expect(seen[0].data).to.deep.equal({ to: 'a@example.test', n: 1 });
      expect(await queue.getState(id('one'))).to.equal('completed');
    });

    it('runs a job whose jobId was added twice once, with the data of the first add', async function () {
      const seen: unknown[] = [];
      const name = jobName('dup');
      const first = await queue.add(name, { v: 1 }, { jobId: id('dup') });
      const second = await queue.add(name, { v: 2 }, { jobId: id('dup') });
      expect(first.added).to.equal(true);
      expect(second).to.deep.equal({ id: id('dup'), added: false });
      queue.process(name, async (job) => {
        seen.push(job.data);
      });
      await queue.whenIdle(5000);
      expect(seen).to.deep.equal([{ v: 1 }]);
    });

    it('ignores a jobId added again after the job completed', async function () {
      let runs = 0;
      const name = jobName('again');
      queue.process(name, async () => {
        runs += 1;
      });
      await queue.add(name, {}, { jobId: id('again') });
      await queue.whenIdle(5000);
      const again = await queue.add(name, {}, { jobId: id('again') });
      expect(again.added).to.equal(false);
      await queue.whenIdle(5000);
      expect(runs).to.equal(1);
      expect(await queue.getState(id('again'))).to.equal('completed');
    });

    it('retries a failing job until it succeeds', async function () {
      const attempts: number[] = [];
      const name = jobName('flaky');
      queue.process(name, async (job) => {
        attempts.push(job.attemptsMade);
        if (job.attemptsMade < 3) throw new Error(`try ${job.attemptsMade} failed`);
      });
      await queue.add(name, {}, { jobId: id('flaky'), attempts: 5, backoffMs: 10 });
      await queue.whenIdle(5000);
      expect(attempts).to.deep.equal([1, 2, 3]);
      expect(await queue.getState(id('flaky'))).to.equal('completed');
    });

    it('gives a retry the progress an earlier try saved, and a first try null', async function () {
      const seen: unknown[] = [];
      const name = jobName('progress');
      queue.process(name, async (job) => {
        seen.push(job.progress);
        if (job.attemptsMade === 1) await job.saveProgress({ step: 'sent', reply: '250 OK' });
        if (job.attemptsMade < 3) throw new Error(`try ${job.attemptsMade} failed after its step`);
      });
      await queue.add(name, {}, { jobId: id('progress'), attempts: 3, backoffMs: 10 });
      await queue.whenIdle(5000);
      expect(seen).to.deep.equal([null, { step: 'sent', reply: '250 OK' }, { step: 'sent', reply: '250 OK' }]);
    });

    it('waits a growing backoff between tries', async function () {
      const times: number[] = [];
      const name = jobName('backoff');
      queue.process(name, async () => {
        times.push(Date.now());
        throw new Error('always');
      });
      await queue.add(name, {}, { jobId: id('backoff'), attempts: 3, backoffMs: 40 });
      await queue.whenIdle(5000);
      expect(times).to.have.length(3);
      // 40 ms then 80 ms (a few ms of timer slack allowed).
      expect(times[1] - times[0]).to.be.at.least(35);
      expect(times[2] - times[1]).to.be.at.least(75);
    });

    /** Registers a processor that always fails; answers how many times it ran. */
    const failing = (name: string) => {
      const runs = { count: 0 };
      queue.process(name, async () => {
        runs.count += 1;
        throw new Error('always');
      });
      return runs;
    };

    it('tries a job whose add names no attempts JOB_DEFAULTS.attempts times', async function () {
      const name = jobName('default-attempts');
      const runs = failing(name);
      await queue.add(name, {}, { jobId: id('default-attempts'), backoffMs: 1 });
      await queue.whenIdle(5000);
      expect(runs.count).to.equal(JOB_DEFAULTS.attempts);
      expect(await queue.getState(id('default-attempts'))).to.equal('failed');
    });

    it('waits JOB_DEFAULTS.backoffMs before the second try of a job whose add names no backoff', async function () {
      const times: number[] = [];
      const name = jobName('default-backoff');
      queue.process(name, async (job) => {
        times.push(Date.now());
        if (job.attemptsMade === 1) throw new Error('first try fails');
      });
      await queue.add(name, {}, { jobId: id('default-backoff') });
      await queue.whenIdle(JOB_DEFAULTS.backoffMs + 5000);
      expect(times).to.have.length(2);
      expect(times[1] - times[0]).to.be.at.least(JOB_DEFAULTS.backoffMs - 5);
    });

    it('runs JOB_DEFAULTS.concurrency jobs of one name at once', async function () {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      const name = jobName('concurrent');
      queue.process(name, async () => {
        started += 1;
        await gate;
      });
      for (let i = 0; i <= JOB_DEFAULTS.concurrency; i++) await queue.add(name, {}, { jobId: id(`concurrent-${i}`) });
      await waitFor(() => started === JOB_DEFAULTS.concurrency);
      await sleep(150);
      expect(started).to.equal(JOB_DEFAULTS.concurrency);
      release();
      await queue.whenIdle(5000);
      expect(started).to.equal(JOB_DEFAULTS.concurrency + 1);
    });

    it('marks a job that always fails as failed after its attempts, and a re-add of it does nothing', async function () {
      const name = jobName('doomed');
      const runs = failing(name);
      await queue.add(name, {}, { jobId: id('doomed'), attempts: 3, backoffMs: 5 });
      await queue.whenIdle(5000);
      expect(runs.count).to.equal(3);
      expect(await queue.getState(id('doomed'))).to.equal('failed');
      const again = await queue.add(name, {}, { jobId: id('doomed'), attempts: 3, backoffMs: 5 });
      expect(again.added).to.equal(false);
      await queue.whenIdle(5000);
      expect(runs.count).to.equal(3);
      expect(await queue.getState(id('doomed'))).to.equal('failed');
    });

    it('parks a job whose tries are spent without holding the others up: listed, counted, retried with its tries anew, or removed', async function () {
      const name = jobName('parked');
      let broken = true;
      const ran: string[] = [];
      const tries: number[] = [];
      queue.process(name, async (job) => {
        if (broken && job.id !== id('fine')) throw new Error(`cannot send ${job.id}`);
        ran.push(job.id);
        tries.push(job.attemptsMade);
      });
      await queue.add(name, {}, { jobId: id('bad'), attempts: 2, backoffMs: 5 });
      await queue.add(name, {}, { jobId: id('worse'), attempts: 2, backoffMs: 5 });
      await queue.add(name, {}, { jobId: id('fine'), attempts: 2, backoffMs: 5 });
      await queue.whenIdle(5000);
      expect(ran, 'the job behind the failing ones ran').to.deep.equal([id('fine')]);
      const mine = async () => (await queue.parked()).filter((job) => job.name === name).sort((a, b) => a.id.localeCompare(b.id));
      const parked = await mine();
      expect(parked.map(({ id, name, attempts, error }) => ({ id, name, attempts, error }))).to.deep.equal([
        { id: id('bad'), name, attempts: 2, error: `cannot send ${id('bad')}` },
        { id: id('worse'), name, attempts: 2, error: `cannot send ${id('worse')}` },
      ]);
      expect(Date.parse(parked[0].failedAt!)).to.be.closeTo(Date.now(), 10_000);
      expect((await queue.parkedCounts())[name]).to.equal(2);
      // After the fix: retried, it runs with its tries anew; removed, it is gone, and nothing else changes.
      broken = false;
      expect(await queue.retryParked(name, id('bad'))).to.equal(true);
      expect(await queue.removeParked(name, id('worse'))).to.equal(true);
      await queue.whenIdle(5000);
      expect(ran).to.deep.equal([id('fine'), id('bad')]);
      expect(tries, 'the retried job began its tries again').to.deep.equal([1, 1]);
      expect(await queue.getState(id('bad'))).to.equal('completed');
      expect(await queue.getState(id('worse'))).to.equal(null);
      expect(await mine()).to.deep.equal([]);
      expect((await queue.parkedCounts())[name]).to.equal(undefined);
      // Only a parked job is retried or removed.
      expect(await queue.retryParked(name, id('fine'))).to.equal(false);
      expect(await queue.removeParked(name, id('fine'))).to.equal(false);
      expect(await queue.retryParked(name, id('never'))).to.equal(false);
      expect(await queue.getState(id('fine'))).to.equal('completed');
    });

    it('reports null for an unknown job and waiting for a job nobody processes yet', async function () {
      expect(await queue.getState(id('nobody'))).to.equal(null);
      await queue.add(jobName('later'), {}, { jobId: id('later') });
      expect(await queue.getState(id('later'))).to.equal('waiting');
    });

    it('counts the unfinished jobs of a name (waiting or delayed), whether or not this queue runs that name', async function () {
      const idle = jobName('idle');
      const busy = jobName('busy');
      expect(await queue.unfinished(idle)).to.equal(0);
      await queue.add(idle, {}, { jobId: id('w1') });
      await queue.add(idle, {}, { jobId: id('w2'), delayMs: 60_000 });
      await queue.add(busy, {}, { jobId: id('b1') });
      expect(await queue.unfinished(idle), 'nobody processes it').to.equal(2);
      queue.process(busy, async () => {});
      await queue.whenIdle(5000);
      expect(await queue.unfinished(busy), 'done').to.equal(0);
      expect(await queue.unfinished(idle), 'another name is not counted').to.equal(2);
    });

    it('reports active while a job runs', async function () {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started = false;
      const name = jobName('slow');
      queue.process(name, async () => {
        started = true;
        await gate;
      });
      await queue.add(name, {}, { jobId: id('slow') });
      await waitFor(() => started);
      expect(await queue.getState(id('slow'))).to.equal('active');
      release();
      await queue.whenIdle(5000);
      expect(await queue.getState(id('slow'))).to.equal('completed');
    });

    it('runs each job name with its own processor', async function () {
      const seen: string[] = [];
      const a = jobName('a');
      const b = jobName('b');
      queue.process(a, async (job) => {
        seen.push(`a:${job.id}`);
      });
      queue.process(b, async (job) => {
        seen.push(`b:${job.id}`);
      });
      await queue.add(a, {}, { jobId: id('x') });
      await queue.add(b, {}, { jobId: id('y') });
      await queue.whenIdle(5000);
      expect(seen.sort()).to.deep.equal([`a:${id('x')}`, `b:${id('y')}`]);
    });

    it('is idle only once every job, retries included, is done', async function () {
      let done = 0;
      const name = jobName('many');
      queue.process(name, async (job) => {
        await sleep(5);
        if (job.attemptsMade === 1 && job.id.endsWith('-0')) throw new Error('first try of job 0 fails');
        done += 1;
      });
      for (let i = 0; i < 5; i++) await queue.add(name, { i }, { jobId: id(`many-${i}`), backoffMs: 20 });
      await queue.whenIdle(5000);
      expect(done).to.equal(5);
      for (let i = 0; i < 5; i++) expect(await queue.getState(id(`many-${i}`))).to.equal('completed');
    });

    it('rejects whenIdle with an Error when jobs do not finish in time', async function () {
      const name = jobName('stuck');
      queue.process(name, async () => {
        await sleep(300);
      });
      await queue.add(name, {}, { jobId: id('stuck') });
      let error: unknown;
      try {
        await queue.whenIdle(50);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(Error);
    });

    it('waits for a running job on close', async function () {
      let finished = false;
      let started = false;
      const name = jobName('closing');
      queue.process(name, async () => {
        started = true;
        await sleep(50);
        finished = true;
      });
      await queue.add(name, {}, { jobId: id('closing') });
      await waitFor(() => started);
      await queue.close();
      expect(finished).to.equal(true);
    });

    it('stops waiting for a running job after the grace period given to close, and names it', async function () {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started = false;
      const name = jobName('stuck');
      queue.process(name, async () => {
        started = true;
        await held;
      });
      await queue.add(name, {}, { jobId: id('stuck') });
      await waitFor(() => started);
      const closing = Date.now();
      const closed = await queue.close(200);
      expect(Date.now() - closing).to.be.below(2000);
      expect(closed.abandoned).to.deep.equal([`${name} ${id('stuck')}`]);
      expect(await queue.close()).to.deep.equal(closed);
      release();
    });

    it('runs a job added before a close after reopening, and does not run completed jobs again', async function () {
      if (!fixture.reopen) this.skip();
      const name = jobName('persist');
      const seen: string[] = [];
      await queue.add(name, { keep: true }, { jobId: id('pending') });
      queue.process(jobName('other'), async () => {});
      await queue.add(jobName('other'), {}, { jobId: id('done') });
      await queue.whenIdle(5000);
      await queue.close();

      const reopened = await fixture.reopen!();
      opened.push(reopened);
      expect(await reopened.getState(id('pending'))).to.equal('waiting');
      expect(await reopened.getState(id('done'))).to.equal('completed');
      reopened.process(name, async (job) => {
        seen.push(job.id);
        expect(job.data).to.deep.equal({ keep: true });
      });
      reopened.process(jobName('other'), async (job) => {
        seen.push(job.id);
      });
      await reopened.whenIdle(5000);
      expect(seen).to.deep.equal([id('pending')]);
      expect(await reopened.getState(id('pending'))).to.equal('completed');
      const again = await reopened.add(jobName('other'), {}, { jobId: id('done') });
      expect(again.added).to.equal(false);
    });

    it('holds a job added with delayMs as delayed until its time, then runs it once', async function () {
      const name = jobName('later');
      const ranAt: number[] = [];
      queue.process(name, async () => {
        ranAt.push(Date.now());
      });
      const addedAt = Date.now();
      await queue.add(name, {}, { jobId: id('later'), delayMs: 300 });
      expect(await queue.getState(id('later'))).to.equal('delayed');
      await sleep(100);
      expect(ranAt).to.deep.equal([]);
      await waitFor(() => ranAt.length === 1, 3000);
      expect(ranAt[0] - addedAt).to.be.at.least(290);
      await sleep(50);
      expect(ranAt).to.have.length(1);
      expect(await queue.getState(id('later'))).to.equal('completed');
    });

    it('does not hold whenIdle up for a job delayed past its timeout', async function () {
      const name = jobName('tomorrow');
      queue.process(name, async () => {});
      await queue.add(name, {}, { jobId: id('tomorrow'), delayMs: 24 * 3600_000 });
      const started = Date.now();
      await queue.whenIdle(500);
      expect(Date.now() - started).to.be.below(400);
      expect(await queue.getState(id('tomorrow'))).to.equal('delayed');
    });

    it('keeps a delayed job across a restart and runs it when due', async function () {
      if (!fixture.reopen) this.skip();
      const name = jobName('reminder');
      await queue.add(name, { lot: 7 }, { jobId: id('reminder'), delayMs: 400 });
      await queue.close();
      const reopened = await fixture.reopen!();
      opened.push(reopened);
      expect(await reopened.getState(id('reminder'))).to.equal('delayed');
      const seen: unknown[] = [];
      reopened.process(name, async (job) => {
        seen.push(job.data);
      });
      await waitFor(() => seen.length === 1, 3000);
      expect(seen).to.deep.equal([{ lot: 7 }]);
    });

    it('gives back a try that throws JobDeferred: it runs again after its delay, however often, its attempts untouched', async function () {
      const name = jobName('deferred');
      const seen: Array<{ attempt: number; at: number }> = [];
      queue.process(name, async (job) => {
        seen.push({ attempt: job.attemptsMade, at: Date.now() });
        if (seen.length <= 4) throw new JobDeferred(60, 'the channel is down');
      });
      // Two attempts only: four deferred tries would have used them up twice over.
      await queue.add(name, {}, { jobId: id('deferred'), attempts: 2, backoffMs: 5 });
      await queue.whenIdle(5000);
      expect(seen.map((s) => s.attempt)).to.deep.equal([1, 1, 1, 1, 1]);
      for (let i = 1; i < seen.length; i++) expect(seen[i].at - seen[i - 1].at).to.be.at.least(50);
      expect(await queue.getState(id('deferred'))).to.equal('completed');
    });

    it('ends a job that throws JobFailedForGood failed after that one try, with its attempts left unused', async function () {
      const name = jobName('refused');
      let runs = 0;
      queue.process(name, async () => {
        runs += 1;
        throw new JobFailedForGood('550 5.1.1 mailbox unknown');
      });
      await queue.add(name, {}, { jobId: id('refused'), attempts: 5, backoffMs: 5 });
      await queue.whenIdle(5000);
      await sleep(50);
      expect(runs).to.equal(1);
      expect(await queue.getState(id('refused'))).to.equal('failed');
    });

    it('does not park a job failed for good: not listed, counted, retried or removed as parked; listed as failed for good, and retry takes it', async function () {
      const name = jobName('ended');
      let ending = true;
      queue.process(name, async (job) => {
        if (job.id === id('spent')) throw new Error('tries spent');
        if (ending) throw new JobFailedForGood('550 5.1.1 mailbox unknown');
      });
      await queue.add(name, {}, { jobId: id('ended'), attempts: 3, backoffMs: 5 });
      await queue.add(name, {}, { jobId: id('spent'), attempts: 1, backoffMs: 5 });
      await queue.whenIdle(5000);
      expect(await queue.getState(id('ended'))).to.equal('failed');
      expect((await queue.parked()).filter((job) => job.name === name).map((job) => job.id)).to.deep.equal([id('spent')]);
      expect((await queue.parkedCounts())[name]).to.equal(1);
      const failed = await queue.list(name, ['failed']);
      expect(Object.fromEntries(failed.map((job) => [job.id, job.failedForGood]))).to.deep.equal({
        [id('ended')]: true,
        [id('spent')]: false,
      });
      expect(await queue.retryParked(name, id('ended'))).to.equal(false);
      expect(await queue.removeParked(name, id('ended'))).to.equal(false);
      // retry runs it again, its mark dropped.
      ending = false;
      expect(await queue.retry(name, id('ended'))).to.equal(true);
      await waitFor(async () => (await queue.getState(id('ended'))) === 'completed', 5000);
      expect((await queue.list(name, ['completed']))[0].failedForGood).to.equal(false);
    });

    it('lists the jobs of a name in the states asked for, newest first, with their progress and last error', async function () {
      const name = jobName('listed');
      queue.process(name, async (job) => {
        const data = job.data as { n: number };
        await job.saveProgress({ n: data.n });
        if (data.n === 2) throw new JobFailedForGood(`refused ${data.n}`);
      });
      await queue.add(name, { n: 1 }, { jobId: id('listed-1') });
      await sleep(5);
      await queue.add(name, { n: 2 }, { jobId: id('listed-2') });
      await sleep(5);
      await queue.add(name, { n: 3 }, { jobId: id('listed-3'), delayMs: 60_000 });
      await queue.whenIdle(5000);
      const failed = await queue.list(name, ['failed']);
      expect(failed.map((j) => j.id)).to.deep.equal([id('listed-2')]);
      expect(failed[0]).to.deep.include({ name, state: 'failed', data: { n: 2 }, attemptsMade: 1, progress: { n: 2 }, error: 'refused 2' });
      expect(failed[0].at).to.be.instanceOf(Date);
      const all = await queue.list(name, ['completed', 'failed', 'delayed']);
      expect(all.map((j) => j.id)).to.deep.equal([id('listed-3'), id('listed-2'), id('listed-1')]);
      expect(all[0].state).to.equal('delayed');
      expect(all[0].at!.getTime()).to.be.greaterThan(Date.now() + 50_000);
      expect(await queue.list(jobName('nobody'), ['failed'])).to.deep.equal([]);
    });

    it('runs a failed job again on retry, from a first try and without its progress; anything else is not retried', async function () {
      const name = jobName('retried');
      const seen: Array<{ attempt: number; progress: unknown }> = [];
      queue.process(name, async (job) => {
        seen.push({ attempt: job.attemptsMade, progress: job.progress });
        if (seen.length === 1) {
          await job.saveProgress({ refused: true });
          throw new JobFailedForGood('refused');
        }
      });
      await queue.add(name, {}, { jobId: id('retried'), attempts: 3 });
      await queue.whenIdle(5000);
      expect(await queue.getState(id('retried'))).to.equal('failed');
      expect(await queue.retry(name, id('retried'))).to.equal(true);
      await waitFor(async () => (await queue.getState(id('retried'))) === 'completed', 5000);
      expect(seen).to.deep.equal([
        { attempt: 1, progress: null },
        { attempt: 1, progress: null },
      ]);
      expect(await queue.retry(name, id('retried')), 'a completed job').to.equal(false);
      expect(await queue.retry(name, id('unknown')), 'an unknown job').to.equal(false);
    });
  });
}
