/** What a batch of read-model writes comes to on PostgreSQL: each document's last write (pg-documents.ts). */
import type { WriteOp } from '../../ports/read-models.ts';

/** A batch's last write of each document, by collection: the deletes and the puts (in the batch's order). */
export function lastWrites(ops: WriteOp[]): Map<string, { deletes: string[][]; puts: Array<[string, string, unknown]> }> {
  const byCollection = new Map<string, Map<string, WriteOp>>();
  for (const op of ops) {
    let last = byCollection.get(op.collection);
    if (!last) byCollection.set(op.collection, (last = new Map()));
    const key = JSON.stringify([op.tenant, op.op === 'put' ? op.doc._id : op.id]);
    last.delete(key); // the later write goes to the end, keeping the batch's order
    last.set(key, op);
  }
  const writes = new Map<string, { deletes: string[][]; puts: Array<[string, string, unknown]> }>();
  for (const [name, last] of byCollection) {
    const deletes: string[][] = [];
    const puts: Array<[string, string, unknown]> = [];
    for (const op of last.values()) {
      if (op.op === 'delete') deletes.push([op.tenant, op.id]);
      else puts.push([op.tenant, op.doc._id, op.doc]);
    }
    writes.set(name, { deletes, puts });
  }
  return writes;
}
