// The all-in cost of a hammer price (COSTS.md): a pure calculation from the house's rules, the lot and the
// destination, in integers (BigInt: products of amounts and rates pass 2^53), each line rounded half up once.
import type { EventLog } from '../../src/ports/event-log.ts';
import { EU_COUNTRIES } from '../profile/rules.ts';
import {
  costRulesStreamId,
  costsEvents,
  type Band,
  type Channel,
  type CostRules,
  type PremiumSchedule,
  type ShippingPrice,
  type VatScheme,
} from './events.ts';

const MILLION = 1_000_000n;

/** `value × ppm / 1,000,000`, half up (values are never negative). */
export const ppmOf = (value: bigint, ratePpm: number): bigint => (value * BigInt(ratePpm) + MILLION / 2n) / MILLION;

/** A lot's VAT scheme: its own, else `zero` when it is VAT-free, else `margin`. */
export const lotVatScheme = (vatScheme: VatScheme | undefined | null, vatFree: boolean): VatScheme =>
  vatScheme ?? (vatFree ? 'zero' : 'margin');

/** What a lot's record says of its costs (defaults filled in). */
export interface LotCosts {
  vatScheme: VatScheme;
  import: 'none' | 'temporary-admission';
  importClass: 'art' | 'other';
  resaleRight: boolean;
  shippingClass: string | null;
  premiumSchedule: string | null;
}

/** What an estimate is asked for. */
export interface EstimateInput {
  rules: CostRules;
  lot: LotCosts;
  /** The auction's premium schedule and the codes of the house's fees that apply to it (null: the house's). */
  auction: { premiumSchedule: string | null; channelFees: readonly Channel[] | null };
  /** The hammer price, a positive integer in minor units of the lot's currency. */
  amount: number;
  /** Minor-unit digits of the lot's currency (ISO 4217: EUR 2): euro thresholds are converted to them. */
  currencyDigits: number;
  /** ISO 3166-1 alpha-2 destination. */
  country: string;
  business: boolean;
  /** The channel the bid comes by (null: none of the house's fees applies). */
  channel: Channel | null;
  /** The house's VAT country (null: unknown; no zero rate for another EU state then). */
  houseCountry: string | null;
}

export type VatTreatment = 'none' | 'included' | 'separate' | 'zero';

export interface CostLine {
  code: string;
  /** Null for a range (`range`). */
  amount: number | null;
  vat: VatTreatment;
  estimate: boolean;
  base?: number;
  ratePpm?: number | null;
  bands?: Array<{ from: number; ratePpm: number; portion: number }>;
  net?: number;
  vatRatePpm?: number;
  range?: [number, number];
  condition?: string | null;
  amountIfUnmet?: number | null;
  /** The shipping class and zone of a shipping line (for its label). */
  shipping?: { shippingClass: string; zone: string };
}

export interface Estimate {
  vatScheme: VatScheme;
  lines: CostLine[];
  total: number;
  totalRange: [number, number] | null;
  totalIfConditionsUnmet: number | null;
  assumptions: string[];
  notIncluded: string[];
}

/** What every estimate leaves out. */
export const ALWAYS_NOT_INCLUDED = ['payment-surcharges', 'storage'] as const;

/** The VAT a charge carries for this buyer and destination under the lot's scheme, and its condition. */
export function chargeTreatment(
  scheme: VatScheme,
  o: { country: string; business: boolean; houseCountry: string | null },
): { vat: VatTreatment; condition: string | null } {
  if (scheme === 'exempt') return { vat: 'none', condition: null };
  if (scheme === 'zero') return { vat: 'zero', condition: null };
  if (!EU_COUNTRIES.has(o.country)) return { vat: 'zero', condition: 'exported' };
  if (scheme === 'margin') return { vat: 'included', condition: null };
  if (o.business && o.houseCountry !== null && o.country !== o.houseCountry)
    return { vat: 'zero', condition: `dispatched-to:${o.country}` };
  return { vat: 'separate', condition: null };
}

/** Each band's portion of an amount (marginal bands, lower bounds ascending from 0) and the sum of portion × rate. */
export function marginal(amount: bigint, bands: readonly Band[]): { portions: Array<{ band: Band; portion: bigint }>; sum: bigint } {
  const portions: Array<{ band: Band; portion: bigint }> = [];
  let sum = 0n;
  bands.forEach((band, i) => {
    const from = BigInt(band.from);
    const next = i + 1 < bands.length ? BigInt(bands[i + 1].from) : null;
    if (amount <= from) return;
    const portion = (next !== null && amount > next ? next : amount) - from;
    portions.push({ band, portion });
    sum += portion * BigInt(band.ppm);
  });
  return { portions, sum };
}

