/**
 * The service's one rule for matching text regardless of case and accents. Everything that compares words
 * folds both sides with it: the search index (its terms and the query's), the catalogue's stored sort titles
 * and attribute values (`SortTitle`, `Meta`) and the filters that compare with them. Two rules would let
 * "Größe" be found by "grosse" in one place and only by "große" in another.
 *
 * The rule: lower-case; decompose (NFD) and drop the combining diacritical marks (U+0300-U+036F), so "é" is
 * "e" and "ö" is "o"; then the letters that are not a base letter plus a mark but are written as one in
 * other languages: ß -> ss, æ -> ae, œ -> oe, ø -> o, ł -> l, đ/ð -> d, þ -> th, ı -> i. Marks outside that
 * block stay: in Indic and other scripts they are part of the letter, not an accent.
 *
 * Changing the rule changes stored values: the catalogue and attributes read models and the search index
 * must then be rebuilt (`npm run rebuild -- catalogue`, `attributes`, `lot-search`).
 */

const EXTRA: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};
const EXTRA_RE = /[ßæœøłđðþı]/g;
const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING_MARKS = /[\u0300-\u036f]/g;

/** "Café" -> "cafe", "Ölstuga" -> "olstuga", "Größe" -> "grosse", "Ærø" -> "aero". */
export function foldText(text: string): string {
  const lower = text.toLowerCase();
  // Most words are ASCII: skip the normalisation for them (the index folds every term it sees).
  if (!NON_ASCII.test(lower)) return lower;
  return lower
    .normalize('NFD')
    .replace(COMBINING_MARKS, '')
    .replace(EXTRA_RE, (c) => EXTRA[c] ?? c);
}
