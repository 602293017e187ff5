// The texts a zod schema takes, found by walking it (zod 4: `schema._zod.def`): for specs that send a bad text into
// every place an operation or an intake kind takes one, so that a new one is covered without a line of its own.
import type { z } from 'zod';
import { markedAsLines } from '../../src/text/holds-lines.ts';

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;
export type Segment = string | number;

/** A schema under its wrappers (optional, nullable, default, pipe, ...). */
export function inner(schema: Schema): Schema {
  const def = schema._zod.def as Def;
  if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type))
    return inner(def.innerType as Schema);
  if (def.type === 'pipe') return inner(def.in as Schema);
  return schema;
}

/** Whether a schema, or a wrapper around it, is marked as holding lines. */
function linesIn(schema: Schema): boolean {
  if (markedAsLines(schema)) return true;
  const def = schema._zod.def as Def;
  const wrapped = (def.innerType ?? (def.type === 'pipe' ? def.in : undefined)) as Schema | undefined;
  return wrapped ? linesIn(wrapped) : false;
}

/** Where a body holds texts: each string's path (and whether it holds lines), and each map's path (where a key goes). */
export function textSlots(schema: Schema, path: Segment[] = []): Array<{ path: Segment[]; key: boolean; lines?: boolean }> {
  const def = inner(schema)._zod.def as Def;
  switch (def.type) {
    case 'string':
      return [{ path, key: false, lines: linesIn(schema) }];
    case 'object':
      return Object.entries(def.shape as Record<string, Schema>).flatMap(([k, s]) => textSlots(s, [...path, k]));
    case 'array':
      return textSlots(def.element as Schema, [...path, 0]);
    case 'record':
      return [{ path, key: true }, ...textSlots(def.valueType as Schema, [...path, 'k'])];
    case 'union': {
      const slots = (def.options as Schema[]).flatMap((o) => textSlots(o, path));
      return slots.filter((s, i) => slots.findIndex((t) => t.path.join('.') === s.path.join('.') && t.key === s.key) === i);
    }
    default:
      return [];
  }
}

/** A value of a schema, where the operation gives no example body. */
export function sample(schema: Schema): unknown {
  const def = inner(schema)._zod.def as Def;
  switch (def.type) {
    case 'string':
      return 'x';
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>)[0];
    case 'literal':
      return (def.values as unknown[])[0];
    case 'object': {
      const required = Object.entries(def.shape as Record<string, Schema>).filter(
        ([, s]) => !(s as z.ZodType).safeParse(undefined).success,
      );
      return Object.fromEntries(required.map(([k, s]) => [k, sample(s)]));
    }
    case 'union':
      return sample((def.options as Schema[])[0]);
    case 'array':
      return [];
    default:
      return {};
  }
}

/** A copy of `value` with `leaf` at `path` (objects and arrays made on the way). */
export function setAt(value: unknown, path: Segment[], leaf: unknown): unknown {
  if (!path.length) return leaf;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const copy = Array.isArray(value) ? [...(value as unknown[])] : [];
    copy[head] = setAt(copy[head], rest, leaf);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  copy[head] = setAt(copy[head], rest, leaf);
  return copy;
}