/** The net inside an amount that holds VAT at a rate, half up. */
export const netInside = (gross: bigint, vatPpm: number): bigint =>
  (gross * MILLION + (MILLION + BigInt(vatPpm)) / 2n) / (MILLION + BigInt(vatPpm));

const num = (value: bigint) => Number(value);

/** A charge's line (and its VAT line when the VAT is separate), from its rounded net. */
function chargeLines(
  code: string,
  net: bigint,
  treatment: { vat: VatTreatment; condition: string | null },
  vatPpm: number,
  extra: Partial<CostLine> = {},
): CostLine[] {
  // VAT on the rounded net, half up (also when the price held it: its net was taken out first).
  const vat = ppmOf(net, vatPpm);
  const line: CostLine = { code, amount: num(net), vat: treatment.vat, estimate: false, ...extra, net: num(net) };
  switch (treatment.vat) {
    case 'none':
      return [line];
    case 'included':
      return [{ ...line, vatRatePpm: vatPpm, amount: num(net + vat) }];
    case 'separate':
      return [
        { ...line, vatRatePpm: vatPpm },
        { code: `vat:${code}`, amount: num(vat), vat: 'none', estimate: false, base: num(net), ratePpm: vatPpm },
      ];
    case 'zero':
      return treatment.condition === null
        ? [{ ...line, vatRatePpm: 0, condition: null, amountIfUnmet: null }]
        : [{ ...line, vatRatePpm: vatPpm, condition: treatment.condition, amountIfUnmet: num(net + vat) }];
  }
}

/** The premium's net: its bands' sum rounded once (the VAT taken out when its rates include it), then bounded. */
function premiumNet(hammer: bigint, schedule: PremiumSchedule, vatPpm: number): { net: bigint; bands: CostLine['bands'] } {
  const { portions, sum } = marginal(hammer, schedule.bands);
  const gross = (sum + MILLION / 2n) / MILLION + BigInt(schedule.fixedPerLot);
  let net = schedule.ratesIncludeVat ? netInside(gross, vatPpm) : gross;
  if (schedule.minimum !== null && net < BigInt(schedule.minimum)) net = BigInt(schedule.minimum);
  if (schedule.maximum !== null && net > BigInt(schedule.maximum)) net = BigInt(schedule.maximum);
  const bands = portions.map((p) => ({ from: p.band.from, ratePpm: p.band.ppm, portion: num(p.portion) }));
  return { net, bands };
}

/** The premium schedule a lot is sold under: the lot's, else its auction's, else the house's default (a name the rules lack falls back). */
function scheduleOf(input: EstimateInput, assumptions: string[]): PremiumSchedule {
  const { rules } = input;
  const named = input.lot.premiumSchedule ?? input.auction.premiumSchedule;
  if (named !== null && rules.premiumSchedules[named]) return rules.premiumSchedules[named];
  if (named !== null) assumptions.push('premium-schedule-default');
  return rules.premiumSchedules[rules.defaultPremiumSchedule];
}

/** The estimate: every line, the total and what it leaves out (COSTS.md "Operation 64"). */
export function estimateCosts(input: EstimateInput): Estimate {
  const { rules, lot } = input;
  const hammer = BigInt(input.amount);
  const vatPpm = rules.vat.standardPpm;
  const assumptions: string[] = lot.vatScheme === 'margin' ? ['margin-scheme'] : [];
  const notIncluded: string[] = [...ALWAYS_NOT_INCLUDED];
  const charge = chargeTreatment(lot.vatScheme, input);
  // Under the margin scheme the hammer carries no VAT; else it follows the scheme as the charges do.
  const hammerVat = lot.vatScheme === 'margin' ? { vat: 'none' as const, condition: null } : charge;
  const lines: CostLine[] = [...chargeLines('hammer', hammer, hammerVat, vatPpm)];
  if (hammerVat.vat === 'none') lines[0] = { code: 'hammer', amount: input.amount, vat: 'none', estimate: false };

  const premiumRates = charge.vat === 'none' ? 0 : vatPpm;
  const premium = premiumNet(hammer, scheduleOf(input, assumptions), premiumRates);
  const single = premium.bands!.length === 1 ? premium.bands![0].ratePpm : null;
  lines.push(...chargeLines('premium', premium.net, charge, vatPpm, { base: input.amount, ratePpm: single, bands: premium.bands }));
  lines.push(...feeLines(input, premium.net, charge));
  lines.push(...importVatLines(input));
  lines.push(...resaleRightLines(input, premium.net));
  const shipping = shippingLines(input, charge);
  if (shipping.length) lines.push(...shipping);
  else notIncluded.push('shipping');
  return { vatScheme: lot.vatScheme, lines, ...totals(lines), assumptions, notIncluded };
}

