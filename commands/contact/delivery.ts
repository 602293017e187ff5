import type { Reactor } from '../../src/projector/projection.ts';
import type { JobQueue } from '../../src/ports/jobs.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { Outbox } from '../../src/ports/outbox.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import { tenantSettings } from '../../projections/access/index.ts';
import { jobReactor } from '../../src/projector/job-reactor.ts';
import { contactEvents, contactStreamId } from './events.ts';

export const DELIVER_CONTACT = 'deliver-contact-message';

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

export function contactDeliveryJob(deps: { log: EventLog; outbox: Outbox; documents: DocumentStore }) {
  return async (job: { data: unknown }) => {
    const { tenant, messageId } = job.data as { tenant: string; messageId: string };
    const [recorded] = await deps.log.readStream(contactStreamId(tenant, messageId));
    if (!recorded) throw new Error('contact message not found');
    const event = contactEvents.read(recorded);
    if (event.type !== 'ContactMessageSubmitted') throw new Error('unexpected event');
    const settings = await tenantSettings(deps.documents, tenant);
    if (!settings) throw new Error('tenant not found');
    const d = event.data;
    await deps.outbox.send({
      id: `contact-${messageId}`,
      channel: 'mail',
      tenant,
      to: settings.ContactEmail,
      replyTo: d.email,
      subject: `[Contact] ${d.subject}`,
      body: [
        `From: ${d.name} <${d.email}>`,
        d.lotId !== null ? `Lot: ${d.lotId}` : null,
        d.memberId !== null ? `Member: ${d.memberId}` : null,
        `Sent: ${d.at}`,
        '',
        d.message,
      ]
        .filter((line) => line !== null)
        .join('\n'),
    });
  };
}
