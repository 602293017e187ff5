import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { importLines } from '../../app/features/intake.ts';
import { COSTS_MD_RULES } from './demo-rules.ts';

/**
 * The cost intake of COSTS.md (`costRules`, and the cost fields of `auction` and `lot` records), as a file or a
 * back office sends it: what it appends, that the same rules again append nothing, and that a record whose rules
 * do not hold is one line error naming every rule broken.
 */
describe('cost intake (costRules, and the cost fields of auctions and lots)', () => {
  let dir: string;
  let log: SqliteEventLog;
  const run = (records: unknown[]) =>
    importLines(
      log,
      records.map((r) => JSON.stringify(r)),
    );
  const { tenant: _tenant, ...rules } = COSTS_MD_RULES;
  const record = (o: Record<string, unknown> = {}) => ({ kind: 'costRules', tenant: 'house', ...rules, ...o });
  const texts = { en: { title: 'A lot', description: '' } };
  const auction = (o: Record<string, unknown> = {}) => ({
    kind: 'auction',
    tenant: 'house',
    auctionId: 1,
    auctionType: 1,
    texts,
    startTime: '2026-11-01T09:00:00Z',
    endTime: '2026-12-01T09:00:00Z',
    currency: 'EUR',
    requiresTermsAcceptance: false,
    ...o,
  });
  const lot = (o: Record<string, unknown> = {}) => ({
    kind: 'lot',
    tenant: 'house',
    lotId: 7,
    auctionId: 1,
    lotNumber: 7,
    categoryId: null,
    texts,
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: 'EUR',
    startingPrice: 1000,
    estimateLow: null,
    estimateHigh: null,
    endTime: '2026-12-01T09:00:00Z',
    combiId: null,
    ownerId: null,
    ...o,
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-costs-intake-'));
    log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("publishes COSTS.md's rules as CostRulesPublished; the same rules again append nothing, changed ones replace them", async () => {
    expect(await run([record()])).to.include({ records: 1, appended: 1 });
    const [event] = await log.readStream('cost-rules-house');
    expect(event.type).to.equal('CostRulesPublished');
    expect(event.data).to.deep.equal({ ...COSTS_MD_RULES, tenant: 'house' });
    expect(await run([record()])).to.include({ appended: 0, unchanged: 1 });
    expect(await run([record({ rulesVersion: '2027-01-01' })])).to.include({ appended: 1 });
    expect((await log.readStream('cost-rules-house')).map((e) => e.data.rulesVersion)).to.deep.equal(['2026-12-01', '2027-01-01']);
  });

  it('fills what a record leaves out: no fees, resale right or shipping, the euro at 1, no display rates or disclaimer', async () => {
    const minimal = {
      kind: 'costRules',
      tenant: 'house',
      rulesVersion: 'v1',
      premiumSchedules: { flat: { bands: [{ from: 0, ppm: 200000 }] } },
      defaultPremiumSchedule: 'flat',
      vat: { standardPpm: 210000, importPpm: { art: 90000, other: 210000 } },
    };
    expect(await run([minimal])).to.include({ appended: 1 });
    const [event] = await log.readStream('cost-rules-house');
    expect(event.data).to.deep.include({
      premiumSchedules: {
        flat: { bands: [{ from: 0, ppm: 200000 }], ratesIncludeVat: false, fixedPerLot: 0, minimum: null, maximum: null },
      },
      channelFees: [],
      resaleRight: null,
      shipping: null,
      eurRate: '1',
      displayRates: {},
      displayRatesAt: null,
      displayRatesSource: null,
      disclaimer: {},
    });
  });

  it('refuses rules that do not hold as one line error naming every rule broken, and appends nothing for them', async () => {
    const broken = record({
      premiumSchedules: {
        standard: {
          bands: [
            { from: 100, ppm: 260000 },
            { from: 50, ppm: 1_000_001 },
          ],
          minimum: 5000,
          maximum: 100,
        },
      },
      defaultPremiumSchedule: 'premium',
      channelFees: [
        { code: 'live', label: { en: 'Live' }, ppm: 30000, base: 'hammer' },
        { code: 'live', label: { en: 'Live again' }, ppm: -1, base: 'hammer' },
      ],
      resaleRight: {
        ...rules.resaleRight,
        bands: [
          { from: 0, ppm: 40000 },
          { from: 0, ppm: 30000 },
        ],
      },
      shipping: {
        zones: { NL: ['NL', 'XX'], EU: ['DE', 'NL'], WORLD: '*', REST: '*' },
        classes: { 'parcel-m': { MARS: { amount: 100 }, EU: { range: [500, 100] } } },
        pricesIncludeVat: false,
      },
      displayRates: { XYZ: '2', USD: '0' },
    });
    const report = await run([broken]);
    expect(report).to.include({ records: 1, appended: 0 });
    expect(report.errors).to.have.length(1);
    const { line, message } = report.errors[0];
    expect(line).to.equal(1);
    for (const expected of [
      'premiumSchedules.standard.bands.0.from: the first band starts at 0',
      'premiumSchedules.standard.bands.1.from: must be above',
      'premiumSchedules.standard.bands.1.ppm:',
      'premiumSchedules.standard.maximum: must not be below minimum',
      'defaultPremiumSchedule: no premium schedule premium',
      'channelFees.1.ppm:',
      'channelFees.1.code: live is given twice',
      'resaleRight.bands.1.from: must be above',
      'shipping.zones.NL.1: XX is not an ISO 3166-1 alpha-2 country',
      'shipping.zones.EU.1: NL is in zone NL already',
      'shipping.zones.REST: only one zone may be "*"',
      'shipping.classes.parcel-m.MARS: no zone MARS',
      'shipping.classes.parcel-m.EU.range: the low bound must not be above the high one',
      'displayRates.XYZ: XYZ is not an ISO 4217 currency',
      'displayRates.USD: must be above 0',
    ])
      expect(message).to.include(expected);
    expect(await log.readStream('cost-rules-house')).to.deep.equal([]);
  });

  it("takes an auction's and a lot's cost fields when they name what the house's rules have", async () => {
    const report = await run([
      record(),
      auction({ premiumSchedule: 'standard', channelFees: ['live'] }),
      lot({ vatScheme: 'normal', import: 'temporary-admission', importClass: 'art', resaleRight: true, shippingClass: 'furniture' }),
    ]);
    expect(report.errors).to.deep.equal([]);
    const [auctionEvent] = await log.readStream('auction-house-1');
    expect(auctionEvent.data).to.deep.include({ premiumSchedule: 'standard', channelFees: ['live'] });
    const [lotEvent] = await log.readStream('lot-house-7');
    expect(lotEvent.data).to.deep.include({
      vatScheme: 'normal',
      import: 'temporary-admission',
      importClass: 'art',
      resaleRight: true,
      shippingClass: 'furniture',
    });
  });

  it('refuses names the rules do not have (or with no rules published), a scheme a VAT-free lot cannot have, and an import class without import', async () => {
    const withoutRules = await run([auction({ premiumSchedule: 'standard' }), lot({ shippingClass: 'parcel-m' })]);
    expect(withoutRules.errors.map((e) => e.message)).to.deep.equal([
      'premiumSchedule: the house has published no cost rules (a costRules record) to name',
      'shippingClass: the house has published no cost rules (a costRules record) to name',
    ]);
    const report = await run([
      record(),
      auction({ premiumSchedule: 'gold', channelFees: ['timed'] }),
      lot({ premiumSchedule: 'gold', shippingClass: 'piano' }),
      lot({ lotId: 8, vatFree: true, vatScheme: 'margin' }),
      lot({ lotId: 9, importClass: 'art' }),
    ]);
    expect(report.errors.map((e) => [e.line, e.message])).to.deep.equal([
      [
        2,
        "premiumSchedule: no premium schedule gold in the house's cost rules; channelFees: no channel fee timed in the house's cost rules",
      ],
      [
        3,
        "premiumSchedule: no premium schedule gold in the house's cost rules; shippingClass: no shipping class piano in the house's cost rules",
      ],
      [4, 'vatScheme: a vatFree lot is zero-rated: leave vatScheme out or give zero'],
      [5, 'importClass: only with import: temporary-admission'],
    ]);
    // A VAT-free lot may say zero, and a lot with no cost field is taken as before.
    expect((await run([lot({ lotId: 10, vatFree: true, vatScheme: 'zero' }), lot({ lotId: 11 })])).errors).to.deep.equal([]);
  });
});
