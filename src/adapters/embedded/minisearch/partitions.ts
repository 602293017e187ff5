/**
 * The partitions of one collection, and which partition each write reaches. A partition is one engine per
 * (tenant, value of the collection's partition field); without a partition field, one per tenant (value
 * ''). A search reads a single partition, so tenant isolation holds by construction.
 *
 * Identity: an id is unique within a partition, not across it: the same lot id is one document per
 * language. upsert replaces the document of that id in the partition its partition value names; update
 * reaches the partition named by the patch or, without a partition value, every partition of the tenant
 * holding the id; delete removes the id from every partition of the tenant.
 */
import type { SearchDocument } from '../../../ports/search.ts';
import { Engine } from './engine.ts';
import type { CompiledSpec } from './spec.ts';

export interface Partition {
  tenant: string;
  value: string;
  engine: Engine;
  /** Changed since it was last written. */
  dirty: boolean;
  /** File (in the index's folder) holding its last written state, listed by the committed or an upcoming manifest. */
  file: string | null;
}

/** tenant -> partition value -> partition. */
export class PartitionSet {
  readonly tenants = new Map<string, Map<string, Partition>>();

  constructor(
    readonly compiled: CompiledSpec,
    private readonly onChange: () => void,
  ) {}

  *all(): IterableIterator<Partition> {
    for (const byValue of this.tenants.values()) yield* byValue.values();
  }

  get(tenant: string, value: string): Partition | undefined {
    return this.tenants.get(tenant)?.get(value);
  }

  private obtain(tenant: string, value: string): Partition {
    let byValue = this.tenants.get(tenant);
    if (!byValue) this.tenants.set(tenant, (byValue = new Map()));
    let p = byValue.get(value);
    if (!p) {
      p = { tenant, value, engine: new Engine(this.compiled), dirty: true, file: null };
      byValue.set(value, p);
    }
    return p;
  }

  /** Adds a loaded partition. */
  put(p: Partition): void {
    let byValue = this.tenants.get(p.tenant);
    if (!byValue) this.tenants.set(p.tenant, (byValue = new Map()));
    byValue.set(p.value, p);
  }

  private valueOf(doc: SearchDocument): string {
    return partitionValue(this.compiled, doc);
  }

  /**
   * The partitions a patch or a delete reaches: an id is unique within a partition (the same lot id lives
   * once per language), so without a partition value every partition of the tenant holding the id.
   */
  private holding(tenant: string, id: string, value: string | null): Partition[] {
    const byValue = this.tenants.get(tenant);
    if (!byValue) return [];
    if (value !== null) {
      const p = byValue.get(value);
      return p?.engine.has(id) ? [p] : [];
    }
    const out: Partition[] = [];
    for (const p of byValue.values()) if (p.engine.has(id)) out.push(p);
    return out;
  }

  private touch(p: Partition): void {
    p.dirty = true;
    this.onChange();
  }

  /**
   * Inserts, or replaces the document with the same id in the same partition. Per partition, in order: the
   * documents it does not hold yet are added together (Engine.insertAll, the same result as one by one), a
   * replaced one on its own in its turn.
   */
  upsert(tenant: string, docs: SearchDocument[]): void {
    const values = docs.map((d) => {
      checkDoc(d);
      return this.valueOf(d);
    });
    const runs = new Map<Partition, { docs: SearchDocument[]; ids: Set<string> }>();
    const addRun = (p: Partition) => {
      const run = runs.get(p);
      if (!run || run.docs.length === 0) return;
      p.engine.insertAll(run.docs);
      runs.set(p, { docs: [], ids: new Set() });
    };
    docs.forEach((doc, i) => {
      const target = this.obtain(tenant, values[i]);
      let run = runs.get(target);
      if (!run) runs.set(target, (run = { docs: [], ids: new Set() }));
      if (target.engine.has(doc.id) || run.ids.has(doc.id)) {
        addRun(target);
        target.engine.removeId(doc.id);
        target.engine.insert(cleanDoc(doc));
      } else {
        run.docs.push(cleanDoc(doc));
        run.ids.add(doc.id);
      }
      this.touch(target);
    });
    for (const p of runs.keys()) addRun(p);
  }

  /**
   * Merges the fields of each patch into the document with its id: in the partition the patch names, or in
   * every partition of the tenant that holds the id when the patch has no partition value. Unknown ids are
   * ignored; the partition value itself cannot be changed by an update (upsert and delete instead).
   */
  update(tenant: string, docs: SearchDocument[]): void {
    docs.forEach(checkDoc);
    const pf = this.compiled.partitionField;
    for (const patch of docs) {
      const named = pf === null ? '' : patch[pf];
      const value = named === undefined || named === null ? null : String(named);
      for (const p of this.holding(tenant, patch.id, value)) {
        const old = p.engine.get(patch.id)!;
        const merged: SearchDocument = { ...old };
        for (const [k, v] of Object.entries(patch)) if (v !== undefined) merged[k] = Array.isArray(v) ? [...v] : v;
        if (pf !== null) merged[pf] = old[pf];
        const textChanged = this.compiled.searchable.some((f) => textOf(old[f]) !== textOf(merged[f]));
        if (textChanged) {
          p.engine.removeId(patch.id);
          p.engine.insert(merged);
        } else {
          p.engine.setStored(merged);
        }
        this.touch(p);
      }
    }
  }

  /** Deletes the ids from every partition of the tenant; unknown ids are ignored. */
  delete(tenant: string, ids: string[]): void {
    for (const id of ids) {
      for (const p of this.holding(tenant, id, null)) {
        p.engine.removeId(id);
        this.touch(p);
      }
    }
  }

  /**
   * Re-indexes every partition under a new spec, from the stored documents. When the partition field
   * changed too, the documents are upserted again, each into the partition its value names.
   */
  reindex(compiled: CompiledSpec): PartitionSet {
    const next = new PartitionSet(compiled, this.onChange);
    if (compiled.partitionField === this.compiled.partitionField) {
      for (const p of this.all()) {
        const engine = new Engine(compiled);
        for (const d of p.engine.docs()) engine.insert(d);
        next.put({ tenant: p.tenant, value: p.value, engine, dirty: true, file: null });
      }
    } else {
      for (const p of this.all()) next.upsert(p.tenant, p.engine.docs());
    }
    this.onChange();
    return next;
  }
}

/** The value of the collection's partition field a document names ('' without one); refused when not a scalar. */
export function partitionValue(compiled: CompiledSpec, doc: SearchDocument): string {
  const pf = compiled.partitionField;
  if (pf === null) return '';
  const v = doc[pf];
  if (v === undefined || v === null || Array.isArray(v)) {
    throw new Error(`collection ${compiled.spec.name}: document ${doc.id} needs a scalar ${pf}`);
  }
  return String(v);
}

/** Refuses a document without a string id (every adapter's writes). */
export function checkDoc(d: SearchDocument): void {
  if (!d || typeof d.id !== 'string' || d.id.length === 0) throw new Error('search document needs a string id');
}

/** The document without undefined fields, its arrays copied (what an index keeps of it). */
export function cleanDoc(d: SearchDocument): SearchDocument {
  const out: SearchDocument = { id: d.id };
  for (const [k, v] of Object.entries(d)) if (v !== undefined) out[k] = Array.isArray(v) ? [...v] : v;
  return out;
}

/** A field's text, to tell whether an update changed what is searched. */
export function textOf(v: SearchDocument[string]): string {
  if (v === undefined || v === null) return '';
  return Array.isArray(v) ? v.join('\u0000') : String(v);
}
