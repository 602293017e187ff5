/**
 * The service's one rule of which characters a text it takes may hold, so that no text reaches a store that
 * refuses it (PostgreSQL's `jsonb` refuses U+0000 and lone surrogates) nor one that would show it mangled. Every
 * door applies it: the HTTP shell's input (src/http/input.ts, multipart.ts) and intake (app/features/intake.ts).
 *
 * A text holds no U+0000–U+001F (but tab, line feed and carriage return in a field that holds lines: see
 * holdsLines), no U+007F–U+009F, no lone surrogate and no non-character (U+FDD0–U+FDEF and every code point
 * ending in FFFE or FFFF). Anything else is taken: emoji, right-to-left marks, combining marks.
 *
 * A key (a name in a map the service stores: `ExtraData`, the interface dictionary, a record's languages) holds
 * no control at all, is not empty and does not start with `$` (MongoDB's reserved operator names). A `.` is
 * taken: such keys are stored as map entries, never used as a field path (the names that are, attribute names and
 * `MetaDataProperties[Name]`, are letters, digits and `_` by their own schemas).
 */

/** Code points a text never holds, whatever its field: as a character class of a `u` regex. */
const NEVER =
  '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\uFDD0-\\uFDEF\\p{Cs}' +
  Array.from(
    { length: 17 },
    (_, plane) => `\\u{${(plane * 0x10000 + 0xfffe).toString(16)}}\\u{${(plane * 0x10000 + 0xffff).toString(16)}}`,
  ).join('');

/** In a field that holds lines: what no text holds. */
const REFUSED_IN_LINES = new RegExp(`[${NEVER}]`, 'u');
/** In a single-line field or a key: tab and line breaks too. */
const REFUSED_IN_LINE = new RegExp(`[${NEVER}\\t\\n\\r]`, 'u');

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/** A refused character, named: `the control character U+0000`, `a lone surrogate (U+D800)`, ... */
function named(char: string): string {
  const codePoint = char.codePointAt(0)!;
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return `a lone surrogate (${hex(codePoint)}), which is not Unicode text`;
  if (codePoint >= 0xfdd0) return `the non-character ${hex(codePoint)}`;
  if (codePoint === 0x09) return 'a tab (U+0009)';
  if (codePoint === 0x0a || codePoint === 0x0d) return `a line break (${hex(codePoint)})`;
  return `the control character ${hex(codePoint)}`;
}

/**
 * Why a text may not be taken (its first refused character), or null when it may. `lines`: the field holds
 * lines, so tab, line feed and carriage return are taken.
 */
export function textProblem(text: string, lines = false): string | null {
  const found = (lines ? REFUSED_IN_LINES : REFUSED_IN_LINE).exec(text);
  if (!found) return null;
  const what = named(found[0]);
  return /^a (tab|line break)/.test(what) ? `must not hold ${what}: the field holds one line` : `must not hold ${what}`;
}

/** Why a key may not be taken, or null when it may. */
export function keyProblem(key: string): string | null {
  if (key === '') return 'a key must not be empty';
  if (key.startsWith('$')) return 'a key must not start with $';
  const found = REFUSED_IN_LINE.exec(key);
  return found && `a key must not hold ${named(found[0])}`;
}

/** A text as it may be named in an answer or a log: each refused character written as `\u{…}`, at most 100 characters. */
export function printable(text: string): string {
  return text.slice(0, 100).replace(new RegExp(`[${NEVER}\\t\\n\\r]`, 'gu'), (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}
