// An auction: its lots (or those a search finds), a page at a time, their current bids kept up to date by the
// auction stream.
import { ok, type components } from '../../../clients/typescript/src/index.ts';
import type { View } from './context.ts';
import { h } from './dom.ts';
import { currentLanguage, formatTime, t } from './i18n.ts';
import { formatMoney } from './money.ts';

type Lot = components['schemas']['Lot'];
const PAGE_SIZE = 20;

export const auctionView: View = async (context, root, params) => {
  const { client, live, titles } = context;
  const auctionId = Number(params.get('id'));
  const query = params.get('q')?.trim() ?? '';
  const auction = ok(await client.GET('/v1/auctions/{id}', { params: { path: { id: auctionId } } }));
  const list = h('ul', { class: 'lots', id: 'lots' });
  const count = h('p', { class: 'meta', id: 'result-count' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, t('button.showMore'));
  const rows = new Map<number, { price: HTMLElement; bids: HTMLElement; lot: Lot }>();
  let page = 0;

  const row = (lot: Lot) => {
    titles.set(lot.Id, lot.Title);
    const price = h('span', { class: 'price' });
    const bids = h('span', { class: 'bids' });
    rows.set(lot.Id, { price, bids, lot });
    paint(lot.Id);
    return h('li', {}, h('a', { href: `#/lots/${lot.Id}` }, h('span', { class: 'number' }, lot.LotNumber), ' ', lot.Title), price, bids);
  };
  const paint = (lotId: number) => {
    const { price, bids, lot } = rows.get(lotId)!;
    price.textContent = `${t('label.currentBid')}: ${formatMoney(lot.CurrentBid ?? lot.StartingPrice, lot.Currency, currentLanguage())}`;
    bids.textContent = `${t('label.bidCount')}: ${lot.BidCount}`;
  };
  const loadMore = async () => {
    page += 1;
    const answer = query
      ? ok(await client.GET('/v1/lots/search', { params: { query: { q: query, AuctionId: auctionId, page, pageSize: PAGE_SIZE } } }))
      : ok(await client.GET('/v1/lots', { params: { query: { AuctionId: auctionId, Page: page, PageSize: PAGE_SIZE } } }));
    list.append(...answer.Items.map(row));
    count.textContent = answer.TotalCount === 0 ? t('message.noResults') : t('web.lots', { count: answer.TotalCount });
    more.hidden = page >= answer.TotalPages;
  };
  more.addEventListener('click', () => void loadMore());

  const search = h('input', { type: 'search', id: 'search', name: 'q', value: query, autocomplete: 'off' });
  const form = h(
    'form',
    {
      role: 'search',
      class: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const q = search.value.trim();
        context.navigate(`#/auctions/${auctionId}${q ? `?q=${encodeURIComponent(q)}` : ''}`);
      },
    },
    h('label', { for: 'search' }, t('web.searchLots')),
    h('span', { class: 'row' }, search, h('button', { type: 'submit' }, t('button.search'))),
  );
  root.replaceChildren(
    h('h1', {}, auction.Title),
    h('p', { class: 'meta' }, `${t('label.endsAt')}: ${formatTime(auction.EndTime)}`),
    form,
    count,
    list,
    more,
  );
  await loadMore();

  live.follow(auctionId);
  return live.listen(
    (event) => {
      if (event.type !== 'bid' && event.type !== 'closed') return;
      const shown = rows.get(event.data.LotId);
      if (!shown) return;
      if (event.type === 'bid')
        Object.assign(shown.lot, { CurrentBid: event.data.CurrentBid, BidCount: event.data.BidCount ?? shown.lot.BidCount + 1 });
      else shown.lot.IsClosed = true;
      paint(event.data.LotId);
    },
    // After a gap in the stream the shown lots are read again.
    () => {
      rows.clear();
      list.replaceChildren();
      page = 0;
      void loadMore();
    },
  );
};
