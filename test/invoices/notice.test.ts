/**
 * PRODUCTION.md "Notices the service sends": when the back office issues an invoice, the member gets a notice by
 * mail (its number, total, due date and the path of its PDF, in the member's language), once per invoice however
 * often its event is replayed or its job runs; against a real SMTP server.
 */
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSmtpPeer, type SmtpPeer } from '../support/mail-servers.ts';
import { importRecord } from '../../app/features/intake.ts';
import { SEND_INVOICE_NOTICE, type InvoiceNoticeJob } from '../../commands/invoices/jobs.ts';

const DAY = 86_400_000;

describe('Invoice notices (PRODUCTION.md "Notices the service sends")', function () {
  this.timeout(180_000); // the service starts in its before hook (a minute on a loaded machine)
  let smtp: SmtpPeer;
  let server: TestServer;
  let members = 7000;
  let invoices = 500;
  /** Moves the service's clock (the jobs' `now`), for the notice window. */
  let clockOffset = 0;

  const settle = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(20_000);
  };
  const intake = (records: object[], tenant: 'demo' | 'demo2' = 'demo') =>
    server.request('POST', '/backoffice/v1/intake', {
      apiKey: null,
      rawBody: records.map((r) => JSON.stringify(r)).join('\n'),
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys[tenant]}`, 'Content-Type': 'application/x-ndjson' },
    });
  async function member(language: string, tenant = 'demo') {
    const memberId = ++members;
    const email = `invoiced${memberId}@example.com`;
    await importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant,
      memberId,
      email,
      passwordHash: 'scrypt$disabled',
      firstName: 'Astrid',
      lastName: `Member${memberId}`,
      language,
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
    return { memberId, email };
  }
  const invoice = (memberId: number, invoiceId = ++invoices, tenant = 'demo', currency = 'EUR') => ({
    kind: 'invoice',
    tenant,
    invoiceId,
    memberId,
    auctionId: 4,
    issuedAt: '2026-11-20T10:00:00.000Z',
    dueAt: '2026-12-04T10:00:00.000Z',
    currency,
    lines: [
      { description: 'Lot 12, hammer price', amount: 123400, vatRate: 0 },
      { description: "Buyer's premium", amount: 30850, vatRate: 25 },
    ],
  });
  const mailsTo = (email: string) => smtp.mails.filter((m) => m.to === email);
  const noticesOf = async (tenant: string, invoiceId: number) =>
    (await server.events()).filter(
      (e) => e.type === 'InvoiceNoticeDispatched' && e.data.tenant === tenant && e.data.invoiceId === invoiceId,
    );

  before(async function () {
    smtp = await startSmtpPeer();
    server = await startTestServer({
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Bidder Service <noreply@service.example.test>',
        DELIVERY_FIRST_RETRY_MS: '200',
        PUBLIC_URL: 'https://api.house.example/',
      },
      now: () => new Date(Date.now() + clockOffset),
    });
    await settle();
  });
  after(async function () {
    await server?.close();
    await smtp?.close();
  });

  it("mails the member a notice in the member's language: number, total with VAT, due date and the PDF's URL under PUBLIC_URL", async function () {
    const m = await member('sv');
    const answer = await intake([invoice(m.memberId)]);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.include({ Appended: 1 });
    await settle();
    const [mail, ...more] = mailsTo(m.email);
    expect(more, 'one notice').to.deep.equal([]);
    const number = (await server.events()).find((e) => e.type === 'InvoiceIssued' && e.data.invoiceId === invoices)!.data.number;
    expect(mail.subject).to.equal(`Demo Auctions: faktura ${String(number)}`);
    // 1,234.00 + 308.50 + 25 % of 308.50 (77.13) = 1,619.63 EUR, written as Swedish readers read it.
    const total = new Intl.NumberFormat('sv', { style: 'currency', currency: 'EUR', minimumFractionDigits: 2 }).format(1619.63);
    const vat = new Intl.NumberFormat('sv', { style: 'currency', currency: 'EUR', minimumFractionDigits: 2 }).format(77.13);
    expect(mail.text).to.equal(
      [
        'Hej Astrid,',
        `Demo Auctions har ställt ut faktura ${String(number)} till dig.`,
        `Att betala: ${total} (varav moms ${vat})\nFörfallodag: 4 december 2026`,
        `Fakturan som pdf, i ditt konto:\nhttps://api.house.example/v1/me/invoices/${invoices}/pdf`,
        'Demo Auctions',
      ].join('\n\n'),
    );
    expect(mail.html).to.include('<html lang="sv">').and.include(`https://api.house.example/v1/me/invoices/${invoices}/pdf`);
    expect(mail.headers.get('content-language')).to.equal('sv');
    expect(mail.from).to.equal('"Demo Auctions" <noreply@service.example.test>');
    // A notice about the member's own invoice, like the account mails: nothing to unsubscribe from.
    expect(mail.headers.has('list-unsubscribe')).to.equal(false);
    const recorded = await noticesOf('demo', invoices);
    expect(recorded).to.have.length(1);
    expect(recorded[0].data).to.include({ memberId: m.memberId, messageId: `invoice-notice-demo-${invoices}` });
  });

  it('sends it once: the same record again, a replay of the reactor and a job run again under another id send nothing more', async function () {
    const m = await member('de');
    const record = invoice(m.memberId);
    expect((await intake([record])).status).to.equal(200);
    await settle();
    expect(mailsTo(m.email)).to.have.length(1);
    expect(mailsTo(m.email)[0].subject).to.equal(
      `Demo Auctions: Rechnung ${String((await server.events()).find((e) => e.type === 'InvoiceIssued' && e.data.invoiceId === record.invoiceId)!.data.number)}`,
    );

    // The same record again appends nothing; the reactor run over the whole log again adds no job it added before.
    expect((await intake([record])).body).to.include({ Appended: 0 });
    await server.runtime.services.projector.rebuild('invoice-notices');
    // A queue that forgot the job (Redis drops finished jobs after 30 days): the register says it went out.
    const job: InvoiceNoticeJob = { tenant: 'demo', invoiceId: record.invoiceId, recordedAt: new Date().toISOString() };
    await server.runtime.services.jobs.add(SEND_INVOICE_NOTICE, job, { jobId: `invoice-notice-forgotten-${record.invoiceId}` });
    await settle();
    expect(mailsTo(m.email)).to.have.length(1);
    expect(await noticesOf('demo', record.invoiceId)).to.have.length(1);
  });

  it("each house's invoice of the same id gets its own notice, in the house's currency", async function () {
    const a = await member('en', 'demo');
    const b = await member('en', 'demo2');
    const id = ++invoices;
    expect((await intake([invoice(a.memberId, id)], 'demo')).status).to.equal(200);
    expect((await intake([invoice(b.memberId, id, 'demo2', 'SEK')], 'demo2')).status).to.equal(200);
    await settle();
    expect(mailsTo(a.email)).to.have.length(1);
    expect(mailsTo(b.email)).to.have.length(1);
    expect(mailsTo(a.email)[0].text).to.include('Total: €1,619.63 (VAT €77.13 included)\nDue: December 4, 2026');
    const sek = (major: number) =>
      new Intl.NumberFormat('en', { style: 'currency', currency: 'SEK', minimumFractionDigits: 2 }).format(major);
    expect(mailsTo(b.email)[0].text).to.include(`Total: ${sek(1619.63)} (VAT ${sek(77.13)} included)`);
  });

  it('sends none for an invoice paid before its notice went out', async function () {
    const m = await member('en');
    const id = ++invoices;
    // The reactor's job for the invoice, taken first and delayed: it runs once the invoice is paid.
    const job: InvoiceNoticeJob = { tenant: 'demo', invoiceId: id, recordedAt: new Date().toISOString() };
    await server.runtime.services.jobs.add(SEND_INVOICE_NOTICE, job, { jobId: `invoice-notice-demo-${id}`, delayMs: 1500 });
    const answer = await intake([
      invoice(m.memberId, id),
      { kind: 'invoicePaid', tenant: 'demo', invoiceId: id, paidAt: '2026-11-21T10:00:00.000Z' },
    ]);
    expect(answer.body).to.include({ Appended: 2 });
    await settle();
    expect(mailsTo(m.email)).to.deep.equal([]);
    expect(await noticesOf('demo', id)).to.deep.equal([]);
  });

  it("sends none for an invoice issued with notify: false (a backfill of a house's past), nor for the demo's own invoices", async function () {
    const m = await member('en');
    const id = ++invoices;
    const answer = await intake([{ ...invoice(m.memberId, id), notify: false }]);
    expect(answer.body).to.include({ Appended: 1 });
    await settle();
    expect(mailsTo(m.email)).to.deep.equal([]);
    expect(await noticesOf('demo', id)).to.deep.equal([]);
    // The seed's unpaid invoices of demo and demo2 are its history: their member got nothing at the start.
    expect(mailsTo('bidder@example.com')).to.deep.equal([]);
    // The same invoice sent again with notify left out is the same invoice: nothing appended, nothing mailed.
    expect((await intake([invoice(m.memberId, id)])).body).to.include({ Appended: 0 });
    await settle();
    expect(mailsTo(m.email)).to.deep.equal([]);
  });

  it('sends none for an invoice recorded more than 7 days before its job runs (a first run over an old log)', async function () {
    const m = await member('en');
    clockOffset = 8 * DAY;
    try {
      expect((await intake([invoice(m.memberId)])).status).to.equal(200);
      await settle();
    } finally {
      clockOffset = 0;
    }
    expect(mailsTo(m.email)).to.deep.equal([]);
  });
});
