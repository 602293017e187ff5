import { z } from 'zod';

/**
 * Which text fields hold lines: a field is one line unless its schema is marked with `holdsLines`, and then it
 * takes tab, line feed and carriage return (src/text/allowed-characters.ts). The mark is a check that checks
 * nothing, so it stays on the schema through `.max()`, `.trim()`, `.openapi()` and the wrappers around it.
 */
const LINES = z.check<string>(() => undefined);

/** Marks a text schema as holding lines (a message, a description). */
export function holdsLines<S extends z.ZodString>(schema: S): S {
  return schema.check(LINES);
}

/** Whether this schema itself (not a wrapper around it) carries the mark. */
export function markedAsLines(schema: z.core.$ZodType): boolean {
  return (schema._zod.def.checks ?? []).includes(LINES as z.core.$ZodCheck<never>);
}
