import type { IntakeRecord } from '../features/intake.ts';
import { adjectives, categoryOfObject, categoryTree, conditions, materials, objects, periods, places, type Tri } from './vocabulary.ts';

/** A small deterministic PRNG (mulberry32), so generated catalogues are the same for the same seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)],
    chance: (p: number) => next() < p,
  };
}

type Lang = 'en' | 'sv' | 'de';
const tri = <T = string>(languages: readonly string[], make: (l: Lang) => T): Record<string, T> =>
  Object.fromEntries(languages.map((l) => [l, make(l as Lang)]));

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export interface AuctionPlan {
  id: number;
  title: Tri;
  /** Offsets from now, in hours. */
  startsIn: number;
  endsIn: number;
  lots: number;
  requiresTerms: boolean;
  live?: boolean;
  /** The house approves registrations by hand. */
  manualApproval?: boolean;
  /** Bids are placed through this service (API.md "Timed bidding"): no bids from intake; a reserve on every third lot. */
  timed?: boolean;
}

export interface CatalogueOptions {
  tenant: string;
  languages: readonly string[];
  currency: string;
  now: Date;
  seed: number;
  auctions: AuctionPlan[];
  /** First lot id (lot ids are unique per tenant). */
  firstLotId?: number;
  /** Lots consigned by this member id, one in `consignedEvery`. */
  consignerId?: number | null;
  consignedEvery?: number;
  /** Average bids per open or closed lot. */
  bidsPerLot?: number;
  /** Lot ids of one combination (same CombiId). */
  combination?: { combiId: number; lotIds: number[] } | null;
}

type Rnd = ReturnType<typeof prng>;

/**
 * Generates a tenant's catalogue as intake records: categories, auctions, lots with texts in every
 * language, attributes, images, bids, and live status. Used by the demo seeder and the 100k-lot generator.
 */
export function* generateCatalogue(o: CatalogueOptions): Generator<IntakeRecord> {
  const rnd = prng(o.seed);
  const at = (hours: number) => new Date(o.now.getTime() + hours * 3600_000).toISOString();
  yield* categoryRecords(o);
  let lotId = o.firstLotId ?? 1;
  const combi = new Set(o.combination?.lotIds ?? []);
  for (const auction of o.auctions) {
    const startTime = at(auction.startsIn);
    const endTime = at(auction.endsIn);
    yield auctionRecord(o, auction, startTime, endTime);
    const ended = auction.endsIn <= 0;
    const started = auction.startsIn <= 0;
    let firstLotOfAuction = 0;
    for (let n = 1; n <= auction.lots; n++, lotId++) {
      if (n === 1) firstLotOfAuction = lotId;
      // Lots close one minute apart from the auction's end, as in a timed sale.
      const lotEnd = new Date(Date.parse(endTime) + (n - 1) * 60_000).toISOString();
      const lot = lotRecord(o, rnd, { auction, n, lotId, lotEnd, combined: combi.has(lotId) });
      yield lot;
      if (started && !auction.timed) yield* bidRecords(o, rnd, { lotId, startingPrice: lot.startingPrice, startTime, lotEnd });
    }
    if (auction.live && started && !ended)
      yield {
        kind: 'live',
        tenant: o.tenant,
        auctionId: auction.id,
        isLive: true,
        currentLotId: firstLotOfAuction + 11,
        at: startTime,
        startsAt: startTime,
      };
  }
}

/** The category tree, named in every language. */
function* categoryRecords(o: CatalogueOptions): Generator<IntakeRecord> {
  for (const c of categoryTree)
    yield {
      kind: 'category',
      tenant: o.tenant,
      categoryId: c.id,
      parentId: c.parent,
      names: tri(o.languages, (l) => c.names[l]),
      sortOrder: c.id,
    };
}

/** One auction of the plan. */
function auctionRecord(o: CatalogueOptions, auction: AuctionPlan, startTime: string, endTime: string): IntakeRecord {
  return {
    kind: 'auction',
    tenant: o.tenant,
    auctionId: auction.id,
    auctionType: auction.live ? 2 : 1,
    texts: tri(o.languages, (l) => ({
      title: auction.title[l],
      description: `${auction.title[l]} — ${auction.lots} ${l === 'sv' ? 'föremål' : l === 'de' ? 'Objekte' : 'lots'}.`,
    })),
    startTime,
    endTime,
    currency: o.currency,
    requiresTermsAcceptance: auction.requiresTerms,
    ...(auction.manualApproval ? { registrationApproval: 'manual' as const } : {}),
    ...(auction.timed ? { bidding: 'timed' as const } : {}),
  };
}

