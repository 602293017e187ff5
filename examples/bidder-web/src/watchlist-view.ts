// The lots the member watches (GET /v1/me/watchlist): current bid and end, a reminder by e-mail an hour before the
// end (reminders.ts), and "stop watching".
import { ok } from '../../../clients/typescript/src/index.ts';
import type { View } from './context.ts';
import { announce, h, setTitle } from './dom.ts';
import { currentLanguage, formatTime, t } from './i18n.ts';
import { messageOf } from './messages.ts';
import { formatMoney } from './money.ts';
import { reminderOf, removeReminder, setReminder } from './reminders.ts';
import { requireMember } from './won-view.ts';

export const watchlistView: View = async (context, root) => {
  if (!requireMember(context, '#/watchlist')) return () => undefined;
  const { client } = context;
  const page = ok(await client.GET('/v1/me/watchlist', { params: { query: { pageSize: 100 } } }));
  const row = (lot: (typeof page.Items)[number]) => {
    const remind = h(
      'button',
      { type: 'button', class: 'secondary', 'aria-pressed': String(reminderOf(lot.Id) !== null) },
      t('web.remind'),
    );
    remind.addEventListener('click', async () => {
      remind.disabled = true;
      try {
        const kept = reminderOf(lot.Id);
        if (kept) await removeReminder(client, kept);
        else await setReminder(client, lot);
        remind.setAttribute('aria-pressed', String(!kept));
        announce(kept ? t('web.reminderRemoved') : t('web.reminderSet', { title: lot.Title }));
      } catch (error) {
        announce(messageOf(error), true);
      } finally {
        remind.disabled = false;
      }
    });
    const unwatch = h('button', { type: 'button', class: 'secondary' }, t('button.unwatch'));
    const item = h(
      'li',
      { 'data-lot': lot.Id },
      h('a', { href: `#/lots/${lot.Id}` }, h('span', { class: 'number' }, lot.LotNumber), ' ', lot.Title),
      h(
        'span',
        { class: 'price' },
        `${t('label.currentBid')}: ${formatMoney(lot.CurrentBid ?? lot.StartingPrice, lot.Currency, currentLanguage())}`,
      ),
      h('span', { class: 'meta' }, lot.IsClosed ? t('status.closed') : `${t('label.endsAt')}: ${formatTime(lot.EndTime)}`),
      h('span', { class: 'actions' }, lot.IsClosed ? null : remind, unwatch),
    );
    unwatch.addEventListener('click', async () => {
      try {
        ok(await client.DELETE('/v1/me/watchlist/{lotId}', { params: { path: { lotId: lot.Id } } }));
        const kept = reminderOf(lot.Id);
        if (kept) await removeReminder(client, kept);
        item.remove();
        announce(t('message.removedFromWatchlist'));
        if (!root.querySelector('#watchlist li')) root.querySelector('#watchlist')?.replaceWith(h('p', {}, t('web.watchlistEmpty')));
        root.querySelector<HTMLElement>('h1')?.focus();
      } catch (error) {
        announce(messageOf(error), true);
      }
    });
    return item;
  };
  root.replaceChildren(
    h('h1', {}, t('nav.watchlist')),
    page.Items.length === 0 ? h('p', {}, t('web.watchlistEmpty')) : h('ul', { id: 'watchlist', class: 'lots' }, ...page.Items.map(row)),
  );
  setTitle(t('nav.watchlist'));
  return () => undefined;
};
