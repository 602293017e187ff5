/**
 * The bench's datasets: a generated catalogue (app/cli/generate.ts) imported into a DATA_DIR of its own
 * (app/cli/import.ts), made once and reused until --fresh. Each run imports a fresh member for the watchlist
 * load, so that load starts from an empty watchlist stream on every run.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { lastJsonLine, runCli, say } from './processes.ts';

export const API_KEY = process.env.DEMO_API_KEY || 'bench-api-key-0123456789';
export const MEMBER_PASSWORD = process.env.DEMO_MEMBER_PASSWORD || 'bench-password-123';
/** The service's OPERATOR_TOKEN: /metrics on PORT (bench/heap.ts) needs it. */
export const OPERATOR_TOKEN = process.env.OPERATOR_TOKEN || 'bench-operator-token-0123456789-abcdef';

export interface Dataset {
  /** The folder: DATA_DIR of the service, plus the NDJSON and what was measured making it. */
  dir: string;
  dataDir: string;
  lots: number;
  bidsPerLot: number;
}

export interface DatasetInfo {
  lots: number;
  bidsPerLot?: number;
  createdAt: string;
  events: number;
  generate?: { seconds: number; bytes: number; summary: string };
  import?: { seconds: number; records: number; appended: number; recordsPerSecond: number };
  firstBuild?: { seconds: number; events: number; eventsPerSecond: number };
}

export function datasetEnv(dataset: Dataset, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // The embedded default unless `extra` says otherwise (the postgres step's service), whatever this shell sets.
  const { POSTGRES_URL: _url, POSTGRES_SCHEMA: _schema, ...env } = process.env;
  return {
    ...env,
    DATA_DIR: dataset.dataDir,
    DEMO_API_KEY: API_KEY,
    DEMO_MEMBER_PASSWORD: MEMBER_PASSWORD,
    OPERATOR_TOKEN,
    ...extra,
  };
}

export function headPosition(dataset: Dataset): number {
  const file = path.join(dataset.dataDir, 'events.sqlite');
  if (!fs.existsSync(file)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT max(position) AS p FROM events').get() as { p: number | null }).p ?? 0;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

const metaFile = (dataset: Dataset) => path.join(dataset.dir, 'dataset.json');

export function saveInfo(dataset: Dataset, info: DatasetInfo) {
  fs.writeFileSync(metaFile(dataset), JSON.stringify(info, null, 2));
}

/** The dataset as it is, or generated and imported when it holds no events (or `fresh`). */
export async function ensureDataset(dataset: Dataset, fresh: boolean): Promise<{ info: DatasetInfo; created: boolean }> {
  const head = fresh ? 0 : headPosition(dataset);
  if (head > 0) {
    const info: DatasetInfo = fs.existsSync(metaFile(dataset))
      ? JSON.parse(fs.readFileSync(metaFile(dataset), 'utf8'))
      : { lots: NaN, createdAt: 'unknown', events: head };
    say(
      `dataset: reusing ${path.relative(process.cwd(), dataset.dataDir)} (${head.toLocaleString('en-US')} events; created ${info.createdAt}; --fresh regenerates)`,
    );
    return { info, created: false };
  }
  const ndjson = path.join(dataset.dir, 'lots.ndjson');
  fs.rmSync(dataset.dataDir, { recursive: true, force: true });
  fs.rmSync(ndjson, { force: true });
  fs.rmSync(metaFile(dataset), { force: true });
  fs.mkdirSync(dataset.dir, { recursive: true });

  say(
    `dataset: generating ${dataset.lots.toLocaleString('en-US')} lots (${dataset.bidsPerLot} bids a lot of a started auction) to ${path.relative(process.cwd(), ndjson)}`,
  );
  const env = datasetEnv(dataset);
  const gen = await runCli(
    'app/cli/generate.ts',
    ['--lots', String(dataset.lots), '--bids-per-lot', String(dataset.bidsPerLot), '--out', ndjson],
    env,
  );
  if (gen.code !== 0) throw new Error(`generate failed (${gen.code}):\n${gen.stderr}`);
  const summary = gen.stderr.trim().split('\n').pop() ?? '';
  say(`  ${summary} (${gen.seconds.toFixed(1)} s with process start)`);

  say(`dataset: importing into ${path.relative(process.cwd(), dataset.dataDir)}`);
  const imp = await runCli('app/cli/import.ts', [ndjson], { ...env, LOG_LEVEL: 'warn' });
  if (imp.code !== 0) throw new Error(`import failed (${imp.code}):\n${imp.stdout.slice(0, 4000)}\n${imp.stderr.slice(-2000)}`);
  const report = lastJsonLine(imp.stdout) as { records: number; appended: number; seconds: number };
  say(
    `  ${report.records.toLocaleString('en-US')} records, ${report.appended.toLocaleString('en-US')} events in ${imp.seconds.toFixed(1)} s`,
  );
  const info: DatasetInfo = {
    lots: dataset.lots,
    bidsPerLot: dataset.bidsPerLot,
    createdAt: new Date().toISOString(),
    events: headPosition(dataset),
    generate: { seconds: gen.seconds, bytes: fs.statSync(ndjson).size, summary },
    import: { seconds: imp.seconds, records: report.records, appended: report.appended, recordsPerSecond: report.records / imp.seconds },
  };
  saveInfo(dataset, info);
  return { info, created: true };
}

/** A member of its own for this run's watchlist load (imported with the service stopped); `n` tells a run's members apart. */
export async function importBenchMember(dataset: Dataset, n = 0): Promise<{ memberId: number; email: string }> {
  const memberId = (Math.floor(Date.now() / 1000) % 1_000_000_000) * 2 + n;
  const email = `bench-${memberId}@example.com`;
  const record = {
    kind: 'member',
    tenant: 'demo',
    memberId,
    email,
    password: MEMBER_PASSWORD,
    firstName: 'Bench',
    lastName: 'Member',
    language: 'en',
    signedUpAt: new Date().toISOString(),
    confirmed: true,
    roles: ['bidder'],
  };
  const r = await runCli('app/cli/import.ts', ['-'], datasetEnv(dataset, { LOG_LEVEL: 'warn' }), JSON.stringify(record) + '\n');
  if (r.code !== 0) throw new Error(`importing the bench member failed (${r.code}): ${r.stdout} ${r.stderr}`);
  return { memberId, email };
}
