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

// Classes of UTF-16 code units, without the `u` flag: several times faster on text full of emoji than `u` classes.
const CONTROLS = '\\u0000-\\u001F\\u007F-\\u009F';
const CONTROLS_BUT_LINES = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F';
const BMP_NON_CHARACTERS = '\\uFDD0-\\uFDEF\\uFFFE\\uFFFF';
/** U+1FFFE is D83F DFFE, U+2FFFF is D87F DFFF, ... U+10FFFF is DBFF DFFF. */
const ASTRAL_HIGHS = Array.from({ length: 16 }, (_, plane) => `\\u${(0xd83f + plane * 0x40).toString(16).toUpperCase()}`).join('');
const ASTRAL_NON_CHARACTERS = `[${ASTRAL_HIGHS}][\\uDFFE\\uDFFF]`;
/** In a field that holds lines: what no text holds, lone surrogates aside (found apart). */
const REFUSED_IN_LINES = new RegExp(`[${CONTROLS_BUT_LINES}${BMP_NON_CHARACTERS}]|${ASTRAL_NON_CHARACTERS}`);
/** In a single-line field or a key: tab and line breaks too. */
const REFUSED_IN_LINE = new RegExp(`[${CONTROLS}${BMP_NON_CHARACTERS}]|${ASTRAL_NON_CHARACTERS}`);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const REFUSED_ANYWHERE = new RegExp(`${REFUSED_IN_LINE.source}|${LONE_SURROGATE.source}`, 'g');

/** Whether a text has no lone surrogate (String.prototype.isWellFormed, ES2024: native and fast). */
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** The first character a text may not hold, or null. */
function firstRefused(text: string, lines: boolean): string | null {
  const found = (lines ? REFUSED_IN_LINES : REFUSED_IN_LINE).exec(text);
  const lone = wellFormed(text) ? null : LONE_SURROGATE.exec(text);
  const first = found && (!lone || found.index < lone.index) ? found : lone;
  return first ? first[0] : null;
}

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
  const found = firstRefused(text, lines);
  if (!found) return null;
  const what = named(found);
  return /^a (tab|line break)/.test(what) ? `must not hold ${what}: the field holds one line` : `must not hold ${what}`;
}

/** Why a key may not be taken, or null when it may. */
export function keyProblem(key: string): string | null {
  if (key === '') return 'a key must not be empty';
  if (key.startsWith('$')) return 'a key must not start with $';
  const found = firstRefused(key, false);
  return found && `a key must not hold ${named(found)}`;
}

/** A text as it may be named in an answer or a log: each refused character written as `\u{…}`, at most 100 characters. */
export function printable(text: string): string {
  return text.slice(0, 100).replace(REFUSED_ANYWHERE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}
