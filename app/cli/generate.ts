import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import type { IntakeRecord } from '../features/intake.ts';
import { generateCatalogue, prng, type AuctionPlan } from '../seed/generator.ts';
import { demoRecords, type DemoCredentials } from '../seed/demo.ts';
import { adjectives, objects, places } from '../seed/vocabulary.ts';

/**
 * A large catalogue as an NDJSON intake file (for load tests and `npm run import`):
 *
 *   npm run generate -- --lots 100000 --out FILE.ndjson [--seed N] [--auction-size 2000] [--demo2-lots 300] [--bids-per-lot 2]
 *
 * Writes the demo tenants, Api-Key, application and member records (the same records as the demo seed;
 * Api-Key from DEMO_API_KEY or `bench-api-key-0123456789`, member bidder@example.com with the password from
 * DEMO_MEMBER_PASSWORD or `bench-password-123`), then tenant `demo`'s catalogue: auctions of
 * --auction-size lots summing to --lots (auction 1 current; the others a mix of current, upcoming and
 * closed, a few live), about --bids-per-lot bids (default 2) per lot of a started auction; then tenant `demo2` with
 * --demo2-lots lots.
 * The file is written as it is generated (constant memory); counts go to stderr. `--out -` is stdout.
 * Auction times are relative to now; current auctions end months ahead, so a generated file stays useful.
 */

const DEFAULTS = {
  apiKey: 'bench-api-key-0123456789',
  memberPassword: 'bench-password-123',
  clientSecret: 'bench-client-secret-0123456789',
};

