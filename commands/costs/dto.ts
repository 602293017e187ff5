// The answer of a cost estimate (COSTS.md operation 64, and `CostEstimate` of a bid, operation 58): its schema and
// example, its labels in the request's language, and the estimate of a lot worked out from the read models.
import { z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import { fractionDigits } from '../../src/format.ts';
import type { LotDoc } from '../../projections/catalogue/index.ts';
import { CHANNELS, VAT_SCHEMES, type Channel, type CostRules } from './events.ts';
import { convertForDisplay, lotVatScheme, type CostLine, type Estimate, type LotCosts } from './rules.ts';

const amount = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const rate = () => z.number().int().min(0).max(1_000_000);

export const costLineSchema = z
  .object({
    Code: z.string().max(64).openapi({
      description:
        '`hammer`, `premium`, `fee:<code>`, `import-vat`, `resale-right`, `shipping`, or `vat:<code>` (the VAT of a `separate` line).',
    }),
    Label: z.string().max(300).openapi({ description: 'In the negotiated language (`Content-Language`).' }),
    Amount: amount()
      .nullable()
      .openapi({ description: 'What the line adds to `Total`, in minor units; null for a range (`Range`), which never enters `Total`.' }),
    Vat: z.enum(['none', 'included', 'separate', 'zero']).openapi({
      description:
        '`none`: no VAT (the hammer under the margin scheme, a VAT line itself); `included`: VAT inside `Amount`, never its own invoice line; `separate`: the VAT follows as the line `vat:<code>`; `zero`: zero-rated, on `Condition` (`AmountIfUnmet` is the line with its VAT when the condition fails; null: zero-rated outright).',
    }),
    Estimate: z.boolean().openapi({ description: 'The amount is not certain (a range).' }),
    Base: amount().optional().openapi({ description: 'What the rate is applied to.' }),
    RatePpm: rate()
      .nullable()
      .optional()
      .openapi({ description: 'The rate in parts per million; null when several bands apply (`Bands`).' }),
    Bands: z
      .array(z.object({ From: amount(), RatePpm: rate(), Portion: amount() }))
      .max(20)
      .optional()
      .openapi({ description: "Each band's lower bound, rate and the part of `Base` inside it (marginal bands)." }),
    Net: amount().optional().openapi({ description: 'The charge before VAT (rounded once, half up).' }),
    VatRatePpm: rate().optional(),
    Range: z.array(amount()).length(2).max(2).optional().openapi({ description: 'Low and high of an amount given as a range.' }),
    Condition: z
      .string()
      .max(64)
      .nullable()
      .optional()
      .openapi({ description: 'What a zero rate depends on: `dispatched-to:<country>` or `exported`; null: none.' }),
    AmountIfUnmet: amount().nullable().optional(),
  })
  .openapi('CostLine');

export const costEstimateSchema = z
  .object({
    LotId: z.number().int().min(1).max(2147483647),
    Currency: z
      .string()
      .length(3)
      .regex(/^[A-Z]{3}$/),
    Amount: amount().openapi({ description: 'The hammer price the estimate is for.' }),
    Country: z
      .string()
      .length(2)
      .regex(/^[A-Z]{2}$/),
    Buyer: z.enum(['private', 'business']),
    VatScheme: z.enum(VAT_SCHEMES),
    Channel: z.enum(CHANNELS).nullable().openapi({ description: 'The channel whose fees apply (null: none).' }),
    Lines: z.array(costLineSchema).max(20),
    Total: amount().openapi({ description: "The sum of the lines' `Amount`s." }),
    TotalRange: z
      .array(amount())
      .length(2)
      .max(2)
      .nullable()
      .openapi({ description: '`Total` with the ranges, low and high; null without one.' }),
    TotalIfConditionsUnmet: amount()
      .nullable()
      .openapi({ description: "`Total` when every zero rate's condition fails; null without one." }),
    Assumptions: z.array(z.string().max(64)).max(20),
    NotIncluded: z.array(z.string().max(64)).max(20),
    RulesVersion: z.string().max(64),
    Display: z
      .object({
        Currency: z
          .string()
          .length(3)
          .regex(/^[A-Z]{3}$/),
        Total: amount(),
        Rate: z.string().max(20),
        RatesAt: z.string().max(30).nullable(),
        Source: z.string().max(200).nullable(),
      })
      .nullable()
      .openapi({ description: '`Total` converted for display only, at the rate the house published; null without `displayCurrency`.' }),
    Disclaimer: z.string().max(2000).nullable(),
  })
  .openapi('CostEstimate');
export type CostEstimateDto = z.infer<typeof costEstimateSchema>;

/** COSTS.md's first worked example, as the OpenAPI document shows it. */
export const costEstimateExample: CostEstimateDto = {
  LotId: 812,
  Currency: 'EUR',
  Amount: 123400,
  Country: 'DE',
  Buyer: 'private',
  VatScheme: 'margin',
  Channel: 'live',
  Lines: [
    { Code: 'hammer', Label: 'Hammer price', Amount: 123400, Vat: 'none', Estimate: false },
    {
      Code: 'premium',
      Label: "Buyer's premium 26 % (VAT included)",
      Amount: 38822,
      Vat: 'included',
      Estimate: false,
      Base: 123400,
      RatePpm: 260000,
      Bands: [{ From: 0, RatePpm: 260000, Portion: 123400 }],
      Net: 32084,
      VatRatePpm: 210000,
    },
    {
      Code: 'fee:live',
      Label: 'Live bidding fee 3 % (VAT included)',
      Amount: 4479,
      Vat: 'included',
      Estimate: false,
      Base: 123400,
      RatePpm: 30000,
      Net: 3702,
      VatRatePpm: 210000,
    },
    { Code: 'shipping', Label: 'Shipping, parcel M, EU', Amount: 3872, Vat: 'included', Estimate: false, Net: 3200, VatRatePpm: 210000 },
  ],
  Total: 170573,
  TotalRange: null,
  TotalIfConditionsUnmet: null,
  Assumptions: ['margin-scheme'],
  NotIncluded: ['payment-surcharges', 'storage'],
  RulesVersion: '2026-12-01',
  Display: null,
  Disclaimer: 'An estimate under the conditions of sale: the invoice decides. Payment surcharges and storage are not included.',
};

/** The words of the lines' labels in the languages houses publish in (English for any other). */
const WORDS = {
  en: {
    hammer: 'Hammer price',
    premium: "Buyer's premium",
    importVat: 'Import VAT',
    resaleRight: "Artist's resale right",
    shipping: 'Shipping',
    vat: 'VAT',
    included: 'VAT included',
  },
  sv: {
    hammer: 'Klubbat pris',
    premium: 'Köparprovision',
    importVat: 'Importmoms',
    resaleRight: 'Följerätt',
    shipping: 'Frakt',
    vat: 'Moms',
    included: 'inkl. moms',
  },
  de: {
    hammer: 'Zuschlag',
    premium: 'Aufgeld',
    importVat: 'Einfuhrumsatzsteuer',
    resaleRight: 'Folgerecht',
    shipping: 'Versand',
    vat: 'MwSt.',
    included: 'inkl. MwSt.',
  },
};
type Words = (typeof WORDS)['en'];

/** A rate as people read it: `26 %`, `2,5 %`. */
const percent = (ppm: number, language: string) =>
  `${new Intl.NumberFormat(language, { maximumFractionDigits: 4 }).format(ppm / 10_000)} %`;

/** A name of the house's rules as words: `parcel-m` → `parcel M`. */
const asWords = (name: string) =>
  name
    .split(/[-_.]+/)
    .map((w) => (w.length === 1 ? w.toUpperCase() : w))
    .join(' ');

/** A line's label in a language: its words, its rate(s), and whether the VAT is inside it. */
function labelOf(line: CostLine, rules: CostRules, language: string, fallback: string): string {
  const w: Words = (WORDS as Record<string, Words>)[language.slice(0, 2)] ?? WORDS.en;
  const rates = (line.bands ?? []).map((b) => percent(b.ratePpm, language));
  const suffix = line.vat === 'included' ? ` (${w.included})` : '';
  if (line.code === 'hammer') return w.hammer;
  if (line.code === 'premium') return `${w.premium} ${rates.join(' / ')}${suffix}`;
  if (line.code === 'import-vat') return `${w.importVat} ${percent(line.ratePpm ?? 0, language)}`;
  if (line.code === 'resale-right') return `${w.resaleRight}${suffix}`;
  if (line.code === 'shipping' && line.shipping) return `${w.shipping}, ${asWords(line.shipping.shippingClass)}, ${line.shipping.zone}`;
  if (line.code.startsWith('fee:')) {
    const fee = rules.channelFees.find((f) => `fee:${f.code}` === line.code);
    const name = (fee && pick(fee.label, language, fallback)) ?? line.code.slice(4);
    return `${name} ${percent(line.ratePpm ?? 0, language)}${suffix}`;
  }
  if (line.code.startsWith('vat:')) return `${w.vat} ${percent(line.ratePpm ?? 0, language)}`;
  return line.code;
}

/** A line as the answer gives it: fields that do not apply left out. */
function toLineDto(line: CostLine, label: string): CostEstimateDto['Lines'][number] {
  return {
    Code: line.code,
    Label: label,
    Amount: line.amount,
    Vat: line.vat,
    Estimate: line.estimate,
    ...(line.base !== undefined ? { Base: line.base } : {}),
    ...(line.ratePpm !== undefined ? { RatePpm: line.ratePpm } : {}),
    ...(line.bands ? { Bands: line.bands.map((b) => ({ From: b.from, RatePpm: b.ratePpm, Portion: b.portion })) } : {}),
    ...(line.net !== undefined ? { Net: line.net } : {}),
    ...(line.vatRatePpm !== undefined ? { VatRatePpm: line.vatRatePpm } : {}),
    ...(line.range ? { Range: line.range } : {}),
    ...(line.condition !== undefined ? { Condition: line.condition } : {}),
    ...(line.amountIfUnmet !== undefined ? { AmountIfUnmet: line.amountIfUnmet } : {}),
  };
}

/** What an estimate is asked for, checked (the operation's input, or a bid's maximum and its member). */
export interface CostEstimateRequest {
  lotId: number;
  /** Null: the lot's minimum next bid, else its starting price. */
  amount: number | null;
  /** Null: the member's (a member caller), else the request cannot be answered (the caller checks). */
  country: string;
  buyer: { business: boolean; assumptions: string[] };
  /** Null: the auction's (live while it is live, timed for a timed auction, else none). */
  channel: Channel | null;
  displayCurrency: string | null;
  language: string;
  fallbackLanguage: string;
  /** The house's VAT country (its settings). */
  houseCountry: string | null;
}

/** A lot's cost fields, defaults filled in. */
export function lotCosts(lot: LotDoc): LotCosts {
  const c = lot.Costs;
  return {
    vatScheme: lot.VatScheme ?? lotVatScheme(undefined, lot.VatFree),
    import: c?.Import ?? 'none',
    importClass: c?.ImportClass ?? 'other',
    resaleRight: c?.ResaleRight ?? false,
    shippingClass: c?.ShippingClass ?? null,
    premiumSchedule: c?.PremiumSchedule ?? null,
  };
}

/** The rate the house published for showing totals in a currency ("1" for the lot's own); null: none. */
export function displayRateOf(rules: Pick<CostRules, 'displayRates'>, lotCurrency: string, currency: string): string | null {
  return currency === lotCurrency ? '1' : (rules.displayRates[currency] ?? null);
}

export function toCostEstimateDto(
  estimate: Estimate,
  o: { lot: LotDoc; rules: CostRules; request: CostEstimateRequest; hammer: number; channel: Channel | null },
): CostEstimateDto {
  const { lot, rules, request } = o;
  const { language, fallbackLanguage } = request;
  const rate = request.displayCurrency === null ? null : displayRateOf(rules, lot.Currency, request.displayCurrency);
  return {
    LotId: lot.Id,
    Currency: lot.Currency,
    Amount: o.hammer,
    Country: request.country,
    Buyer: request.buyer.business ? 'business' : 'private',
    VatScheme: estimate.vatScheme,
    Channel: o.channel,
    Lines: estimate.lines.map((line) => toLineDto(line, labelOf(line, rules, language, fallbackLanguage))),
    Total: estimate.total,
    TotalRange: estimate.totalRange,
    TotalIfConditionsUnmet: estimate.totalIfConditionsUnmet,
    Assumptions: [...estimate.assumptions, ...request.buyer.assumptions],
    NotIncluded: estimate.notIncluded,
    RulesVersion: rules.rulesVersion,
    Display:
      rate === null || request.displayCurrency === null
        ? null
        : {
            Currency: request.displayCurrency,
            Total: convertForDisplay(estimate.total, rate, fractionDigits(lot.Currency), fractionDigits(request.displayCurrency)),
            Rate: rate,
            RatesAt: rules.displayRatesAt,
            Source: rules.displayRatesSource,
          },
    Disclaimer: pick(rules.disclaimer, language, fallbackLanguage) ?? null,
  };
}

/** A VAT number as a caller may give it: a country prefix, then 2 to 13 letters or digits (spaces, dots, dashes dropped). */
export const vatNumberFormat = /^[A-Z]{2}[A-Z0-9+*]{2,13}$/;
