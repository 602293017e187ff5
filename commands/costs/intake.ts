import { z } from 'zod';
import { runCommand } from '../../src/command-runner.ts';
import { defineIntakeKind, remember, type IntakeKind } from '../../src/intake-kind.ts';
import { isCountryCode } from '../profile/rules.ts';
import { costRulesDecider } from './decide.ts';
import {
  bandsSchema,
  channelFeeSchema,
  costRulesShape,
  costRulesStreamId,
  premiumScheduleSchema,
  resaleRightSchema,
  ruleName,
  shippingSchema,
  type CostRules,
} from './events.ts';
import { costRulesLookupKey } from './rules.ts';

/** Most premium schedules a house has. */
const MAX_SCHEDULES = 20;
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Marginal bands as a house writes them: lower bounds ascending from 0 (each band names where it starts). */
const ascendingBands = bandsSchema.superRefine((bands, ctx) => {
  bands.forEach((band, i) => {
    if (i === 0 && band.from !== 0) ctx.addIssue({ code: 'custom', path: [0, 'from'], message: 'the first band starts at 0' });
    if (i > 0 && !(band.from > bands[i - 1].from))
      ctx.addIssue({ code: 'custom', path: [i, 'from'], message: "must be above the band before's (bands ascend)" });
  });
});

const scheduleRecord = premiumScheduleSchema
  .extend({
    bands: ascendingBands,
    ratesIncludeVat: z.boolean().default(false),
    fixedPerLot: premiumScheduleSchema.shape.fixedPerLot.default(0),
    minimum: premiumScheduleSchema.shape.minimum.default(null),
    maximum: premiumScheduleSchema.shape.maximum.default(null),
  })
  .superRefine((s, ctx) => {
    if (s.minimum !== null && s.maximum !== null && s.minimum > s.maximum)
      ctx.addIssue({ code: 'custom', path: ['maximum'], message: 'must not be below minimum' });
  });

/** The destinations of the zones: known countries, each in one zone at most, and one `"*"` zone at most. */
function checkZones(zones: Record<string, string[] | '*'>, ctx: z.RefinementCtx) {
  const zoneOf = new Map<string, string>();
  let everyOther: string | null = null;
  for (const [zone, countries] of Object.entries(zones)) {
    if (countries === '*') {
      if (everyOther !== null)
        ctx.addIssue({ code: 'custom', path: ['shipping', 'zones', zone], message: `only one zone may be "*" (${everyOther} is)` });
      everyOther = zone;
      continue;
    }
    countries.forEach((country, i) => {
      const path = ['shipping', 'zones', zone, i];
      if (!isCountryCode(country)) ctx.addIssue({ code: 'custom', path, message: `${country} is not an ISO 3166-1 alpha-2 country` });
      else if (zoneOf.has(country)) ctx.addIssue({ code: 'custom', path, message: `${country} is in zone ${zoneOf.get(country)} already` });
      else zoneOf.set(country, zone);
    });
  }
}

/** The prices of the classes: in zones that exist, a range from its low to its high. */
function checkClasses(shipping: z.infer<typeof shippingSchema>, ctx: z.RefinementCtx) {
  for (const [name, prices] of Object.entries(shipping.classes))
    for (const [zone, price] of Object.entries(prices)) {
      const path = ['shipping', 'classes', name, zone];
      if (!(zone in shipping.zones)) ctx.addIssue({ code: 'custom', path, message: `no zone ${zone} in shipping.zones` });
      if ('range' in price && price.range[0] > price.range[1])
        ctx.addIssue({ code: 'custom', path: [...path, 'range'], message: 'the low bound must not be above the high one' });
    }
}

/** The rules between fields (each one broken is an issue of its own: the line error names every one). */
function checkRules(r: Partial<CostRules>, ctx: z.RefinementCtx) {
  const schedules = Object.keys(r.premiumSchedules ?? {});
  if (r.premiumSchedules && schedules.length === 0)
    ctx.addIssue({ code: 'custom', path: ['premiumSchedules'], message: 'at least one premium schedule' });
  if (schedules.length > MAX_SCHEDULES)
    ctx.addIssue({ code: 'custom', path: ['premiumSchedules'], message: `at most ${MAX_SCHEDULES} premium schedules` });
  if (r.premiumSchedules && r.defaultPremiumSchedule !== undefined && !schedules.includes(r.defaultPremiumSchedule))
    ctx.addIssue({ code: 'custom', path: ['defaultPremiumSchedule'], message: `no premium schedule ${r.defaultPremiumSchedule}` });
  const codes = (r.channelFees ?? []).map((f) => f.code);
  codes.forEach((code, i) => {
    if (codes.indexOf(code) !== i) ctx.addIssue({ code: 'custom', path: ['channelFees', i, 'code'], message: `${code} is given twice` });
  });
  if (r.shipping) {
    checkZones(r.shipping.zones, ctx);
    checkClasses(r.shipping, ctx);
  }
  for (const currency of Object.keys(r.displayRates ?? {}))
    if (!CURRENCIES.has(currency))
      ctx.addIssue({ code: 'custom', path: ['displayRates', currency], message: `${currency} is not an ISO 4217 currency` });
}

/**
 * `costRules`: the house's cost rules (COSTS.md), replacing the previous ones. A record whose rules do not hold is
 * one line error naming every rule broken (bands ascending from 0, rates within 0–1,000,000 ppm, known countries
 * and zones, schedule names that exist, ...).
 */
export const costRulesRecord = z
  .object({
    kind: z.literal('costRules'),
    ...costRulesShape,
    premiumSchedules: z.record(ruleName, scheduleRecord),
    channelFees: z.array(channelFeeSchema).max(2).default([]),
    resaleRight: resaleRightSchema.extend({ bands: ascendingBands }).nullable().default(null),
    shipping: shippingSchema.nullable().default(null),
    eurRate: costRulesShape.eurRate.default('1'),
    displayRates: costRulesShape.displayRates.default({}),
    displayRatesAt: costRulesShape.displayRatesAt.default(null),
    displayRatesSource: costRulesShape.displayRatesSource.default(null),
    disclaimer: costRulesShape.disclaimer.default({}),
  })
  .superRefine(checkRules);

export type CostRulesRecord = z.infer<typeof costRulesRecord>;

/** NDJSON intake records of cost rules (docs/intake.md). The same rules again append nothing. */
export const costsIntake: IntakeKind[] = [
  defineIntakeKind('costRules', costRulesRecord, async (deps, { kind: _kind, ...data }) => {
    const result = await runCommand(
      deps.log,
      costRulesStreamId(data.tenant),
      costRulesDecider,
      { type: 'PublishCostRules', data },
      {
        correlationId: deps.correlationId,
      },
    );
    // The run's later lot and auction records check their names against these rules.
    remember(deps, costRulesLookupKey(data.tenant), data);
    return result;
  }),
];
