import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { Outbox } from '../../src/ports/outbox.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import { senderOf, tenantSettings } from '../../projections/access/index.ts';
import { mailHtml, messageLanguage, type MessageLanguage } from '../../src/text/mail.ts';
import { contactEvents, contactStreamId } from './events.ts';

export const DELIVER_CONTACT = 'deliver-contact-message';

/** The labels of a contact mail, in the house's language. */
const WORDS: Record<MessageLanguage, { contact: string; from: string; lot: string; member: string; sent: string }> = {
  en: { contact: '[Contact]', from: 'From', lot: 'Lot', member: 'Member', sent: 'Sent' },
  sv: { contact: '[Kontakt]', from: 'Från', lot: 'Föremål', member: 'Medlem', sent: 'Skickat' },
  de: { contact: '[Kontakt]', from: 'Von', lot: 'Los', member: 'Mitglied', sent: 'Gesendet' },
};

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
    // To the house, in its own first language.
    const language = messageLanguage(null, settings);
    const w = WORDS[language];
    const subject = `${w.contact} ${d.subject}`;
    const body = [
      `${w.from}: ${d.name} <${d.email}>`,
      d.lotId !== null ? `${w.lot}: ${d.lotId}` : null,
      d.memberId !== null ? `${w.member}: ${d.memberId}` : null,
      `${w.sent}: ${d.at}`,
      '',
      d.message,
    ]
      .filter((line) => line !== null)
      .join('\n');
    await deps.outbox.send({
      id: `contact-${messageId}`,
      kind: 'contact',
      channel: 'mail',
      tenant,
      to: settings.ContactEmail,
      replyTo: d.email,
      sender: senderOf(settings, tenant),
      language,
      subject,
      body,
      html: mailHtml(body, language, subject),
    });
  };
}

/** The background jobs of the contact form, by job name. */
export function contactJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [DELIVER_CONTACT]: contactDeliveryJob(services) };
}
