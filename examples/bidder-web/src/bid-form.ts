// A lot's bid form: the maximum bid typed in the lot's currency, suggested bids from the lot's MinimumNextBid and the
// increment table, and a refused bid's message (by its code) on the field, which takes the focus back.
import { ok, ProblemError, type components } from '../../../clients/typescript/src/index.ts';
import type { Context } from './context.ts';
import { h } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { suggestedBids } from './increments.ts';
import { messageOf } from './messages.ts';
import { formatMoney, parseMoney, toInput } from './money.ts';

type Lot = components['schemas']['Lot'];
export type PlacedBid = components['schemas']['PlacedBid'];

export interface BidForm {
  element: HTMLFormElement;
  amount: HTMLInputElement;
  /** Draws the minimum and the suggested bids again (after the lot changed). */
  refresh(): void;
}

/** The form for `lot`, which it updates from a bid's answer; `changed` is told after (with the answer, when placed). */
export function bidForm({ client, increments }: Context, lot: Lot, changed: (placed: PlacedBid | null) => void): BidForm {
  const money = (minor: number) => formatMoney(minor, lot.Currency, currentLanguage());
  const error = h('p', { id: 'bid-error', class: 'error', role: 'alert' });
  const amount = h('input', {
    id: 'bid-amount',
    name: 'amount',
    inputmode: 'decimal',
    autocomplete: 'off',
    'aria-describedby': 'bid-hint bid-error',
  });
  const hint = h('p', { id: 'bid-hint', class: 'meta' });
  const suggestions = h('div', { class: 'suggestions', role: 'group', 'aria-label': t('web.quickBids') });
  const submit = h('button', { type: 'submit' }, t('button.placeBid'));
  const element = h(
    'form',
    { id: 'bid-form', novalidate: true },
    h('label', { for: 'bid-amount' }, `${t('label.maxBid')} (${lot.Currency})`),
    amount,
    hint,
    suggestions,
    submit,
    error,
  );

  const refresh = () => {
    const minimum = lot.MinimumNextBid;
    hint.textContent = minimum === null ? '' : `${t('label.minimumBid')}: ${money(minimum)}`;
    suggestions.replaceChildren(
      ...(minimum === null ? [] : suggestedBids(increments, minimum)).map((value) =>
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => {
              amount.value = toInput(value, lot.Currency);
              amount.focus();
            },
          },
          money(value),
        ),
      ),
    );
  };
  const showError = (text: string) => {
    error.textContent = text;
    amount.setAttribute('aria-invalid', 'true');
    amount.focus();
  };

  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    amount.removeAttribute('aria-invalid');
    const maxAmount = parseMoney(amount.value, lot.Currency);
    if (maxAmount === null || maxAmount <= 0)
      return showError(t('web.amountInvalid', { example: toInput(lot.MinimumNextBid ?? lot.StartingPrice, lot.Currency) }));
    submit.disabled = true;
    try {
      const placed = ok(
        await client.POST('/v1/me/bids', {
          body: { LotId: lot.Id, MaxAmount: maxAmount },
          // A retried press places nothing twice.
          headers: { 'Idempotency-Key': crypto.randomUUID() },
        }),
      );
      const { CurrentBid, BidCount, MinimumNextBid, EndTime, ReserveMet } = placed;
      Object.assign(lot, { CurrentBid, BidCount, MinimumNextBid, EndTime, ReserveMet });
      amount.value = '';
      refresh();
      changed(placed);
    } catch (failure) {
      // Too low: the service names the minimum as it is now.
      const minimum = failure instanceof ProblemError ? failure.problem.minimumNextBid : undefined;
      if (typeof minimum === 'number') {
        lot.MinimumNextBid = minimum;
        refresh();
        changed(null);
      }
      showError(messageOf(failure));
    } finally {
      submit.disabled = false;
    }
  });
  refresh();
  return { element, amount, refresh };
}
