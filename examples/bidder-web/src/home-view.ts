// The house's current auctions, timed ones (where this page can bid) first, each with when its lots close: an auction
// whose lots close one after another says when the first open lot closes and when the last one does.
import { ok, type BidderClient, type components } from '../../../clients/typescript/src/index.ts';
import type { View } from './context.ts';
import { h, setTitle } from './dom.ts';
import { formatTime, t } from './i18n.ts';

type Auction = components['schemas']['Auction'];

/** The end times of an auction's first and last open lot (by end time); null when none is open. */
export async function closingRange(client: BidderClient, auctionId: number): Promise<[string, string] | null> {
  const edge = async (Descending: boolean) =>
    ok(await client.GET('/v1/lots', { params: { query: { AuctionId: auctionId, Sort: 'EndTime', Descending, PageSize: 1 } } })).Items[0];
  const [first, last] = await Promise.all([edge(false), edge(true)]);
  return first && last ? [first.EndTime, last.EndTime] : null;
}

/** "Ends …", or "Lots close from … to …" when its lots close at different times. */
export function closes(auction: Auction, range: [string, string] | null): string {
  if (!range || range[0] === range[1]) return `${t('label.endsAt')}: ${formatTime(range?.[0] ?? auction.EndTime)}`;
  return t('web.lotsClose', { first: formatTime(range[0]), last: formatTime(range[1]) });
}

export const homeView: View = async ({ client }, root) => {
  const page = ok(await client.GET('/v1/auctions', { params: { query: { status: 'current', pageSize: 100 } } }));
  const auctions = [...page.Items].sort((a, b) => Number(b.BiddingMode === 'timed') - Number(a.BiddingMode === 'timed'));
  const ranges = await Promise.all(auctions.map((auction) => closingRange(client, auction.Id).catch(() => null)));
  setTitle(t('nav.auctions'));
  root.replaceChildren(
    h('h1', {}, t('nav.auctions')),
    h(
      'ul',
      { class: 'cards' },
      ...auctions.map((auction, i) =>
        h(
          'li',
          { 'data-auction': auction.Id },
          h('a', { href: `#/auctions/${auction.Id}` }, auction.Title),
          h('p', { class: 'meta closes' }, `${closes(auction, ranges[i])} · ${t('web.lots', { count: auction.LotCount })}`),
          auction.BiddingMode === 'timed' ? null : h('p', { class: 'meta' }, t('web.bidsElsewhereShort')),
        ),
      ),
    ),
  );
  return () => undefined;
};
