import { defineReactor, type Projection, type Reactor, type ReactorDeps } from '../../src/projector/projection.ts';
import { invoicesEvents } from './events.ts';
import { invoiceNoticeJob, SEND_INVOICE_NOTICE, type InvoiceNoticeJob } from './jobs.ts';

/**
 * InvoiceIssued (the back office issued an invoice) → the job that mails its notice. From the event, so a process
 * stopping right after the intake's append loses no notice; keyed by the invoice, so a replay adds nothing. The job
 * is told when the event was recorded: a notice is for a new invoice, not for one a first run of this reactor
 * meets in an old log.
 */
export function invoiceNoticeReactor(deps: ReactorDeps): Reactor {
  return defineReactor({
    name: 'invoice-notices',
    events: [invoicesEvents],
    handles: ['InvoiceIssued'],
    async react(event) {
      const { tenant, invoiceId } = event.data;
      const data: InvoiceNoticeJob = { tenant, invoiceId, recordedAt: event.created };
      await deps.jobs.add(SEND_INVOICE_NOTICE, data, invoiceNoticeJob(tenant, invoiceId));
    },
  });
}

/** The reactors of invoices, registered by invoicesCommands (commands/invoices/index.ts). */
export function invoicesReactors(deps: ReactorDeps): Projection[] {
  return [invoiceNoticeReactor(deps)];
}
