// The calculation of a cost estimate (commands/costs/rules.ts): COSTS.md's three worked examples to the cent, and
// properties that hold for any rules, rates and amounts up to 10^12 minor units.
import { expect } from 'chai';
import {
  convertForDisplay,
  estimateCosts,
  fromEuroCents,
  type CostLine,
  type EstimateInput,
  type LotCosts,
} from '../../commands/costs/rules.ts';
import type { Band, CostRules } from '../../commands/costs/events.ts';
import { COSTS_MD_RULES } from './demo-rules.ts';

const lot = (o: Partial<LotCosts> = {}): LotCosts => ({
  vatScheme: 'margin',
  import: 'none',
  importClass: 'other',
  resaleRight: false,
  shippingClass: null,
  premiumSchedule: null,
  ...o,
});
const ask = (o: Partial<EstimateInput>): EstimateInput => ({
  rules: COSTS_MD_RULES,
  lot: lot(),
  auction: { premiumSchedule: null, channelFees: null },
  amount: 100000,
  currencyDigits: 2,
  country: 'NL',
  business: false,
  channel: null,
  houseCountry: 'NL',
  ...o,
});
const byCode = (lines: CostLine[]) => Object.fromEntries(lines.map((l) => [l.code, l]));

describe('cost estimate: the calculation', () => {
  describe("COSTS.md's worked examples", () => {
    it('1: a private buyer in DE, a margin lot of a live auction, hammer 123,400: total 170,573', () => {
      const e = estimateCosts(ask({ lot: lot({ shippingClass: 'parcel-m' }), amount: 123400, country: 'DE', channel: 'live' }));
      const lines = byCode(e.lines);
      expect(lines.premium).to.include({ net: 32084, amount: 38822, vat: 'included' });
      expect(lines['fee:live']).to.include({ net: 3702, amount: 4479, vat: 'included' });
      expect(lines.shipping).to.include({ net: 3200, amount: 3872, vat: 'included' });
      expect(e).to.include({ total: 170573, totalRange: null, totalIfConditionsUnmet: null });
      // A VAT number changes nothing: margin goods.
      const business = estimateCosts(
        ask({ lot: lot({ shippingClass: 'parcel-m' }), amount: 123400, country: 'DE', channel: 'live', business: true }),
      );
      expect(business.lines).to.deep.equal(e.lines);
    });

    it('2: a business in BE, a normal lot of a timed auction, hammer 855,000: total 1,077,300, range and unmet total', () => {
      const e = estimateCosts(
        ask({
          lot: lot({ vatScheme: 'normal', shippingClass: 'furniture' }),
          amount: 855000,
          country: 'BE',
          business: true,
          channel: 'timed',
        }),
      );
      const lines = byCode(e.lines);
      expect(lines.hammer).to.include({ amount: 855000, vat: 'zero', condition: 'dispatched-to:BE', amountIfUnmet: 1034550 });
      expect(lines.premium).to.include({ amount: 222300, vat: 'zero', condition: 'dispatched-to:BE', amountIfUnmet: 222300 + 46683 });
      expect(lines.shipping).to.deep.include({ amount: null, range: [25000, 40000] });
      expect(e.total).to.equal(1077300);
      expect(e.totalRange).to.deep.equal([1102300, 1117300]);
      expect(e.totalIfConditionsUnmet).to.equal(1303533);
    });

    it('3: a buyer in the US, a margin lot under temporary admission (art) with the resale right, hammer 12,000,000', () => {
      const e = estimateCosts(
        ask({
          lot: lot({ import: 'temporary-admission', importClass: 'art', resaleRight: true, shippingClass: 'parcel-m' }),
          amount: 12000000,
          country: 'US',
          channel: 'timed',
        }),
      );
      const lines = byCode(e.lines);
      expect(lines.premium).to.include({ amount: 3020000, vat: 'zero', condition: 'exported', amountIfUnmet: 3654200 });
      expect(lines['import-vat']).to.include({ amount: 0, condition: 'exported', amountIfUnmet: 1080000 });
      expect(lines['resale-right']).to.include({ base: 15020000, amount: 500600, vat: 'none' });
      expect(e.notIncluded).to.include('shipping');
      expect(e).to.include({ total: 15520600, totalIfConditionsUnmet: 17234800 });
    });
  });

  describe('rules beside the examples', () => {
    it('bounds the premium by its minimum and maximum after rounding, with VAT on the bounded net', () => {
      const small = byCode(estimateCosts(ask({ amount: 100, country: 'DE' })).lines).premium;
      expect(small).to.include({ net: 2500, amount: 2500 + 525 });
      const capped = { ...COSTS_MD_RULES.premiumSchedules.standard, maximum: 1000 };
      const rules = { ...COSTS_MD_RULES, premiumSchedules: { standard: capped } };
      expect(byCode(estimateCosts(ask({ rules, amount: 100000, lot: lot({ vatScheme: 'normal' }) })).lines)['vat:premium']).to.include({
        base: 1000,
        amount: 210,
      });
    });

    it('takes the net out of rates that include VAT, the VAT being the rest', () => {
      const schedule = { ...COSTS_MD_RULES.premiumSchedules.standard, ratesIncludeVat: true, minimum: null };
      const rules = { ...COSTS_MD_RULES, premiumSchedules: { standard: schedule } };
      const margin = byCode(estimateCosts(ask({ rules, amount: 100000 })).lines).premium;
      expect(margin).to.include({ amount: 26000, net: 21488 });
      const exported = byCode(estimateCosts(ask({ rules, amount: 100000, country: 'US' })).lines).premium;
      expect(exported).to.include({ amount: 21488, amountIfUnmet: 26000 });
    });

    it("caps the resale right, leaves it out below the threshold, and converts the euro amounts at the house's rate", () => {
      const right = (amount: number, rules: CostRules = COSTS_MD_RULES) =>
        byCode(estimateCosts(ask({ rules, amount, lot: lot({ resaleRight: true }) })).lines)['resale-right'];
      expect(right(500_000_000)?.amount).to.equal(1250000);
      expect(right(100_000_000)?.amount).to.equal(200000 + 450000 + 150000 + 75000 + 178750);
      expect(right(200000)).to.equal(undefined);
      // A house in SEK at 11.52 per euro: €3,000 is 34,560 kronor, so 3,000,000 öre with its premium passes it.
      const sek = { ...COSTS_MD_RULES, eurRate: '11.52' };
      expect(fromEuroCents(300000, '11.52', 2)).to.equal(3456000n);
      expect(right(2_000_000, sek)).to.equal(undefined);
      expect(right(3_000_000, sek)?.base).to.equal(3_000_000 + 780000);
    });

    it("applies a channel's fee only on its channel and where the auction takes it", () => {
      const fees = (o: Partial<EstimateInput>) => estimateCosts(ask(o)).lines.filter((l) => l.code.startsWith('fee:'));
      expect(fees({ channel: 'live' })).to.have.length(1);
      expect(fees({ channel: 'timed' })).to.have.length(0);
      expect(fees({ channel: null })).to.have.length(0);
      expect(fees({ channel: 'live', auction: { premiumSchedule: null, channelFees: [] } })).to.have.length(0);
    });

    it('zero-rates a VAT-free lot outright, and charges no VAT at all on an exempt one', () => {
      const zero = estimateCosts(ask({ lot: lot({ vatScheme: 'zero' }), country: 'DE' }));
      expect(byCode(zero.lines).premium).to.include({ vat: 'zero', condition: null, amountIfUnmet: null });
      expect(zero.totalIfConditionsUnmet).to.equal(null);
      const exempt = estimateCosts(ask({ lot: lot({ vatScheme: 'exempt' }), country: 'DE' }));
      expect(exempt.lines.map((l) => l.vat)).to.deep.equal(['none', 'none']);
    });

    it('converts a total for display once, half up to the minor units of the target', () => {
      expect(convertForDisplay(170573, '1.0834', 2, 2)).to.equal(184799);
      expect(convertForDisplay(170573, '161.5', 2, 0)).to.equal(275475);
      expect(convertForDisplay(1, '0.5', 2, 2)).to.equal(1);
    });
  });

  describe('properties, for any rules and amounts up to 10^12 minor units', () => {
    // A small deterministic generator (mulberry32), so a failure can be replayed.
    let seed = 20261201;
    const next = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const int = (max: number) => Math.floor(next() * (max + 1));
    /** Amounts spread over every size up to 10^12 (log-uniform), the bounds included now and then. */
    const amount = (max = 1e12) => (next() < 0.05 ? max : Math.max(1, Math.min(max, Math.floor(10 ** (next() * 12)))));
    const rate = () => [0, 1_000_000, int(1_000_000), int(300_000)][int(3)];
    const bands = (): Band[] => {
      const froms = [0, ...Array.from({ length: int(5) }, () => amount())].sort((a, b) => a - b);
      return [...new Set(froms)].map((from) => ({ from, ppm: rate() }));
    };
    const randomRules = (): CostRules => ({
      ...COSTS_MD_RULES,
      premiumSchedules: {
        standard: {
          bands: bands(),
          ratesIncludeVat: next() < 0.3,
          fixedPerLot: next() < 0.3 ? amount() : 0,
          minimum: next() < 0.2 ? amount(1e9) : null,
          maximum: next() < 0.2 ? amount() : null,
        },
      },
      channelFees: [{ code: 'live', label: { en: 'Live' }, ppm: rate(), base: next() < 0.5 ? 'hammer' : 'hammer+premium' }],
      vat: { standardPpm: rate(), importPpm: { art: rate(), other: rate() } },
      resaleRight: {
        ...COSTS_MD_RULES.resaleRight!,
        bands: bands(),
        capEur: next() < 0.5 ? null : amount(),
        vatPpm: next() < 0.5 ? 0 : rate(),
      },
      shipping: {
        ...COSTS_MD_RULES.shipping!,
        classes: { any: { NL: { amount: amount() }, EU: { range: [amount(1e9), 1e9 + amount(1e9)] }, WORLD: { amount: amount() } } },
        pricesIncludeVat: next() < 0.5,
      },
    });
    const pickOne = <T>(list: readonly T[]) => list[int(list.length - 1)];
    const half = (product: bigint) => (product + 500000n) / 1000000n;

    it('sums the lines to Total, rounds each line half up once, and overflows nowhere', () => {
      for (let run = 0; run < 3000; run++) {
        const rules = randomRules();
        const input = ask({
          rules,
          amount: amount(),
          lot: lot({
            vatScheme: pickOne(['margin', 'normal', 'zero', 'exempt'] as const),
            import: pickOne(['none', 'temporary-admission'] as const),
            importClass: pickOne(['art', 'other'] as const),
            resaleRight: next() < 0.5,
            shippingClass: pickOne([null, 'any']),
          }),
          country: pickOne(['NL', 'DE', 'BE', 'US', 'JP']),
          business: next() < 0.5,
          channel: pickOne(['live', 'timed', null] as const),
        });
        const e = estimateCosts(input);
        const about = `run ${run}: ${JSON.stringify(input.amount)} ${JSON.stringify(rules.premiumSchedules)}`;
        let sum = 0n;
        for (const line of e.lines) {
          for (const value of [line.amount, line.net, line.base, line.amountIfUnmet, ...(line.range ?? [])])
            if (value !== null && value !== undefined) expect(Number.isSafeInteger(value) && value >= 0, about).to.equal(true);
          if (line.amount !== null) sum += BigInt(line.amount);
          // A separate VAT line: its base times its rate, half up.
          if (line.code.startsWith('vat:') && line.amount !== null)
            expect(BigInt(line.amount!), about).to.equal(half(BigInt(line.base!) * BigInt(line.ratePpm!)));
        }
        expect(BigInt(e.total), about).to.equal(sum);
        if (e.totalIfConditionsUnmet !== null) expect(e.totalIfConditionsUnmet).to.be.at.least(e.total);
        if (e.totalRange) expect(e.totalRange[0]).to.be.within(e.total, e.totalRange[1]);
        // The premium's bands: their portions make up the hammer, and the net is their sum rounded half up once.
        const premium = e.lines.find((l) => l.code === 'premium')!;
        const portions = premium.bands!.reduce((s, b) => s + BigInt(b.portion), 0n);
        expect(portions, about).to.equal(BigInt(input.amount));
        const schedule = rules.premiumSchedules.standard;
        if (!schedule.ratesIncludeVat && schedule.minimum === null && schedule.maximum === null) {
          const exact = premium.bands!.reduce((s, b) => s + BigInt(b.portion) * BigInt(b.ratePpm), 0n);
          expect(BigInt(premium.net!), about).to.equal(half(exact) + BigInt(schedule.fixedPerLot));
          // Half up: the rounded net is within half a minor unit of the exact one, a tie going up.
          const diff = (BigInt(premium.net!) - BigInt(schedule.fixedPerLot)) * 1000000n - exact;
          expect(diff >= -500000n && diff < 500000n, about).to.equal(true);
        }
      }
    });
  });
});
