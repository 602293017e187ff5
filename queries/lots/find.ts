import { NotFoundError } from '../../src/errors.ts';
import type { Collection, Filter, TenantScope } from '../../src/ports/read-models.ts';
import { type LotDoc, catalogueLots } from '../../projections/catalogue/index.ts';

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
