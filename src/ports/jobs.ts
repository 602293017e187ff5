/**
 * Background jobs port, shaped after BullMQ: queue.add(name, data, { jobId, attempts, backoff }) where a
 * job id that was already added is ignored (a duplicated job has its effect once), and a worker that runs
 * a processor per job name with retries.
 */

export interface JobOptions {
  /**
   * Deduplication key: adding a job whose id exists (waiting, active, completed or failed) does nothing. Ids
   * are unique per job name (start them with their kind), and finished jobs are remembered as long as the
   * engine keeps them (BullMQ: JOB_DEFAULTS.keepFinishedMs unless configured; the embedded queue: always).
   */
  jobId: string;
  /** Total tries, first one included (default JOB_DEFAULTS.attempts). */
  attempts?: number;
  /** Base delay of the exponential backoff in ms, see retryDelayMs (default JOB_DEFAULTS.backoffMs). */
  backoffMs?: number;
  /**
   * Run no earlier than this many ms from now (BullMQ: `delay`). The job is `delayed` until then, and kept
   * across restarts: a reminder scheduled for tomorrow runs tomorrow, once.
   */
  delayMs?: number;
}

export interface Job<T = unknown> {
  id: string;
  name: string;
  data: T;
  /** 1 on the first try. */
  attemptsMade: number;
  /** What an earlier try saved with saveProgress (null before any): a retry skips a step that was done. */
  progress: unknown;
  /** Keeps a mark of the job's progress with the job (JSON), for its later tries, after a crash too. */
  saveProgress(value: unknown): Promise<void>;
}

export type JobProcessor = (job: Job) => Promise<void>;

export interface ClosedQueue {
  /** Jobs still running when the grace period ended, as `name id`. */
  abandoned: string[];
}

export type JobState = 'waiting' | 'active' | 'completed' | 'failed' | 'delayed';

/**
 * A job whose tries are spent (its last one failed): parked, it holds nothing up and is not run again unless an
 * operator retries it (`npm run parked`). BullMQ: its failed set. A job its processor ended on purpose
 * (JobFailedForGood) is `failed` too but not parked: its end is recorded where it belongs (a delivery refused for
 * its recipient: MessageDeliveryFailed), so nothing is amiss and it is neither listed nor counted here.
 */
export interface ParkedJob {
  id: string;
  name: string;
  /** Tries made. */
  attempts: number;
  /** The error message of its last try. */
  error: string;
  /** When its last try failed (RFC 3339), where the engine says. */
  failedAt: string | null;
}

/** A job as the operator's tools see it (`npm run deliveries`): its data may hold personal data, never to be logged. */
export interface JobRecord {
  id: string;
  name: string;
  state: JobState;
  data: unknown;
  /** Tries made so far (a try given back by JobDeferred does not count). */
  attemptsMade: number;
  /** What the job saved with saveProgress, or null. */
  progress: unknown;
  /** The last try's error message, or null. */
  error: string | null;
  /** A `failed` job its processor ended on purpose (JobFailedForGood), not parked; false for one whose tries are spent. */
  failedForGood: boolean;
  /** When it was added. */
  createdAt: Date;
  /** When it runs next (waiting, delayed), or ended (completed, failed); null when the engine does not say. */
  at: Date | null;
}

/**
 * Thrown by a processor: this try is given back (it does not count against `attempts`) and the job runs again
 * `delayMs` later, however often that happens. For a fault that is not the job's own (a mail server refusing the
 * service's password): the job waits for as long as it takes. The queue does not log it; the processor does.
 */
export class JobDeferred extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
    this.name = 'JobDeferred';
  }
}

/**
 * Thrown by a processor: the job ends `failed` now, whatever tries it has left (trying again cannot help: a mail
 * server refused the recipient). The queue does not log it; the processor does. `retry` runs it again.
 */
export class JobFailedForGood extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobFailedForGood';
  }
}

