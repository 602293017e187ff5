/**
 * End-to-end benchmark of the service: `npm run bench [-- options]`. Prints a table and writes
 * bench/results.json. Every load is on 127.0.0.1, bounded in duration, and stops by itself; a missed target
 * is reported (MISS), never a failure: the exit code is 1 only when something broke.
 *
 *  a. Dataset in .bench/data (gitignored): when it holds no events (or with --fresh), generates --lots lots
 *     to .bench/lots.ndjson (app/cli/generate.ts) and imports them (app/cli/import.ts), timing both, then
 *     starts the service (SEED_DEMO=false) and times its first projection build (spawn to GET /readyz 200).
 *     Later runs reuse it. Each run imports a fresh member (bench-<id>@example.com) for the watchlist load,
 *     so that load starts from an empty watchlist stream on every run and runs stay comparable.
 *  b. Baseline: an Express 5 hello-world (bench/hello-server.ts) in a child process.
 *  c. Loads (autocannon in this process; --connections, --warmup s excluded + --duration s measured):
 *     GET /v1/lots?AuctionId=1&pageSize=20 (Page rotating 1..100), GET /v1/lots/search (1-2 word queries in
 *     en/sv/de, some typos and prefixes), PUT /v1/me/watchlist/{lotId} (lot ids rotating over 2,000, Type
 *     alternating watch/favourite per pass, so every request appends an event). Baseline and lot page run
 *     --rounds times, interleaved; medians are reported.
 *  e. Rebuild of the catalogue and lot-search projections (app/cli/rebuild.ts) with the service stopped.
 *  f. Restart: spawn to the first GET /readyz 200.
 *  g. Peak resident memory of the service (VmHWM) after the loads.
 *  i. Accounts (--only accounts): scrypt alone in this process (sequential and 4 at once), then sign-up +
 *     confirmation (the key read from the outbox, as a person would) + sign-in as a flow, 4 flows at once for
 *     --duration s, each flow from its own client address (the service runs with TRUST_PROXY=true and the
 *     bench sends X-Forwarded-For, as a proxy in front of many bidders would); meanwhile the lot page at 10
 *     connections, against the same load measured alone just before: the event loop's responsiveness while
 *     scrypt runs.
 *  h. Prints (--only prints): the catalogue PDF of auction 1 (2,000 lots in the generated dataset): a first
 *     request, 50 concurrent first requests for another language (they must get identical bytes from one
 *     generation), and repeated requests; the .xlsx export of the same auction; the service's memory after
 *     them. Generated files are deleted before the service starts, so "first" is a real first request.
 *
 * Options: --fresh  --lots 100000  --log-level info  --connections 50  --warmup 2  --duration 10  --rounds 3
 *          --port 3100  --baseline-port 3101  --only baseline,lots,search,watch,prints,accounts,rebuild,restart
 *          --profile (node --cpu-prof on the loaded service; prints the top self-time functions per load)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { formatProfile, summariseProfile, type ProfileSummary } from './cpuprofile.ts';

// ---------------------------------------------------------------------------------------------- options

/** The Node.js flags `npm start` runs the service with (package.json), so the bench measures the same process. */
const SERVICE_NODE_FLAGS = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start as string)
  .split(/\s+/)
  .filter((flag) => flag.startsWith('--max-old-space-size'));

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BENCH_DIR = path.join(ROOT, '.bench');
const DATA_DIR = path.join(BENCH_DIR, 'data');
const NDJSON = path.join(BENCH_DIR, 'lots.ndjson');
const DATASET_META = path.join(BENCH_DIR, 'dataset.json');
const RESULTS = path.join(ROOT, 'bench', 'results.json');
const API_KEY = process.env.DEMO_API_KEY || 'bench-api-key-0123456789';
const MEMBER_PASSWORD = process.env.DEMO_MEMBER_PASSWORD || 'bench-password-123';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
function intOption(name: string, fallback: number): number {
  const n = Number(option(name, String(fallback)));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
  return n;
}
const opts = {
  fresh: process.argv.includes('--fresh'),
  profile: process.argv.includes('--profile'),
  lots: intOption('lots', 100_000),
  logLevel: option('log-level', 'info'),
  connections: intOption('connections', 50),
  warmup: intOption('warmup', 2),
  duration: intOption('duration', 10),
  rounds: intOption('rounds', 3),
  port: intOption('port', 3100),
  baselinePort: intOption('baseline-port', 3101),
  only: new Set(option('only', 'baseline,lots,search,watch,prints,accounts,rebuild,restart').split(',').map((s) => s.trim())),
};

const TARGETS = {
  lotPageRatio: 0.8,
  lotPageP99: 25,
  searchP99: 10,
  watchP99: 15,
  rebuildEventsPerSecond: 200_000,
  restartSeconds: 10,
  peakRssBytes: 1.5 * 1024 ** 3,
  cataloguePdfFirstSeconds: 10,
};

// ---------------------------------------------------------------------------------------------- helpers

const t0 = Date.now();
const say = (message: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-');

/** Children started by this run; killed if the run dies. */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    say(`${signal}: stopping children`);
    process.exit(130);
  });

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, DATA_DIR, DEMO_API_KEY: API_KEY, DEMO_MEMBER_PASSWORD: MEMBER_PASSWORD, ...extra };
}

/** node --import tsx SCRIPT (no tsx wrapper process, so the pid is the program's own). */
function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv, stdio: Array<'pipe' | 'ignore' | 'inherit' | number>, nodeArgs: string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], { cwd: ROOT, env, stdio: stdio as never });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Runs a CLI to completion, capturing its output. */
function runCli(script: string, args: string[], env: NodeJS.ProcessEnv, input?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }>((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawnTs(script, args, env, [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
    if (input !== undefined) child.stdin!.end(input);
  });
}

function lastJsonLine(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    const lines = trimmed.split('\n').filter((l) => l.startsWith('{'));
    return JSON.parse(lines[lines.length - 1]);
  }
}

