// A lot's bid history: newest first, each bid with its bidder's pseudonym on the lot (`Bidder 2`), the member's own
// marked "you". The newest bid is the leader's (proxy bidding), so a leading or winning member learns their pseudonym
// from it; a streamed bid names no bidder, so the history is read again after one.
import type { components } from '../../../clients/typescript/src/index.ts';
import type { Context } from './context.ts';
import { h } from './dom.ts';
import { formatTime, t } from './i18n.ts';

type Lot = components['schemas']['Lot'];
type Bid = components['schemas']['BidHistory']['Items'][number];

/** The member's pseudonym on each lot, once learnt; kept while the page is open. */
const ownPseudonyms = new Map<number, number>();

export interface BidHistory {
  list: HTMLElement;
  empty: HTMLElement;
  /** Marks the member's own bids again (after their standing changed: `leading` or `won` tells their pseudonym). */
  mark(standing: string): void;
  /** A streamed bid: shown at once, then the history read again with its pseudonyms. */
  added(amount: number, at: string): Promise<void>;
}

export function bidHistory({ client }: Context, lot: Lot, first: Bid[], money: (minor: number) => string): BidHistory {
  const list = h('ol', { id: 'history', class: 'history' });
  const empty = h('p', { id: 'no-bids', class: 'meta' }, t('web.noBids'));
  let items = first;
  let standing = 'none';
  const mark = (state: string) => {
    standing = state;
    // Only a history that has the current bid tells whose it is.
    const top = items[0];
    if (top?.Pseudonym && top.Amount === lot.CurrentBid && ['leading', 'won'].includes(standing)) ownPseudonyms.set(lot.Id, top.Pseudonym);
    const mine = ownPseudonyms.get(lot.Id);
    list.querySelectorAll<HTMLElement>('li').forEach((li) => {
      const bidder = li.dataset.bidder ? Number(li.dataset.bidder) : null;
      li.classList.toggle('you', bidder !== null && bidder === mine);
      li.querySelector('.who')!.textContent = bidder === null ? '' : bidder === mine ? t('web.you') : t('web.bidderN', { n: bidder });
    });
  };
  const draw = () => {
    const row = (bid: Bid) =>
      h(
        'li',
        { 'data-bidder': bid.Pseudonym ?? '' },
        h('span', { class: 'price' }, money(bid.Amount)),
        h('span', { class: 'who' }),
        h('time', { datetime: bid.PlacedAt }, formatTime(bid.PlacedAt)),
      );
    list.replaceChildren(...items.map(row));
    empty.hidden = items.length > 0;
    mark(standing);
  };
  const added = async (amount: number, at: string) => {
    items = [{ Amount: amount, Currency: lot.Currency, PlacedAt: at, BidType: 'online', Pseudonym: null }, ...items];
    draw();
    const again = await client.GET('/v1/lots/{id}/bids', { params: { path: { id: lot.Id } } }).catch(() => null);
    // Not one that has yet to take the streamed bid (the history follows the log a moment later).
    if (again?.data && again.data.Items.length >= items.length) {
      items = again.data.Items;
      draw();
    }
  };
  draw();
  return { list, empty, mark, added };
}
