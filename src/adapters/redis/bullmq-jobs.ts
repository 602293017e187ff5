/**
 * JobQueue on BullMQ (Redis). `new BullMqJobQueue({ url, prefix, queueName, concurrency, keepFinishedMs, logger })`;
 * `close(graceMs?)` stops the workers (after their running jobs, or those that end within the grace), then the
 * connections it opened.
 *
 * - One BullMQ queue per job name, `${queueName}.${name}` under the key prefix (BullMQ `prefix`). A BullMQ
 *   Worker takes every job of its queue, so one shared queue would make a process run (and fail) jobs whose
 *   names it has no processor for. Per-name queues let `process(name)` start a Worker for exactly that name,
 *   leave other names waiting, and give each job kind its own counts and concurrency. The cost is one
 *   blocking Redis connection per processed name (plus one shared worker connection and one producer).
 * - Workers start lazily, on the first `process(name)`: a process that only adds jobs (the `api` role) opens
 *   no Worker and no blocking connection.
 * - Job ids: BullMQ ignores an add whose job id exists in its queue, in any state, so finished jobs are KEPT
 *   for that: `removeOnComplete`/`removeOnFail` by age (`keepFinishedMs`, default JOB_DEFAULTS.keepFinishedMs,
 *   measured from the end of the job), never by count. A duplicate add arriving after that runs the job again.
 *   Ids are unique per job name here (the port's ids already start with their kind). BullMQ refuses ids that
 *   are integers or hold ':', so ids are escaped for storage and unescaped before processors see them.
 * - `added`: BullMQ answers an add of an existing id with the existing id, like a new one. Each add carries
 *   a random token in its options; after the add, the stored job's token says whether this call created it.
 *   The add itself is one Lua script, so of parallel adds of one id exactly one sees its own token.
 * - `getState(jobId)` finds the job's queue through a Redis set of the job names ever added or processed
 *   (`${prefix}:${queueName}:names`), so any process can ask about a job another process added.
 * - `whenIdle(timeoutMs)` never calls BullMQ's `drain()` (which deletes waiting jobs): it polls the counts of
 *   the names this queue processes (waiting, active, prioritized, and delayed jobs due before the deadline),
 *   read per queue in one script (BullMQ's backend `getCounts` with a delayed cutoff) so that a job moving
 *   between states is never missed.
 * - Retries: `attempts` and BullMQ's `exponential` backoff, the port's retryDelayMs; `delayMs` is BullMQ's
 *   `delay`. Defaults and option checks: src/ports/jobs.ts.
 *   `attemptsMade` given to processors is 1 on the first try (BullMQ's own count of finished tries, + 1).
 * - A worker process that dies mid-job: BullMQ's stalled-job check (every 30 s) hands the job to another
 *   worker, once; a job stalled twice ends failed.
 * - Job data is never logged: logs carry id, name, attempt and error message.
 * - A try that failed for want of room (a full disk, a database out of space: `storage`) is moved back to the
 *   delayed jobs without counting as an attempt (BullMQ's `moveToDelayed` and `DelayedError`) and run again
 *   STORAGE_FULL_RETRY_MS later; the storage's record logs it, not each try. A try that throws JobDeferred is
 *   moved back alike, after the delay it names; one that throws JobFailedForGood is BullMQ's UnrecoverableError
 *   (failed at once), marked FAILED_FOR_GOOD in the job's hash: not parked (parked() and parkedCounts() leave it
 *   out). Neither is logged here (the processor did).
 * - `list` reads BullMQ's lists of one name's queue; `retry` is BullMQ's `Job.retry('failed')` with its tries
 *   counted anew and the progress cleared.
 */
import { randomUUID } from 'node:crypto';
import {
  DelayedError,
  Job as BullJobClass,
  Queue,
  UnrecoverableError,
  Worker,
  type Job as BullJob,
  type JobsOptions,
  type JobType,
} from 'bullmq';
import { Redis } from 'ioredis';
import type {
  ClosedQueue,
  Job,
  JobOptions,
  JobProcessor,
  JobQueue,
  JobQueueLogger,
  JobRecord,
  JobState,
  ParkedJob,
} from '../../ports/jobs.ts';
import {
  JobDeferred,
  JobFailedForGood,
  JOB_DEFAULTS,
  jobErrorMessage as errorMessage,
  jobSettings,
  positiveInt,
  silentJobLogger,
  STORAGE_FULL_RETRY_MS,
} from '../../ports/jobs.ts';
import type { StorageFaults } from '../../storage-room.ts';
import { countRedisRoundTrips } from '../../round-trips.ts';
import { storedToken, TOKEN_OPTION } from './bullmq-add-token.ts';
import { decodeJobId, encodeJobId, escapeColons } from './bullmq-job-ids.ts';
import { COUNT_PARKED, FAILED_FOR_GOOD, toPortState } from './bullmq-job-state.ts';
import { quit, settleAll } from './bullmq-shutdown.ts';

