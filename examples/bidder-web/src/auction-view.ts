// An auction: its lots (or those a search finds), a page at a time, in lot-number or closing-soon order, each with
// its current bid (or starting price), a countdown on the service's clock, "no reserve", and "closed" once it closes;
// all kept up to date by the auction stream.
import { ok, type components } from '../../../clients/typescript/src/index.ts';
import { serverNow } from './clock.ts';
import type { View } from './context.ts';
import { h, setTitle } from './dom.ts';
import { currentLanguage, t, timeLeft } from './i18n.ts';
import { closes, closingRange } from './home-view.ts';
import { liveIndicator } from './live-indicator.ts';
import { formatMoney } from './money.ts';

type Lot = components['schemas']['Lot'];
/** A lot's row: its parts and, once it closed, its outcome (sold at …, unsold). */
type Row = { price: HTMLElement; bids: HTMLElement; left: HTMLElement; item: HTMLElement; lot: Lot; outcome: string | null };
const PAGE_SIZE = 20;
/** Under this much time left a lot's countdown is marked as closing soon. */
const SOON_MS = 60 * 60_000;

/** What the list says of a lot's price: its current bid, or its starting price while nobody has bid. */
function priceText(lot: Lot, money: (minor: number) => string): string {
  return lot.CurrentBid === null
    ? `${t('label.startingPrice')}: ${money(lot.StartingPrice)}`
    : `${t('label.currentBid')}: ${money(lot.CurrentBid)}`;
}

/** A lot's time left, or "closed"; `data-state` says `open`, `soon` or `closed`. */
function paintLeft(left: HTMLElement, lot: Lot) {
  const ms = Date.parse(lot.EndTime) - serverNow();
  const closed = lot.IsClosed || ms <= 0;
  left.dataset.state = closed ? 'closed' : ms < SOON_MS ? 'soon' : 'open';
  left.textContent = closed ? t('status.closed') : `${t('label.timeLeft')}: ${timeLeft(lot.EndTime, serverNow())}`;
}

export const auctionView: View = async (context, root, params) => {
  const { client, live, titles } = context;
  const auctionId = Number(params.get('id'));
  const query = params.get('q')?.trim() ?? '';
  const sort = params.get('sort') === 'closing' ? 'closing' : 'number';
  const [auction, range] = await Promise.all([
    client.GET('/v1/auctions/{id}', { params: { path: { id: auctionId } } }).then(ok),
    closingRange(client, auctionId).catch(() => null),
  ]);
  setTitle(auction.Title);
  const list = h('ul', { class: 'lots', id: 'lots' });
  const count = h('p', { class: 'meta', id: 'result-count' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, t('button.showMore'));
  const rows = new Map<number, Row>();
  let page = 0;
  const money = (lot: Lot) => (minor: number) => formatMoney(minor, lot.Currency, currentLanguage());

  const row = (lot: Lot) => {
    titles.set(lot.Id, lot.Title);
    const price = h('span', { class: 'price' });
    const bids = h('span', { class: 'bids' });
    const left = h('span', { class: 'left' });
    const noReserve = lot.BiddingMode === 'timed' && lot.ReserveMet === null ? h('span', { class: 'badge' }, t('web.noReserve')) : null;
    const item = h(
      'li',
      { 'data-lot': lot.Id },
      h('a', { href: `#/lots/${lot.Id}` }, h('span', { class: 'number' }, lot.LotNumber), ' ', lot.Title),
      price,
      bids,
      left,
      noReserve,
    );
    rows.set(lot.Id, { price, bids, left, item, lot, outcome: null });
    paint(lot.Id);
    return item;
  };
  const paint = (lotId: number) => {
    const { price, bids, left, item, lot, outcome } = rows.get(lotId)!;
    price.textContent = outcome ?? priceText(lot, money(lot));
    bids.textContent = `${t('label.bidCount')}: ${lot.BidCount}`;
    paintLeft(left, lot);
    item.dataset.state = left.dataset.state;
  };
  const loadMore = async () => {
    page += 1;
    const order = sort === 'closing' ? { Sort: 'EndTime' as const } : {};
    const answer = query
      ? ok(await client.GET('/v1/lots/search', { params: { query: { q: query, AuctionId: auctionId, page, pageSize: PAGE_SIZE } } }))
      : ok(await client.GET('/v1/lots', { params: { query: { AuctionId: auctionId, Page: page, PageSize: PAGE_SIZE, ...order } } }));
    list.append(...answer.Items.map(row));
    count.textContent = answer.TotalCount === 0 ? t('message.noResults') : t('web.lots', { count: answer.TotalCount });
    more.hidden = page >= answer.TotalPages;
  };
  more.addEventListener('click', () => void loadMore());

  const search = h('input', { type: 'search', id: 'search', name: 'q', value: query, autocomplete: 'off' });
  const go = (q: string, order: string) => {
    const wanted = new URLSearchParams({ ...(q ? { q } : {}), ...(order === 'closing' ? { sort: 'closing' } : {}) }).toString();
    context.navigate(`#/auctions/${auctionId}${wanted ? `?${wanted}` : ''}`);
  };
  const form = h(
    'form',
    {
      role: 'search',
      class: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        go(search.value.trim(), sort);
      },
    },
    h('label', { for: 'search' }, t('web.searchLots')),
    h('span', { class: 'row' }, search, h('button', { type: 'submit' }, t('button.search'))),
  );
  // Closing soon is the order of end times (a search keeps its relevance).
  const order = h(
    'select',
    { id: 'sort', onchange: (event: Event) => go(query, (event.target as HTMLSelectElement).value) },
    h('option', { value: 'number', selected: sort === 'number' }, t('label.lotNumber')),
    h('option', { value: 'closing', selected: sort === 'closing' }, t('web.closingSoon')),
  );
  const indicator = liveIndicator(live);
  root.replaceChildren(
    h('h1', {}, auction.Title),
    h('p', { class: 'meta', id: 'closes' }, closes(auction, range)),
    indicator.element,
    form,
    query ? '' : h('p', { class: 'sort' }, h('label', { for: 'sort' }, t('label.sortBy')), ' ', order),
    count,
    list,
    more,
  );
  await loadMore();

  const ticking = setInterval(() => rows.forEach((_, lotId) => paint(lotId)), 1000);
  live.follow(auctionId);
  const stopListening = live.listen(
    (event) => {
      if (event.type !== 'bid' && event.type !== 'closed' && event.type !== 'extended') return;
      const shown = rows.get(event.data.LotId);
      if (!shown) return;
      if (event.type === 'bid')
        Object.assign(shown.lot, {
          CurrentBid: event.data.CurrentBid,
          BidCount: event.data.BidCount ?? shown.lot.BidCount + 1,
          EndTime: event.data.EndTime ?? shown.lot.EndTime,
        });
      else if (event.type === 'extended') shown.lot.EndTime = event.data.EndTime;
      else {
        shown.lot.IsClosed = true;
        const { Sold, HammerPrice } = event.data;
        shown.outcome = Sold && HammerPrice !== null ? `${t('status.sold')}: ${money(shown.lot)(HammerPrice)}` : t('status.unsold');
      }
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
  return () => {
    clearInterval(ticking);
    indicator.stop();
    stopListening();
  };
};
