// The DocumentStore's filter language (src/read-models/filter.ts) compiled into SQLite's SQL, as
// src/adapters/mongodb/filter.ts compiles it for MongoDB; sqlite-documents.ts runs what it returns.
import type { FieldCondition, Filter, Scalar } from '../../ports/read-models.ts';
import { fieldSegments, filterSql, isOperatorCondition, operatorEntries } from '../../read-models/filter.ts';

/** A field's SQL expression, written exactly as in the index definitions (sqlite-documents.ts), which is what lets SQLite use them. */
export function fieldExpr(field: string): string {
  if (field === '_id') return 'id';
  return `json_extract(doc, '$.${fieldSegments(field)
    .map((s) => `"${s}"`)
    .join('.')}')`;
}

function bindable(value: Scalar): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

function conditionSql(field: string, condition: FieldCondition, params: Array<string | number | null>): string {
  const expr = fieldExpr(field);
  if (!isOperatorCondition(condition)) {
    if (condition === null) return `${expr} IS NULL`;
    params.push(bindable(condition));
    return `${expr} = ?`;
  }
  const parts: string[] = [];
  for (const [op, value] of operatorEntries(condition)) {
    switch (op) {
      case '$eq':
        if (value === null) parts.push(`${expr} IS NULL`);
        else {
          parts.push(`${expr} = ?`);
          params.push(bindable(value));
        }
        break;
      case '$ne':
        if (value === null) parts.push(`${expr} IS NOT NULL`);
        else {
          parts.push(`(${expr} IS NULL OR ${expr} <> ?)`);
          params.push(bindable(value));
        }
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const sqlOp = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
        parts.push(`${expr} ${sqlOp} ?`);
        params.push(value);
        break;
      }
      case '$in': {
        if (value.length === 0) parts.push('0');
        else {
          parts.push(`${expr} IN (${value.map(() => '?').join(', ')})`);
          for (const item of value) params.push(bindable(item));
        }
        break;
      }
      case '$exists':
        parts.push(value ? `${expr} IS NOT NULL` : `${expr} IS NULL`);
        break;
      case '$contains':
        parts.push(`instr(${expr}, ?) > 0`);
        params.push(String(value));
        break;
    }
  }
  return parts.length ? parts.join(' AND ') : '1';
}

/** The SQLite compiler of the port's filter language (src/read-models/filter.ts). */
export function filterToSql(filter: Filter, params: Array<string | number | null>): string {
  return filterSql(filter, { condition: (field, condition) => conditionSql(field, condition, params), true: '1', false: '0' });
}
