// What a lot page says beside the bidding: the lot's attributes, its documents (factsheet, condition report) and its
// auction's (terms and others), downloaded through the API with the page's credentials, and the increment table.
import { ok, type components } from '../../../clients/typescript/src/index.ts';
import type { Context } from './context.ts';
import { announce, h } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { messageOf } from './messages.ts';
import { formatMoney } from './money.ts';

type Lot = components['schemas']['Lot'];

/** The lot's attributes (material, period, condition…) as a list of terms; null when it has none. */
export function lotAttributes(lot: Lot): HTMLElement | null {
  if (lot.Attributes.length === 0) return null;
  return h(
    'section',
    { 'aria-labelledby': 'details-heading' },
    h('h2', { id: 'details-heading' }, t('web.details')),
    h('dl', { id: 'attributes', class: 'attributes' }, ...lot.Attributes.flatMap((a) => [h('dt', {}, a.Label), h('dd', {}, a.Value)])),
  );
}

/** Saves a downloaded document under its name (the API needs the page's headers, so no plain link reaches it). */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A button that downloads one document. */
const downloadButton = (id: string, label: string, fetchIt: () => Promise<{ blob: Blob; name: string }>) => {
  const button = h('button', { type: 'button', class: 'link', id }, label);
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const { blob, name } = await fetchIt();
      save(blob, name);
    } catch (error) {
      announce(messageOf(error), true);
    } finally {
      button.disabled = false;
    }
  });
  return button;
};

/** The lot's documents (from its links) and its auction's; null when there are none. */
export async function lotDocuments({ client }: Context, lot: Lot): Promise<HTMLElement | null> {
  const [links, auctionDocuments] = await Promise.all([
    client.GET('/v1/lots/{id}/links', { params: { path: { id: lot.Id } } }).then(ok),
    client.GET('/v1/auctions/{id}/documents', { params: { path: { id: lot.AuctionId } } }).then(ok),
  ]);
  const lotFields = links.filter((link) => link.Rel === 'document').map((link) => link.Href.split('/').pop()!);
  const ours = auctionDocuments.filter((d) => d.Kind !== 'terms' || d.Language === currentLanguage());
  const items = [
    ...lotFields.map((field) =>
      downloadButton(
        `document-${field}`,
        t(field === 'condition-report' ? 'link.conditionReport' : field === 'factsheet' ? 'link.factsheet' : field),
        async () => {
          const answer = await client.GET('/v1/lots/{id}/documents/{fieldname}', {
            params: { path: { id: lot.Id, fieldname: field } },
            parseAs: 'blob',
          });
          return { blob: ok(answer) as Blob, name: `${field}-${lot.LotNumber}.pdf` };
        },
      ),
    ),
    ...ours.map((d) =>
      downloadButton(`auction-document-${d.Id}`, d.Name, async () => {
        const answer = await client.GET('/v1/auctions/{id}/documents/{documentId}', {
          params: { path: { id: lot.AuctionId, documentId: d.Id } },
          parseAs: 'blob',
        });
        return { blob: ok(answer) as Blob, name: d.Name };
      }),
    ),
  ];
  if (items.length === 0) return null;
  return h(
    'section',
    { 'aria-labelledby': 'documents-heading' },
    h('h2', { id: 'documents-heading' }, t('heading.documents')),
    h('ul', { class: 'links', id: 'documents' }, ...items.map((item) => h('li', {}, item))),
  );
}

/** The house's increment table in the lot's currency: from which current bid which step applies. */
export function incrementTable({ increments }: Context, lot: Lot): HTMLElement {
  const money = (minor: number) => formatMoney(minor, lot.Currency, currentLanguage());
  return h(
    'details',
    { class: 'increments', id: 'increments' },
    h('summary', {}, t('web.increments')),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('web.incrementFrom')), h('th', { scope: 'col' }, t('web.increment')))),
      h('tbody', {}, ...increments.map((row) => h('tr', {}, h('td', {}, money(row.From)), h('td', {}, money(row.Increment))))),
    ),
  );
}
