/**
 * Load and query benchmark of the embedded search index (src/adapters/embedded/minisearch/index.ts).
 *
 *   npx tsx bench/search-load.ts [--lots 100000] [--queries 2000] [--dir /tmp/x] [--keep]
 *   npx tsx bench/search-load.ts --dir /tmp/x --skip-build [--repeat 5]   (reopen and query a kept snapshot)
 *
 * Builds `lots` lot-like documents in each of 3 languages (one partition per language, one tenant), then
 * reports build time, memory, flush time, then - in a fresh process, as after a restart - reopen time and
 * search latency percentiles. Words are drawn from
 * a per-language vocabulary of 4,000 generated words with a Zipf distribution (s = 0.9), so a few words
 * occur in most documents, like stop words do in real descriptions. Query words are drawn half from the
 * same Zipf distribution (popular words: large result sets) and half uniformly from the vocabulary; 20 %
 * carry a one-letter typo, 20 % end with a prefix (the last word cut to 3-5 letters).
 * Deterministic: a seeded generator.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import type { SearchCollectionSpec, SearchDocument, SearchRequest } from '../src/ports/search.ts';
import { LOT_SEARCH_PARTITION } from '../projections/lot-search/index.ts';
import { lotSearchProjection } from '../projections/lot-search/projection.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const LOTS = Number(arg('lots', '100000'));
const QUERIES = Number(arg('queries', '2000'));
/** Runs each query this many times and keeps its fastest run (filters out noise from other processes). */
const REPEAT = Number(arg('repeat', '1'));
const KEEP = process.argv.includes('--keep');
/** With --dir of a kept run: skip building and flushing, only reopen and query (for profiling). */
const SKIP_BUILD = process.argv.includes('--skip-build');
const LANGS = ['en', 'sv', 'de'];
const VOCAB = 4000;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES: Record<string, string[]> = {
  en: [
    'an',
    'ber',
    'chair',
    'dle',
    'ing',
    'lamp',
    'ver',
    'gold',
    'sil',
    'ton',
    'wood',
    'oak',
    'ring',
    'ta',
    'ble',
    'ro',
    'man',
    'cup',
    'pla',
    'te',
    'glass',
    'art',
    'pa',
    'int',
    'er',
    'clock',
    'ly',
    'ash',
    'brass',
    'coin',
  ],
  sv: [
    'ek',
    'stol',
    'bord',
    'lam',
    'pa',
    'sil',
    'ver',
    'guld',
    'ring',
    'skåp',
    'kista',
    'glas',
    'mål',
    'ning',
    'ur',
    'tav',
    'la',
    'mynt',
    'mäs',
    'sing',
    'björk',
    'fu',
    'ru',
    'koppar',
    'sked',
    'gaf',
    'fel',
    'ö',
    'kan',
    'na',
  ],
  de: [
    'ei',
    'che',
    'stuhl',
    'tisch',
    'lam',
    'pe',
    'sil',
    'ber',
    'gold',
    'ring',
    'schrank',
    'glas',
    'ge',
    'mäl',
    'de',
    'uhr',
    'mün',
    'ze',
    'mes',
    'sing',
    'bir',
    'ke',
    'kup',
    'fer',
    'löf',
    'fel',
    'ga',
    'bel',
    'kan',
    'ne',
  ],
};

function vocabulary(lang: string, random: () => number): string[] {
  const syl = SYLLABLES[lang];
  const words = new Set<string>();
  while (words.size < VOCAB) {
    const k = 1 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < k; i++) w += syl[Math.floor(random() * syl.length)];
    if (w.length >= 3) words.add(w);
  }
  return [...words];
}

function zipf(n: number, random: () => number, s = 0.9): () => number {
  const cum = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) cum[i] = acc += 1 / Math.pow(i + 1, s);
  return () => {
    const x = random() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (cum[m] < x) lo = m + 1;
      else hi = m;
    }
    return lo;
  };
}

/** The service's own lot index (one document per lot and language, partitioned by Language). */
const spec: SearchCollectionSpec = lotSearchProjection.collection;