function args(argv: string[]) {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const value = argv[i + 1];
    if (value === undefined || (value.startsWith('--') && value !== '-')) usage(`--${name} needs a value`);
    return value;
  };
  const int = (name: string, fallback: number, min: number) => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) usage(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
  const out = get('out');
  if (!out) usage('--out is required');
  return {
    lots: int('lots', 100_000, 1),
    out: out!,
    seed: int('seed', 42, 0),
    auctionSize: int('auction-size', 2000, 1),
    demo2Lots: int('demo2-lots', 300, 0),
    bidsPerLot: int('bids-per-lot', 2, 0),
  };
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run generate -- --lots 100000 --out FILE.ndjson|- [--seed N] [--auction-size 2000] [--demo2-lots 300] [--bids-per-lot 2]\n`,
  );
  process.exit(2);
}

const HOUR = 1;
const DAY = 24 * HOUR;

/** Tenant demo's auctions: `size` lots each (the last one takes the remainder), summing to `lots`. */
export function demoAuctionPlan(lots: number, size: number, seed: number): AuctionPlan[] {
  const rnd = prng(seed ^ 0x5eed);
  const count = Math.ceil(lots / size);
  const plans: AuctionPlan[] = [];
  for (let i = 0; i < count; i++) {
    const id = i + 1;
    const n = Math.min(size, lots - i * size);
    const place = rnd.pick(places);
    const adjective = rnd.pick(adjectives);
    const object = rnd.pick(objects);
    const title = {
      en: `${place.en} sale ${id}: ${adjective.en} ${object.en}`,
      sv: `${place.sv} auktion ${id}: ${adjective.sv} ${object.sv}`,
      de: `${place.de} Auktion ${id}: ${adjective.de} ${object.de}`,
    };
    // Auction 1 is current (long-running, so a reused file still has open lots); then a repeating mix.
    const kind =
      id === 1 ? 'current' : (['current', 'upcoming', 'closed', 'current', 'live', 'upcoming', 'closed', 'current'] as const)[i % 8];
    const timing =
      kind === 'current'
        ? { startsIn: -rnd.int(1, 10) * DAY, endsIn: id === 1 ? 180 * DAY : rnd.int(30, 240) * DAY }
        : kind === 'live'
          ? { startsIn: -2 * HOUR, endsIn: rnd.int(30, 120) * DAY, live: true }
          : kind === 'upcoming'
            ? { startsIn: rnd.int(3, 60) * DAY, endsIn: rnd.int(70, 200) * DAY }
            : { startsIn: -rnd.int(40, 400) * DAY, endsIn: -rnd.int(5, 35) * DAY };
    plans.push({ id, title, lots: n, requiresTerms: id % 5 === 0, ...timing });
  }
  return plans;
}

export interface GenerateOptions {
  lots: number;
  seed: number;
  auctionSize: number;
  demo2Lots: number;
  /** Mean bids per lot of a started auction (tenant demo). */
  bidsPerLot?: number;
  now: Date;
  credentials: DemoCredentials;
}

/** Every record of the generated file, in import order. */
export function* generateRecords(o: GenerateOptions): Generator<IntakeRecord> {
  // Tenants, Api-Key, application and members exactly as the demo seed writes them (its catalogues are skipped).
  const accessKinds = new Set(['tenant', 'apiKey', 'application', 'member']);
  for (const record of demoRecords(o.credentials, o.now)) if (accessKinds.has(record.kind)) yield record;

  yield* generateCatalogue({
    tenant: 'demo',
    languages: ['en', 'sv', 'de'],
    currency: 'EUR',
    now: o.now,
    seed: o.seed,
    consignerId: 1,
    consignedEvery: 40,
    bidsPerLot: o.bidsPerLot ?? 2,
    combination: { combiId: 1, lotIds: [201, 202, 203] },
    auctions: demoAuctionPlan(o.lots, o.auctionSize, o.seed),
  });
  if (o.demo2Lots > 0)
    yield* generateCatalogue({
      tenant: 'demo2',
      languages: ['en'],
      currency: 'SEK',
      now: o.now,
      seed: o.seed + 1,
      consignerId: 1,
      consignedEvery: 10,
      bidsPerLot: 2,
      auctions: [
        {
          id: 1,
          title: { en: 'Nordic Modern', sv: '', de: '' },
          startsIn: -DAY,
          endsIn: 90 * DAY,
          lots: Math.ceil(o.demo2Lots / 2),
          requiresTerms: false,
        },
        {
          id: 2,
          title: { en: 'Autumn Classics', sv: '', de: '' },
          startsIn: 14 * DAY,
          endsIn: 120 * DAY,
          lots: Math.floor(o.demo2Lots / 2),
          requiresTerms: false,
        },
      ].filter((a) => a.lots > 0),
    });
}

async function main() {
  const opts = args(process.argv.slice(2));
  const credentials: DemoCredentials = {
    apiKey: process.env.DEMO_API_KEY || DEFAULTS.apiKey,
    memberEmail: 'bidder@example.com',
    memberPassword: process.env.DEMO_MEMBER_PASSWORD || DEFAULTS.memberPassword,
    clientId: 'demo-web',
    clientSecret: process.env.DEMO_CLIENT_SECRET || DEFAULTS.clientSecret,
    backOfficeKeys: {
      demo: process.env.DEMO_BACKOFFICE_KEY || 'bench-backoffice-key-demo-0123456789',
      demo2: process.env.DEMO2_BACKOFFICE_KEY || 'bench-backoffice-key-demo2-0123456789',
    },
  };
  if (opts.out !== '-') fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
  const out = opts.out === '-' ? process.stdout : fs.createWriteStream(opts.out, { encoding: 'utf8' });
  let failed: Error | null = null;
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0); // the reader stopped reading (`| head`)
    failed = error;
  });

  const started = Date.now();
  const counts: Record<string, number> = {};
  let records = 0;
  let bytes = 0;
  let chunk = '';
  const flush = async () => {
    if (!chunk) return;
    bytes += Buffer.byteLength(chunk);
    const ok = out.write(chunk);
    chunk = '';
    if (!ok) await once(out, 'drain');
    if (failed) throw failed;
  };
  for (const record of generateRecords({ ...opts, now: new Date(), credentials })) {
    chunk += JSON.stringify(record) + '\n';
    counts[record.kind] = (counts[record.kind] ?? 0) + 1;
    records += 1;
    if (chunk.length >= 1 << 16) await flush();
    if (records % 50_000 === 0 && process.stderr.isTTY) process.stderr.write(`\rgenerated ${records} records`);
  }
  await flush();
  if (out !== process.stdout) {
    (out as fs.WriteStream).end();
    await once(out, 'finish');
  }
  if (failed) throw failed;
  if (process.stderr.isTTY) process.stderr.write('\r');
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `generated ${records} records (${Object.entries(counts)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}) in ${seconds.toFixed(1)} s, ${(bytes / 1048576).toFixed(1)} MB${opts.out === '-' ? '' : ` to ${opts.out}`}\n`,
  );
}

// Run as a CLI only (the plan and record generators above can be imported).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  main().catch((error) => {
    process.stderr.write(`generate failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
