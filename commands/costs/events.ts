// A house's cost rules (COSTS.md): what a bidder pays beyond the hammer price, published once and replaced whole.
import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, languageCode, tenantId, type EventOf, type EventsOf } from '../../src/events/define.ts';

/** The stream of a house's cost rules (one record, replaced by each publication). */
export const costRulesStreamId = (tenant: string) => `cost-rules-${tenant}`;

/** Largest amount a rule names (a fixed fee, a bound, a shipping price), in minor units: 10 billion in the major unit. */
export const MAX_RULE_AMOUNT = 1_000_000_000_000;
/** A rate in parts per million (260000 = 26 %). */
export const ppm = z.number().int().min(0).max(1_000_000);
const ruleAmount = z.number().int().min(0).max(MAX_RULE_AMOUNT);
/** A lower bound of a band, in minor units (a threshold: any size). */
const bound = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** A name of a premium schedule, a shipping zone or a shipping class. */
export const ruleName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, `.`, `_` and `-`, at most 64');
/** A positive decimal, as a string so that it stays exact (`"1.0834"`). */
export const decimalText = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,9})?$/, 'a positive decimal such as "1.0834", at most 9 digits each side of the point')
  .refine((v) => /[1-9]/.test(v), 'must be above 0');

/** Marginal bands: each band's rate on the part of the amount from its lower bound to the next band's. */
export const bandsSchema = z
  .array(z.object({ from: bound, ppm }))
  .min(1)
  .max(20);
export type Band = z.infer<typeof bandsSchema>[number];

export const premiumScheduleSchema = z.object({
  bands: bandsSchema,
  /** The rates hold VAT already (the net is worked out of them). */
  ratesIncludeVat: z.boolean(),
  fixedPerLot: ruleAmount,
  /** Bounds of the premium's net (after rounding); null: none. */
  minimum: ruleAmount.nullable(),
  maximum: ruleAmount.nullable(),
});
export type PremiumSchedule = z.infer<typeof premiumScheduleSchema>;

/** The channels a fee applies on: `live` when the auction is live, `timed` for bids through `POST /v1/me/bids`. */
export const CHANNELS = ['live', 'timed'] as const;
export type Channel = (typeof CHANNELS)[number];

export const channelFeeSchema = z.object({
  code: z.enum(CHANNELS),
  label: z.record(languageCode, z.string().min(1).max(200)),
  ppm,
  base: z.enum(['hammer', 'hammer+premium']),
});
export type ChannelFee = z.infer<typeof channelFeeSchema>;

export const resaleRightSchema = z.object({
  /** Who pays it: `buyer` (a line of the estimate) or `seller` (none). */
  payer: z.enum(['buyer', 'seller']),
  base: z.enum(['hammer', 'hammer+premium']),
  /** Euro cents, converted with `eurRate` for other currencies. */
  thresholdEur: bound,
  capEur: bound.nullable(),
  /** Lower bounds in euro cents. */
  bands: bandsSchema,
  vatPpm: ppm,
});
export type ResaleRight = z.infer<typeof resaleRightSchema>;

/** A shipping price of a class in a zone: an amount, a range, or on request. */
export const shippingPriceSchema = z.union([
  z.object({ amount: ruleAmount }).strict(),
  z.object({ range: z.tuple([ruleAmount, ruleAmount]) }).strict(),
  z.object({ onRequest: z.literal(true) }).strict(),
]);
export type ShippingPrice = z.infer<typeof shippingPriceSchema>;

export const shippingSchema = z.object({
  /** ISO 3166-1 alpha-2 countries per zone; `"*"`: every country no other zone lists. */
  zones: z.record(ruleName, z.union([z.array(z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code')).max(300), z.literal('*')])),
  classes: z.record(ruleName, z.record(ruleName, shippingPriceSchema)),
  pricesIncludeVat: z.boolean(),
});
export type ShippingRules = z.infer<typeof shippingSchema>;

export const vatRulesSchema = z.object({
  standardPpm: ppm,
  importPpm: z.object({ art: ppm, other: ppm }),
});

/** The rules as the event carries them (every field present; what the record may leave out is null or empty). */
export const costRulesShape = {
  tenant: tenantId,
  rulesVersion: z.string().min(1).max(64),
  premiumSchedules: z.record(ruleName, premiumScheduleSchema),
  defaultPremiumSchedule: ruleName,
  channelFees: z.array(channelFeeSchema).max(2),
  vat: vatRulesSchema,
  resaleRight: resaleRightSchema.nullable(),
  shipping: shippingSchema.nullable(),
  /** Units of the house's currency per euro (resale-right thresholds). */
  eurRate: decimalText,
  /** Units of each currency per unit of the house's currency: what `displayCurrency` converts with. */
  displayRates: z.record(z.string().regex(/^[A-Z]{3}$/), decimalText),
  displayRatesAt: isoDateTime.nullable(),
  displayRatesSource: z.string().min(1).max(200).nullable(),
  disclaimer: z.record(languageCode, z.string().min(1).max(2000)),
};

export const CostRulesPublished = defineEvent({
  type: 'CostRulesPublished',
  version: 1,
  stream: 'cost-rules-{tenant}',
  description:
    "Cost intake: the house published its cost rules (COSTS.md), replacing the previous ones: premium schedules (marginal bands, rates in ppm), channel fees, VAT rates, the artist's resale right, shipping zones and classes, the euro and display rates, the disclaimer. Amounts in minor units of the house's currency; `rulesVersion` is the house's own name of this version.",
  schema: z.object(costRulesShape),
});

export const costsEvents = defineEvents([CostRulesPublished]);
export type CostsEvent = EventsOf<typeof costsEvents>;
export type CostRules = EventOf<typeof CostRulesPublished>['data'];

/** What a lot's record says of its costs (LotCatalogued's cost fields). */
export const VAT_SCHEMES = ['margin', 'normal', 'zero', 'exempt'] as const;
export type VatScheme = (typeof VAT_SCHEMES)[number];