const T0 = 1_750_000_000_000;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function main(): Promise<void> {
  const dir = arg('dir', '') || mkdtempSync(join(tmpdir(), 'search-bench-'));
  const random = rng(42);
  const vocabs = Object.fromEntries(LANGS.map((l) => [l, vocabulary(l, random)]));
  const pick = Object.fromEntries(LANGS.map((l) => [l, zipf(VOCAB, random)]));
  const words = (lang: string, n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(vocabs[lang][pick[lang]()]);
    return out.join(' ');
  };

  if (!SKIP_BUILD) {
    console.log(`search-load: ${LOTS} lots x ${LANGS.length} languages, dir ${dir}`);
    await build(dir, random, words);
    // Reopen and query in a fresh process, as after a restart.
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, process.argv[1], ...process.argv.slice(2), '--dir', dir, '--skip-build'],
      {
        stdio: 'inherit',
      },
    );
    if (!KEEP && !arg('dir', '')) rmSync(dir, { recursive: true, force: true });
    if (child.status !== 0) throw new Error(`the reopen phase failed (${child.status ?? child.signal})`);
    return;
  }
  await reopenAndQuery(dir, vocabs);
}

/** The reopen phase (in a fresh process): the snapshot reopened, then the queries timed on it. */
async function reopenAndQuery(dir: string, vocabs: Record<string, string[]>): Promise<void> {
  gc();
  const t = performance.now();
  const reopened = await MiniSearchIndex.open({ dir, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
  await reopened.ensureCollection(spec);
  const reopenMs = performance.now() - t;
  gc();
  const mem2 = process.memoryUsage();
  console.log(
    `reopen: ${ms(reopenMs)} (${reopened.loadStats.documents} docs, ${reopened.loadStats.rebuiltFromDocuments} partitions rebuilt from documents); heapUsed ${mb(mem2.heapUsed)}, rss ${mb(mem2.rss)}`,
  );
  const { requests, kinds } = queries(vocabs);
  for (let i = 0; i < Math.min(200, requests.length); i++) reopened.searchSync('lots', 'tenant-1', requests[i]); // warm-up
  await timeQueries(reopened, requests, kinds);
  await reopened.close();
}

/** The QUERIES queries: one or two words, popular or uniform, 20 % with a typo, 20 % ending with a prefix. */
function queries(vocabs: Record<string, string[]>): { requests: SearchRequest[]; kinds: string[] } {
  const qr = rng(7);
  const pickQ = Object.fromEntries(LANGS.map((l) => [l, zipf(VOCAB, qr)]));
  const requests: SearchRequest[] = [];
  const kinds: string[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const lang = LANGS[i % LANGS.length];
    const n = qr() < 0.5 ? 1 : 2;
    const ws: string[] = [];
    let kind = 'plain';
    for (let j = 0; j < n; j++) {
      let w = qr() < 0.5 ? vocabs[lang][pickQ[lang]()] : vocabs[lang][Math.floor(qr() * VOCAB)];
      const k = qr();
      if (k < 0.2 && w.length >= 5) {
        w = withTypo(w, qr);
        kind = 'typo';
      } else if (k < 0.4 && j === n - 1 && w.length > 3) {
        w = w.slice(0, 3 + Math.floor(qr() * Math.min(3, w.length - 3)));
        kind = kind === 'typo' ? 'typo' : 'prefix';
      }
      ws.push(w);
    }
    kinds.push(`${n}w-${kind}`);
    requests.push({
      q: ws.join(' '),
      queryBy: ['Title', 'Description'],
      filter: { Language: lang, EndTime: { gte: T0 + Math.floor(qr() * 15) * 86_400_000 } },
      facetBy: ['CategoryId', 'AuctionId'],
      page: 1,
      perPage: 20,
    });
  }
  return { requests, kinds };
}

/** A one-letter deletion, substitution or transposition. */
function withTypo(w: string, qr: () => number): string {
  const p = 1 + Math.floor(qr() * (w.length - 2));
  const op = Math.floor(qr() * 3);
  if (op === 0) return w.slice(0, p) + w.slice(p + 1); // deletion
  if (op === 1) return w.slice(0, p) + 'x' + w.slice(p + 1); // substitution
  return w.slice(0, p) + w[p + 1] + w[p] + w.slice(p + 2); // transposition
}

/** Each query the fastest of REPEAT runs: percentiles, the largest result set and the slowest queries, printed. */
async function timeQueries(reopened: MiniSearchIndex, requests: SearchRequest[], kinds: string[]): Promise<void> {
  const times: number[] = [];
  const rows: Array<{ t: number; q: string; found: number; kind: string }> = [];
  let totalFound = 0;
  for (let i = 0; i < requests.length; i++) {
    let e = Infinity;
    let r = { found: 0 };
    for (let k = 0; k < REPEAT; k++) {
      const s = performance.now();
      r = await reopened.search('lots', 'tenant-1', requests[i]);
      e = Math.min(e, performance.now() - s);
    }
    times.push(e);
    totalFound += r.found;
    rows.push({ t: e, q: requests[i].q, found: r.found, kind: kinds[i] });
  }
  const sorted = [...times].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  console.log(
    `search (${QUERIES} queries${REPEAT > 1 ? `, fastest of ${REPEAT} runs each` : ''}, perPage 20, filter Language + EndTime, facets CategoryId + AuctionId): ` +
      `p50 ${ms(pct(50))}, p90 ${ms(pct(90))}, p99 ${ms(pct(99))}, max ${ms(sorted[sorted.length - 1])}, ` +
      `mean found ${Math.round(totalFound / QUERIES)}`,
  );
  const byFound = [...rows].sort((a, b) => b.found - a.found);
  console.log(
    `  largest result set: ${byFound[0].found} ("${byFound[0].q}", ${ms(byFound[0].t)}); queries with found > 10,000: ${rows.filter((r) => r.found > 10000).length}`,
  );
  console.log(
    '  slowest:',
    rows
      .sort((a, b) => b.t - a.t)
      .slice(0, 5)
      .map((r) => `"${r.q}" ${r.kind} found ${r.found} ${ms(r.t)}`)
      .join('; '),
  );
}

async function build(dir: string, random: () => number, words: (lang: string, n: number) => string): Promise<void> {
  const index = new MiniSearchIndex({ dir, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
  await index.ensureCollection(spec);
  let generated = 0;
  let built = 0;
  for (let start = 0; start < LOTS; start += 1000) {
    for (const lang of LANGS) {
      const tg = performance.now();
      const batch: SearchDocument[] = [];
      for (let i = start; i < Math.min(LOTS, start + 1000); i++) {
        batch.push({
          id: `lot-${i}-${lang}`,
          Title: words(lang, 5),
          Description: words(lang, 25),
          AuctionId: 1 + (i % 1000),
          CategoryId: 1 + Math.floor(random() * 200),
          EndTime: T0 + Math.floor(random() * 30 * 86_400_000),
          LotNumber: 1 + (i % 400),
          Language: lang,
        });
      }
      const tb = performance.now();
      await index.upsert('lots', 'tenant-1', batch);
      built += performance.now() - tb;
      generated += tb - tg;
    }
  }
  gc();
  const mem = process.memoryUsage();
  console.log(
    `build: ${(built / 1000).toFixed(1)} s (${Math.round((LOTS * LANGS.length) / (built / 1000))} docs/s; generating the docs took ${(generated / 1000).toFixed(1)} s more)`,
  );
  console.log(
    `memory after build: heapUsed ${mb(mem.heapUsed)}, rss ${mb(mem.rss)}${(globalThis as { gc?: unknown }).gc ? '' : ' (run with --expose-gc for a settled figure)'}`,
  );

  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const t = performance.now();
  await index.flush();
  const flushMs = performance.now() - t;
  lag.disable();
  const bytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  console.log(`flush: ${ms(flushMs)} (${mb(bytes)} on disk; longest event-loop block ${ms(lag.max / 1e6)})`);
  await index.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
