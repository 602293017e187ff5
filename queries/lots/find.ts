import { NotFoundError } from '../../src/errors.ts';
import type { Collection, Filter, TenantScope } from '../../src/ports/read-models.ts';
import { biddingSettings, type LotDoc, catalogueLots } from '../../projections/catalogue/index.ts';
import type { TenantContext } from '../../src/http/operation.ts';
import { DEFAULT_INCREMENTS, type IncrementRow } from '../../commands/bidding/rules.ts';
import { readAuctionTypes } from '../auctions/find.ts';
import { toLotDto, type LotDto } from './dto.ts';

/** The lot if it is catalogued in the caller's tenant; 404 otherwise (another tenant's id included). */
export async function findLot(db: TenantScope, id: number): Promise<LotDoc> {
  const doc = await catalogueLots(db).findById(String(id));
  if (!doc) throw new NotFoundError(`Lot ${id} does not exist.`);
  return doc;
}

/**
 * When the first lot of those matching `filter` that is still open closes (epoch ms; Infinity when none
 * is open): a list of them changes by itself then (one leaves the open lots, or shows IsClosed).
 */
export async function nextClosing(lots: Collection<LotDoc>, filter: Filter, nowIso: string): Promise<number> {
  const [first] = await lots.find({ ...filter, EndTime: { $gt: nowIso } }, { sort: [['EndTime', 1]], limit: 1 });
  return first ? Date.parse(first.EndTime) : Number.POSITIVE_INFINITY;
}

/** Maps lots to DTOs for one request: its language and clock, and the auction types read once. */
export async function lotMapper(ctx: TenantContext): Promise<(doc: LotDoc) => LotDto> {
  const [types, increments] = await Promise.all([
    ctx.derived('auction-types', () => readAuctionTypes(ctx.db)),
    ctx.derived('increments', () => incrementsOf(ctx.db)),
  ]);
  const nowIso = ctx.now.toISOString();
  return (doc) =>
    toLotDto(doc, ctx.language, ctx.tenant.DefaultLanguage, nowIso, types.typeOf(doc.AuctionId), {
      mode: types.biddingModeOf(doc.AuctionId),
      increments,
    });
}

/** The tenant's increment table (the default one when it configured none). */
export async function incrementsOf(db: TenantScope): Promise<readonly IncrementRow[]> {
  return (await biddingSettings(db))?.Increments ?? DEFAULT_INCREMENTS;
}
