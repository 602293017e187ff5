/**
 * Writes of one collection generation: which partition each write reaches (the identity rules of
 * ../minisearch/partitions.ts: an id is unique per partition; an update without the partition value, and
 * every delete, reach each partition of the tenant holding the id) and the rows they change. Callers run
 * each call in one transaction.
 */
import type Database from 'better-sqlite3';
import type { SearchDocument } from '../../../ports/search.ts';
import { foldText } from '../../../text/fold.ts';
import { TOKEN_SPLIT } from '../minisearch/terms.ts';
import type { CompiledSpec } from '../minisearch/spec.ts';
import { checkDoc, cleanDoc, partitionValue, textOf } from '../minisearch/partitions.ts';
import { column, columnFields, createPartitionTables, type PartitionRow } from './store.ts';

type Value = SearchDocument[string];

interface Statements {
  find: Database.Statement<[string], { rowid: number; doc: string }>;
  insert: Database.Statement;
  replace: Database.Statement;
  insertText: Database.Statement;
  deleteText: Database.Statement<[number]>;
  deleteDoc: Database.Statement<[number]>;
}

/** A document's searchable field as the index's text: words split and folded as queries are. */
function indexText(v: Value): string {
  if (v === undefined || v === null) return '';
  const text = Array.isArray(v) ? v.join('\n') : String(v);
  return text
    .split(TOKEN_SPLIT)
    .map(foldText)
    .filter((t) => t.length > 0)
    .join(' ');
}

export class GenerationWriter {
  private readonly statements = new Map<number, Statements>();
  private readonly columns;
  private readonly touched = new Set<number>();

  constructor(
    private readonly db: Database.Database,
    readonly compiled: CompiledSpec,
    readonly generation: number,
  ) {
    this.columns = columnFields(compiled);
  }

  private cell(field: (typeof this.columns)[number], v: Value): string | number | null {
    if (v === undefined || v === null) return null;
    if (field.type === 'bool') return v === true || v === 'true' ? 1 : 0;
    if (field.type === 'int32' || field.type === 'int64') return typeof v === 'number' ? v : Number.isFinite(Number(v)) ? Number(v) : null;
    if (Array.isArray(v)) return JSON.stringify(v);
    return String(v);
  }

  private prepared(pid: number): Statements {
    let s = this.statements.get(pid);
    if (s) return s;
    const cols = this.columns.map((f) => column(f.name));
    const text = this.compiled.searchable.map((f) => `"${f.replace(/"/g, '""')}"`);
    s = {
      find: this.db.prepare(`SELECT rowid, doc FROM d${pid} WHERE id = ?`),
      insert: this.db.prepare(
        `INSERT INTO d${pid} (id, doc${cols.map((c) => ', ' + c).join('')}) VALUES (?, ?${cols.map(() => ', ?').join('')})`,
      ),
      replace: this.db.prepare(`UPDATE d${pid} SET doc = ?${cols.map((c) => `, ${c} = ?`).join('')} WHERE rowid = ?`),
      insertText: this.db.prepare(`INSERT INTO t${pid} (rowid, ${text.join(', ')}) VALUES (?${text.map(() => ', ?').join('')})`),
      deleteText: this.db.prepare(`DELETE FROM t${pid} WHERE rowid = ?`),
      deleteDoc: this.db.prepare(`DELETE FROM d${pid} WHERE rowid = ?`),
    };
    this.statements.set(pid, s);
    return s;
  }

  private partitions(tenant: string): PartitionRow[] {
    return this.db
      .prepare('SELECT pid, tenant, value, version FROM partitions WHERE collection = ? AND generation = ? AND tenant = ?')
      .all(this.compiled.spec.name, this.generation, tenant) as PartitionRow[];
  }

