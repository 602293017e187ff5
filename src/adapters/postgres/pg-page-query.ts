/** The SQL of a read-model page on PostgreSQL: the matching documents, sorted and paged, as one jsonb array. */
import type { FindOptions } from '../../ports/read-models.ts';
import { sortToSql } from './pg-filter.ts';

/**
 * A scalar subquery giving the documents of `table` that meet `condition`, in `options`' order and page; the
 * page's bounds are added to `params`.
 */
export function pageSql(table: string, condition: string, options: FindOptions, params: unknown[]): string {
  const paged = options.limit !== undefined || !!options.skip;
  // A page without a sort is still read in a stable order (by id).
  const order = sortToSql(options.sort) || (paged ? 'id' : '');
  let page = '';
  if (options.limit !== undefined) {
    params.push(options.limit);
    page += ` LIMIT $${params.length}::bigint`;
  }
  if (options.skip) {
    params.push(options.skip);
    page += ` OFFSET $${params.length}::bigint`;
  }
  const rows = order
    ? `SELECT doc, row_number() OVER (ORDER BY ${order}) AS n FROM ${table} WHERE ${condition} ORDER BY ${order}${page}`
    : `SELECT doc, 0 AS n FROM ${table} WHERE ${condition}${page}`;
  return `SELECT coalesce(jsonb_agg(doc ORDER BY n), '[]'::jsonb) FROM (${rows}) AS page`;
}
