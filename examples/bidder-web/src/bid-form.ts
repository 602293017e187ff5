// A lot's bid form: the maximum bid typed in the lot's currency, suggested bids from the lot's MinimumNextBid and the
// increment table, a confirmation step with what winning at that maximum costs all in (cost-panel.ts), and a refused
// bid's message (by its code) on the field, which takes the focus back.
import { ok, ProblemError, type components } from '../../../clients/typescript/src/index.ts';
import type { Context } from './context.ts';
import { h } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { suggestedBids } from './increments.ts';
import { messageOf } from './messages.ts';
import { formatMoney, parseMoney, toInput } from './money.ts';
import type { CostPanel } from './cost-panel.ts';
import { bidConfirmation } from './bid-confirmation.ts';

type Lot = components['schemas']['Lot'];
export type PlacedBid = components['schemas']['PlacedBid'];

export interface BidForm {
  element: HTMLFormElement;
  amount: HTMLInputElement;
  /** Draws the minimum and the suggested bids again (after the lot changed). */
  refresh(): void;
}

/** The field of the maximum bid, described by its hint and its error. */
const amountField = () =>
  h('input', { id: 'bid-amount', name: 'amount', inputmode: 'decimal', autocomplete: 'off', 'aria-describedby': 'bid-hint bid-error' });

/** A button per suggested bid, each putting its amount in the field. */
const suggestionButtons = (values: number[], money: (minor: number) => string, pick: (value: number) => void) =>
  values.map((value) => h('button', { type: 'button', class: 'secondary', onclick: () => pick(value) }, money(value)));

/** Places (or raises) the caller's maximum bid; a retried press places nothing twice (its Idempotency-Key). */
const postBid = async (client: Context['client'], lotId: number, maxAmount: number): Promise<PlacedBid> =>
  ok(
    await client.POST('/v1/me/bids', { body: { LotId: lotId, MaxAmount: maxAmount }, headers: { 'Idempotency-Key': crypto.randomUUID() } }),
  );

/**
 * The form for `lot`, which it updates from a bid's answer; `changed` is told after (with the answer, when placed).
 * `costs` shows the estimate of the amount typed, and gives the total the confirmation step names.
 */
export function bidForm({ client, increments }: Context, lot: Lot, changed: (placed: PlacedBid | null) => void, costs: CostPanel): BidForm {
  const money = (minor: number) => formatMoney(minor, lot.Currency, currentLanguage());
  const error = h('p', { id: 'bid-error', class: 'error', role: 'alert' });
  const amount = amountField();
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
  // The confirmation step, before anything is placed: the maximum and what winning at it costs.
  const confirmation = bidConfirmation(money, submit, { confirm: (maxAmount) => void place(maxAmount), change: () => amount.focus() });
  submit.after(confirmation.element);
  amount.addEventListener('input', () => {
    confirmation.close();
    const typed = parseMoney(amount.value, lot.Currency);
    costs.show(typed !== null && typed > 0 ? typed : null);
  });

  const refresh = () => {
    const minimum = lot.MinimumNextBid;
    hint.textContent = minimum === null ? '' : `${t('label.minimumBid')}: ${money(minimum)}`;
    const values = minimum === null ? [] : suggestedBids(increments, minimum);
    suggestions.replaceChildren(
      ...suggestionButtons(values, money, (value) => {
        amount.value = toInput(value, lot.Currency);
        amount.focus();
      }),
    );
  };
  const showError = (text: string) => {
    error.textContent = text;
    amount.setAttribute('aria-invalid', 'true');
    amount.focus();
  };

  // Pressing "place bid" asks first: the maximum, and the total the bidder pays when they win at it.
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    amount.removeAttribute('aria-invalid');
    const maxAmount = parseMoney(amount.value, lot.Currency);
    if (maxAmount === null || maxAmount <= 0)
      return showError(t('web.amountInvalid', { example: toInput(lot.MinimumNextBid ?? lot.StartingPrice, lot.Currency) }));
    submit.disabled = true;
    const estimate = await costs.estimate(maxAmount).catch(() => null);
    submit.disabled = false;
    confirmation.ask(maxAmount, estimate);
  });

  const place = async (maxAmount: number) => {
    confirmation.busy(true);
    try {
      const placed = await postBid(client, lot.Id, maxAmount);
      const { CurrentBid, BidCount, MinimumNextBid, EndTime, ReserveMet } = placed;
      Object.assign(lot, { CurrentBid, BidCount, MinimumNextBid, EndTime, ReserveMet });
      amount.value = '';
      confirmation.close();
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
      confirmation.close();
      showError(messageOf(failure));
    } finally {
      confirmation.busy(false);
    }
  };
  refresh();
  return { element, amount, refresh };
}
