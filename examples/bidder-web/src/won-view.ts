// The lots the member won (GET /v1/me/bids?status=won), at their hammer price, with the way to the invoices.
import { ok } from '../../../clients/typescript/src/index.ts';
import type { Context, View } from './context.ts';
import { h, setTitle } from './dom.ts';
import { currentLanguage, formatTime, t } from './i18n.ts';
import { formatMoney } from './money.ts';

/** Whether a member is signed in; else off to sign in, and back here after. */
export function requireMember({ session, navigate }: Context, back: string): boolean {
  if (session.member) return true;
  navigate(`#/sign-in?next=${encodeURIComponent(back)}`);
  return false;
}

export const wonView: View = async (context, root) => {
  if (!requireMember(context, '#/won')) return () => undefined;
  const won = ok(await context.client.GET('/v1/me/bids', { params: { query: { status: 'won', pageSize: 100 } } }));
  root.replaceChildren(
    h('h1', {}, t('web.wonLots')),
    won.Items.length === 0
      ? h('p', {}, t('web.wonEmpty'))
      : h(
          'ul',
          { id: 'won', class: 'lots' },
          ...won.Items.map((bid) =>
            h(
              'li',
              { 'data-lot': bid.LotId },
              h('a', { href: `#/lots/${bid.LotId}` }, h('span', { class: 'number' }, bid.LotNumber), ' ', bid.LotTitle),
              h(
                'span',
                { class: 'price' },
                `${t('label.hammerPrice')}: ${formatMoney(bid.CurrentBid ?? bid.MaxAmount, bid.Currency, currentLanguage())}`,
              ),
              h('span', { class: 'meta' }, `${t('label.endsAt')}: ${formatTime(bid.EndTime)}`),
            ),
          ),
        ),
    h('p', {}, h('a', { href: '#/invoices' }, t('nav.invoices'))),
  );
  setTitle(t('web.wonLots'));
  return () => undefined;
};