  private obtain(tenant: string, value: string): number {
    const row = this.db
      .prepare('SELECT pid FROM partitions WHERE collection = ? AND generation = ? AND tenant = ? AND value = ?')
      .get(this.compiled.spec.name, this.generation, tenant, value) as { pid: number } | undefined;
    if (row) return row.pid;
    const pid = Number(
      this.db
        .prepare('INSERT INTO partitions (collection, generation, tenant, value) VALUES (?, ?, ?, ?)')
        .run(this.compiled.spec.name, this.generation, tenant, value).lastInsertRowid,
    );
    createPartitionTables(this.db, this.compiled, pid);
    return pid;
  }

  private write(pid: number, rowid: number | null, doc: SearchDocument, textChanged: boolean): void {
    const s = this.prepared(pid);
    const cells = this.columns.map((f) => this.cell(f, doc[f.name]));
    const json = JSON.stringify(doc);
    if (rowid === null) {
      rowid = Number(s.insert.run(doc.id, json, ...cells).lastInsertRowid);
    } else {
      s.replace.run(json, ...cells, rowid);
      if (!textChanged) return;
      s.deleteText.run(rowid);
    }
    s.insertText.run(rowid, ...this.compiled.searchable.map((f) => indexText(doc[f])));
    this.touched.add(pid);
  }

  upsert(tenant: string, docs: SearchDocument[]): void {
    const values = docs.map((d) => {
      checkDoc(d);
      return partitionValue(this.compiled, d);
    });
    docs.forEach((doc, i) => {
      const pid = this.obtain(tenant, values[i]);
      const found = this.prepared(pid).find.get(doc.id);
      this.write(pid, found?.rowid ?? null, cleanDoc(doc), true);
    });
    this.bump();
  }

  update(tenant: string, docs: SearchDocument[]): void {
    docs.forEach(checkDoc);
    const pf = this.compiled.partitionField;
    const partitions = this.partitions(tenant);
    for (const patch of docs) {
      const named = pf === null ? undefined : patch[pf];
      const value = named === undefined || named === null ? null : String(named);
      for (const p of partitions) {
        if (value !== null && p.value !== value) continue;
        const found = this.prepared(p.pid).find.get(patch.id);
        if (!found) continue;
        const old = JSON.parse(found.doc) as SearchDocument;
        const merged: SearchDocument = { ...old };
        for (const [k, v] of Object.entries(patch)) if (v !== undefined) merged[k] = Array.isArray(v) ? [...v] : v;
        if (pf !== null) merged[pf] = old[pf];
        const textChanged = this.compiled.searchable.some((f) => textOf(old[f]) !== textOf(merged[f]));
        this.write(p.pid, found.rowid, merged, textChanged);
      }
    }
    this.bump();
  }

  delete(tenant: string, ids: string[]): void {
    const partitions = this.partitions(tenant);
    for (const id of ids) {
      for (const p of partitions) {
        const s = this.prepared(p.pid);
        const found = s.find.get(id);
        if (!found) continue;
        s.deleteText.run(found.rowid);
        s.deleteDoc.run(found.rowid);
        this.touched.add(p.pid);
      }
    }
    this.bump();
  }

  /** Every partition of this generation, with its documents (a re-index under another spec). */
  *documents(): IterableIterator<{ tenant: string; docs: SearchDocument[] }> {
    const rows = this.db
      .prepare('SELECT pid, tenant FROM partitions WHERE collection = ? AND generation = ?')
      .all(this.compiled.spec.name, this.generation) as Array<{ pid: number; tenant: string }>;
    for (const r of rows) {
      const docs = (this.db.prepare(`SELECT doc FROM d${r.pid} ORDER BY rowid`).all() as Array<{ doc: string }>).map(
        (d) => JSON.parse(d.doc) as SearchDocument,
      );
      yield { tenant: r.tenant, docs };
    }
  }

  forget(pid: number): void {
    this.statements.delete(pid);
  }

  private bump(): void {
    const stmt = this.db.prepare('UPDATE partitions SET version = version + 1 WHERE pid = ?');
    for (const pid of this.touched) stmt.run(pid);
    this.touched.clear();
  }
}
