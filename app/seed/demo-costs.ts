/**
 * The demo's costs (COSTS.md, API.md "Demo data"): `demo` publishes COSTS.md's rules, and lots of the live auction 2
 * and the timed auction 10 carry each VAT scheme, so that COSTS.md's worked examples can be asked of real demo lots
 * (docs/api-decisions.md "Demo data: costs"). Every other lot is under the default: `margin`, or `zero` when VAT-free.
 */
import type { CostRules } from '../../commands/costs/events.ts';
import type { CostRulesRecord } from '../../commands/costs/intake.ts';

/** The EU member states but the house's own (NL): the zone `EU` of the demo's shipping. */
const EU_BUT_NL = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];

/** COSTS.md's rules of house `demo`, whole (as CostRulesPublished carries them, less the tenant). */
export const DEMO_COST_RULES: Omit<CostRules, 'tenant'> = {
  rulesVersion: '2026-12-01',
  premiumSchedules: {
    standard: {
      bands: [
        { from: 0, ppm: 260000 },
        { from: 10000000, ppm: 210000 },
        { from: 100000000, ppm: 150000 },
      ],
      ratesIncludeVat: false,
      fixedPerLot: 0,
      minimum: 2500,
      maximum: null,
    },
  },
  defaultPremiumSchedule: 'standard',
  channelFees: [
    { code: 'live', label: { en: 'Live bidding fee', sv: 'Avgift för livebudgivning', de: 'Live-Bietgebühr' }, ppm: 30000, base: 'hammer' },
  ],
  vat: { standardPpm: 210000, importPpm: { art: 90000, other: 210000 } },
  resaleRight: {
    payer: 'buyer',
    base: 'hammer+premium',
    thresholdEur: 300000,
    capEur: 1250000,
    bands: [
      { from: 0, ppm: 40000 },
      { from: 5000000, ppm: 30000 },
      { from: 20000000, ppm: 10000 },
      { from: 35000000, ppm: 5000 },
      { from: 50000000, ppm: 2500 },
    ],
    vatPpm: 0,
  },
  shipping: {
    zones: { NL: ['NL'], EU: EU_BUT_NL, WORLD: '*' },
    classes: {
      'parcel-m': { NL: { amount: 1500 }, EU: { amount: 3200 }, WORLD: { onRequest: true } },
      furniture: { NL: { amount: 9500 }, EU: { range: [25000, 40000] }, WORLD: { onRequest: true } },
    },
    pricesIncludeVat: false,
  },
  eurRate: '1',
  displayRates: { USD: '1.0834', SEK: '11.52' },
  displayRatesAt: '2026-12-01T15:00:00Z',
  displayRatesSource: 'ECB reference',
  disclaimer: {
    en: 'An estimate under the conditions of sale: the invoice decides. Payment surcharges and storage are not included.',
    sv: 'En uppskattning enligt försäljningsvillkoren: fakturan gäller. Betalningsavgifter och förvaring ingår inte.',
    de: 'Eine Schätzung nach den Versteigerungsbedingungen: maßgeblich ist die Rechnung. Zahlungsgebühren und Lagerung sind nicht enthalten.',
  },
};

type LotCostFields = {
  vatScheme?: 'margin' | 'normal' | 'zero' | 'exempt';
  import?: 'temporary-admission';
  importClass?: 'art';
  resaleRight?: boolean;
  shippingClass: 'parcel-m' | 'furniture';
};

/**
 * The demo lots that carry cost fields, by id, and what each shows. Lot 401 and 2006 are VAT-free in the catalogue
 * (hence `zero`); the others are not.
 */
export const DEMO_LOT_COSTS: Record<number, LotCostFields & { shows: string }> = {
  // Live auction 2 (live: its fee applies).
  401: { shippingClass: 'furniture', shows: '`zero` (VAT-free): every charge zero-rated outright' },
  402: { vatScheme: 'margin', shippingClass: 'parcel-m', shows: 'example 1: `margin`, live fee, parcel M (`?amount=123400&country=DE`)' },
  403: { vatScheme: 'normal', shippingClass: 'furniture', shows: '`normal` on a live auction: VAT separate, or zero for an EU business' },
  405: { vatScheme: 'exempt', shippingClass: 'parcel-m', shows: '`exempt`: no VAT on any line' },
  413: {
    vatScheme: 'margin',
    import: 'temporary-admission',
    importClass: 'art',
    resaleRight: true,
    shippingClass: 'parcel-m',
    shows: 'example 3 on a live auction (its fee beside): import VAT and the resale right',
  },
  // Timed auction 10 (no channel fee: the house has none for `timed`).
  2001: {
    vatScheme: 'margin',
    import: 'temporary-admission',
    importClass: 'art',
    resaleRight: true,
    shippingClass: 'parcel-m',
    shows: 'example 3: import VAT zero on export, the resale right (`?amount=12000000&country=US`)',
  },
  2005: { vatScheme: 'margin', shippingClass: 'parcel-m', shows: '`margin` on a timed auction (example 1 without the live fee)' },
  2006: { shippingClass: 'furniture', shows: '`zero` (VAT-free) on a timed auction' },
  2011: {
    vatScheme: 'normal',
    shippingClass: 'furniture',
    shows: 'example 2: `normal`, zero-rated to a BE business, furniture a range (`?amount=855000&country=BE&vatNumber=BE0403170701`)',
  },
  2013: { vatScheme: 'exempt', shippingClass: 'parcel-m', shows: '`exempt` on a timed auction' },
};

/** The demo's `costRules` record. */
export function* demoCostRulesRecords(): Generator<CostRulesRecord> {
  yield { kind: 'costRules', tenant: 'demo', ...DEMO_COST_RULES };
}

/** A demo record with its cost fields when it is one of DEMO_LOT_COSTS's lots of `demo` (every other record as it is). */
export function withDemoCosts<R extends { kind: string }>(record: R): R {
  const lot = record as R & { tenant?: string; lotId?: number };
  if (record.kind !== 'lot' || lot.tenant !== 'demo' || lot.lotId === undefined || !DEMO_LOT_COSTS[lot.lotId]) return record;
  const { shows: _shows, ...costs } = DEMO_LOT_COSTS[lot.lotId];
  return { ...record, ...costs };
}
