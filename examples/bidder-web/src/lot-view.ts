// A lot: its images, facts kept live by the auction stream (bids, soft close, close) on the service's clock, the
// member's standing and own maximum from the member stream, and, for a signed-in member, watching, registering and
// bidding (bidding-panel.ts, bid-form.ts); then its details, documents, the increment table and the bid history.
import { ok } from '../../../clients/typescript/src/index.ts';
import type { Standing, View } from './context.ts';
import { announce, append, h, setTitle } from './dom.ts';
import { currentLanguage, formatTime, t, timeLeft } from './i18n.ts';
import { bidForm } from './bid-form.ts';
import { bidHistory } from './bid-history.ts';
import { biddingPanel } from './bidding-panel.ts';
import { serverNow } from './clock.ts';
import { readConfig } from './config.ts';
import { costPanel } from './cost-panel.ts';
import { liveIndicator } from './live-indicator.ts';
import { incrementTable, lotAttributes, lotDocuments } from './lot-details.ts';
import { lotGallery } from './lot-gallery.ts';
import { messageOf } from './messages.ts';
import { formatMoney } from './money.ts';
import { pushButton } from './push-button.ts';

/** What the lot says of its reserve: none (a timed lot only: an external one's is not known here), met or not. */
function reserveKeyOf(lot: { ReserveMet: boolean | null; BiddingMode: string }): string | null {
  if (lot.ReserveMet === null) return lot.BiddingMode === 'timed' ? 'web.noReserve' : null;
  return lot.ReserveMet ? 'web.reserveMet' : 'web.reserveNotMet';
}

