// The member's invoices (GET /v1/me/invoices): number, status, total and due date, and each one's PDF
// (GET /v1/me/invoices/{id}/pdf, fetched with the member's token and handed to the browser as a download).
import { ok, type BidderClient } from '../../../clients/typescript/src/index.ts';
import type { View } from './context.ts';
import { announce, h, setTitle } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { messageOf } from './messages.ts';
import { formatMoney } from './money.ts';
import { requireMember } from './won-view.ts';

const formatDate = (iso: string) => new Intl.DateTimeFormat(currentLanguage(), { dateStyle: 'medium' }).format(new Date(iso));

/** Saves an invoice's PDF: the bytes through the client (the link needs the member's token), then a download. */
async function download(client: BidderClient, id: number, number: number) {
  const pdf = ok(await client.GET('/v1/me/invoices/{id}/pdf', { params: { path: { id } }, parseAs: 'blob' }));
  const url = URL.createObjectURL(pdf);
  const link = h('a', { href: url, download: `invoice-${number}.pdf`, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export const invoicesView: View = async (context, root) => {
  if (!requireMember(context, '#/invoices')) return () => undefined;
  const { client } = context;
  const invoices = ok(await client.GET('/v1/me/invoices', { params: { query: { pageSize: 100 } } }));
  const row = (invoice: (typeof invoices.Items)[number]) => {
    const pdf = h('button', { type: 'button', class: 'secondary' }, t('web.invoicePdf', { number: invoice.Number }));
    pdf.addEventListener('click', async () => {
      pdf.disabled = true;
      try {
        await download(client, invoice.Id, invoice.Number);
      } catch (error) {
        announce(messageOf(error), true);
      } finally {
        pdf.disabled = false;
      }
    });
    return h(
      'li',
      { 'data-invoice': invoice.Id, 'data-state': invoice.Status },
      h('strong', {}, t('web.invoiceNumber', { number: invoice.Number })),
      h('span', { class: 'price' }, formatMoney(invoice.Total, invoice.Currency, currentLanguage())),
      h('span', { class: `status ${invoice.Status}` }, t(`status.${invoice.Status}`)),
      h('span', { class: 'meta' }, t('web.invoiceDue', { date: formatDate(invoice.DueAt) })),
      h('span', { class: 'actions' }, pdf),
    );
  };
  root.replaceChildren(
    h('h1', {}, t('nav.invoices')),
    invoices.Items.length === 0
      ? h('p', {}, t('web.invoicesEmpty'))
      : h('ul', { id: 'invoices', class: 'lots' }, ...invoices.Items.map(row)),
  );
  setTitle(t('nav.invoices'));
  return () => undefined;
};
