/**
 * A collection's spec, checked and compiled once: its fields by name, the searchable ones in order, the
 * field that partitions it (an option of this adapter, not of the port) and a hash that changes when any of
 * them does. Snapshots record the hash: a partition written under another spec is re-indexed.
 */
import { createHash } from 'node:crypto';
import type { SearchCollectionSpec, SearchFieldSpec } from '../../../ports/search.ts';

export interface CompiledSpec {
  spec: SearchCollectionSpec;
  hash: string;
  fields: Map<string, SearchFieldSpec>;
  searchable: string[];
  /** Splits each tenant's documents into one engine per value of this field (null: one engine per tenant). */
  partitionField: string | null;
}

export function compileSpec(spec: SearchCollectionSpec, partitionField: string | null): CompiledSpec {
  if (!spec.name) throw new Error('search collection needs a name');
  const fields = new Map<string, SearchFieldSpec>();
  for (const f of spec.fields) {
    if (f.name === 'id') throw new Error(`collection ${spec.name}: "id" is implicit, do not declare it`);
    if (fields.has(f.name)) throw new Error(`collection ${spec.name}: field ${f.name} declared twice`);
    if (f.searchable && f.type !== 'string' && f.type !== 'string[]') {
      throw new Error(`collection ${spec.name}: searchable field ${f.name} must be string or string[]`);
    }
    fields.set(f.name, f);
  }
  const searchable = spec.fields.filter((f) => f.searchable).map((f) => f.name);
  if (searchable.length === 0) throw new Error(`collection ${spec.name}: no searchable field`);
  if (partitionField !== null && !fields.has(partitionField)) {
    throw new Error(`collection ${spec.name}: partition field ${partitionField} is not a field`);
  }
  // The same canonical form as when the partition field was part of the spec, so that snapshots written
  // then keep their hash and load without re-indexing.
  const canonical = JSON.stringify({
    name: spec.name,
    fields: spec.fields.map((f) => ({ name: f.name, type: f.type, searchable: !!f.searchable, facet: !!f.facet })),
    partitionField,
  });
  return {
    spec,
    hash: createHash('sha256').update(canonical).digest('hex').slice(0, 16),
    fields,
    searchable,
    partitionField,
  };
}

export function isIntField(field: SearchFieldSpec): boolean {
  return field.type === 'int32' || field.type === 'int64';
}
