/**
 * The SQLite file of the FTS5 lot index: its bookkeeping tables, and one pair of tables per partition
 * (collection, generation, tenant, partition value): `d{pid}` holds the documents with their filter and
 * facet fields as typed columns, `t{pid}` the FTS5 index of their folded searchable text (contentless:
 * the text is kept once, in the document), `v{pid}` its vocabulary. A collection's live generation is a
 * row; a rebuild fills the next generation beside it and swaps by changing that row.
 */
import type Database from 'better-sqlite3';
import type { SearchFieldSpec } from '../../../ports/search.ts';
import type { CompiledSpec } from '../minisearch/spec.ts';

export interface PartitionRow {
  pid: number;
  tenant: string;
  value: string;
  /** Bumped when the partition's text changes: tells readers their vocabulary may be stale. */
  version: number;
}

export function createBookkeeping(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS collections (name TEXT PRIMARY KEY, hash TEXT NOT NULL, spec TEXT NOT NULL,
      partition_field TEXT, generation INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS partitions (pid INTEGER PRIMARY KEY, collection TEXT NOT NULL,
      generation INTEGER NOT NULL, tenant TEXT NOT NULL, value TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
      UNIQUE (collection, generation, tenant, value));
  `);
}

/** The column of a non-text field in `d{pid}` (quoted: field names are the spec's). */
export const column = (field: string) => `"f_${field.replace(/"/g, '""')}"`;

/** Fields kept as columns: every field that is not only searchable text. */
export function columnFields(c: CompiledSpec): SearchFieldSpec[] {
  return c.spec.fields.filter((f) => !f.searchable || f.facet);
}

export function createPartitionTables(db: Database.Database, c: CompiledSpec, pid: number): void {
  const cols = columnFields(c).map(
    (f) => `${column(f.name)} ${f.type === 'int32' || f.type === 'int64' || f.type === 'bool' ? 'INTEGER' : 'TEXT'}`,
  );
  const text = c.searchable.map((f) => `"${f.replace(/"/g, '""')}"`).join(', ');
  db.exec(`
    CREATE TABLE d${pid} (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL${cols.map((x) => ', ' + x).join('')});
    CREATE VIRTUAL TABLE t${pid} USING fts5(${text}, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
    CREATE VIRTUAL TABLE v${pid} USING fts5vocab(t${pid}, 'row');
  `);
}

export function dropPartitionTables(db: Database.Database, pid: number): void {
  db.exec(`DROP TABLE IF EXISTS v${pid}; DROP TABLE IF EXISTS t${pid}; DROP TABLE IF EXISTS d${pid};`);
  db.prepare('DELETE FROM partitions WHERE pid = ?').run(pid);
}

/** Tables a statement may name: only ones this module created. */
export function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table') AND name = ?").get(name) !== undefined;
}