/** Re-exported where they were first declared. */
export { decodeJobId, encodeJobId };

export interface BullMqJobQueueOptions {
  /** redis://[user:password@]host:port[/db] (rediss:// for TLS). */
  url: string;
  /** Key prefix of every key this queue writes (BullMQ `prefix`, default 'bidder'). */
  prefix?: string;
  /** Base name of the per-job-name queues (default 'jobs'); no ':'. */
  queueName?: string;
  /** Jobs of one name run at once by this process (default JOB_DEFAULTS.concurrency). */
  concurrency?: number;
  /** How long completed and failed jobs are kept, and so deduplicate their id (default JOB_DEFAULTS.keepFinishedMs). */
  keepFinishedMs?: number;
  /** Interval of whenIdle()'s look at the counts (default 20 ms). */
  idlePollMs?: number;
  logger?: JobQueueLogger;
  /** The process's record of a full storage, told of tries that failed for want of room. */
  storage?: StorageFaults;
  /** Wait before a try that failed for want of room runs again (default STORAGE_FULL_RETRY_MS). */
  storageFullRetryMs?: number;
}

const QUEUE = 'BullMqJobQueue';

export class BullMqJobQueue implements JobQueue {
  private readonly url: string;
  private readonly prefix: string;
  private readonly queueName: string;
  private readonly concurrency: number;
  private readonly keepFinishedSeconds: number;
  private readonly idlePollMs: number;
  private readonly logger: JobQueueLogger;
  private readonly storage: StorageFaults | null;
  private readonly storageFullRetryMs: number;
  /** Non-blocking connection shared by the queues and this adapter's own reads. */
  private readonly producer: Redis;
  /** Non-blocking connection shared by the workers (each Worker adds its own blocking one); lazy. */
  private workerConnection: Redis | undefined;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, Worker>();
  private readonly processors = new Map<string, JobProcessor>();
  /** Names this instance has put in the Redis name set already. */
  private readonly registered = new Set<string>();
  private closed = false;
  private closing: Promise<ClosedQueue> | undefined;
  /** Jobs this process is running, as `name id`. */
  private readonly active = new Set<string>();
  private lastConnectionError = '';

  constructor(options: BullMqJobQueueOptions) {
    if (typeof options?.url !== 'string' || options.url === '') throw new TypeError('BullMqJobQueue: url is required');
    this.url = options.url;
    this.prefix = nonEmpty(options.prefix ?? 'bidder', 'prefix');
    this.queueName = nonEmpty(options.queueName ?? 'jobs', 'queueName');
    if (this.queueName.includes(':')) throw new RangeError('BullMqJobQueue: queueName cannot contain ":"');
    this.concurrency = positiveInt(QUEUE, options.concurrency ?? JOB_DEFAULTS.concurrency, 'concurrency');
    const keepMs = options.keepFinishedMs ?? JOB_DEFAULTS.keepFinishedMs;
    if (!Number.isFinite(keepMs) || keepMs < 1000) {
      throw new RangeError('BullMqJobQueue: keepFinishedMs must be >= 1000');
    }
    this.keepFinishedSeconds = Math.ceil(keepMs / 1000);
    this.idlePollMs = positiveInt(QUEUE, options.idlePollMs ?? 20, 'idlePollMs');
    this.logger = options.logger ?? silentJobLogger;
    this.storage = options.storage ?? null;
    this.storageFullRetryMs = options.storageFullRetryMs ?? STORAGE_FULL_RETRY_MS;
    // A producer fails a command after a few reconnect tries rather than holding an HTTP request forever.
    this.producer = this.connect({ maxRetriesPerRequest: 3 }, 'producer');
  }

