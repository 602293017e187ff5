/**
 * One search request as one SQL statement over a partition: the FTS5 MATCH of every query word (AND), each
 * word as itself OR its prefix and typo candidates (vocabulary.ts); the filter on the documents' columns;
 * then, over those matches, the page of hits, the total and the facet counts. Ranking: the documents
 * matching every word as typed first (as Typesense ranks fewer typos first), then FTS5's BM25 with the
 * `queryBy` fields weighted by position (first 3, last 1), then id.
 */
import type Database from 'better-sqlite3';
import type { SearchFilter, SearchRequest, SearchResult } from '../../../ports/search.ts';
import { checkSearchRequest, fieldBoost } from '../minisearch/filters.ts';
import { isIntField, type CompiledSpec } from '../minisearch/spec.ts';
import { queryTerms, tokenizeQuery } from '../minisearch/terms.ts';
import { column } from './store.ts';
import type { Vocabularies } from './vocabulary.ts';

/** Characters FTS5's unicode61 tokenizer keeps in a token; a word without any matches nothing. */
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

const phrase = (term: string) => `"${term.replace(/"/g, '""')}"`;

type Param = string | number;

/** The filter's conditions as SQL over `d.` columns, with their parameters. */
function whereOf(c: CompiledSpec, filter: SearchFilter, skip: string | null, params: Param[]): string[] {
  const out: string[] = [];
  const coerce = (name: string, v: unknown): Param => {
    const field = c.fields.get(name)!;
    if (isIntField(field) && typeof v === 'string' && v.trim() !== '' && !isNaN(Number(v))) return Number(v);
    if (field.type === 'bool') return v === true || v === 'true' ? 1 : v === false || v === 'false' ? 0 : String(v);
    return typeof v === 'number' ? v : String(v);
  };
  for (const [name, cond] of Object.entries(filter)) {
    if (name === skip) continue;
    const field = c.fields.get(name)!;
    const col = `d.${column(name)}`;
    const listed = field.type === 'string[]';
    if (typeof cond !== 'object') {
      params.push(coerce(name, cond));
      out.push(listed ? `EXISTS (SELECT 1 FROM json_each(${col}) WHERE value = ?)` : `${col} = ?`);
      continue;
    }
    const ranges: Array<[keyof typeof cond, string]> = [
      ['gt', '>'],
      ['gte', '>='],
      ['lt', '<'],
      ['lte', '<='],
    ];
    for (const [op, sql] of ranges) {
      const v = cond[op];
      if (v === undefined) continue;
      params.push(v as number);
      out.push(`${col} ${sql} ?`);
    }
    if (cond.in !== undefined) {
      const values = cond.in.map((v) => coerce(name, v));
      params.push(...values);
      const marks = values.map(() => '?').join(', ') || 'NULL';
      out.push(listed ? `EXISTS (SELECT 1 FROM json_each(${col}) WHERE value IN (${marks}))` : `${col} IN (${marks})`);
    }
  }
  return out;
}

export interface PartitionRef {
  pid: number;
  version: number;
}

/** Prepared statements by SQL text: a handful of shapes recur (filters and facets vary little; lookups per search). */
export class StatementCache {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {}
  get(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      if (this.cache.size >= 500) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(sql, (s = this.db.prepare(sql)));
    }
    return s;
  }
  clear(): void {
    this.cache.clear();
  }
}

