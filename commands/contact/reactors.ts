import type { Projection, Reactor, ReactorDeps } from '../../src/projector/projection.ts';
import type { JobQueue } from '../../src/ports/jobs.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';
import { contactEvents } from './events.ts';
import { DELIVER_CONTACT } from './jobs.ts';

/**
 * Side effect of ContactMessageSubmitted: a job keyed by the message id, so a replayed event or a retried
 * job delivers the mail once. The job carries only ids; it reads the message from its stream.
 */
export function contactDeliveryReactor(jobs: JobQueue): Reactor {
  return jobReactor(jobs, contactEvents, {
    name: 'contact-delivery',
    on: 'ContactMessageSubmitted',
    job: ({ tenant, messageId }) => ({
      name: DELIVER_CONTACT,
      data: { tenant, messageId },
      options: { jobId: `contact-${messageId}`, attempts: 8, backoffMs: 2000 },
    }),
  });
}

/** The reactors of the contact form, registered by contactCommands (commands/contact/index.ts). */
export function contactReactors(deps: ReactorDeps): Projection[] {
  return [contactDeliveryReactor(deps.jobs)];
}
