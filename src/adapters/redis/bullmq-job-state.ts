/** A BullMQ job's state as the port names it, and the mark of a job failed for good (not parked). */
import type { JobState } from '../../ports/jobs.ts';

/**
 * The field of a job's hash that marks it failed for good by its processor (JobFailedForGood): failed, not parked.
 * BullMQ keeps fields it does not know; the mark goes with the job when it is removed, and retry() drops it.
 */
export const FAILED_FOR_GOOD = 'failedForGood';

/** Counts a failed set's jobs that are not marked FAILED_FOR_GOOD (KEYS[1]: the set; ARGV: the job key prefix, the field). */
export const COUNT_PARKED = `
local parked = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if redis.call('HEXISTS', ARGV[1] .. id, ARGV[2]) == 0 then parked = parked + 1 end
end
return parked`;

/** The port's state of a BullMQ state; null for a job gone or not one of ours. */
export function toPortState(state: string): JobState | null {
  switch (state) {
    case 'waiting':
    case 'prioritized':
    case 'waiting-children':
      return 'waiting';
    case 'active':
    case 'completed':
    case 'failed':
    case 'delayed':
      return state;
    default:
      return null;
  }
}
