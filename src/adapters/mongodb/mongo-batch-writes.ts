/** What a batch of read-model writes comes to on MongoDB: bulkWrites by physical collection, sizes checked. */
import type { AnyBulkWriteOperation } from 'mongodb';
import type { WriteOp } from '../../ports/read-models.ts';
import { checkDocumentSize } from './document-size.ts';
import { storedId, toStored, type StoredDoc } from './filter.ts';

/** The bulkWrites of a batch, by physical collection, in order; every document's size checked (none is sent yet). */
export function writesOf(ops: WriteOp[], physicalOf: (name: string) => string): Map<string, AnyBulkWriteOperation<StoredDoc>[]> {
  const byCollection = new Map<string, AnyBulkWriteOperation<StoredDoc>[]>();
  for (const op of ops) {
    const physical = physicalOf(op.collection);
    let list = byCollection.get(physical);
    if (!list) byCollection.set(physical, (list = []));
    if (op.op === 'put') {
      const doc = toStored(op.tenant, op.doc);
      checkDocumentSize(op.collection, op.doc._id, doc);
      list.push({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } });
    } else {
      list.push({ deleteOne: { filter: { _id: storedId(op.tenant, op.id) } } });
    }
  }
  return byCollection;
}