function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function headPosition(): number {
  const file = path.join(DATA_DIR, 'events.sqlite');
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

function memoryOf(pid: number): { vmHwmBytes: number; vmRssBytes: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { vmHwmBytes: kb('VmHWM'), vmRssBytes: kb('VmRSS') };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------- processes

interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  spawnedAt: number;
  logFile: string;
  exited: Promise<number | null>;
}

function startProcess(name: string, script: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Proc {
  const logFile = path.join(BENCH_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  const spawnedAt = performance.now();
  const child = spawnTs(script, [], env, ['ignore', fd, fd], nodeArgs);
  fs.closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { name, child, pid: child.pid!, spawnedAt, logFile, exited };
}

/** Polls `url` until it answers 200; the milliseconds since the process was spawned. */
async function waitFor200(proc: Proc, url: string, timeoutMs: number): Promise<number> {
  let dead = false;
  void proc.exited.then(() => (dead = true));
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (dead) throw new Error(`${proc.name} exited (code ${proc.child.exitCode}) before ${url} answered 200:\n${tail(proc.logFile)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - proc.spawnedAt;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  throw new Error(`${proc.name}: ${url} did not answer 200 within ${timeoutMs / 1000} s:\n${tail(proc.logFile)}`);
}

/** SIGTERM, then SIGKILL after the timeout; the milliseconds it took to exit. */
async function stopProcess(proc: Proc, timeoutMs = 30_000): Promise<number> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return 0;
  const started = performance.now();
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    say(`${proc.name} did not exit ${timeoutMs / 1000} s after SIGTERM: SIGKILL`);
    proc.child.kill('SIGKILL');
  }, timeoutMs);
  await proc.exited;
  clearTimeout(timer);
  return performance.now() - started;
}

function serviceEnv(): NodeJS.ProcessEnv {
  // TRUST_PROXY: the accounts step sends each flow from its own address (X-Forwarded-For), as bidders behind a proxy.
  return baseEnv({ PORT: String(opts.port), HOST: '127.0.0.1', SEED_DEMO: 'false', LOG_LEVEL: opts.logLevel, TRUST_PROXY: 'true' });
}

// ---------------------------------------------------------------------------------------------- HTTP

const svcUrl = (p: string) => `http://127.0.0.1:${opts.port}${p}`;

async function call(method: string, p: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(svcUrl(p), {
    method,
    headers: { 'Api-Key': API_KEY, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

async function anonymousToken(): Promise<string> {
  const r = await call('POST', '/v1/tokens/anonymous', {}, { clientId: 'demo' });
  if (r.status !== 200) throw new Error(`anonymous token: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.Token;
}

async function memberToken(anon: string, email: string, password: string): Promise<string> {
  const r = await call('POST', '/v1/sessions', { Authorization: `Bearer ${anon}` }, { Email: email, Password: password });
  if (r.status !== 200) throw new Error(`sign-in as ${email}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.Token;
}

// ---------------------------------------------------------------------------------------------- loads

/** 1-2 word queries per language: plain words, pairs, typos (~) and prefixes (…). */
const SEARCH_QUERIES: Array<{ lang: string; q: string }> = [
  ...['chair', 'oak table', 'silver', 'gilded mirror', 'porcelain vase', 'chiar', 'mahogny', 'candlest', 'vict', 'brass lamp', 'walnut desk', 'Stockholm', 'carpte', 'neckl', 'art deco', 'sculpture', 'teapot pewter', 'bookcas'].map((q) => ({ lang: 'en', q })),
  ...['stol', 'ek bord', 'silver', 'förgylld spegel', 'porslin vas', 'mässing lampa', 'klocka', 'ljussta', 'gustavinsk', 'skrivbord valnöt', 'halsban', 'Köpenhamn', 'matta', 'målnig', 'rokoko', 'tekanna tenn', 'skulp', 'barock'].map((q) => ({ lang: 'sv', q })),
  ...['Stuhl', 'Eiche Tisch', 'Silber', 'vergoldet Spiegel', 'Porzellan Vase', 'Messing Lampe', 'Kerzenl', 'Schrank', 'Teppisch', 'Halskett', 'Gemälde', 'Wien', 'Nusbaum', 'Bücherre', 'barock', 'Teekanne Zinn', 'Skulp', 'Jahrhundert'].map((q) => ({ lang: 'de', q })),
];
const searchPath = (s: { lang: string; q: string }) => `/v1/lots/search?q=${encodeURIComponent(s.q)}&LanguageCode=${s.lang}`;
const WATCH_ROTATION = 2000;

interface LoadResult {
  name: string;
  round?: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Milliseconds since the service was spawned: the measured window (for --profile). */
  window?: { fromMs: number; toMs: number };
  profile?: ProfileSummary;
}

async function load(name: string, url: string, requests: AutocannonRequest[], headers: Record<string, string>, round?: number, svc?: Proc): Promise<LoadResult> {
  say(`load ${name}${round ? ` (round ${round})` : ''}: ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s`);
  let measuredFrom = 0;
  const instance = autocannon({
    url,
    connections: opts.connections,
    duration: opts.duration,
    warmup: { connections: opts.connections, duration: opts.warmup },
    timeout: 10,
    headers,
    requests,
  });
  // The warm-up and the measured run are two autocannon runs; `start` is emitted by the second one only.
  instance.on('start', () => (measuredFrom = performance.now()));
  const r: AutocannonResult = await instance;
  const toMs = performance.now();
  const statusCodes: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = s.count;
  const result: LoadResult = {
    name,
    ...(round ? { round } : {}),
    rps: r.requests.average,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    ...(svc && measuredFrom ? { window: { fromMs: (measuredFrom || toMs - opts.duration * 1000) - svc.spawnedAt, toMs: toMs - svc.spawnedAt } } : {}),
  };
  say(`  ${fmt(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors} (timeouts ${result.timeouts})`);
  return result;
}

function lotPageRequests(): AutocannonRequest[] {
  let page = 0;
  return [{ setupRequest: (req) => ({ ...req, path: `/v1/lots?AuctionId=1&pageSize=20&Page=${(page = (page % 100) + 1)}` }) }];
}

function searchRequests(): AutocannonRequest[] {
  let i = 0;
  return [{ setupRequest: (req) => ({ ...req, path: searchPath(SEARCH_QUERIES[i++ % SEARCH_QUERIES.length]) }) }];
}

/** Request n: lot 1 + n mod 2000; the type flips each pass over the lots, so every request changes something. */
function watchRequests(): AutocannonRequest[] {
  let n = 0;
  return [
    {
      method: 'PUT',
      setupRequest: (req) => {
        const i = n++;
        const lotId = 1 + (i % WATCH_ROTATION);
        const type = Math.floor(i / WATCH_ROTATION) % 2 === 0 ? 'watch' : 'favourite';
        return { ...req, method: 'PUT', path: `/v1/me/watchlist/${lotId}`, body: JSON.stringify({ Type: type }) };
      },
    },
  ];
}

// ---------------------------------------------------------------------------------------------- steps

interface DatasetInfo {
  lots: number;
  createdAt: string;
  events: number;
  generate?: { seconds: number; bytes: number; summary: string };
  import?: { seconds: number; records: number; appended: number; recordsPerSecond: number };
  firstBuild?: { seconds: number; events: number; eventsPerSecond: number };
}

async function ensureDataset(): Promise<{ info: DatasetInfo; created: boolean }> {
  const head = opts.fresh ? 0 : headPosition();
  if (head > 0) {
    const info: DatasetInfo = fs.existsSync(DATASET_META)
      ? JSON.parse(fs.readFileSync(DATASET_META, 'utf8'))
      : { lots: NaN, createdAt: 'unknown', events: head };
    say(`dataset: reusing ${DATA_DIR} (${fmt(head)} events; created ${info.createdAt}; --fresh regenerates)`);
    return { info, created: false };
  }
  fs.rmSync(DATA_DIR, { recursive: true, force: true });
  fs.rmSync(NDJSON, { force: true });
  fs.rmSync(DATASET_META, { force: true });
  fs.mkdirSync(BENCH_DIR, { recursive: true });

  say(`dataset: generating ${fmt(opts.lots)} lots to ${path.relative(ROOT, NDJSON)}`);
  const gen = await runCli('app/cli/generate.ts', ['--lots', String(opts.lots), '--out', NDJSON], baseEnv({}));
  if (gen.code !== 0) throw new Error(`generate failed (${gen.code}):\n${gen.stderr}`);
  const summary = gen.stderr.trim().split('\n').pop() ?? '';
  say(`  ${summary} (${gen.seconds.toFixed(1)} s with process start)`);

  say(`dataset: importing into ${path.relative(ROOT, DATA_DIR)}`);
  const imp = await runCli('app/cli/import.ts', [NDJSON], baseEnv({ LOG_LEVEL: 'warn' }));
  if (imp.code !== 0) throw new Error(`import failed (${imp.code}):\n${imp.stdout.slice(0, 4000)}\n${imp.stderr.slice(-2000)}`);
  const report = lastJsonLine(imp.stdout) as { records: number; appended: number; seconds: number };
  say(`  ${fmt(report.records)} records, ${fmt(report.appended)} events in ${imp.seconds.toFixed(1)} s`);
  const info: DatasetInfo = {
    lots: opts.lots,
    createdAt: new Date().toISOString(),
    events: headPosition(),
    generate: { seconds: gen.seconds, bytes: fs.statSync(NDJSON).size, summary },
    import: { seconds: imp.seconds, records: report.records, appended: report.appended, recordsPerSecond: report.records / imp.seconds },
  };
  fs.writeFileSync(DATASET_META, JSON.stringify(info, null, 2));
  return { info, created: true };
}

/** A member of its own for this run's watchlist load (imported with the service stopped). */
async function importBenchMember(): Promise<{ memberId: number; email: string }> {
  const memberId = Math.floor(Date.now() / 1000) % 2_000_000_000;
  const email = `bench-${memberId}@example.com`;
  const record = {
    kind: 'member', tenant: 'demo', memberId, email, password: MEMBER_PASSWORD, firstName: 'Bench', lastName: 'Member',
    language: 'en', signedUpAt: new Date().toISOString(), confirmed: true, roles: ['bidder'],
  };
  const r = await runCli('app/cli/import.ts', ['-'], baseEnv({ LOG_LEVEL: 'warn' }), JSON.stringify(record) + '\n');
  if (r.code !== 0) throw new Error(`importing the bench member failed (${r.code}): ${r.stdout} ${r.stderr}`);
  return { memberId, email };
}

async function rebuild(projection: string) {
  say(`rebuild ${projection} (service stopped)`);
  const r = await runCli('app/cli/rebuild.ts', [projection], baseEnv({ LOG_LEVEL: 'warn' }));
  if (r.code !== 0) throw new Error(`rebuild ${projection} failed (${r.code}):\n${r.stderr.slice(-3000)}`);
  const out = lastJsonLine(r.stdout) as { projection: string; position: number; seconds: number; eventsPerSecond: number };
  say(`  ${fmt(out.position)} events in ${out.seconds.toFixed(2)} s: ${fmt(out.eventsPerSecond)} events/s (process ${r.seconds.toFixed(1)} s)`);
  return { ...out, processSeconds: r.seconds };
}

function newestProfile(dir: string): string | null {
  if (!fs.existsSync(dir)) return null;
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (tsx's loader runs in another).
  const files = fs.readdirSync(dir).filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)).map((f) => path.join(dir, f));
  files.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] ?? null;
}

/** A binary GET: status, bytes and the time to the last byte. */
async function download(p: string, headers: Record<string, string>) {
  const started = performance.now();
  const res = await fetch(svcUrl(p), { headers: { 'Api-Key': API_KEY, ...headers }, signal: AbortSignal.timeout(60_000) });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes, ms: performance.now() - started, contentType: res.headers.get('content-type') ?? '' };
}

interface AccountsResult {
  /** The service's own hashPassword: one at a time, and 8 asked at once (it runs cores − 1 at a time). */
  scrypt: { sequentialMedianMs: number; parallel4PerSecond: number };
  flows: { completed: number; failed: number; seconds: number; perSecond: number; medianMs: number; p90Ms: number; failures: string[] };
  lotPageAlone: { rps: number; p50: number; p99: number };
  lotPageDuringFlows: { rps: number; p50: number; p99: number };
}

/** The newest confirmation key mailed to an address, from the outbox files (new files only, polled). */
function outboxReader(dir: string) {
  const seen = new Set<string>();
  const keys = new Map<string, string>();
  return async (email: string, timeoutMs = 15_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = keys.get(email);
      if (found) return found;
      for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
        if (seen.has(name) || !name.startsWith('mail-')) continue;
        seen.add(name);
        try {
          const mail = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { To: string; Subject: string | null; Body: string };
          const key = mail.Body.split('\n').map((l) => l.trim()).find((l) => /^[A-Za-z0-9_-]{32}$/.test(l));
          if (key && /confirm/i.test(mail.Subject ?? '')) keys.set(mail.To, key);
        } catch {
          seen.delete(name); // half written: read it again next time
        }
      }
      if (Date.now() > deadline) throw new Error(`no confirmation mail for ${email} within ${timeoutMs} ms`);
      await sleep(20);
    }
  };
}

async function accounts(anon: string): Promise<AccountsResult> {
  const { hashPassword } = await import('../src/security/passwords.ts');
  say('accounts: scrypt (N=2^17, r=8, p=1) in this process');
  const sequential: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await hashPassword(`bench-password-${i}`);
    sequential.push(performance.now() - started);
  }
  const parallelStarted = performance.now();
  await Promise.all(Array.from({ length: 8 }, (_, i) => hashPassword(`bench-parallel-${i}`)));
  const parallel4PerSecond = 8 / ((performance.now() - parallelStarted) / 1000);
  say(`  one hash ${fmt(median(sequential))} ms; ${fmt(parallel4PerSecond, 1)} hashes/s for 8 asked at once (the service runs cores − 1 = ${Math.max(1, os.availableParallelism() - 1)} at a time)`);

  const lotLoad = (label: string) =>
    autocannon({
      url: svcUrl('/'),
      connections: 10,
      duration: opts.duration,
      headers: { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` },
      requests: lotPageRequests(),
    }).then((r) => {
      const out = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
      say(`  lot page at 10 connections, ${label}: ${fmt(out.rps)} req/s, p50 ${out.p50} ms, p99 ${out.p99} ms`);
      return out;
    });
  const lotPageAlone = await lotLoad('alone');

  const mailKey = outboxReader(path.join(DATA_DIR, 'outbox'));
  const run = `${Date.now().toString(36)}`;
  let n = 0;
  const times: number[] = [];
  const failures: string[] = [];
  const deadline = performance.now() + opts.duration * 1000;
  const flow = async () => {
    const i = n++;
    const email = `flow-${run}-${i}@example.com`;
    const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const headers = { Authorization: `Bearer ${anon}`, 'X-Forwarded-For': address };
    const started = performance.now();
    const password = `flow-password-${i}-long`;
    const signUp = await call('POST', '/v1/members', headers, { Email: email, Password: password, FirstName: 'Flow', LastName: `Bidder ${i}`, Language: 'en' });
    if (signUp.status !== 200) throw new Error(`sign-up ${signUp.status} ${JSON.stringify(signUp.body).slice(0, 200)}`);
    const key = await mailKey(email);
    const confirm = await call('POST', '/v1/members/confirmation', headers, { Email: email, Key: key });
    if (confirm.status !== 200) throw new Error(`confirmation ${confirm.status} ${JSON.stringify(confirm.body).slice(0, 200)}`);
    const signIn = await call('POST', '/v1/sessions', headers, { Email: email, Password: password });
    if (signIn.status !== 200) throw new Error(`sign-in ${signIn.status} ${JSON.stringify(signIn.body).slice(0, 200)}`);
    times.push(performance.now() - started);
  };
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        await flow();
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  say(`accounts: sign-up + confirmation + sign-in flows, 4 at once for ${opts.duration} s, with the lot page load beside them`);
  const flowsStarted = performance.now();
  const [lotPageDuringFlows] = await Promise.all([lotLoad('during the flows'), Promise.all(Array.from({ length: 4 }, worker))]);
  const seconds = (performance.now() - flowsStarted) / 1000;
  const sorted = [...times].sort((a, b) => a - b);
  const flows = {
    completed: times.length,
    failed: failures.length,
    seconds,
    perSecond: times.length / seconds,
    medianMs: median(times),
    p90Ms: sorted[Math.floor(sorted.length * 0.9)] ?? NaN,
    failures: failures.slice(0, 5),
  };
  say(`  ${flows.completed} flows in ${seconds.toFixed(1)} s: ${fmt(flows.perSecond, 1)}/s, median ${fmt(flows.medianMs)} ms, p90 ${fmt(flows.p90Ms)} ms, ${flows.failed} failed`);
  return { scrypt: { sequentialMedianMs: median(sequential), parallel4PerSecond }, flows, lotPageAlone, lotPageDuringFlows };
}

interface PrintsResult {
  auctionLots: number;
  pdfFirst: { ms: number; bytes: number; status: number };
  pdfConcurrentFirst: { requests: number; msAll: number; distinctBodies: number; statuses: number[] };
  pdfRepeated: { medianMs: number; minMs: number; maxMs: number; requests: number };
  export: { medianMs: number; minMs: number; maxMs: number; bytes: number; requests: number; status: number };
  memoryAfter: { vmHwmBytes: number; vmRssBytes: number } | null;
  memoryBefore: { vmHwmBytes: number; vmRssBytes: number } | null;
}

async function prints(anon: string, pid: number): Promise<PrintsResult> {
  const headers = { Authorization: `Bearer ${anon}` };
  const auction = await call('GET', '/v1/auctions/1', headers);
  const memoryBefore = memoryOf(pid);
  say(`prints: auction 1 has ${auction.body?.LotCount} lots`);
  const first = await download('/v1/auctions/1/catalogue?lang=sv', headers);
  if (first.status !== 200 || !first.bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) throw new Error(`catalogue PDF: ${first.status} ${first.contentType}`);
  say(`  catalogue PDF (sv), first request: ${fmt(first.ms)} ms, ${fmt(first.bytes.length / 1024)} KB`);
  const concurrentStarted = performance.now();
  const concurrent = await Promise.all(Array.from({ length: 50 }, () => download('/v1/auctions/1/catalogue?lang=de', headers)));
  const msAll = performance.now() - concurrentStarted;
  const distinct = new Set(concurrent.map((r) => r.bytes.toString('base64'))).size;
  say(`  50 concurrent first requests (de): all answered in ${fmt(msAll)} ms, ${distinct} distinct bodies, statuses ${[...new Set(concurrent.map((r) => r.status))]}`);
  const repeated: number[] = [];
  for (let i = 0; i < 20; i++) repeated.push((await download('/v1/auctions/1/catalogue?lang=sv', headers)).ms);
  say(`  repeated request: median ${fmt(median(repeated), 1)} ms (min ${fmt(Math.min(...repeated), 1)}, max ${fmt(Math.max(...repeated), 1)})`);
  const exports: Array<{ ms: number; bytes: number; status: number }> = [];
  for (let i = 0; i < 5; i++) {
    const r = await download('/v1/auctions/1/export', { ...headers, 'Accept-Language': 'sv' });
    exports.push({ ms: r.ms, bytes: r.bytes.length, status: r.status });
  }
  const exportMs = exports.map((e) => e.ms);
  say(`  .xlsx export: median ${fmt(median(exportMs))} ms (min ${fmt(Math.min(...exportMs))}, max ${fmt(Math.max(...exportMs))}), ${fmt(exports[0].bytes / 1024)} KB`);
  const memoryAfter = memoryOf(pid);
  return {
    auctionLots: auction.body?.LotCount ?? 0,
    pdfFirst: { ms: first.ms, bytes: first.bytes.length, status: first.status },
    pdfConcurrentFirst: { requests: concurrent.length, msAll, distinctBodies: distinct, statuses: [...new Set(concurrent.map((r) => r.status))] },
    pdfRepeated: { medianMs: median(repeated), minMs: Math.min(...repeated), maxMs: Math.max(...repeated), requests: repeated.length },
    export: { medianMs: median(exportMs), minMs: Math.min(...exportMs), maxMs: Math.max(...exportMs), bytes: exports[0].bytes, requests: exports.length, status: exports[0].status },
    memoryBefore,
    memoryAfter,
  };
}

// ---------------------------------------------------------------------------------------------- main

async function main() {
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  say(`options: ${JSON.stringify({ ...opts, only: [...opts.only] })}`);
  const { info: dataset, created } = await ensureDataset();
  const member = await importBenchMember();
  say(`bench member ${member.email} (id ${member.memberId}) imported`);

  // Generated files (catalogue PDFs, factsheets) of earlier runs go, so the prints step measures first requests.
  fs.rmSync(path.join(DATA_DIR, 'files'), { recursive: true, force: true });

  // ---- the service, first start (the first projection build when the dataset is new)
  const profileDir = path.join(BENCH_DIR, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  const nodeArgs = [...SERVICE_NODE_FLAGS, ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const events = headPosition();
  say(`starting the service (DATA_DIR=${path.relative(ROOT, DATA_DIR)}, LOG_LEVEL=${opts.logLevel}${opts.profile ? ', --cpu-prof' : ''}); log in .bench/service.log`);
  const svc = startProcess('service', 'app/main.ts', serviceEnv(), nodeArgs);
  const firstReadyMs = await waitFor200(svc, svcUrl('/readyz'), 15 * 60_000);
  say(`  ready after ${(firstReadyMs / 1000).toFixed(1)} s`);
  if (created) {
    dataset.firstBuild = { seconds: firstReadyMs / 1000, events, eventsPerSecond: events / (firstReadyMs / 1000) };
    fs.writeFileSync(DATASET_META, JSON.stringify(dataset, null, 2));
  }

  // ---- credentials and sanity checks (these answers must be right for the loads to mean anything)
  const anon = await anonymousToken();
  const memberTok = await memberToken(anon, member.email, MEMBER_PASSWORD);
  const catalogueHeaders = { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` };
  const memberHeaders = { 'Api-Key': API_KEY, Authorization: `Bearer ${memberTok}`, 'Content-Type': 'application/json' };
  const page = await call('GET', '/v1/lots?AuctionId=1&pageSize=20&Page=50', { Authorization: `Bearer ${anon}` });
  const lotPageCheck = { status: page.status, items: page.body?.Items?.length ?? 0, totalCount: page.body?.TotalCount ?? 0, bytes: JSON.stringify(page.body).length };
  const storedPage = path.join(BENCH_DIR, 'lot-page.json');
  fs.writeFileSync(storedPage, JSON.stringify(page.body));
  const searchCheck: Record<string, { queries: number; withHits: number; meanFound: number }> = {};
  for (const s of SEARCH_QUERIES) {
    const r = await call('GET', searchPath(s), { Authorization: `Bearer ${anon}` });
    if (r.status !== 200) throw new Error(`search probe ${searchPath(s)}: ${r.status} ${JSON.stringify(r.body)}`);
    const c = (searchCheck[s.lang] ??= { queries: 0, withHits: 0, meanFound: 0 });
    c.queries += 1;
    c.withHits += r.body.TotalCount > 0 ? 1 : 0;
    c.meanFound += r.body.TotalCount / (SEARCH_QUERIES.length / 3);
  }
  for (const c of Object.values(searchCheck)) c.meanFound = Math.round(c.meanFound);
  say(`checks: lot page ${JSON.stringify(lotPageCheck)}; search ${JSON.stringify(searchCheck)}`);

  // ---- loads
  const loads: LoadResult[] = [];
  const baselineRounds: LoadResult[] = [];
  const lotRounds: LoadResult[] = [];
  let hello: Proc | null = null;
  if (opts.only.has('baseline')) {
    hello = startProcess('hello', 'bench/hello-server.ts', { ...process.env, PORT: String(opts.baselinePort), BODY_FILE: storedPage });
    await waitFor200(hello, `http://127.0.0.1:${opts.baselinePort}/`, 30_000);
  }
  for (let round = 1; round <= opts.rounds; round++) {
    if (hello) baselineRounds.push(await load('baseline: Express hello-world', `http://127.0.0.1:${opts.baselinePort}/`, [{ path: '/' }], {}, round));
    if (opts.only.has('lots'))
      lotRounds.push(await load('GET /v1/lots?AuctionId=1&pageSize=20', svcUrl('/'), lotPageRequests(), catalogueHeaders, round, svc));
    if (!hello && !opts.only.has('lots')) break;
  }
  // Not a target: the same Express answering res.json(a stored lot page), i.e. the lot page with its answer
  // already in memory (auth, query and DTO mapping cost nothing). Shows what 0.8x the baseline asks for.
  let ceiling: LoadResult | null = null;
  let ceilingBytes: LoadResult | null = null;
  if (hello && opts.only.has('lots')) {
    ceiling = await load('ceiling: Express res.json(stored lot page)', `http://127.0.0.1:${opts.baselinePort}/`, [{ path: '/stored' }], {});
    ceilingBytes = await load('ceiling: Express res.send(stored lot page bytes)', `http://127.0.0.1:${opts.baselinePort}/`, [{ path: '/stored-bytes' }], {});
  }
  if (hello) await stopProcess(hello);
  loads.push(...baselineRounds, ...lotRounds, ...(ceiling ? [ceiling] : []), ...(ceilingBytes ? [ceilingBytes] : []));
  const search = opts.only.has('search') ? await load('GET /v1/lots/search?q=…', svcUrl('/'), searchRequests(), catalogueHeaders, undefined, svc) : null;
  const watch = opts.only.has('watch') ? await load('PUT /v1/me/watchlist/{lotId}', svcUrl('/'), watchRequests(), memberHeaders, undefined, svc) : null;
  if (search) loads.push(search);
  if (watch) loads.push(watch);
  let watchlistSize: number | null = null;
  if (watch) {
    const w = await call('GET', '/v1/me/watchlist?pageSize=1', { Authorization: `Bearer ${memberTok}` });
    watchlistSize = w.status === 200 ? (w.body?.TotalCount ?? null) : null;
  }

  // ---- memory, prints, then stop
  const memory = memoryOf(svc.pid);
  say(`service memory: VmHWM ${fmt((memory?.vmHwmBytes ?? NaN) / 1048576)} MiB, VmRSS ${fmt((memory?.vmRssBytes ?? NaN) / 1048576)} MiB`);
  const printed = opts.only.has('prints') ? await prints(anon, svc.pid) : null;
  const accountFlows = opts.only.has('accounts') ? await accounts(anon) : null;
  const shutdownMs = await stopProcess(svc);
  say(`service stopped (SIGTERM) in ${(shutdownMs / 1000).toFixed(1)} s, exit code ${svc.child.exitCode}`);
  let profileFile: string | null = null;
  if (opts.profile) {
    profileFile = newestProfile(profileDir);
    if (!profileFile) say('no .cpuprofile was written');
    else
      for (const l of loads.filter((x) => x.window)) {
        l.profile = summariseProfile(profileFile, { top: 12, sinceSec: l.window!.fromMs / 1000, untilSec: l.window!.toMs / 1000 });
      }
  }

  // ---- rebuilds (service stopped)
  const rebuilds = opts.only.has('rebuild') ? { catalogue: await rebuild('catalogue'), lotSearch: await rebuild('lot-search') } : null;

  // ---- restart
  let restart: { readySeconds: number; lotPageStatus: number; vmHwmBytesAtReady: number | null; shutdownSeconds: number } | null = null;
  if (opts.only.has('restart')) {
    say('restart: spawning the service again');
    const again = startProcess('service-restart', 'app/main.ts', serviceEnv(), SERVICE_NODE_FLAGS);
    const readyMs = await waitFor200(again, svcUrl('/readyz'), 5 * 60_000);
    const check = await call('GET', '/v1/lots?AuctionId=1&pageSize=20', { Authorization: `Bearer ${await anonymousToken()}` });
    const mem = memoryOf(again.pid);
    const stopMs = await stopProcess(again);
    restart = { readySeconds: readyMs / 1000, lotPageStatus: check.status, vmHwmBytesAtReady: mem?.vmHwmBytes ?? null, shutdownSeconds: stopMs / 1000 };
    say(`  ready after ${restart.readySeconds.toFixed(2)} s`);
  }

  // ---- report
  const base = baselineRounds.length ? median(baselineRounds.map((r) => r.rps)) : NaN;
  const lots = lotRounds.length
    ? { rps: median(lotRounds.map((r) => r.rps)), p50: median(lotRounds.map((r) => r.p50)), p99: median(lotRounds.map((r) => r.p99)) }
    : null;
  const baseMedian = baselineRounds.length
    ? { rps: base, p50: median(baselineRounds.map((r) => r.p50)), p99: median(baselineRounds.map((r) => r.p99)) }
    : null;
  const allLoads = loads;
  // autocannon counts a timeout as an error too.
  const non2xxTotal = allLoads.reduce((s, l) => s + l.non2xx + l.errors, 0);

  type Target = { target: string; value: string; pass: boolean };
  const targets: Target[] = [];
  const add = (target: string, value: string, pass: boolean) => targets.push({ target, value, pass });
  if (lots && baseMedian) add(`lot page req/s ≥ ${TARGETS.lotPageRatio}× baseline (medians)`, `${(lots.rps / base).toFixed(2)}×`, lots.rps / base >= TARGETS.lotPageRatio);
  if (lots) add(`lot page p99 ≤ ${TARGETS.lotPageP99} ms (median of rounds)`, `${lots.p99} ms`, lots.p99 <= TARGETS.lotPageP99);
  if (search) add(`search p99 ≤ ${TARGETS.searchP99} ms`, `${search.p99} ms`, search.p99 <= TARGETS.searchP99);
  if (watch) add(`watchlist PUT p99 ≤ ${TARGETS.watchP99} ms`, `${watch.p99} ms`, watch.p99 <= TARGETS.watchP99);
  if (allLoads.length) add('no non-2xx or errors (incl. timeouts > 10 s) in any load', String(non2xxTotal), non2xxTotal === 0);
  add('lot page probe: 200 with 20 items', `${lotPageCheck.status}, ${lotPageCheck.items} items of ${lotPageCheck.totalCount}`, lotPageCheck.status === 200 && lotPageCheck.items === 20);
  for (const lang of ['en', 'sv', 'de']) {
    const c = searchCheck[lang];
    add(`search probe (${lang}): most queries find lots`, `${c.withHits}/${c.queries} with hits, mean found ${fmt(c.meanFound)}`, c.withHits >= c.queries / 2);
  }
  if (rebuilds) {
    for (const [name, r] of [['catalogue', rebuilds.catalogue], ['lot-search', rebuilds.lotSearch]] as const)
      add(`rebuild ${name} ≥ ${fmt(TARGETS.rebuildEventsPerSecond)} events/s`, `${fmt(r.eventsPerSecond)} events/s`, r.eventsPerSecond >= TARGETS.rebuildEventsPerSecond);
  }
  if (restart) add(`restart: spawn to /readyz 200 ≤ ${TARGETS.restartSeconds} s`, `${restart.readySeconds.toFixed(2)} s`, restart.readySeconds <= TARGETS.restartSeconds);
  if (memory) add(`peak RSS (VmHWM) after the loads ≤ 1.5 GB`, `${fmt(memory.vmHwmBytes / 1048576)} MiB`, memory.vmHwmBytes <= TARGETS.peakRssBytes);
  if (accountFlows) {
    add('accounts: every sign-up + confirmation + sign-in flow succeeds', `${accountFlows.flows.completed} done, ${accountFlows.flows.failed} failed`, accountFlows.flows.failed === 0 && accountFlows.flows.completed > 0);
    add(
      'lot page p99 during sign-up flows ≤ 2× alone (10 connections)',
      `${accountFlows.lotPageDuringFlows.p99} ms vs ${accountFlows.lotPageAlone.p99} ms alone`,
      accountFlows.lotPageDuringFlows.p99 <= 2 * Math.max(accountFlows.lotPageAlone.p99, 1),
    );
  }
  if (printed) {
    add(
      `catalogue PDF of ${fmt(printed.auctionLots)} lots: first request ≤ ${TARGETS.cataloguePdfFirstSeconds} s`,
      `${(printed.pdfFirst.ms / 1000).toFixed(2)} s`,
      printed.pdfFirst.status === 200 && printed.pdfFirst.ms <= TARGETS.cataloguePdfFirstSeconds * 1000,
    );
    add('catalogue PDF: 50 concurrent first requests, identical bodies', `${printed.pdfConcurrentFirst.distinctBodies} distinct bodies, statuses ${printed.pdfConcurrentFirst.statuses}`, printed.pdfConcurrentFirst.distinctBodies === 1 && printed.pdfConcurrentFirst.statuses.join() === '200');
  }

  const lines: string[] = [];
  const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
  const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
  lines.push('');
  lines.push(
    `bench ${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} CPUs · ${fmt(dataset.lots)} lots, ${fmt(events)} events · ` +
      `${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s measured · LOG_LEVEL=${opts.logLevel}${opts.profile ? ' · PROFILED (slower)' : ''}`,
  );
  lines.push('');
  const header = `${pad('load', 46)}${lpad('req/s', 9)}${lpad('ms/req', 8)}${lpad('p50 ms', 8)}${lpad('p99 ms', 8)}${lpad('max ms', 8)}${lpad('× base', 8)}${lpad('non-2xx', 9)}${lpad('errors', 8)}`;
  lines.push(header, '-'.repeat(header.length));
  const row = (label: string, l: { rps: number; p50: number; p99: number; max?: number; non2xx?: number; errors?: number; timeouts?: number }, ratio = true) =>
    lines.push(
      `${pad(label, 46)}${lpad(fmt(l.rps), 9)}${lpad((1000 / l.rps).toFixed(2), 8)}${lpad(String(l.p50), 8)}${lpad(String(l.p99), 8)}${lpad(l.max === undefined ? '' : String(l.max), 8)}` +
        `${lpad(ratio && Number.isFinite(base) ? (l.rps / base).toFixed(2) : '', 8)}${lpad(l.non2xx === undefined ? '' : String(l.non2xx), 9)}` +
        `${lpad(l.errors === undefined ? '' : String(l.errors), 8)}`,
    );
  for (let i = 0; i < Math.max(baselineRounds.length, lotRounds.length); i++) {
    if (baselineRounds[i]) row(`baseline hello-world, round ${i + 1}`, baselineRounds[i]);
    if (lotRounds[i]) row(`GET /v1/lots page, round ${i + 1}`, lotRounds[i]);
  }
  if (baseMedian) row(`baseline hello-world, median of ${baselineRounds.length}`, baseMedian);
  if (lots) row(`GET /v1/lots page, median of ${lotRounds.length}`, lots);
  if (ceiling) row(`ceiling: res.json(stored ${fmt(lotPageCheck.bytes / 1024)} KB lot page)`, ceiling);
  if (ceilingBytes) row(`ceiling: res.send(stored lot page bytes)`, ceilingBytes);
  if (search) row('GET /v1/lots/search?q=… (en/sv/de)', search);
  if (watch) row('PUT /v1/me/watchlist/{lotId}', watch);
  lines.push('');
  const kv = (k: string, v: string) => lines.push(`${pad(k, 46)}${v}`);
  if (dataset.generate) kv(`generate${created ? '' : ' (at dataset creation)'}`, `${dataset.generate.seconds.toFixed(1)} s, ${fmt(dataset.generate.bytes / 1048576)} MB NDJSON`);
  if (dataset.import) kv(`import${created ? '' : ' (at dataset creation)'}`, `${dataset.import.seconds.toFixed(1)} s, ${fmt(dataset.import.records)} records → ${fmt(dataset.import.appended)} events (${fmt(dataset.import.recordsPerSecond)} records/s)`);
  if (dataset.firstBuild) kv(`first build${created ? '' : ' (at dataset creation)'}`, `${dataset.firstBuild.seconds.toFixed(1)} s spawn → /readyz 200, ${fmt(dataset.firstBuild.eventsPerSecond)} events/s`);
  if (!created) kv('service start on the reused dataset', `${(firstReadyMs / 1000).toFixed(2)} s spawn → /readyz 200`);
  if (rebuilds) {
    kv('rebuild catalogue', `${fmt(rebuilds.catalogue.eventsPerSecond)} events/s (${rebuilds.catalogue.seconds.toFixed(2)} s for ${fmt(rebuilds.catalogue.position)} events)`);
    kv('rebuild lot-search', `${fmt(rebuilds.lotSearch.eventsPerSecond)} events/s (${rebuilds.lotSearch.seconds.toFixed(2)} s for ${fmt(rebuilds.lotSearch.position)} events)`);
  }
  if (restart) kv('restart', `${restart.readySeconds.toFixed(2)} s spawn → /readyz 200 (then lot page ${restart.lotPageStatus}); shutdown ${restart.shutdownSeconds.toFixed(1)} s`);
  if (memory) kv('service memory after the loads', `VmHWM ${fmt(memory.vmHwmBytes / 1048576)} MiB, VmRSS ${fmt(memory.vmRssBytes / 1048576)} MiB`);
  if (accountFlows) {
    kv('scrypt (N=2^17), the service\'s own', `${fmt(accountFlows.scrypt.sequentialMedianMs)} ms a hash; ${fmt(accountFlows.scrypt.parallel4PerSecond, 1)} hashes/s for 8 asked at once`);
    kv('sign-up + confirm + sign-in flows, 4 at once', `${fmt(accountFlows.flows.perSecond, 1)} flows/s, median ${fmt(accountFlows.flows.medianMs)} ms, p90 ${fmt(accountFlows.flows.p90Ms)} ms (${accountFlows.flows.completed} done, ${accountFlows.flows.failed} failed)`);
    kv('lot page, 10 conns: alone / during flows', `${fmt(accountFlows.lotPageAlone.rps)} req/s p99 ${accountFlows.lotPageAlone.p99} ms / ${fmt(accountFlows.lotPageDuringFlows.rps)} req/s p99 ${accountFlows.lotPageDuringFlows.p99} ms`);
  }
  if (printed) {
    kv(`catalogue PDF, ${fmt(printed.auctionLots)} lots, first request`, `${fmt(printed.pdfFirst.ms)} ms, ${fmt(printed.pdfFirst.bytes / 1024)} KB`);
    kv('catalogue PDF, 50 concurrent first requests', `${fmt(printed.pdfConcurrentFirst.msAll)} ms until the last answer, ${printed.pdfConcurrentFirst.distinctBodies} distinct bodies`);
    kv('catalogue PDF, repeated request', `median ${fmt(printed.pdfRepeated.medianMs, 1)} ms (min ${fmt(printed.pdfRepeated.minMs, 1)}, max ${fmt(printed.pdfRepeated.maxMs, 1)}, ${printed.pdfRepeated.requests} requests)`);
    kv('spreadsheet export (.xlsx)', `median ${fmt(printed.export.medianMs)} ms (min ${fmt(printed.export.minMs)}, max ${fmt(printed.export.maxMs)}), ${fmt(printed.export.bytes / 1024)} KB`);
    const mb = (m: { vmHwmBytes: number; vmRssBytes: number } | null) => (m ? `VmRSS ${fmt(m.vmRssBytes / 1048576)} MiB, VmHWM ${fmt(m.vmHwmBytes / 1048576)} MiB` : '-');
    kv('service memory before / after the prints', `${mb(printed.memoryBefore)} / ${mb(printed.memoryAfter)}`);
  }
  if (watch) kv('watchlist load', `${fmt(watch.total)} PUTs (+ warm-up) by one member; watchlist holds ${watchlistSize ?? '?'} lots`);
  lines.push(
    '',
    `ms/req = 1000 / req/s: the service time per request when saturated. With ${opts.connections} connections on one event loop,`,
    `p50 ≈ ${opts.connections} × ms/req (each request waits for the others); a p99 of X ms needs ms/req well under X / ${opts.connections}.`,
  );
  lines.push('');
  lines.push('targets');
  for (const t of targets) lines.push(`  ${t.pass ? 'PASS' : 'MISS'}  ${pad(t.target, 60)}${t.value}`);
  const nonOk = allLoads.filter((l) => l.non2xx + l.errors > 0);
  if (nonOk.length) {
    lines.push('');
    for (const l of nonOk) lines.push(`  non-2xx/errors in ${l.name}${l.round ? ` round ${l.round}` : ''}: status codes ${JSON.stringify(l.statusCodes)}, errors ${l.errors} (of which timeouts after 10 s: ${l.timeouts})`);
  }
  if (opts.profile && profileFile) {
    lines.push('', `CPU profile of the service: ${path.relative(ROOT, profileFile)} (per measured window)`);
    for (const l of allLoads.filter((x) => x.profile)) lines.push('', `${l.name}${l.round ? ` round ${l.round}` : ''}:`, formatProfile(l.profile!));
  }
  lines.push('', `results: ${path.relative(ROOT, RESULTS)}; service logs: .bench/service.log, .bench/service-restart.log; total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  process.stdout.write(lines.join('\n') + '\n');

  const results = {
    finishedAt: new Date().toISOString(),
    totalSeconds: (Date.now() - t0) / 1000,
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemBytes: os.totalmem() },
    options: { ...opts, only: [...opts.only] },
    dataset: { ...dataset, reused: !created, eventsAtRun: events },
    serviceStartSeconds: firstReadyMs / 1000,
    checks: { lotPage: lotPageCheck, search: searchCheck },
    loads: allLoads.map(({ profile: _p, ...l }) => l),
    medians: { baseline: baseMedian, lotPage: lots, lotPageRatio: lots && baseMedian ? lots.rps / base : null },
    ceilings: { resJsonStoredLotPage: ceiling, resSendStoredLotPageBytes: ceilingBytes },
    search,
    watchlist: watch ? { ...watch, profile: undefined, member: member.email, watchlistSize } : null,
    rebuilds,
    restart,
    memory,
    prints: printed,
    accounts: accountFlows,
    shutdownSeconds: shutdownMs / 1000,
    targets,
    profile: profileFile ? { file: path.relative(ROOT, profileFile), perLoad: allLoads.filter((l) => l.profile).map((l) => ({ name: l.name, round: l.round, ...l.profile })) } : null,
  };
  fs.writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
