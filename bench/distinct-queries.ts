/**
 * Search queries that are all different (after folding), for the bench's uncached search load: no answer
 * kept by the response cache can serve one of them. Made from the words the generated catalogue is written
 * in (app/seed/vocabulary.ts), so they find lots as a visitor's words would: an object with one to three of
 * its adjective, material, period, place or condition, in en, sv or de; a fifth with one typo (two letters
 * swapped, or one replaced), a fifth ending in a prefix of 3–5 letters. Deterministic for a seed.
 */
import { adjectives, conditions, materials, objects, periods, places, type Tri } from '../app/seed/vocabulary.ts';
import { prng } from '../app/seed/generator.ts';
import { foldText } from '../src/text/fold.ts';

export interface DistinctQuery {
  lang: 'en' | 'sv' | 'de';
  q: string;
}

const LANGS = ['en', 'sv', 'de'] as const;
const EXTRAS: Tri[][] = [adjectives, materials, periods, places, conditions];

/** `count` distinct queries (fewer only if the vocabulary runs out, which it does not below ~500k). */
export function distinctQueries(count: number, seed = 7): DistinctQuery[] {
  const random = prng(seed).next;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const seen = new Set<string>();
  const out: DistinctQuery[] = [];
  let attempts = 0;
  while (out.length < count && attempts++ < count * 50) {
    const lang = pick(LANGS);
    const words: string[] = [pick(objects)[lang]];
    const extras = 1 + Math.floor(random() * 3) - (random() < 0.25 ? 1 : 0);
    const groups = [...EXTRAS].sort(() => random() - 0.5).slice(0, extras);
    for (const group of groups) words.push(pick(group)[lang]);
    words.sort(() => random() - 0.5);
    let q = words.join(' ');
    const variant = random();
    if (variant < 0.2) q = typo(q, random);
    else if (variant < 0.4) q = prefixed(q, random);
    const key = `${lang}\n${foldText(q).replace(/\s+/g, ' ').trim()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ lang, q });
  }
  return out;
}

/** One typo in one word of 5 letters or more (letters only): two neighbours swapped, or one letter replaced. */
function typo(q: string, random: () => number): string {
  const words = q.split(' ');
  const long = words.map((w, i) => [w, i] as const).filter(([w]) => w.length >= 5 && /^\p{L}+$/u.test(w));
  if (long.length === 0) return q;
  const [word, index] = long[Math.floor(random() * long.length)];
  const at = 1 + Math.floor(random() * (word.length - 2));
  const chars = [...word];
  if (random() < 0.5) [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]];
  else chars[at] = 'aeiourstln'[Math.floor(random() * 10)];
  words[index] = chars.join('');
  return words.join(' ');
}

/** The last word cut to 3–5 letters (as typed so far). */
function prefixed(q: string, random: () => number): string {
  const words = q.split(' ');
  const last = words[words.length - 1];
  if (last.length <= 3) return q;
  words[words.length - 1] = last.slice(0, Math.min(last.length - 1, 3 + Math.floor(random() * 3)));
  return words.join(' ');
}
