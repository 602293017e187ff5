import type { JobOptions } from '../../src/ports/jobs.ts';

/*
 * The reminder job as the reactor that plans it (projections/notifications) and its processor (reminder.ts)
 * both know it: its name, its data and its options.
 */

/** The one job of reminders: plan a subscription, and send it when it is due. */
export const SEND_REMINDER = 'notification-reminder';

export interface ReminderJobData {
  tenant: string;
  subscriptionId: string;
  /**
   * The member, for a subscription on the member's stream. Absent for one made before it (on its own stream),
   * as in every job queued before the member stream: those are found on their own streams.
   */
  memberId?: number;
}

/** Options of a reminder job: keyed (a known id is ignored), retried with backoff, optionally delayed. */
export const reminderJob = (jobId: string, delayMs = 0): JobOptions => ({
  jobId,
  attempts: 8,
  backoffMs: 2000,
  ...(delayMs > 0 ? { delayMs } : {}),
});
