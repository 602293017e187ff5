import { NotFoundError } from '../../src/errors.ts';
import type { TenantScope } from '../../src/ports/read-models.ts';
import { type LotDoc, catalogueLots } from '../../projections/catalogue/documents.ts';

/** The lot if it is catalogued in the caller's tenant; 404 otherwise (another tenant's id included). */
export async function findLot(db: TenantScope, id: number): Promise<LotDoc> {
  const doc = await catalogueLots(db).findById(String(id));
  if (!doc) throw new NotFoundError(`Lot ${id} does not exist.`);
  return doc;
}