/** One lot, its object, material, period, condition and place drawn from the vocabulary (in this order: the seed's). */
function lotRecord(
  o: CatalogueOptions,
  rnd: Rnd,
  { auction, n, lotId, lotEnd, combined }: { auction: AuctionPlan; n: number; lotId: number; lotEnd: string; combined: boolean },
) {
  const object = rnd.pick(objects);
  const material = rnd.pick(materials);
  const adjective = rnd.pick(adjectives);
  const period = rnd.pick(periods);
  const condition = rnd.pick(conditions);
  const place = rnd.pick(places);
  const estimateLow = rnd.int(5, 400) * 1000;
  const startingPrice = Math.round(estimateLow * 0.6);
  return {
    kind: 'lot',
    tenant: o.tenant,
    lotId,
    auctionId: auction.id,
    lotNumber: n,
    categoryId: categoryOfObject[object.en] ?? null,
    texts: tri(o.languages, (l) => ({
      title: capitalise(`${adjective[l]} ${object[l]}, ${material[l]}`),
      description:
        l === 'sv'
          ? `${capitalise(object[l])} i ${material[l]}, ${period[l]}, ${place[l]}. Skick: ${condition[l]}.`
          : l === 'de'
            ? `${capitalise(object[l])} aus ${material[l]}, ${period[l]}, ${place[l]}. Zustand: ${condition[l]}.`
            : `${capitalise(object[l])} in ${material[l]}, ${period[l]}, ${place[l]}. Condition: ${condition[l]}.`,
    })),
    attributes: [
      { name: 'Material', labels: { en: 'Material', sv: 'Material', de: 'Material' }, values: material },
      { name: 'Period', labels: { en: 'Period', sv: 'Period', de: 'Epoche' }, values: period },
      { name: 'Condition', labels: { en: 'Condition', sv: 'Skick', de: 'Zustand' }, values: condition },
    ].map((a) => ({ name: a.name, labels: tri(o.languages, (l) => a.labels[l]), values: tri(o.languages, (l) => a.values[l]) })),
    images: [1, 2].map((i) => `https://images.example.com/${o.tenant}/lots/${lotId}-${i}.jpg`),
    hotLot: rnd.chance(0.05),
    vatFree: rnd.chance(0.2),
    currency: o.currency,
    startingPrice,
    estimateLow,
    estimateHigh: estimateLow * 2,
    endTime: lotEnd,
    combiId: combined ? o.combination!.combiId : null,
    ownerId: o.consignerId && lotId % (o.consignedEvery ?? 50) === 0 ? o.consignerId : null,
    ...(auction.timed && n % 3 === 0 ? { reservePrice: estimateLow } : {}),
  } satisfies IntakeRecord;
}

/** A lot's bids from intake (an auction that started and is not timed), spread between its start and its end (or now). */
function* bidRecords(
  o: CatalogueOptions,
  rnd: Rnd,
  { lotId, startingPrice, startTime, lotEnd }: { lotId: number; startingPrice: number; startTime: string; lotEnd: string },
): Generator<IntakeRecord> {
  const bids = rnd.int(0, Math.round((o.bidsPerLot ?? 2) * 2));
  let amount = startingPrice;
  const placedFrom = Date.parse(startTime);
  const placedTo = Math.min(Date.parse(lotEnd), o.now.getTime());
  for (let b = 1; b <= bids; b++) {
    amount += Math.max(100, Math.round((amount * 0.1) / 100) * 100);
    const placedAt = new Date(placedFrom + ((placedTo - placedFrom) * b) / (bids + 1)).toISOString();
    yield {
      kind: 'bid',
      tenant: o.tenant,
      lotId,
      bidId: `${lotId}-${b}`,
      amount,
      bidType: b % 3 === 0 ? 'absentee' : 'online',
      placedAt,
    };
  }
}