  async add(name: string, data: unknown, options: JobOptions): Promise<{ id: string; added: boolean }> {
    if (this.closed) throw new Error('BullMqJobQueue: add() after close()');
    const { jobId: id, attempts, backoffMs, delayMs } = jobSettings(QUEUE, name, options);

    await this.register(name);
    const queue = this.queueFor(name);
    const storedId = encodeJobId(id);
    const token = randomUUID();
    const jobOptions: JobsOptions & { [TOKEN_OPTION]: string } = {
      jobId: storedId,
      attempts,
      backoff: { type: 'exponential', delay: Math.round(backoffMs) },
      removeOnComplete: { age: this.keepFinishedSeconds },
      removeOnFail: { age: this.keepFinishedSeconds },
      [TOKEN_OPTION]: token,
      ...(delayMs > 0 ? { delay: Math.round(delayMs) } : {}),
    };
    await queue.add(name, data === undefined ? null : data, jobOptions);
    const stored = await this.producer.hget(queue.toKey(storedId), 'opts');
    return { id, added: storedToken(stored) === token };
  }

  process(name: string, processor: JobProcessor): void {
    if (this.closed) throw new Error('BullMqJobQueue: process() after close()');
    if (typeof name !== 'string' || name === '') throw new TypeError('BullMqJobQueue: job name is required');
    if (this.processors.has(name)) throw new Error(`BullMqJobQueue: a processor is already registered for "${name}"`);
    this.processors.set(name, processor);
    this.register(name).catch((err) => {
      this.logger.error({ name, err: errorMessage(err) }, 'job queue: could not record the job name');
    });
    this.workers.set(name, this.startWorker(name, processor));
  }

  async getState(jobId: string): Promise<JobState | null> {
    const storedId = encodeJobId(jobId);
    const names = new Set([...this.registered, ...(await this.producer.smembers(this.namesKey()))]);
    const queues = [...names].map((name) => this.queueFor(name));
    if (queues.length === 0) return null;
    const pipeline = this.producer.pipeline();
    for (const queue of queues) pipeline.exists(queue.toKey(storedId));
    const found = (await pipeline.exec()) ?? [];
    for (let i = 0; i < queues.length; i++) {
      const [err, exists] = found[i] ?? [null, 0];
      if (err) throw err;
      if (exists !== 1) continue;
      const state = toPortState(await queues[i].getJobState(storedId));
      if (state) return state; // else removed between the two reads: look on
    }
    return null;
  }

