import type { JobProcessor } from './ports/jobs.ts';
import type { Services } from './services.ts';
import { contactDeliveryJob, DELIVER_CONTACT } from '../commands/contact/delivery.ts';
import { membersJobs } from '../commands/members/jobs.ts';
import { profileJobs } from '../commands/profile/jobs.ts';
import { phoneVerificationJobs } from '../commands/phone-verification/jobs.ts';
import { registrationsJobs } from '../commands/registrations/jobs.ts';
import { identityDocumentsJobs } from '../commands/identity-documents/jobs.ts';
import { invoicesJobs } from '../commands/invoices/jobs.ts';
import { notificationsJobs } from '../commands/notifications/jobs.ts';

/** Every background job the worker runs, by job name. */
export function allJobs(services: Services): Record<string, JobProcessor> {
  return {
    [DELIVER_CONTACT]: contactDeliveryJob(services) as JobProcessor,
    ...membersJobs(services),
    ...profileJobs(services),
    ...phoneVerificationJobs(services),
    ...registrationsJobs(services),
    ...identityDocumentsJobs(services),
    ...invoicesJobs(services),
    ...notificationsJobs(services),
  };
}
