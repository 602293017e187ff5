// What winning a lot costs all in (GET /v1/lots/{id}/cost-estimate, COSTS.md): each line, the total, what is a range,
// what depends on a condition and what is not included, for the amount the bidder types and the delivery country.
import { ok, ProblemError, type components } from '../../../clients/typescript/src/index.ts';
import type { Context } from './context.ts';
import { h } from './dom.ts';
import { currentLanguage, t } from './i18n.ts';
import { messageOf } from './messages.ts';
import { formatMoney } from './money.ts';

type Lot = components['schemas']['Lot'];
export type CostEstimate = components['schemas']['CostEstimate'];

export interface CostPanel {
  element: HTMLElement;
  /** Shows the estimate for a hammer price (null: the lot's minimum next bid), a moment after the last call. */
  show(amount: number | null): void;
  /** The estimate for a hammer price, at once (null: none, the house has no rules or no country is known). */
  estimate(amount: number): Promise<CostEstimate | null>;
}

/** The country a browser's language names (`sv-SE` → `SE`), if any. */
const browserCountry = () => /-([A-Z]{2})$/.exec(navigator.language)?.[1] ?? '';

/** An estimate drawn into the panel's parts: its lines, its total, its ranges, conditions and what it leaves out. */
function drawEstimate(
  parts: Record<'lines' | 'total' | 'notes' | 'disclaimer', HTMLElement>,
  e: CostEstimate,
  money: (minor: number) => string,
) {
  parts.lines.replaceChildren(
    ...e.Lines.flatMap((line) => [
      h('dt', {}, line.Label),
      h('dd', {}, line.Amount !== null ? money(line.Amount) : line.Range ? `${money(line.Range[0])} – ${money(line.Range[1])}` : '–'),
    ]),
  );
  parts.total.textContent = t('web.costTotal', { amount: money(e.Amount), total: money(e.Total) });
  parts.total.dataset.total = String(e.Total);
  const said = [
    e.TotalRange ? t('web.costRange', { low: money(e.TotalRange[0]), high: money(e.TotalRange[1]) }) : '',
    e.TotalIfConditionsUnmet !== null ? t('web.costUnmet', { total: money(e.TotalIfConditionsUnmet) }) : '',
    t('web.costNotIncluded', { items: e.NotIncluded.map((code) => t(`web.cost.${code}`)).join(', ') }),
  ];
  parts.notes.textContent = said.filter(Boolean).join(' ');
  parts.disclaimer.textContent = e.Disclaimer ?? '';
}

export function costPanel({ client, session }: Context, lot: Lot): CostPanel {
  const money = (minor: number) => formatMoney(minor, lot.Currency, currentLanguage());
  const country = h('input', { id: 'cost-country', maxlength: 2, autocomplete: 'country', size: 3, class: 'country' });
  const lines = h('dl', { id: 'cost-lines', class: 'costs' });
  const total = h('p', { id: 'cost-total', class: 'total' });
  const notes = h('p', { id: 'cost-notes', class: 'meta' });
  const disclaimer = h('p', { class: 'meta' });
  const status = h('p', { id: 'cost-error', class: 'error', role: 'alert' });
  const element = h(
    'section',
    { id: 'cost-estimate', class: 'cost-estimate', 'aria-labelledby': 'cost-heading', 'aria-live': 'polite' },
    h('h2', { id: 'cost-heading' }, t('web.costHeading')),
    h('label', { for: 'cost-country' }, t('web.costCountry')),
    country,
    lines,
    total,
    notes,
    disclaimer,
    status,
  );
  const results = [lines, total, notes, disclaimer];
  const showResults = (shown: boolean) => results.forEach((part) => (part.hidden = !shown));
  showResults(false);
  // The member's own destination, read once; else the browser's country.
  const known = (async () => {
    if (!session.member) return browserCountry();
    const me = ok(await client.GET('/v1/me'));
    return (me.DeliveryCountry || me.Country || browserCountry()).toUpperCase();
  })();

  let wanted: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const estimate = async (amount: number | null): Promise<CostEstimate | null> => {
    const code = country.value.trim().toUpperCase() || (await known);
    if (!/^[A-Z]{2}$/.test(code)) return null;
    if (!country.value) country.value = code;
    const query = { country: code, ...(amount === null ? {} : { amount }) };
    const answer = await client.GET('/v1/lots/{id}/cost-estimate', { params: { path: { id: lot.Id }, query } });
    // A house that publishes no cost rules shows no estimate at all.
    if (answer.response.status === 409) {
      element.hidden = true;
      return null;
    }
    return ok(answer);
  };
  const draw = (e: CostEstimate) => {
    drawEstimate({ lines, total, notes, disclaimer }, e, money);
    showResults(true);
  };
  const refresh = async () => {
    const amount = wanted;
    try {
      const e = await estimate(amount);
      if (amount !== wanted) return; // a newer amount was typed meanwhile
      status.textContent = '';
      if (e) draw(e);
      else showResults(false);
    } catch (failure) {
      status.textContent = failure instanceof ProblemError ? messageOf(failure) : t('message.genericError');
      showResults(false);
    }
  };
  const show = (amount: number | null) => {
    wanted = amount;
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 250);
  };
  country.addEventListener('change', () => show(wanted));
  show(null);
  return { element, show, estimate };
}
