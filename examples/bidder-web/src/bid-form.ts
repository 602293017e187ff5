// A lot's bid form: the maximum bid typed in the lot's currency, suggested bids from the lot's MinimumNextBid and the
// increment table (for a leader: above their own maximum, the only bids the service takes from them), a confirmation
// step with what winning at that maximum costs all in (cost-panel.ts), and a refused bid's message (by its code) on
// the field, which takes the focus back.
import { ok, ProblemError, type components } from '../../../clients/typescript/src/index.ts';
import type { Context } from './context.ts';
import type { IncrementRow } from './increments.ts';
import { h } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { incrementAt, suggestedBids } from './increments.ts';
import { keyForCode, messageOf } from './messages.ts';
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
  /** The member's own maximum on the lot and whether it leads (null: none yet); a leader may only raise it. */
  setMine(maxAmount: number | null, leading: boolean): void;
}

/** The least maximum the service takes: the lot's minimum next bid, and for a leader one increment above their own. */
export function leastBid(increments: IncrementRow[], minimum: number, mine: { maxAmount: number | null; leading: boolean }): number {
  if (!mine.leading || mine.maxAmount === null) return minimum;
  return Math.max(minimum, mine.maxAmount + incrementAt(increments, mine.maxAmount));
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

  const mine = { maxAmount: null as number | null, leading: false };
  const raising = () => mine.leading && mine.maxAmount !== null;
  const refresh = () => {
    const minimum = lot.MinimumNextBid === null ? null : leastBid(increments, lot.MinimumNextBid, mine);
    hint.textContent =
      minimum === null
        ? ''
        : raising()
          ? t('web.raiseHint', { max: money(mine.maxAmount!), amount: money(minimum) })
          : `${t('label.minimumBid')}: ${money(minimum)}`;
    submit.textContent = t(raising() ? 'web.raiseMax' : 'button.placeBid');
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
    // A leader's maximum at or below their own (yet not below the minimum, which the service names) would be refused
    // as `leader-must-raise`: said at once, nothing is asked or sent.
    if (raising() && maxAmount <= mine.maxAmount! && maxAmount >= (lot.MinimumNextBid ?? 0))
      return showError(t(keyForCode('leader-must-raise')));
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
      Object.assign(mine, { maxAmount: placed.MaxAmount, leading: placed.Leading });
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
  const setMine = (maxAmount: number | null, leading: boolean) => {
    Object.assign(mine, { maxAmount, leading });
    refresh();
  };
  return { element, amount, refresh, setMine };
}