/** The house's fees of the channel that apply to the auction, each on its base. */
function feeLines(input: EstimateInput, premiumNet: bigint, charge: { vat: VatTreatment; condition: string | null }): CostLine[] {
  const { rules, channel } = input;
  if (channel === null) return [];
  const applicable = input.auction.channelFees ?? rules.channelFees.map((f) => f.code);
  return rules.channelFees
    .filter((fee) => fee.code === channel && applicable.includes(fee.code))
    .flatMap((fee) => {
      const base = BigInt(input.amount) + (fee.base === 'hammer+premium' ? premiumNet : 0n);
      return chargeLines(`fee:${fee.code}`, ppmOf(base, fee.ppm), charge, rules.vat.standardPpm, { base: num(base), ratePpm: fee.ppm });
    });
}

/** Import VAT of a lot under temporary admission: on the hammer, zero when the lot leaves the EU again. */
function importVatLines(input: EstimateInput): CostLine[] {
  if (input.lot.import !== 'temporary-admission') return [];
  const ratePpm = input.rules.vat.importPpm[input.lot.importClass];
  const vat = num(ppmOf(BigInt(input.amount), ratePpm));
  const line: CostLine = { code: 'import-vat', amount: vat, vat: 'none', estimate: false, base: input.amount, ratePpm };
  return EU_COUNTRIES.has(input.country) ? [line] : [{ ...line, amount: 0, vat: 'zero', condition: 'exported', amountIfUnmet: vat }];
}

/** An amount in euro cents in the house's currency (units per euro: `eurRate`), half up. */
export function fromEuroCents(cents: number, eurRate: string, currencyDigits: number): bigint {
  const [whole, fraction = ''] = eurRate.split('.');
  const scale = 10n ** BigInt(fraction.length);
  const numerator = BigInt(cents) * BigInt(whole + fraction) * 10n ** BigInt(currencyDigits);
  const denominator = scale * 100n;
  return (numerator + denominator / 2n) / denominator;
}

/** The artist's resale right the buyer pays on a lot that carries it (Directive 2001/84 bands, cap and threshold). */
function resaleRightLines(input: EstimateInput, premiumNet: bigint): CostLine[] {
  const right = input.rules.resaleRight;
  if (!input.lot.resaleRight || !right || right.payer !== 'buyer') return [];
  const toHouse = (cents: number) => fromEuroCents(cents, input.rules.eurRate, input.currencyDigits);
  const base = BigInt(input.amount) + (right.base === 'hammer+premium' ? premiumNet : 0n);
  if (base < toHouse(right.thresholdEur)) return [];
  const bands = right.bands.map((b) => ({ from: num(toHouse(b.from)), ppm: b.ppm }));
  const { portions, sum } = marginal(base, bands);
  let amount = (sum + MILLION / 2n) / MILLION;
  if (right.capEur !== null && amount > toHouse(right.capEur)) amount = toHouse(right.capEur);
  const extra = {
    base: num(base),
    ratePpm: null,
    bands: portions.map((p) => ({ from: p.band.from, ratePpm: p.band.ppm, portion: num(p.portion) })),
  };
  if (right.vatPpm === 0) return [{ code: 'resale-right', amount: num(amount), vat: 'none', estimate: false, ...extra, net: num(amount) }];
  return chargeLines('resale-right', amount, { vat: 'separate', condition: null }, right.vatPpm, extra);
}

/** The zone of a destination: the zone that lists it, else the one of every other country (`"*"`); null: none. */
export function zoneOf(zones: Record<string, string[] | '*'>, country: string): string | null {
  const listed = Object.entries(zones).find(([, countries]) => countries !== '*' && countries.includes(country));
  return listed?.[0] ?? Object.entries(zones).find(([, countries]) => countries === '*')?.[0] ?? null;
}