export function searchPartition(
  compiled: CompiledSpec,
  partition: PartitionRef | undefined,
  request: SearchRequest,
  /** The open database's statements and vocabularies (null: no file yet, so nothing matches). */
  tools: { statements: StatementCache; vocabularies: Vocabularies } | null,
): SearchResult {
  const { page, perPage } = request;
  checkSearchRequest(compiled, request);
  const facetBy = request.facetBy ?? [];
  const filter = request.filter ?? {};

  const result: SearchResult = { found: 0, hits: [], facets: {} };
  for (const f of facetBy) result.facets[f] = [];
  const words = queryTerms(tokenizeQuery(request.q));
  if (!partition || !tools || words.length === 0 || words.some((w) => !TOKEN_CHAR.test(w.term))) return result;

  const { pid } = partition;
  const expanded = words.map((w) => tools.vocabularies.expand(pid, partition.version, w));
  const fields = `{${request.queryBy.map((f) => `"${f.replace(/"/g, '""')}"`).join(' ')}}`;
  const match = `${fields} : ${expanded.map((cands) => `(${cands.map((c) => phrase(c.term)).join(' OR ')})`).join(' AND ')}`;
  const typed = expanded.some((cands) => cands.length > 1) ? `${fields} : ${words.map((w) => phrase(w.term)).join(' AND ')}` : null;
  const n = request.queryBy.length;
  const weights = compiled.searchable.map((f) => {
    const i = request.queryBy.indexOf(f);
    return i < 0 ? 0 : fieldBoost(i, n);
  });

  const params: Param[] = [match];
  const where = whereOf(compiled, filter, compiled.partitionField, params);
  const tier = typed ? `CASE WHEN t${pid}.rowid IN (SELECT rowid FROM t${pid} WHERE t${pid} MATCH ?) THEN 0 ELSE 1 END` : '0';
  if (typed) params.splice(0, 0, typed);
  const facetCols = facetBy.map((f, i) => `, d.${column(f)} AS f${i}`).join('');
  const listedFacet = facetBy.map((f) => compiled.fields.get(f)!.type === 'string[]');
  const sql = [
    `WITH m AS MATERIALIZED (SELECT d.id AS id, ${tier} AS tier, -bm25(t${pid}, ${weights.join(', ')}) AS score${facetCols}`,
    `FROM t${pid} JOIN d${pid} d ON d.rowid = t${pid}.rowid WHERE t${pid} MATCH ?${where.map((w) => ' AND ' + w).join('')})`,
    `SELECT 0 AS k, id AS v, score AS n, tier AS t FROM (SELECT id, score, tier FROM m ORDER BY tier, score DESC, id LIMIT ? OFFSET ?)`,
    `UNION ALL SELECT 1, NULL, count(*), NULL FROM m`,
    ...facetBy.map((_, i) =>
      listedFacet[i]
        ? `UNION ALL SELECT ${i + 2}, j.value, count(DISTINCT m.id), NULL FROM m, json_each(m.f${i}) j GROUP BY j.value`
        : `UNION ALL SELECT ${i + 2}, f${i}, count(*), NULL FROM m WHERE f${i} IS NOT NULL GROUP BY f${i}`,
    ),
  ].join('\n');
  params.push(perPage, (page - 1) * perPage);
  const rows = tools.statements
    .get(sql)
    .raw()
    .all(...params) as Array<[number, string | number | null, number, number | null]>;
  const facets: Array<Array<{ key: string | number; count: number }>> = facetBy.map(() => []);
  const hits: Array<{ id: string; score: number; tier: number }> = [];
  for (const [k, v, num, tier] of rows) {
    if (k === 0) hits.push({ id: String(v), score: num, tier: tier ?? 0 });
    else if (k === 1) result.found = num;
    else facets[k - 2].push({ key: v!, count: num });
  }
  // The page's order again (a compound SELECT does not promise to keep its first part's).
  hits.sort((a, b) => a.tier - b.tier || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  result.hits = hits.map(({ id, score }) => ({ id, score }));
  facetBy.forEach((f, i) => {
    const field = compiled.fields.get(f)!;
    const numeric = isIntField(field);
    const entries = field.type === 'bool' ? facets[i].map((e) => ({ ...e, key: e.key === 1 ? 'true' : 'false' })) : facets[i];
    entries.sort((a, b) => {
      if (a.count !== b.count) return b.count - a.count;
      if (numeric) return Number(a.key) - Number(b.key);
      const x = String(a.key);
      const y = String(b.key);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    result.facets[f] = entries.map((e) => ({ value: String(e.key), count: e.count }));
  });
  return result;
}
