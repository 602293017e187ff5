/**
 * The JobQueue and RateLimiter contracts against BullMQ and Redis on REDIS_URL (default
 * redis://127.0.0.1:6379), plus what only several processes on one Redis show. Every key this file
 * writes is under a prefix unique to the run, deleted at the end.
 *
 * Redis is required: when it cannot be reached the suite fails, unless SKIP_REDIS=1 (CI always has Redis).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { BullMqJobQueue, decodeJobId, encodeJobId } from '../../src/adapters/redis/bullmq-jobs.ts';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.ts';
import type { Job } from '../../src/ports/jobs.ts';
import { JOB_DEFAULTS } from '../../src/ports/jobs.ts';
import { isStorageFull } from '../../src/errors.ts';
import { jobQueueContract } from './jobs.contract.ts';
import { rateLimiterContract } from './rate-limit.contract.ts';
import { leaseStoreContract } from './leases.contract.ts';
import { RedisLeases } from '../../src/adapters/redis/redis-leases.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const prefix = `test-${randomUUID()}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The URL without its password, for messages. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

describe(`Redis adapters on ${shownUrl(REDIS_URL)} (BullMQ jobs, Redis rate limits)`, function () {
  let admin: Redis | undefined;
  const queues: BullMqJobQueue[] = [];
  const limiters: RedisRateLimiter[] = [];

  const newQueue = (options: Partial<ConstructorParameters<typeof BullMqJobQueue>[0]> = {}) => {
    const queue = new BullMqJobQueue({ url: REDIS_URL, prefix, queueName: 'jobs', ...options });
    queues.push(queue);
    return queue;
  };
  const newLimiter = () => {
    const limiter = new RedisRateLimiter({ url: REDIS_URL, prefix: `${prefix}:rate` });
    limiters.push(limiter);
    return limiter;
  };

  before(async function () {
    const probe = new Redis(REDIS_URL, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      retryStrategy: () => null,
    });
    let connectionError = '';
    probe.on('error', (err: Error) => (connectionError = err.message)); // reported below
    try {
      await probe.connect();
      await probe.ping();
      admin = probe;
    } catch (err) {
      probe.disconnect();
      const reason = connectionError || (err instanceof Error ? err.message : String(err));
      if (process.env.SKIP_REDIS === '1') {
        console.log(`    Redis suites SKIPPED (SKIP_REDIS=1): Redis at ${shownUrl(REDIS_URL)} unreachable: ${reason}`);
        this.skip();
      }
      throw new Error(
        `Redis is not reachable at ${shownUrl(REDIS_URL)} (${reason}). Start it (redis-server), ` +
          'point REDIS_URL at one, or set SKIP_REDIS=1 to skip the BullMQ and Redis suites.',
        { cause: err },
      );
    }
  });

  afterEach(async function () {
    for (const queue of queues.splice(0)) await queue.close();
  });

  after(async function () {
    for (const limiter of limiters.splice(0)) await limiter.close();
    if (!admin) return;
    // Everything this run wrote: the queues (obliterated with their keys), the name set, the counters.
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await admin.quit();
  });

  jobQueueContract('BullMqJobQueue', async () => {
    // One queueName for the whole contract: job names and ids are unique per test, and reopen() is a
    // second process on the same Redis.
    const make = () => new BullMqJobQueue({ url: REDIS_URL, prefix, queueName: 'contract' });
    return { queue: make(), reopen: async () => make() };
  });

  rateLimiterContract('RedisRateLimiter', async () => newLimiter());

  leaseStoreContract('RedisLeases', async () => new RedisLeases(REDIS_URL, `${prefix}:lease:`));

  describe('BullMqJobQueue (several processes on one Redis)', function () {
    let run: string;
    beforeEach(function () {
      run = randomUUID();
    });

    it('runs a job added by a worker-less queue once, on the queues that process its name', async function () {
      const api = newQueue();
      const workerA = newQueue();
      const workerB = newQueue();
      const name = `mail-${run}`;
      const seen: string[] = [];
      const by: Record<string, number> = { a: 0, b: 0 };
      workerA.process(name, async (job) => {
        seen.push(job.id);
        by.a += 1;
        await sleep(2);
      });
      workerB.process(name, async (job) => {
        seen.push(job.id);
        by.b += 1;
        await sleep(2);
      });
      const ids = Array.from({ length: 20 }, (_, i) => `${run}-${i}`);
      for (const id of ids) expect((await api.add(name, { i: id }, { jobId: id })).added).to.equal(true);
      await workerA.whenIdle(10_000);
      await workerB.whenIdle(10_000);
      expect(seen.sort()).to.deep.equal([...ids].sort());
      for (const id of ids) expect(await api.getState(id)).to.equal('completed');
    });

    it('never runs a job on a queue that only adds, and whenIdle there does not wait for it', async function () {
      const api = newQueue();
      const name = `report-${run}`;
      await api.add(name, {}, { jobId: `${run}-alone` });
      const started = Date.now();
      await api.whenIdle(2000);
      expect(Date.now() - started).to.be.below(200);
      await sleep(300);
      expect(await api.getState(`${run}-alone`)).to.equal('waiting');
    });

    it('leaves jobs of names it has no processor for waiting, while it runs the names it has', async function () {
      const worker = newQueue();
      worker.process(`known-${run}`, async () => {});
      await worker.add(`unknown-${run}`, {}, { jobId: `${run}-u` });
      await worker.add(`known-${run}`, {}, { jobId: `${run}-k` });
      await worker.whenIdle(5000);
      await sleep(200);
      expect(await worker.getState(`${run}-u`)).to.equal('waiting');
      expect(await worker.getState(`${run}-k`)).to.equal('completed');
    });

    it('answers added true to exactly one of many parallel adds of one id from two processes', async function () {
      const first = newQueue();
      const second = newQueue();
      const name = `race-${run}`;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? first : second).add(name, { i }, { jobId: `${run}-race` })),
      );
      expect(results.filter((r) => r.added)).to.have.length(1);
      expect(results.every((r) => r.id === `${run}-race`)).to.equal(true);
      const seen: unknown[] = [];
      first.process(name, async (job) => {
        seen.push(job.data);
      });
      await first.whenIdle(5000);
      expect(seen).to.have.length(1);
      expect(results[results.findIndex((r) => r.added)]).to.deep.equal({ id: `${run}-race`, added: true });
      expect(seen[0]).to.deep.equal({ i: results.findIndex((r) => r.added) });
    });

    it('hands processors the ids they were given, even ids BullMQ refuses (integers, colons)', async function () {
      const queue = newQueue();
      const name = `odd:ids-${run}`;
      const ids = [`${Date.now()}`, '-7', `tenant:${run}:x`, `a%3Ab-${run}`, `%N1-${run}`, `plain-${run}`];
      const seen: string[] = [];
      queue.process(name, async (job) => {
        seen.push(job.id);
      });
      for (const id of ids) expect(await queue.add(name, {}, { jobId: id })).to.deep.equal({ id, added: true });
      await queue.whenIdle(5000);
      expect(seen.sort()).to.deep.equal([...ids].sort());
      for (const id of ids) expect(await queue.getState(id)).to.equal('completed');
      for (const id of ids) expect((await queue.add(name, {}, { jobId: id })).added).to.equal(false);
      for (const id of [...ids, '42', '', '%', ':', '%N', '%25']) expect(decodeJobId(encodeJobId(id))).to.equal(id);
      expect(encodeJobId('contact-abc')).to.equal('contact-abc');
    });

    it('keeps finished jobs for keepFinishedMs so that their id still deduplicates', async function () {
      const queue = newQueue({ keepFinishedMs: 3 * 24 * 3600_000 });
      const name = `kept-${run}`;
      queue.process(name, async () => {});
      await queue.add(name, {}, { jobId: `${run}-kept` });
      await queue.whenIdle(5000);
      const opts = JSON.parse((await admin!.hget(`${prefix}:jobs.${name}:${run}-kept`, 'opts')) ?? '{}');
      expect(opts).to.deep.include({ removeOnComplete: { age: 3 * 24 * 3600 }, removeOnFail: { age: 3 * 24 * 3600 } });
      expect(await queue.getState(`${run}-kept`)).to.equal('completed');
    });

    it('keeps finished jobs JOB_DEFAULTS.keepFinishedMs when not configured', async function () {
      const queue = newQueue();
      await queue.add(`kept-default-${run}`, {}, { jobId: `${run}-kept-default` });
      const opts = JSON.parse((await admin!.hget(`${prefix}:jobs.kept-default-${run}:${run}-kept-default`, 'opts')) ?? '{}');
      const age = JOB_DEFAULTS.keepFinishedMs / 1000;
      expect(opts).to.deep.include({ removeOnComplete: { age }, removeOnFail: { age } });
    });

    it('logs failures with id, name, attempt and message, never job data', async function () {
      const logs: Array<{ level: string; obj: object; msg: string }> = [];
      const logger = {
        warn: (obj: object, msg: string) => logs.push({ level: 'warn', obj, msg }),
        error: (obj: object, msg: string) => logs.push({ level: 'error', obj, msg }),
      };
      const queue = newQueue({ logger });
      const name = `mail-${run}`;
      queue.process(name, async (job: Job) => {
        throw new Error(`smtp refused (attempt ${job.attemptsMade})`);
      });
      await queue.add(name, { email: 'secret.person@example.test' }, { jobId: `${run}-m1`, attempts: 2, backoffMs: 5 });
      await queue.whenIdle(5000);
      await sleep(20); // the failed event is emitted just after the job is moved
      expect(await queue.getState(`${run}-m1`)).to.equal('failed');
      expect(logs.map((l) => l.level)).to.deep.equal(['warn', 'error']);
      expect(logs[1].obj).to.deep.include({ jobId: `${run}-m1`, name, err: 'smtp refused (attempt 2)' });
      expect(JSON.stringify(logs)).not.to.include('secret.person');
    });

    it('runs a try that failed for want of room (a full disk) again later without counting it, and logs it not', async function () {
      const logs: string[] = [];
      const logger = { warn: (_: object, msg: string) => logs.push(msg), error: (_: object, msg: string) => logs.push(msg) };
      const refused: string[] = [];
      const storage = { refused: (error: unknown, source: string) => (isStorageFull(error) ? (refused.push(source), true) : false) };
      const queue = newQueue({ logger, storage, storageFullRetryMs: 50 });
      const name = `pdf-${run}`;
      const tries: number[] = [];
      queue.process(name, async (job: Job) => {
        tries.push(job.attemptsMade);
        if (tries.length < 3) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      });
      // One attempt only: a try burnt by the full disk would end it failed.
      await queue.add(name, {}, { jobId: `${run}-p1`, attempts: 1 });
      for (const deadline = Date.now() + 5000; (await queue.getState(`${run}-p1`)) !== 'completed' && Date.now() < deadline;)
        await sleep(20);
      expect(await queue.getState(`${run}-p1`)).to.equal('completed');
      expect(tries).to.deep.equal([1, 1, 1]);
      expect(refused).to.deep.equal(['job', 'job']);
      expect(logs).to.deep.equal([]);
    });

    it('refuses a second processor for one name, and add or process after close', async function () {
      const queue = newQueue();
      queue.process(`n-${run}`, async () => {});
      expect(() => queue.process(`n-${run}`, async () => {})).to.throw(Error);
      await queue.close();
      expect(() => queue.process(`m-${run}`, async () => {})).to.throw(Error);
      let error: unknown;
      await queue.add(`n-${run}`, {}, { jobId: `${run}-late` }).catch((err) => (error = err));
      expect(error).to.be.instanceOf(Error);
    });
  });

  describe('RedisRateLimiter (several processes on one Redis)', function () {
    it('allows exactly limit of 50 parallel hits spread over two limiters', async function () {
      const [a, b] = [newLimiter(), newLimiter()];
      const key = `login:${randomUUID()}`;
      const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).hit(key, 7, 5000)));
      expect(decisions.filter((d) => d.allowed)).to.have.length(7);
      const counts = decisions.map((d) => d.count).sort((x, y) => x - y);
      expect(counts).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(await a.peek(key, 7)).to.deep.include({ allowed: false, count: 50 });
    });

    it('sees one limiter’s hits, releases and resets from the other', async function () {
      const [a, b] = [newLimiter(), newLimiter()];
      const key = `reset:${randomUUID()}`;
      await a.hit(key, 2, 5000);
      await a.hit(key, 2, 5000);
      expect((await b.hit(key, 2, 5000)).allowed).to.equal(false);
      await b.release(key);
      expect(await a.peek(key, 2)).to.deep.include({ count: 2, allowed: false });
      await b.reset(key);
      expect(await a.hit(key, 2, 5000)).to.deep.include({ allowed: true, count: 1 });
    });

    it('keeps each counter under its prefix with the window as its expiry', async function () {
      const limiter = newLimiter();
      const key = `ttl:${randomUUID()}`;
      await limiter.hit(key, 5, 3000);
      await limiter.release(key); // back to 0: the window and its expiry stay
      const ttl = await admin!.pttl(`${prefix}:rate:${key}`);
      expect(ttl).to.be.within(1, 3000);
      expect(await limiter.hit(key, 5, 60_000)).to.deep.include({ count: 1, retryAfterSeconds: 3 });
    });

    it('rejects a limit that is not a whole number >= 0 and a window that is not > 0', async function () {
      const limiter = newLimiter();
      for (const bad of [-1, 1.5, Number.NaN]) {
        let error: unknown;
        await limiter.hit('k', bad, 1000).catch((err) => (error = err));
        expect(error, String(bad)).to.be.instanceOf(RangeError);
      }
      let error: unknown;
      await limiter.hit('k', 1, 0).catch((err) => (error = err));
      expect(error).to.be.instanceOf(RangeError);
    });
  });
});
