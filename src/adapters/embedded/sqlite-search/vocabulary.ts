/**
 * Which index terms a query word matches beyond itself: its prefix and typo candidates, read from a
 * partition's vocabulary (FTS5's `v{pid}`) kept in this process as a radix tree of term -> documents. The
 * weights and the cap are those of the MiniSearch runner (../minisearch/match.ts), so both engines expand
 * a word alike. A copy is reloaded when the partition's text changed, at most as often as keeps reloading
 * under a tenth of the time (a word new to the index is matched exactly at once; as a candidate soon after).
 */
import type Database from 'better-sqlite3';
import SearchableMap from 'minisearch/SearchableMap';
import type { QueryTerm } from '../minisearch/terms.ts';

const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
/** Prefix and typo candidates considered per query term (Typesense: max_candidates). */
const MAX_EXPANSIONS = 50;

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

  /** The query word itself first, then at most MAX_EXPANSIONS candidates, the most frequent. */
  expand(pid: number, version: number, q: QueryTerm): Candidate[] {
    const index = this.terms(pid, version);
    const found = new Map<string, Candidate>();
    const len = q.term.length;
    if (q.prefix) {
      for (const [term, docs] of index.atPrefix(q.term)) {
        const distance = term.length - len;
        if (distance === 0) continue;
        found.set(term, { term, weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), docs });
      }
    }
    if (q.fuzzy > 0) {
      for (const [term, [docs, distance]] of index.fuzzyGet(q.term, q.fuzzy)) {
        if (distance === 0 || found.has(term)) continue;
        found.set(term, { term, weight: (FUZZY_WEIGHT * term.length) / (term.length + distance), docs });
      }
      // Adjacent transpositions count as one typo (Levenshtein counts two).
      for (let i = 0; i + 1 < len; i++) {
        if (q.term[i] === q.term[i + 1]) continue;
        const t = q.term.slice(0, i) + q.term[i + 1] + q.term[i] + q.term.slice(i + 2);
        if (t === q.term || found.has(t)) continue;
        const docs = index.get(t);
        if (docs !== undefined) found.set(t, { term: t, weight: (FUZZY_WEIGHT * t.length) / (t.length + 1), docs });
      }
    }
    let out = [...found.values()];
    if (out.length > MAX_EXPANSIONS) out = out.sort((a, b) => b.docs - a.docs).slice(0, MAX_EXPANSIONS);
    out.unshift({ term: q.term, weight: 1, docs: index.get(q.term) ?? 0 });
    return out;
  }

  forget(pid: number): void {
    this.loaded.delete(pid);
  }
}
