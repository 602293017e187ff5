// The confirmation step of a bid: the maximum, and what winning at it costs all in (its estimate's total), with
// "confirm" (which places it) and "change" (back to the amount); the form's own "place bid" hides meanwhile.
import { h } from './dom.ts';
import { t } from './i18n.ts';
import type { CostEstimate } from './cost-panel.ts';

export interface BidConfirmation {
  element: HTMLElement;
  /** Asks to confirm a maximum, naming the total of its estimate (null: the maximum alone); the focus goes to "confirm". */
  ask(maxAmount: number, estimate: CostEstimate | null): void;
  /** Leaves the step (nothing is placed). */
  close(): void;
  /** While a confirmed bid is being placed. */
  busy(placing: boolean): void;
}

export function bidConfirmation(
  money: (minor: number) => string,
  submit: HTMLButtonElement,
  on: { confirm: (maxAmount: number) => void; change: () => void },
): BidConfirmation {
  const text = h('p', { id: 'bid-confirm-text' });
  const confirm = h('button', { type: 'button', id: 'bid-confirm' }, t('web.confirmBid'));
  const change = h('button', { type: 'button', id: 'bid-change', class: 'secondary' }, t('web.changeBid'));
  const element = h('div', { id: 'bid-confirmation', role: 'group', 'aria-labelledby': 'bid-confirm-text' }, text, confirm, change);
  let pending: number | null = null;
  const show = (maxAmount: number | null) => {
    pending = maxAmount;
    element.hidden = maxAmount === null;
    submit.hidden = maxAmount !== null;
  };
  confirm.addEventListener('click', () => {
    if (pending !== null) on.confirm(pending);
  });
  change.addEventListener('click', () => {
    show(null);
    on.change();
  });
  show(null);
  return {
    element,
    ask(maxAmount, estimate) {
      text.textContent = estimate
        ? t('web.confirmTotal', { amount: money(maxAmount), total: money(estimate.Total) })
        : t('web.confirmAmount', { amount: money(maxAmount) });
      if (estimate) text.dataset.total = String(estimate.Total);
      else delete text.dataset.total;
      show(maxAmount);
      confirm.focus();
    },
    close: () => show(null),
    busy: (placing) => (confirm.disabled = placing),
  };
}