export interface JobQueue {
  add(name: string, data: unknown, options: JobOptions): Promise<{ id: string; added: boolean }>;
  /** Registers the processor of one job name; the queue starts working on process(). */
  process(name: string, processor: JobProcessor): void;
  getState(jobId: string): Promise<JobState | null>;
  /** How many jobs of a name are still to run (waiting, delayed or active), whoever added them and whether or not a processor runs it here. */
  unfinished(name: string): Promise<number>;
  /** Jobs of one name in these states, the newest first, at most `limit` (default 1,000): for the operator's tools. */
  list(name: string, states: readonly JobState[], limit?: number): Promise<JobRecord[]>;
  /**
   * Runs a `failed` job of this name again (parked, or failed for good), from a first try, its progress cleared: true
   * when there was one. Works from any process on the same engine (the worker takes it up). retryParked keeps the
   * progress: a parked job's steps that were done stay done.
   */
  retry(name: string, jobId: string): Promise<boolean>;
  /**
   * Resolves when no job is waiting or active and none is delayed to a time within the timeout (tests and
   * shutdown); a job scheduled later (a reminder for tomorrow) does not hold it up.
   */
  whenIdle(timeoutMs?: number): Promise<void>;
  /** The parked jobs (tries spent) of every name, oldest first, at most `limit` (default 1000). */
  parked(limit?: number): Promise<ParkedJob[]>;
  /** How many jobs are parked, by job name (names with none are left out). */
  parkedCounts(): Promise<Record<string, number>>;
  /** Runs a parked job again, soon, with all its tries anew; false when no such job is parked. */
  retryParked(name: string, jobId: string): Promise<boolean>;
  /**
   * Drops a parked job: it is not run. Its id is forgotten (an add of it, a replay of the event that added it, runs it
   * again); false when no such job is parked.
   */
  removeParked(name: string, jobId: string): Promise<boolean>;
  /**
   * Stops taking jobs and waits for the running ones: without end, or at most `graceMs` (shutdown). Answers
   * the jobs it stopped waiting for (`name id`): they stay in the queue and run again after a restart (the
   * embedded queue) or once their lock expires (BullMQ, 30 s), keyed as ever so that their effect is once.
   * Calling it again answers the first call's outcome.
   */
  close(graceMs?: number): Promise<ClosedQueue>;
}

// ---- What every adapter shares: the defaults, the checks of an add's options, the backoff, the log lines.

/** The defaults of every JobQueue adapter, in one place. */
export const JOB_DEFAULTS = {
  /** Tries of a job whose add names none. */
  attempts: 5,
  /** Base delay of the backoff of a job whose add names none. */
  backoffMs: 1000,
  /** Jobs a queue runs at once (BullMQ: per job name). */
  concurrency: 2,
  /** How long whenIdle() waits when given no timeout. */
  idleTimeoutMs: 10_000,
  /** How long a finished job is kept, and so still deduplicates its id, where the engine drops them (BullMQ). */
  keepFinishedMs: 30 * 24 * 3600_000,
} as const;

/** Wait before a try that failed for want of room (a full disk) is made again; such a try does not count. */
export const STORAGE_FULL_RETRY_MS = 5000;

/** Wait before the next try after a failed one (`attemptsMade`, 1 on the first): doubling from backoffMs. */
export function retryDelayMs(backoffMs: number, attemptsMade: number): number {
  return backoffMs * 2 ** (attemptsMade - 1);
}

/** An add's options checked and completed with JOB_DEFAULTS. */
export interface JobSettings {
  jobId: string;
  attempts: number;
  backoffMs: number;
  delayMs: number;
}

/** Checks an add (`queue` names the adapter in errors) and completes its options with JOB_DEFAULTS. */
export function jobSettings(queue: string, name: string, options: JobOptions): JobSettings {
  if (typeof name !== 'string' || name === '') throw new TypeError(`${queue}: job name is required`);
  const jobId = options?.jobId;
  if (typeof jobId !== 'string' || jobId === '') throw new TypeError(`${queue}: options.jobId is required`);
  return {
    jobId,
    attempts: positiveInt(queue, options.attempts ?? JOB_DEFAULTS.attempts, 'attempts'),
    backoffMs: nonNegative(queue, options.backoffMs ?? JOB_DEFAULTS.backoffMs, 'backoffMs'),
    delayMs: nonNegative(queue, options.delayMs ?? 0, 'delayMs'),
  };
}

export function positiveInt(queue: string, value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${queue}: ${what} must be an integer >= 1`);
  return value;
}

function nonNegative(queue: string, value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${queue}: ${what} must be a number >= 0`);
  return value;
}

/** Where a queue logs failures: job id, name, attempt and error message, never the job's data (it may hold personal data). */
export interface JobQueueLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentJobLogger: JobQueueLogger = { warn() {}, error() {} };

const MAX_ERROR_LENGTH = 2000;

/** An error as a queue logs and keeps it: its message only, cut to a bounded length. */
export function jobErrorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH)}…` : message;
}
