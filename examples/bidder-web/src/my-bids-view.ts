// The member's bids, one per lot, with their standing.
import { ok } from '../../../clients/typescript/src/index.ts';
import type { View } from './context.ts';
import { h } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { formatMoney } from './money.ts';

export const myBidsView: View = async ({ client, session, titles, navigate }, root) => {
  if (!session.member) {
    navigate(`#/sign-in?next=${encodeURIComponent('#/my-bids')}`);
    return () => undefined;
  }
  const bids = ok(await client.GET('/v1/me/bids', { params: { query: { pageSize: 100 } } }));
  const text = { leading: 'message.highestBidder', outbid: 'message.outbid', won: 'web.won', lost: 'web.lost' } as const;
  root.replaceChildren(
    h('h1', {}, t('nav.myBids')),
    bids.Items.length === 0
      ? h('p', {}, t('message.noResults'))
      : h(
          'ul',
          { class: 'lots' },
          ...bids.Items.map((bid) => {
            titles.set(bid.LotId, bid.LotTitle);
            return h(
              'li',
              { 'data-state': bid.Status },
              h('a', { href: `#/lots/${bid.LotId}` }, h('span', { class: 'number' }, bid.LotNumber), ' ', bid.LotTitle),
              h(
                'span',
                { class: 'price' },
                `${t('label.currentBid')}: ${formatMoney(bid.CurrentBid ?? bid.MaxAmount, bid.Currency, currentLanguage())}`,
              ),
              h('span', {}, t(text[bid.Status], { title: bid.LotTitle })),
            );
          }),
        ),
  );
  return () => undefined;
};
