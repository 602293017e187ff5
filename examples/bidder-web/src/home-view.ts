// The house's current auctions, timed ones (where this page can bid) first.
import { ok } from '../../../clients/typescript/src/index.ts';
import type { View } from './context.ts';
import { h } from './dom.ts';
import { formatTime, t } from './i18n.ts';

export const homeView: View = async ({ client }, root) => {
  const page = ok(await client.GET('/v1/auctions', { params: { query: { status: 'current', pageSize: 100 } } }));
  const auctions = [...page.Items].sort((a, b) => Number(b.BiddingMode === 'timed') - Number(a.BiddingMode === 'timed'));
  root.replaceChildren(
    h('h1', {}, t('nav.auctions')),
    h(
      'ul',
      { class: 'cards' },
      ...auctions.map((auction) =>
        h(
          'li',
          {},
          h('a', { href: `#/auctions/${auction.Id}` }, auction.Title),
          h('p', { class: 'meta' }, `${t('label.endsAt')}: ${formatTime(auction.EndTime)} · ${t('web.lots', { count: auction.LotCount })}`),
        ),
      ),
    ),
  );
  return () => undefined;
};
