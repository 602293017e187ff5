import type { JobProcessor } from '../../src/ports/jobs.ts';
import type { JobDeps } from '../../src/feature.ts';
import { runCommand } from '../../src/command-runner.ts';
import { messageLanguage } from '../../src/text/mail.ts';
import { senderOf, tenantSettings } from '../../projections/access/index.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { memberLanguage, memberTimeZone } from '../../projections/profile/index.ts';
import { invoiceNoticeDecider } from './decide.ts';
import { invoiceNoticeMessageId, invoiceRegisterStreamId } from './events.ts';
import { invoiceNoticeMail } from './mails.ts';

/*
 * The background jobs of invoices: the notice of an invoice the back office issued. (The printed invoice is made
 * from the read model on first request and kept per version: src/generated-files.ts.)
 */

/** Mails the notice of an invoice the back office issued (added by the reactor, reactors.ts). */
export const SEND_INVOICE_NOTICE = 'invoice-notice';

export interface InvoiceNoticeJob {
  tenant: string;
  invoiceId: number;
  /** When InvoiceIssued was recorded (the log's time). */
  recordedAt: string;
}

/** One job per invoice: a replayed event adds nothing. */
export const invoiceNoticeJob = (tenant: string, invoiceId: number) => ({
  jobId: `invoice-notice-${tenant}-${invoiceId}`,
  attempts: 8,
  backoffMs: 2000,
});

/**
 * A notice goes out for an invoice recorded at most this long before its job runs: a reactor that meets an old
 * log for the first time (a first start after an upgrade) does not mail every invoice of the house's past.
 */
export const NOTICE_WINDOW_MS = 7 * 86_400_000;

/**
 * Sends an invoice's notice once: the register says whether it went out already (InvoiceNoticeDispatched), it is
 * sent under a message id of its own (a retried job delivers once), then recorded. An invoice issued with
 * `notify: false`, a paid one, or one recorded longer than NOTICE_WINDOW_MS ago gets none. A member not (yet) in
 * the read model is tried again.
 */
export function sendInvoiceNotice(deps: JobDeps): JobProcessor {
  return async (job) => {
    const { tenant, invoiceId, recordedAt } = job.data as InvoiceNoticeJob;
    const streamId = invoiceRegisterStreamId(tenant);
    const { view: invoice } = await runCommand(deps.log, streamId, invoiceNoticeDecider, { type: 'LookUpNotice', invoiceId });
    if (!invoice?.issued || invoice.noticed) return;
    const now = deps.now();
    const skipped =
      invoice.issued.notify === false
        ? 'not-asked'
        : invoice.status === 'paid'
          ? 'paid'
          : now.getTime() - Date.parse(recordedAt) > NOTICE_WINDOW_MS
            ? 'old'
            : null;
    if (skipped) {
      deps.logger.info({ tenant, invoiceId, reason: skipped }, 'invoice notice not sent');
      return;
    }
    const issued = invoice.issued;
    const db = deps.documents.forTenant(tenant);
    const member = await memberAccounts(db).findById(String(issued.memberId));
    if (!member) throw new Error(`invoice notice: member ${issued.memberId} of ${tenant} is not in the read model (yet)`);
    const house = await tenantSettings(deps.documents, tenant);
    const mail = invoiceNoticeMail({
      language: messageLanguage(await memberLanguage(db, member), house),
      houseName: house?.Name ?? tenant,
      firstName: member.FirstName,
      number: issued.number,
      currency: issued.currency,
      lines: issued.lines,
      dueAt: issued.dueAt,
      timeZone: await memberTimeZone(db, member.Id),
      pdf: deps.links.url(`/v1/me/invoices/${invoiceId}/pdf`),
    });
    const messageId = invoiceNoticeMessageId(tenant, invoiceId);
    await deps.outbox.send({
      id: messageId,
      kind: 'invoice',
      channel: 'mail',
      tenant,
      memberId: issued.memberId,
      to: member.Email,
      sender: senderOf(house ?? null, tenant),
      ...mail,
    });
    await runCommand(deps.log, streamId, invoiceNoticeDecider, {
      type: 'RecordNotice',
      tenant,
      invoiceId,
      messageId,
      at: now.toISOString(),
    });
  };
}

/** The background jobs of invoices, by job name. */
export function invoicesJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [SEND_INVOICE_NOTICE]: sendInvoiceNotice(services) };
}