export const lotView: View = async (context, root, params) => {
  const { client, live, session } = context;
  const lotId = Number(params.get('id'));
  const [lotAnswer, historyAnswer] = await Promise.all([
    client.GET('/v1/lots/{id}', { params: { path: { id: lotId } } }),
    client.GET('/v1/lots/{id}/bids', { params: { path: { id: lotId } } }),
  ]);
  const lot = ok(lotAnswer);
  const bids = ok(historyAnswer);
  context.titles.set(lot.Id, lot.Title);
  setTitle(`${t('label.lotNumber')} ${lot.LotNumber}: ${lot.Title}`);
  const money = (minor: number) => formatMoney(minor, lot.Currency, currentLanguage());

  // The facts, repainted on every change.
  const currentBid = h('dd', { id: 'current-bid' });
  const bidCount = h('dd', { id: 'bid-count' });
  const minimum = h('dd', { id: 'minimum-bid' });
  const endTime = h('time', { id: 'end-time' });
  const left = h('span', { id: 'time-left', class: 'meta' });
  const reserve = h('p', { class: 'badge', id: 'reserve' });
  const standing = h('p', { id: 'my-status', class: 'standing', 'data-state': 'none' });
  const myMax = h('p', { id: 'my-max', class: 'my-max', hidden: true });
  const paint = () => {
    currentBid.textContent = lot.CurrentBid === null ? '–' : money(lot.CurrentBid);
    // The amount in minor units, as the API gives it (for scripts and tests, whatever the language).
    currentBid.dataset.amount = String(lot.CurrentBid ?? '');
    bidCount.textContent = String(lot.BidCount);
    minimum.textContent = lot.IsClosed || lot.MinimumNextBid === null ? '–' : money(lot.MinimumNextBid);
    endTime.dateTime = lot.EndTime;
    endTime.textContent = formatTime(lot.EndTime);
    left.textContent = lot.IsClosed ? t('status.closed') : `${t('label.timeLeft')}: ${timeLeft(lot.EndTime, serverNow())}`;
    const reserveKey = reserveKeyOf(lot);
    reserve.textContent = reserveKey ? t(reserveKey) : '';
    reserve.dataset.reserve = lot.ReserveMet === null ? 'none' : String(lot.ReserveMet);
    reserve.hidden = reserveKey === null;
  };
  /** The member's own maximum on the lot, shown and handed to the form (a leader may only raise it). */
  const mine = { maxAmount: null as number | null };
  const showMine = (maxAmount: number | null) => {
    mine.maxAmount = maxAmount;
    myMax.hidden = maxAmount === null;
    myMax.textContent = maxAmount === null ? '' : t('web.yourMax', { amount: money(maxAmount) });
    myMax.dataset.amount = String(maxAmount ?? '');
    form.setMine(maxAmount, context.standings.get(lot.Id) === 'leading');
  };
  const showStanding = (state: Standing | null) => {
    standing.dataset.state = state ?? 'none';
    standing.textContent =
      state === 'leading'
        ? t('message.highestBidder')
        : state === 'outbid'
          ? t('message.outbid', { title: lot.Title })
          : state === 'won'
            ? t('web.won', { title: lot.Title })
            : state === 'lost'
              ? t('web.lost', { title: lot.Title })
              : '';
    standing.hidden = state === null;
    history.mark(state ?? 'none');
  };
  const history = bidHistory(context, lot, bids.Items, money);

  const notify = pushButton(context);
  // What winning costs all in, for the amount typed (the minimum next bid until then).
  const costs = costPanel(context, lot);
  const form = bidForm(
    context,
    lot,
    (placed) => {
      paint();
      costs.show(null);
      if (!placed) return;
      void notify.offer();
      context.setStanding(lot.Id, placed.Leading ? 'leading' : 'outbid');
      showStanding(context.standings.get(lot.Id) ?? null);
      showMine(placed.MaxAmount);
      announce(`${t('message.bidAccepted')} ${placed.Leading ? t('message.highestBidder') : t('message.outbid', { title: lot.Title })}`);
    },
    costs,
  );

  const watch = h('button', { type: 'button', id: 'watch', class: 'secondary', 'aria-pressed': 'false' }, t('button.watch'));
  const setWatched = (watched: boolean) => {
    watch.setAttribute('aria-pressed', String(watched));
    watch.textContent = t(watched ? 'button.unwatch' : 'button.watch');
  };
  watch.addEventListener('click', async () => {
    const watched = watch.getAttribute('aria-pressed') === 'true';
    try {
      if (watched) ok(await client.DELETE('/v1/me/watchlist/{lotId}', { params: { path: { lotId: lot.Id } } }));
      else ok(await client.PUT('/v1/me/watchlist/{lotId}', { params: { path: { lotId: lot.Id } }, body: { Type: 'watch' } }));
      setWatched(!watched);
      announce(t(watched ? 'message.removedFromWatchlist' : 'message.addedToWatchlist'));
      if (!watched) void notify.offer();
    } catch (error) {
      announce(messageOf(error), true);
    }
  });

  const bidding = biddingPanel(context, lot, form);

  /** The member's standing on this lot and whether it is watched (a member only). */
  const readMember = async () => {
    if (!session.member) return showStanding(null);
    const [bids, watchlist] = await Promise.all([
      ok(await client.GET('/v1/me/bids', { params: { query: { pageSize: 100 } } })),
      ok(await client.GET('/v1/me/watchlist', { params: { query: { pageSize: 100 } } })),
    ]);
    const bid = bids.Items.find((item) => item.LotId === lot.Id);
    if (bid) context.standings.set(lot.Id, bid.Status);
    showStanding(context.standings.get(lot.Id) ?? null);
    showMine(bid?.MaxAmount ?? null);
    setWatched(watchlist.Items.some((item) => item.Id === lot.Id));
    await notify.showIfOn();
  };

  const gallery = lotGallery(lot.Images, lot.Title, readConfig().imageOrigins);
  const indicator = liveIndicator(live);
  const documents = await lotDocuments(context, lot).catch(() => null);
  root.replaceChildren();
  append(
    root,
    h('p', {}, h('a', { href: `#/auctions/${lot.AuctionId}` }, `← ${t('button.back')}`)),
    h('h1', {}, `${t('label.lotNumber')} ${lot.LotNumber}: ${lot.Title}`),
    indicator.element,
    // Phones: one column in this order; desktops: the gallery and the lot's story left, bidding right.
    h(
      'div',
      { class: 'lot-layout' },
      h('div', { class: 'lot-gallery' }, gallery),
      h(
        'div',
        { class: 'lot-side' },
        standing,
        myMax,
        h(
          'dl',
          { class: 'facts' },
          h('div', {}, h('dt', {}, t('label.currentBid')), currentBid),
          h('div', {}, h('dt', {}, t('label.bidCount')), bidCount),
          h('div', {}, h('dt', {}, t('label.minimumBid')), minimum),
          h('div', {}, h('dt', {}, t('label.endsAt')), h('dd', {}, endTime, h('br'), left)),
          lot.EstimateLow !== null && lot.EstimateHigh !== null
            ? h('div', {}, h('dt', {}, t('label.estimate')), h('dd', {}, `${money(lot.EstimateLow)} – ${money(lot.EstimateHigh)}`))
            : null,
        ),
        reserve,
        bidding.element,
        session.member ? watch : null,
        session.member ? notify.element : null,
        costs.element,
        lot.BiddingMode === 'timed' ? incrementTable(context, lot) : null,
      ),
      h(
        'div',
        { class: 'lot-main' },
        h('p', { class: 'description' }, lot.Description),
        lotAttributes(lot),
        documents,
        h(
          'section',
          { 'aria-labelledby': 'history-heading' },
          h('h2', { id: 'history-heading' }, t('heading.bidHistory')),
          history.empty,
          history.list,
        ),
      ),
    ),
  );
  paint();
  showStanding(null);
  await Promise.all([bidding.draw(), readMember()]);

  const ticking = setInterval(() => {
    if (!lot.IsClosed) left.textContent = `${t('label.timeLeft')}: ${timeLeft(lot.EndTime, serverNow())}`;
  }, 1000);
  live.follow(lot.AuctionId);
  const stopAuction = live.listen(
    (event) => {
      if (event.data && 'LotId' in event.data && event.data.LotId !== lot.Id) return;
      if (event.type === 'bid') {
        const { CurrentBid, MinimumNextBid, ReserveMet, PlacedAt } = event.data;
        // Fields the event may leave out (null) keep what the lot had.
        const BidCount = event.data.BidCount ?? lot.BidCount + 1;
        const EndTime = event.data.EndTime ?? lot.EndTime;
        const extended = Date.parse(EndTime) > Date.parse(lot.EndTime);
        Object.assign(lot, { CurrentBid, BidCount, MinimumNextBid, EndTime, ReserveMet });
        void history.added(CurrentBid, PlacedAt);
        announce(t('web.newBid', { amount: money(CurrentBid) }) + (extended ? ` ${t('web.extended', { time: formatTime(EndTime) })}` : ''));
      } else if (event.type === 'extended') {
        lot.EndTime = event.data.EndTime;
        announce(t('web.extended', { time: formatTime(lot.EndTime) }));
      } else if (event.type === 'closed') {
        Object.assign(lot, { IsClosed: true, MinimumNextBid: null });
        const { Sold, HammerPrice } = event.data;
        const outcome =
          Sold && HammerPrice !== null ? `${t('status.sold')}: ${t('label.hammerPrice')} ${money(HammerPrice)}` : t('status.unsold');
        bidding.element.replaceChildren(h('p', { id: 'lot-outcome' }, `${t('message.lotClosed')} ${outcome}`));
        announce(`${t('message.lotClosed')} ${outcome}`);
      } else return;
      paint();
      if (event.type !== 'closed') form.refresh();
      // The estimate follows the minimum next bid while no amount is typed.
      if (event.type === 'bid' && !form.amount.value) costs.show(null);
    },
    // After a gap in the stream: the lot read again, and the view drawn anew.
    () => context.navigate(location.hash),
  );
  const stopMember = context.onMemberEvent((event) => {
    if (!('LotId' in event.data) || event.data.LotId !== lot.Id) return;
    if (event.type === 'outbid' && event.data.MinimumNextBid !== null) {
      Object.assign(lot, {
        CurrentBid: event.data.CurrentBid ?? lot.CurrentBid,
        MinimumNextBid: event.data.MinimumNextBid,
        EndTime: event.data.EndTime ?? lot.EndTime,
      });
      paint();
      form.refresh();
    }
    if (event.type === 'leading') showStanding('leading');
    else showStanding(context.standings.get(lot.Id) ?? null);
    showMine(event.type === 'leading' ? event.data.MaxAmount : mine.maxAmount);
  });
  return () => {
    indicator.stop();
    clearInterval(ticking);
    stopAuction();
    stopMember();
  };
};