  async list(name: string, states: readonly JobState[], limit = 1000): Promise<JobRecord[]> {
    const types = states.flatMap((state): JobType[] => (state === 'waiting' ? ['waiting', 'prioritized'] : [state]));
    const jobs = await this.queueFor(name).getJobs(types, 0, positiveInt(QUEUE, limit, 'limit') - 1, false);
    const records: JobRecord[] = [];
    const marks = await this.failedForGood(
      name,
      (jobs as BullJob[]).map((job) => String(job?.id ?? '')),
    );
    for (const [index, job] of (jobs as BullJob[]).entries()) {
      if (!job?.id) continue;
      const state = toPortState(await job.getState());
      if (!state) continue;
      const finished = job.finishedOn ?? null;
      records.push({
        id: decodeJobId(String(job.id)),
        name,
        state,
        data: job.data as unknown,
        attemptsMade: job.attemptsMade,
        progress: (job.progress as { saved?: unknown } | null)?.saved ?? null,
        error: job.failedReason || null,
        failedForGood: marks[index] === true,
        createdAt: new Date(job.timestamp),
        at: new Date(finished ?? job.timestamp + (job.delay ?? 0)),
      });
    }
    return records.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).slice(0, limit);
  }

  async retry(name: string, jobId: string): Promise<boolean> {
    const job = (await BullJobClass.fromId(this.queueFor(name), encodeJobId(jobId))) as BullJob | undefined;
    if (!job || (await job.getState()) !== 'failed') return false;
    await job.updateProgress({ saved: null });
    await this.producer.hdel(this.queueFor(name).toKey(String(job.id)), FAILED_FOR_GOOD);
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  /**
   * BullMQ's failed sets of every job name (ever added or processed, by any process), but for the jobs failed for
   * good (FAILED_FOR_GOOD): a parked job's tries are spent.
   */
  async parked(limit = 1000): Promise<ParkedJob[]> {
    const parked: ParkedJob[] = [];
    for (const name of await this.allNames()) {
      // Read in pages of `limit`: the jobs failed for good among them are skipped.
      for (let start = 0, found = 0; found < limit; start += limit) {
        const page = (await this.queueFor(name).getFailed(start, start + limit - 1)).filter((job) => job?.id);
        if (page.length === 0) break;
        const marks = await this.failedForGood(
          name,
          page.map((job) => String(job.id)),
        );
        for (const [index, job] of page.entries()) {
          if (marks[index] || found >= limit) continue;
          found += 1;
          parked.push({
            id: decodeJobId(String(job.id)),
            name,
            attempts: job.attemptsMade,
            error: job.failedReason ?? '',
            failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
          });
        }
      }
    }
    return parked.sort((a, b) => (a.failedAt ?? '').localeCompare(b.failedAt ?? '')).slice(0, limit);
  }

  async parkedCounts(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const name of await this.allNames()) {
      const queue = this.queueFor(name);
      const parked = Number(await this.producer.eval(COUNT_PARKED, 1, queue.keys.failed, queue.toKey(''), FAILED_FOR_GOOD));
      if (parked > 0) counts[name] = parked;
    }
    return counts;
  }

  async retryParked(name: string, jobId: string): Promise<boolean> {
    const job = await this.failedJob(name, jobId);
    if (!job) return false;
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return true;
  }

  async removeParked(name: string, jobId: string): Promise<boolean> {
    const job = await this.failedJob(name, jobId);
    if (!job) return false;
    await job.remove();
    return true;
  }

  /** A parked job: failed, and not failed for good. */
  private async failedJob(name: string, jobId: string): Promise<BullJob | null> {
    if (!(await this.allNames()).includes(name)) return null;
    const queue = this.queueFor(name);
    const storedId = encodeJobId(jobId);
    const job = await queue.getJob(storedId);
    if (!job || (await queue.getJobState(storedId)) !== 'failed') return null;
    return (await this.failedForGood(name, [storedId]))[0] ? null : job;
  }

  /** Whether each of these jobs (stored ids) was failed for good by its processor, in one round trip. */
  private async failedForGood(name: string, storedIds: string[]): Promise<boolean[]> {
    if (storedIds.length === 0) return [];
    const queue = this.queueFor(name);
    const pipeline = this.producer.pipeline();
    for (const id of storedIds) pipeline.hexists(queue.toKey(id), FAILED_FOR_GOOD);
    return ((await pipeline.exec()) ?? []).map(([err, found]) => {
      if (err) throw err;
      return found === 1;
    });
  }

  /** Every job name added or processed by any process on this prefix, sorted. */
  private async allNames(): Promise<string[]> {
    return [...new Set([...this.registered, ...(await this.producer.smembers(this.namesKey()))])].sort();
  }

  async unfinished(name: string): Promise<number> {
    const counts = await this.queueFor(name).getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + (Number(n) || 0), 0);
  }

  /**
   * Resolves when no job of a name this queue processes is waiting or active, and none is delayed (a retry,
   * or a job added with delayMs) to a time before the deadline; rejects after timeoutMs. Never deletes jobs.
   */
  async whenIdle(timeoutMs: number = JOB_DEFAULTS.idleTimeoutMs): Promise<void> {
    const deadline = Date.now() + Math.max(0, Math.round(timeoutMs));
    for (;;) {
      const pending = await this.pendingCount(deadline);
      if (pending === 0) return;
      if (this.closed) throw new Error(`BullMqJobQueue: whenIdle() on a closed queue with ${pending} job(s) pending`);
      if (Date.now() >= deadline) {
        throw new Error(`BullMqJobQueue: whenIdle() timed out after ${timeoutMs} ms with ${pending} job(s) pending`);
      }
      await sleep(Math.min(this.idlePollMs, Math.max(1, deadline - Date.now())));
    }
  }

  close(graceMs?: number): Promise<ClosedQueue> {
    this.closing ??= this.shutdown(graceMs);
    return this.closing;
  }

  // ---- internals ----

  private async shutdown(graceMs: number | undefined): Promise<ClosedQueue> {
    this.closed = true;
    const workers = [...this.workers.values()];
    let abandoned: string[] = [];
    if (graceMs !== undefined) {
      // No new job, then the running ones get the grace period; a forced close leaves the rest locked until
      // their lock expires, when BullMQ's stalled-job check hands them to a worker again.
      await settleAll(
        workers.map((worker) => worker.pause(true)),
        this.logger,
        'pausing a worker',
      );
      const deadline = Date.now() + graceMs;
      while (this.active.size > 0 && Date.now() < deadline) await sleep(Math.min(20, deadline - Date.now()));
      abandoned = [...this.active];
    }
    // Workers first: Worker.close() waits for the jobs they are running, unless forced.
    await settleAll(
      workers.map((worker) => worker.close(abandoned.length > 0)),
      this.logger,
      'closing a worker',
    );
    await settleAll(
      [...this.queues.values()].map((queue) => queue.close()),
      this.logger,
      'closing a queue',
    );
    // The queues and workers were given these connections, so they leave them to us.
    const connections = [this.producer, this.workerConnection].map((redis) => (redis ? quit(redis) : undefined));
    await settleAll(connections, this.logger, 'closing a connection');
    return { abandoned };
  }

  private connect(options: { maxRetriesPerRequest: number | null }, role: string): Redis {
    const redis = countRedisRoundTrips(new Redis(this.url, options));
    redis.on('error', (err: Error) => this.connectionError(err, role));
    return redis;
  }

  /** Logs a connection error once per distinct message: a Redis outage makes every reconnect try fail. */
  private connectionError(err: unknown, role: string): void {
    const message = errorMessage(err);
    if (message === this.lastConnectionError) return;
    this.lastConnectionError = message;
    this.logger.error({ role, err: message }, 'job queue: redis connection error');
  }

  private namesKey(): string {
    return `${this.prefix}:${this.queueName}:names`;
  }

  private async register(name: string): Promise<void> {
    if (this.registered.has(name)) return;
    await this.producer.sadd(this.namesKey(), name);
    this.registered.add(name);
  }

  private queueFor(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(this.bullQueueName(name), { connection: this.producer, prefix: this.prefix });
      queue.on('error', (err) => this.connectionError(err, 'queue'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  private bullQueueName(name: string): string {
    return `${this.queueName}.${escapeColons(name)}`;
  }

  private startWorker(name: string, processor: JobProcessor): Worker {
    // BullMQ requires maxRetriesPerRequest null here: a blocked wait for jobs must outlast a reconnect.
    this.workerConnection ??= this.connect({ maxRetriesPerRequest: null }, 'worker');
    const worker = new Worker(
      this.bullQueueName(name),
      async (bullJob: BullJob, token?: string) => {
        const job: Job = {
          id: decodeJobId(String(bullJob.id)),
          name,
          data: bullJob.data,
          attemptsMade: bullJob.attemptsMade + 1,
          // Kept in the job's hash across tries and stalls; wrapped, as BullMQ takes numbers and objects only.
          progress: (bullJob.progress as { saved?: unknown } | null)?.saved ?? null,
          saveProgress: (value) => bullJob.updateProgress({ saved: value ?? null }),
        };
        const running = `${name} ${job.id}`;
        this.active.add(running);
        try {
          await processor(job);
        } catch (error) {
          if (error instanceof JobFailedForGood) {
            await this.producer.hset(this.queueFor(name).toKey(String(bullJob.id)), FAILED_FOR_GOOD, '1');
            throw new UnrecoverableError(error.message);
          }
          const deferred = error instanceof JobDeferred;
          if (!deferred && !this.storage?.refused(error, 'job')) throw error;
          // No room to write what the job does, or a fault not the job's own: tried again later, the attempt not counted.
          const delayMs = deferred ? Math.max(0, Math.round(error.delayMs)) : this.storageFullRetryMs;
          await bullJob.moveToDelayed(Date.now() + delayMs, token);
          throw new DelayedError();
        } finally {
          this.active.delete(running);
        }
      },
      { connection: this.workerConnection, prefix: this.prefix, concurrency: this.concurrency },
    );
    worker.on('error', (err) => this.connectionError(err, 'worker'));
    worker.on('failed', (bullJob, err) => {
      // A job failed for good by its processor was logged by it.
      if (!bullJob || err instanceof UnrecoverableError || err?.name === 'UnrecoverableError') return;
      const attempt = bullJob.attemptsMade;
      const maxAttempts = bullJob.opts.attempts ?? 1;
      const meta = { jobId: decodeJobId(String(bullJob.id)), name, attempt, maxAttempts, err: errorMessage(err) };
      if (attempt < maxAttempts) this.logger.warn(meta, 'job failed, will retry');
      else this.logger.error(meta, 'job parked: its tries are spent (npm run parked)');
    });
    return worker;
  }

  private async pendingCount(dueBy: number): Promise<number> {
    let pending = 0;
    for (const name of this.processors.keys()) {
      // One script, so one snapshot: a job moving between lists (active to delayed for a retry, delayed to
      // waiting when due) is counted once, never missed between two separate reads.
      const queue = this.queueFor(name);
      const counts = await queue.backend.getCounts(['waiting', 'active', 'prioritized', 'delayed'], dueBy);
      for (const count of counts) pending += Number(count) || 0;
    }
    return pending;
  }
}

function nonEmpty(value: string, what: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`BullMqJobQueue: ${what} must be a non-empty string`);
  }
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
