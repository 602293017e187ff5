// What a member sees of bidding on a lot: the bid form where this service takes bids, the way to register (accepting
// the auction's terms first where it requires them), or why not. An auction whose bids the house takes elsewhere
// (`BiddingMode` `external`) shows no form and no suggested bids, only the registration.
import { ok, type components } from '../../../clients/typescript/src/index.ts';
import type { Context } from './context.ts';
import { announce, h } from './dom.ts';
import { t } from './i18n.ts';
import { keyForCode, messageOf } from './messages.ts';
import type { BidForm } from './bid-form.ts';

type Lot = components['schemas']['Lot'];

export interface BiddingPanel {
  element: HTMLElement;
  /** Draws it again, as the member's registration and the lot stand now. */
  draw(): Promise<void>;
}

export function biddingPanel(context: Context, lot: Lot, form: BidForm): BiddingPanel {
  const { client, session } = context;
  const timed = lot.BiddingMode === 'timed';
  const element = h('section', { class: 'bidding', id: 'bidding', 'aria-labelledby': 'bidding-heading' });
  const heading = () => h('h2', { id: 'bidding-heading' }, t(timed ? 'button.placeBid' : 'web.registrationHeading'));
  const elsewhere = () => h('p', { id: 'bids-elsewhere' }, t('web.auctionNotTimed'));

  /** Registers; on `terms-not-accepted` the terms step is shown instead. */
  const register = async (status: HTMLElement) => {
    const registration = ok(await client.POST('/v1/me/registrations/{auctionId}', { params: { path: { auctionId: lot.AuctionId } } }));
    announce(t('web.registration', { status: t(`status.${registration.Status}`) }));
    await draw();
    const next = registration.Status === 'approved' && timed ? form.amount : element.querySelector<HTMLElement>('h2');
    next?.focus();
    status.textContent = '';
  };

  const registerButton = () => {
    const button = h('button', { type: 'button', id: 'register' }, t('button.registerForAuction'));
    const status = h('p', { class: 'error', role: 'alert' });
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        await register(status);
      } catch (error) {
        status.textContent = messageOf(error);
        button.disabled = false;
      }
    });
    return [h('p', {}, t('message.registrationRequired')), button, status];
  };

  /** The terms step: the auction's terms to read, a box to tick, and "accept and register". */
  const termsStep = () => {
    const box = h('input', { type: 'checkbox', id: 'accept-terms', class: 'check' });
    const status = h('p', { class: 'error', role: 'alert', id: 'terms-error' });
    const accept = h('button', { type: 'button', id: 'accept-and-register' }, t('web.acceptAndRegister'));
    accept.addEventListener('click', async () => {
      status.textContent = '';
      if (!box.checked) {
        status.textContent = t('web.termsMustTick');
        box.focus();
        return;
      }
      accept.disabled = true;
      try {
        ok(await client.POST('/v1/auctions/{id}/terms-acceptance', { params: { path: { id: lot.AuctionId } } }));
        await register(status);
      } catch (error) {
        status.textContent = messageOf(error);
        accept.disabled = false;
      }
    });
    return [
      h('p', { id: 'terms-required' }, t('web.termsIntro'), ' ', h('a', { href: '#documents-heading' }, t('heading.terms'))),
      h('p', { class: 'check-row' }, box, ' ', h('label', { for: 'accept-terms' }, t('label.acceptTerms'))),
      accept,
      status,
    ];
  };

  const draw = async () => {
    if (!session.member) {
      element.replaceChildren(
        heading(),
        timed ? '' : elsewhere(),
        h(
          'p',
          {},
          t(timed ? 'web.signInToBid' : 'web.signInToRegister'),
          ' ',
          h('a', { href: `#/sign-in?next=${encodeURIComponent(location.hash)}` }, t('button.signIn')),
        ),
      );
      return;
    }
    const may = ok(await client.GET('/v1/me/lots/{lotId}/registration', { params: { path: { lotId: lot.Id } } }));
    const reason = may.MayBid ? null : may.Reason;
    if (reason === 'not-registered') {
      const auction = ok(await client.GET('/v1/auctions/{id}', { params: { path: { id: lot.AuctionId } } }));
      const terms = auction.RequiresTermsAcceptance;
      element.replaceChildren(heading(), timed ? '' : elsewhere(), ...(terms ? termsStep() : registerButton()));
      return;
    }
    if (reason === 'terms-not-accepted') {
      element.replaceChildren(heading(), timed ? '' : elsewhere(), ...termsStep());
      return;
    }
    if (!timed) {
      const registered =
        reason === null ? h('p', { id: 'registered' }, t('web.registeredElsewhere')) : h('p', {}, t(keyForCode(reason ?? '')));
      element.replaceChildren(heading(), elsewhere(), registered);
      return;
    }
    if (reason === null) {
      form.refresh();
      element.replaceChildren(heading(), form.element);
      return;
    }
    element.replaceChildren(heading(), h('p', {}, t(keyForCode(reason ?? ''))));
  };
  return { element, draw };
}