/** Shipping of the lot's class to the destination's zone: an amount, a range, or nothing (on request, or unknown). */
function shippingLines(input: EstimateInput, charge: { vat: VatTreatment; condition: string | null }): CostLine[] {
  const shipping = input.rules.shipping;
  const shippingClass = input.lot.shippingClass;
  if (!shipping || shippingClass === null) return [];
  const zone = zoneOf(shipping.zones, input.country);
  const price: ShippingPrice | undefined = zone === null ? undefined : shipping.classes[shippingClass]?.[zone];
  if (!price || 'onRequest' in price) return [];
  const vatPpm = input.rules.vat.standardPpm;
  const rate = charge.vat === 'none' ? 0 : vatPpm;
  const netOf = (value: number) => (shipping.pricesIncludeVat ? netInside(BigInt(value), rate) : BigInt(value));
  const about = { shipping: { shippingClass, zone: zone! } };
  if ('amount' in price) {
    return chargeLines('shipping', netOf(price.amount), charge, vatPpm, about);
  }
  return rangeLines(price.range.map(netOf) as [bigint, bigint], charge, vatPpm, about);
}

/** A shipping range: each bound treated as an amount would be; never in `Total`. */
function rangeLines(
  [low, high]: [bigint, bigint],
  charge: { vat: VatTreatment; condition: string | null },
  vatPpm: number,
  extra: Partial<CostLine>,
): CostLine[] {
  const [lowLines, highLines] = [low, high].map((bound) => chargeLines('shipping', bound, charge, vatPpm, extra));
  return lowLines.map((line, i) => {
    const { net: _net, amountIfUnmet: _unmet, ...rest } = line;
    return {
      ...rest,
      amount: null,
      estimate: true,
      range: [line.amount!, highLines[i].amount!],
      ...(line.condition !== undefined ? { condition: line.condition, amountIfUnmet: null } : {}),
    };
  });
}

/** `Total` (certain amounts), `TotalRange` (with the ranges) and `TotalIfConditionsUnmet` (every condition failing). */
function totals(lines: CostLine[]): Pick<Estimate, 'total' | 'totalRange' | 'totalIfConditionsUnmet'> {
  let total = 0n;
  let unmet = 0n;
  let low = 0n;
  let high = 0n;
  let ranged = false;
  let conditional = false;
  for (const line of lines) {
    if (line.range) {
      ranged = true;
      low += BigInt(line.range[0]);
      high += BigInt(line.range[1]);
      continue;
    }
    total += BigInt(line.amount!);
    if (line.condition) conditional = true;
    unmet += BigInt(line.condition ? line.amountIfUnmet! : line.amount!);
  }
  return {
    total: num(total),
    totalRange: ranged ? [num(total + low), num(total + high)] : null,
    totalIfConditionsUnmet: conditional ? num(unmet) : null,
  };
}

/**
 * A total converted for display at a published rate (units of the target per unit of the source), once, half up
 * to the target's minor units.
 */
export function convertForDisplay(total: number, rate: string, fromDigits: number, toDigits: number): number {
  const [whole, fraction = ''] = rate.split('.');
  const numerator = BigInt(total) * BigInt(whole + fraction) * 10n ** BigInt(toDigits);
  const denominator = 10n ** BigInt(fraction.length) * 10n ** BigInt(fromDigits);
  return num((numerator + denominator / 2n) / denominator);
}

/** The key an intake run remembers a house's cost rules under (src/intake-kind.ts lookUp). */
export const costRulesLookupKey = (tenant: string) => `cost-rules ${tenant}`;

/** The house's cost rules as its stream says now (null: none published). */
export async function currentCostRules(log: EventLog, tenant: string): Promise<CostRules | null> {
  const events = await log.readStream(costRulesStreamId(tenant));
  const last = events.at(-1);
  return last ? (costsEvents.read(last).data as CostRules) : null;
}

/**
 * What is wrong with the names an auction's or a lot's record gives of the house's cost rules (none: empty): a
 * premium schedule, a shipping class or a channel fee the rules do not have, or any of them with no rules published.
 */
export function costNameErrors(
  rules: CostRules | null,
  names: { premiumSchedule?: string; shippingClass?: string; channelFees?: readonly string[] },
): string[] {
  const given = Object.entries(names).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (given.length === 0) return [];
  if (rules === null) return given.map(([field]) => `${field}: the house has published no cost rules (a costRules record) to name`);
  const errors: string[] = [];
  if (names.premiumSchedule !== undefined && !rules.premiumSchedules[names.premiumSchedule])
    errors.push(`premiumSchedule: no premium schedule ${names.premiumSchedule} in the house's cost rules`);
  if (names.shippingClass !== undefined && !rules.shipping?.classes[names.shippingClass])
    errors.push(`shippingClass: no shipping class ${names.shippingClass} in the house's cost rules`);
  for (const code of names.channelFees ?? [])
    if (!rules.channelFees.some((f) => f.code === code)) errors.push(`channelFees: no channel fee ${code} in the house's cost rules`);
  return errors;
}
