import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { reminderJobProcessor } from './reminder.ts';
import { SEND_REMINDER } from './shared.ts';

/** The background jobs of notifications, by job name. */
export function notificationsJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [SEND_REMINDER]: reminderJobProcessor(services) };
}
