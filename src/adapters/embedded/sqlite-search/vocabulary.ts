/**
 * Which index terms a query word matches beyond itself: its prefix and typo candidates, read from a
 * partition's vocabulary (FTS5's `v{pid}`) kept in this process as a radix tree of term -> documents, expanded
 * as the MiniSearch runner expands a word (../minisearch/terms.ts). A copy is reloaded when the partition's
 * text changed, at most as often as keeps reloading under a tenth of the time (a word new to the index is
 * matched exactly at once; as a candidate soon after).
 */
import type Database from 'better-sqlite3';
import SearchableMap from 'minisearch/SearchableMap';
import { expansions, type QueryTerm } from '../minisearch/terms.ts';

export interface Candidate {
  term: string;
  weight: number;
  docs: number;
}

interface Loaded {
  version: number;
  loadedAt: number;
  loadMs: number;
  terms: SearchableMap<number>;
}

export class Vocabularies {
  private readonly loaded = new Map<number, Loaded>();

  constructor(private readonly db: Database.Database) {}

  private terms(pid: number, version: number): SearchableMap<number> {
    const now = performance.now();
    const have = this.loaded.get(pid);
    if (have && (have.version === version || now - have.loadedAt < 10 * have.loadMs)) return have.terms;
    const terms = new SearchableMap<number>();
    for (const row of this.db.prepare(`SELECT term, doc FROM v${pid}`).raw().iterate() as IterableIterator<[string, number]>) {
      terms.set(row[0], row[1]);
    }
    const loadMs = performance.now() - now;
    this.loaded.set(pid, { version, loadedAt: performance.now(), loadMs, terms });
    return terms;
  }

  /** The query word itself first (also when the copy does not hold it yet), then its candidates. */
  expand(pid: number, version: number, q: QueryTerm): Candidate[] {
    const index = this.terms(pid, version);
    const out: Candidate[] = expansions(index, q, (docs) => docs).map((e) => ({ term: e.term, weight: e.weight, docs: e.df }));
    out.unshift({ term: q.term, weight: 1, docs: index.get(q.term) ?? 0 });
    return out;
  }

  clear(): void {
    this.loaded.clear();
  }

  forget(pid: number): void {
    this.loaded.delete(pid);
  }
}
