/** The steps of closing a BullMQ job queue: its connections quit, and every closing awaited with its errors logged. */
import type { Redis } from 'ioredis';
import type { JobQueueLogger } from '../../ports/jobs.ts';
import { jobErrorMessage as errorMessage } from '../../ports/jobs.ts';

/** Quits a connection, or drops it when quitting fails. */
export async function quit(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** Awaits every piece of `work`, logging the ones that failed. */
export async function settleAll(work: Array<Promise<unknown> | undefined>, logger: JobQueueLogger, what: string): Promise<void> {
  for (const result of await Promise.allSettled(work)) {
    if (result.status === 'rejected') {
      logger.error({ err: errorMessage(result.reason) }, `job queue: error while ${what}`);
    }
  }
}
