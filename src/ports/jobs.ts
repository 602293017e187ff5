/**
 * Background jobs port, shaped after BullMQ: queue.add(name, data, { jobId, attempts, backoff }) where a
 * job id that was already added is ignored (a duplicated job has its effect once), and a worker that runs
 * a processor per job name with retries.
 */

export interface JobOptions {
  /**
   * Deduplication key: adding a job whose id exists (waiting, active, completed or failed) does nothing. Ids
   * are unique per job name (start them with their kind), and finished jobs are remembered as long as the
   * engine keeps them (BullMQ: 30 days; the embedded queue: always).
   */
  jobId: string;
  /** Total tries, first one included (default 5). */
  attempts?: number;
  /** Exponential backoff base delay in ms (default 1000). */
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
}

export type JobProcessor = (job: Job) => Promise<void>;

export interface ClosedQueue {
  /** Jobs still running when the grace period ended, as `name id`. */
  abandoned: string[];
}

export type JobState = 'waiting' | 'active' | 'completed' | 'failed' | 'delayed';

export interface JobQueue {
  add(name: string, data: unknown, options: JobOptions): Promise<{ id: string; added: boolean }>;
  /** Registers the processor of one job name; the queue starts working on process(). */
  process(name: string, processor: JobProcessor): void;
  getState(jobId: string): Promise<JobState | null>;
  /**
   * Resolves when no job is waiting or active and none is delayed to a time within the timeout (tests and
   * shutdown); a job scheduled later (a reminder for tomorrow) does not hold it up.
   */
  whenIdle(timeoutMs?: number): Promise<void>;
  /**
   * Stops taking jobs and waits for the running ones: without end, or at most `graceMs` (shutdown). Answers
   * the jobs it stopped waiting for (`name id`): they stay in the queue and run again after a restart (the
   * embedded queue) or once their lock expires (BullMQ, 30 s), keyed as ever so that their effect is once.
   * Calling it again answers the first call's outcome.
   */
  close(graceMs?: number): Promise<ClosedQueue>;
}
