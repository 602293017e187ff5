// The texts of an input read beside its schema: each string checked by the one rule (allowed-characters.ts) as
// one line unless its schema holds lines (holds-lines.ts), and each key of a map that is stored checked as a key.
import type { z } from 'zod';
import type { FieldError } from '../errors.ts';
import { keyProblem, printable, textProblem } from './allowed-characters.ts';
import { markedAsLines } from './holds-lines.ts';

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;

/** The schema under its wrappers (optional, nullable, default, pipe, ...), and whether any of them holds lines. */
function unwrap(schema: Schema | undefined): { schema: Schema | undefined; lines: boolean } {
  let lines = false;
  for (let s = schema; ;) {
    if (!s) return { schema: undefined, lines };
    lines ||= markedAsLines(s);
    const def = s._zod.def as Def;
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'nonoptional':
      case 'readonly':
      case 'catch':
        s = def.innerType as Schema;
        continue;
      case 'pipe':
        s = def.in as Schema;
        continue;
      case 'lazy':
        s = (def.getter as () => Schema)();
        continue;
      default:
        return { schema: s, lines };
    }
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a value checked under a schema gives: each bad text or key, named by its path. */
function visit(schema: Schema | undefined, value: unknown, path: string[], out: FieldError[]): void {
  const { schema: s, lines } = unwrap(schema);
  const def = s?._zod.def as Def | undefined;
  if (def?.type === 'union') return visitUnion(def.options as Schema[], value, path, out);
  if (typeof value === 'string') {
    const problem = textProblem(value, lines);
    if (problem) out.push({ field: path.join('.'), message: problem });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    if (def && def.type !== 'array' && def.type !== 'tuple' && !open(def)) return; // refused by the schema anyway
    value.forEach((item, i) => {
      const element = def?.type === 'array' ? (def.element as Schema) : def?.type === 'tuple' ? elementOfTuple(def, i) : undefined;
      visit(element, item, [...path, String(i)], out);
    });
    return;
  }
  if (!isPlainObject(value)) return;
  if (def?.type === 'object') return visitObject(def, value, path, out);
  if (def?.type === 'record') return visitMap(def.valueType as Schema, value, path, out);
  if (!def || open(def)) visitMap(undefined, value, path, out);
}

/** A schema that takes any value (its texts are then checked as single lines, its keys as keys). */
const open = (def: Def) => def.type === 'any' || def.type === 'unknown' || def.type === 'intersection';

const elementOfTuple = (def: Def, i: number) => (def.items as Schema[])[i] ?? (def.rest as Schema | undefined);

/** An object: its declared fields by their schemas; other keys only when it keeps them (catchall), as a map's. */
function visitObject(def: Def, value: Record<string, unknown>, path: string[], out: FieldError[]): void {
  const shape = def.shape as Record<string, Schema>;
  const catchall = def.catchall as Schema | undefined;
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(shape, key)) visit(shape[key], item, [...path, key], out);
    else if (catchall && catchall._zod.def.type !== 'never') visitEntry(catchall, key, item, path, out);
    // Any other key is dropped by the schema: nothing of it is kept.
  }
}

/** A map: each key checked as a key, each value by the map's value schema. */
function visitMap(valueSchema: Schema | undefined, value: Record<string, unknown>, path: string[], out: FieldError[]): void {
  for (const [key, item] of Object.entries(value)) visitEntry(valueSchema, key, item, path, out);
}

function visitEntry(valueSchema: Schema | undefined, key: string, item: unknown, path: string[], out: FieldError[]): void {
  const problem = keyProblem(key);
  if (problem) out.push({ field: [...path, printable(key)].join('.'), message: problem });
  else visit(valueSchema, item, [...path, key], out);
}

/** A union takes a value when one of its options does: the errors of the option with the fewest. */
function visitUnion(options: Schema[], value: unknown, path: string[], out: FieldError[]): void {
  let fewest: FieldError[] | null = null;
  // An option of another kind than the value (`"*"` beside a list) cannot take it: its texts are the others' to check.
  const fitting = options.filter((option) => mayTake(option, value));
  for (const option of fitting.length ? fitting : options) {
    const found: FieldError[] = [];
    visit(option, value, path, found);
    if (!fewest || found.length < fewest.length) fewest = found;
    if (!found.length) return;
  }
  out.push(...(fewest ?? []));
}

/** Whether a schema could take a value of this kind at all (a list, a map or object, or a single value). */
function mayTake(option: Schema, value: unknown): boolean {
  const def = unwrap(option).schema?._zod.def as Def | undefined;
  if (!def || open(def) || def.type === 'union') return true;
  if (Array.isArray(value)) return def.type === 'array' || def.type === 'tuple';
  if (isPlainObject(value)) return def.type === 'object' || def.type === 'record';
  return def.type !== 'array' && def.type !== 'tuple' && def.type !== 'object' && def.type !== 'record';
}

/**
 * The bad texts and keys of an input under its schema (undefined: any value, every text one line), each named
 * `<where>.<path>` as the validation names fields (`body.FirstName`, `body.ExtraData.key`).
 */
export function textErrors(schema: Schema | undefined, value: unknown, where?: string): FieldError[] {
  const out: FieldError[] = [];
  visit(schema, value, where === undefined ? [] : [where], out);
  return out;
}
