// The invoices' reactor, given events, then jobs: an issued invoice's notice is mailed by a job keyed by the
// invoice, told when the event was recorded (a notice is for a new invoice, not an old one of the log).
import { expect } from 'chai';
import { invoicesCommands } from '../../commands/invoices/index.ts';
import type { InvoicesEvent } from '../../commands/invoices/events.ts';
import type { GivenEvent } from '../support/projection-spec.ts';
import { jobsAddedFor } from '../support/reactor-spec.ts';

const issued = (invoiceId: number): GivenEvent<InvoicesEvent> => ({
  type: 'InvoiceIssued',
  data: {
    tenant: 'demo',
    invoiceId,
    number: invoiceId,
    memberId: 1,
    auctionId: 1,
    issuedAt: '2026-11-22T10:00:00.000Z',
    dueAt: '2026-11-29T10:00:00.000Z',
    currency: 'EUR',
    lines: [{ description: 'Lot 12: Oak chair', amount: 10000, vatRate: 21, vatAmount: 2100 }],
  },
  created: '2026-11-22T10:00:01.000Z',
});

describe('invoices reactor, given events, then jobs', () => {
  it('mails an issued invoice by a job keyed by the invoice, with when the event was recorded', async () => {
    const job = {
      name: 'invoice-notice',
      data: { tenant: 'demo', invoiceId: 41, recordedAt: '2026-11-22T10:00:01.000Z' },
      options: { jobId: 'invoice-notice-demo-41', attempts: 8, backoffMs: 2000 },
    };
    expect(await jobsAddedFor(invoicesCommands, [issued(41)], { times: 2 })).to.deep.equal([job, job]);
  });
});
