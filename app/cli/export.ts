import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { dataPaths, openEngines, type Engines } from '../engines.ts';
import { positionArg, resolvePosition, logTenants, type PositionArg } from './positions.ts';
import { positionCodecOf } from '../runtime.ts';
import type { CollectionSpec, Doc } from '../../src/ports/read-models.ts';
import type { ReactorDeps } from '../../src/projector/projection.ts';
import { tenantStreamId } from '../../commands/access/events.ts';
import { SYSTEM, TENANTS } from '../../projections/access/collections.ts';
import { eventCatalog } from '../features/events.ts';
import { service } from '../features/index.ts';
import { eventChunks, EVENTS, type EventSelection } from './export/events.ts';
import { formatRows, FORMATS, type Chunk, type Column, type Format, type Kind, type Layout, type Value } from './export/format.ts';
import { fileOutput, OutputClosed, stdoutOutput, tableWriter, type Output } from './export/tables.ts';
import { BadInput, runTool } from '../../src/cli/tool.ts';
import { openPrivateFile } from '../../src/private-files.ts';

/**
 * `npm run export -- events [--types T,...] [--tenant T] [--from P] [--to P] [--format F] [--out FILE] [--private]`
 * and `npm run export -- collection NAME [--tenant T] [--format F] [--out FILE] [--private]`
 * (BACKOFFICE.md "The analysts' tools", docs/analysts.md): the log in the back office's feed's public form, or a
 * read model, as NDJSON, CSV (RFC 4180) or Parquet. Streamed: read in batches and written as it is read (Parquet
 * in row groups), so memory stays flat whatever the log's size. Written to a temporary file beside --out,
 * renamed at the end (without --out: to standard output). Progress on standard error.
 * Exit codes: 0 done, 1 failed, 2 bad input (nothing written), 130 stopped by Ctrl-C (nothing left at --out).
 */

const USAGE =
  'usage: npm run export -- events [--types T,...] [--tenant T] [--from P] [--to P] [--format ndjson|csv|parquet] [--out FILE] [--private]' +
  ' | collection NAME [--tenant T] [--format ndjson|csv|parquet] [--out FILE] [--private]';

/** Documents read from a collection at once. */
const PAGE = 1000;
/** Worker threads read and format the embedded log's events when an export spans at least this many positions. */
const PARALLEL_FROM = 50_000;

interface Args {
  what: 'events' | 'collection';
  collection?: string;
  types?: string[];
  tenant?: string;
  from?: PositionArg;
  to?: PositionArg;
  format: Format;
  out?: string;
  private: boolean;
}

/** What `--from`/`--to` take, in the words of their errors. */
const POSITION = "a position (an event's Position from an export or the back office's feed, or a position of the log)";

function parseArgs(argv: string[]): Args {
  const [what, ...rest] = argv;
  if (what !== 'events' && what !== 'collection') throw new BadInput(what === undefined ? USAGE : `unknown export "${what}"; ${USAGE}`);
  const args: Args = { what, format: 'ndjson', private: false };
  let format: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = () => {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new BadInput(`${arg} needs a value; ${USAGE}`);
      return v;
    };
    const eventsOnly = () => {
      if (what !== 'events') throw new BadInput(`${arg} is for events, not a collection; ${USAGE}`);
    };
    if (arg === '--types') {
      eventsOnly();
      args.types = value()
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
    } else if (arg === '--from' || arg === '--to') {
      eventsOnly();
      args[arg === '--from' ? 'from' : 'to'] = positionArg(arg, rest[++i], POSITION);
    } else if (arg === '--tenant') args.tenant = value();
    else if (arg === '--format') format = value();
    else if (arg === '--out') args.out = value();
    else if (arg === '--private') args.private = true;
    else if (arg.startsWith('-')) throw new BadInput(`unknown option ${arg}; ${USAGE}`);
    else if (what === 'collection' && args.collection === undefined) args.collection = arg;
    else throw new BadInput(`unexpected argument "${arg}"; ${USAGE}`);
  }
  if (what === 'collection' && args.collection === undefined) throw new BadInput(`which collection? ${USAGE}`);
  // Without --format, the output file's extension says it (.csv, .parquet); otherwise NDJSON.
  const ext = args.out ? path.extname(args.out).slice(1).toLowerCase() : '';
  format ??= ext === 'csv' || ext === 'parquet' ? ext : 'ndjson';
  if (!(FORMATS as readonly string[]).includes(format)) throw new BadInput(`--format is one of ${FORMATS.join(', ')}, not "${format}"`);
  args.format = format as Format;
  if (args.types) {
    const known = new Set(eventCatalog.map((e) => e.type));
    const unknown = args.types.filter((t) => !known.has(t));
    if (args.types.length === 0) throw new BadInput('--types needs at least one event type');
    if (unknown.length > 0)
      throw new BadInput(`--types: ${unknown.join(', ')} is not an event type of the log (docs/events.md lists them)`);
    const operators = new Set(eventCatalog.filter((d) => d.operator).map((d) => d.type));
    const operator = args.types.filter((t) => operators.has(t));
    if (operator.length > 0 && !args.private)
      throw new BadInput(`--types: ${operator.join(', ')} is the operator's record, not in the feed's public form: add --private`);
  }
  if (args.tenant !== undefined && !/^(_system|[a-z0-9][a-z0-9-]{0,62})$/.test(args.tenant))
    throw new BadInput(`--tenant takes a tenant id (lower-case letters, digits and dashes), not "${args.tenant}"`);
  if (args.format === 'parquet' && !args.out && process.stdout.isTTY)
    throw new BadInput('Parquet is binary: give --out FILE (or pipe standard output)');
  return args;
}

// ------------------------------------------------------------------------------------------ progress

/** A bar on a terminal (how far, rows/s, time left); a plain line every two seconds otherwise. */
function progress(label: string, unit: 'position' | 'documents', total: number) {
  const started = Date.now();
  const rate = (rows: number) => Math.round(rows / Math.max(0.001, (Date.now() - started) / 1000));
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | ${unit} {value}/{total} | {rows} rows, {rate} rows/s | ETA {eta_formatted}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(total, 1), 0, { rows: 0, rate: 0 });
    return {
      update: (at: number, rows: number) => bar.update(Math.min(at, total), { rows, rate: rate(rows) }),
      stop: () => bar.stop(),
    };
  }
  let printed = 0;
  return {
    update(at: number, rows: number) {
      const now = Date.now();
      if (now - printed < 2000 && at < total) return;
      printed = now;
      const done = total > 0 ? Math.min(1, at / total) : 1;
      const seconds = (now - started) / 1000;
      const left = done >= 1 ? '0s' : done > 0 ? `${Math.ceil((seconds * (1 - done)) / done)}s` : 'unknown';
      const where = unit === 'position' ? `position ${at} of ${total}` : `${at} of ${total} documents`;
      process.stderr.write(`${label}: ${where}, ${rows} rows, ${rate(rows)} rows/s, ${left} left\n`);
    },
    stop: () => undefined,
  };
}

// ------------------------------------------------------------------------------------------ what is exported

/** What an export reads, ready to go: checked before anything is written. */
interface Plan {
  label: string;
  layout: Layout;
  unit: 'position' | 'documents';
  total: number;
  /** The formatted rows, in order, with how far each chunk reaches (a position, or documents so far). */
  chunks(): AsyncGenerator<{ chunk: Chunk; covered: number }>;
  summary: Record<string, unknown>;
}

interface Context {
  config: Config;
  engines: Engines;
  args: Args;
  stopping: () => boolean;
}

async function checkTenant(engines: Engines, tenant: string | undefined) {
  if (tenant === undefined || tenant === SYSTEM) return;
  if ((await engines.log.readStream(tenantStreamId(tenant))).length === 0)
    throw new BadInput(`--tenant ${tenant}: no such tenant (the log configures none of that name)`);
}

/** Worker threads for an export of `span` positions: EXPORT_WORKERS, or the cores (at most 4) over the embedded log. */
function workersFor(config: Config, span: number): number {
  const asked = process.env.EXPORT_WORKERS;
  if (asked !== undefined && /^\d+$/.test(asked)) return Math.min(Number(asked), 16);
  return !config.engines.eventStoreDb && span >= PARALLEL_FROM ? Math.min(4, os.availableParallelism()) : 0;
}

async function eventsPlan({ config, engines, args, stopping }: Context): Promise<Plan> {
  await checkTenant(engines, args.tenant);
  const codec = await positionCodecOf(config, engines);
  const houses = args.tenant !== undefined ? [args.tenant] : await logTenants(engines.log);
  const asked = (arg: PositionArg | undefined) => (arg === undefined ? undefined : resolvePosition(arg, codec, houses));
  const [askedFrom, askedTo] = [asked(args.from), asked(args.to)];
  if (askedFrom !== undefined && askedTo !== undefined && askedTo < askedFrom)
    throw new BadInput(`--to (position ${askedTo}) is before --from (position ${askedFrom})`);
  const head = await engines.log.headPosition();
  // A snapshot: the log up to its head as the export starts (or --to); events appended meanwhile are left out.
  const to = Math.min(askedTo ?? head, head);
  const from = Math.min(askedFrom ?? 0, to);
  // The public form is the feed's: no operator's record (their data may name members); --private has them all.
  const types = args.types ?? eventCatalog.filter((d) => args.private || !d.operator).map((d) => d.type);
  const selection: EventSelection = {
    types,
    tenant: args.tenant ?? null,
    privateFields: Object.fromEntries(eventCatalog.filter((d) => d.private?.length).map((d) => [d.type, d.private!])),
    includePrivate: args.private,
    format: args.format,
    positionSecret: codec.secretHex,
  };
  const file = config.engines.eventStoreDb ? null : dataPaths(config.dataDir).events;
  return {
    label: 'export events',
    layout: EVENTS,
    unit: 'position',
    total: to,
    chunks: () => eventChunks({ log: engines.log, file, workers: workersFor(config, to - from), selection, from, to, stopping }),
    // Positions as the house sees them with --tenant; the log's own otherwise (the export spans every house).
    summary:
      args.tenant !== undefined
        ? { from: codec.forTenant(args.tenant).token(from), to: codec.forTenant(args.tenant).token(to) }
        : { from, to },
  };
}

/** The runtime's own fields: the id (a column of its own) and the position of the last event applied. */
const RUNTIME_FIELDS = new Set(['_id', '_pos']);

/** The tenants whose documents a collection may hold: the operator's, and every tenant of the log. */
async function tenantsOf(engines: Engines): Promise<string[]> {
  const tenants = new Set<string>([SYSTEM]);
  try {
    for (const doc of await engines.documents.forTenant(SYSTEM).collection(TENANTS).find({})) tenants.add(doc._id);
  } catch {
    // The access read model is not there (no projector ever ran here): the log says.
  }
  if (engines.log.readTypes)
    for (let from = 0; ;) {
      const read = await engines.log.readTypes({ fromPosition: from, maxCount: 1000, types: ['TenantConfigured'] });
      for (const e of read.events) tenants.add(e.metadata.tenant);
      if (read.position <= from) break;
      from = read.position;
    }
  return [...tenants].sort();
}

/** Every document of a collection of one tenant, page by page in `_id` order. */
async function* documentsOf(engines: Engines, collection: string, tenant: string): AsyncGenerator<Doc[]> {
  const docs = engines.documents.forTenant(tenant).collection(collection);
  let after: string | null = null;
  for (;;) {
    const page = await docs.find(after === null ? {} : { _id: { $gt: after } }, { sort: [['_id', 1]], limit: PAGE });
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]._id;
  }
}

type FieldKind = 'string' | 'json' | 'int64' | 'double' | 'boolean' | 'null';

function kindOf(v: unknown): FieldKind {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'int64' : 'double';
  return 'json';
}

/** One column for the values of a field across documents: numbers widen to double, anything else mixed is JSON. */
function merge(a: FieldKind | undefined, b: FieldKind): FieldKind {
  if (a === undefined || a === 'null' || a === b) return b;
  if (b === 'null') return a;
  if ((a === 'int64' && b === 'double') || (a === 'double' && b === 'int64')) return 'double';
  return 'json';
}

/** A field's value as its column holds it (a document changed between the two passes: JSON text, or null). */
function cell(kind: Kind, v: unknown): Value {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? v : JSON.stringify(v);
    case 'int64':
      return Number.isSafeInteger(v) ? (v as number) : null;
    case 'double':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    default:
      return JSON.stringify(v);
  }
}

/** NDJSON of a document: `{"_tenant":…,"_id":…,` then its fields as they are (spliced from their JSON). */
const documentLine = (r: Value[]) => {
  const fields = r[2] as string;
  return `{"_tenant":${JSON.stringify(r[0])},"_id":${JSON.stringify(r[1])}${fields.length > 2 ? `,${fields.slice(1)}` : '}'}\n`;
};

/**
 * What a collection declares (its private fields): the service's own (a projection's or a feature's), or an
 * analyst's as the store keeps it; BadInput naming the service's collections when there is none of that name.
 */
async function collectionSpecOf(engines: Engines, name: string): Promise<CollectionSpec> {
  const own = service.projections({} as ReactorDeps).flatMap((p) => (p.kind === 'documents' ? p.collections : []));
  const spec =
    own.find((c) => c.name === name) ??
    service.collections.find((c) => c.name === name) ??
    (/^[a-z][a-z0-9_]*$/.test(name) ? await engines.documents.collectionSpec(name) : null);
  if (spec) return spec;
  const known = [...new Set([...own.map((c) => c.name), ...service.collections.map((c) => c.name)])].sort();
  throw new BadInput(`no collection ${name}; the service's are ${known.join(', ')} (and those of the analysts' projections run here)`);
}

async function collectionPlan({ engines, args, stopping }: Context): Promise<Plan> {
  const name = args.collection!;
  const spec = await collectionSpecOf(engines, name);
  if (spec.privateIds && !args.private)
    throw new BadInput(
      `${name}: its documents are named by private values (key hashes, bidders); export it with --private, and keep the file inside`,
    );
  const privateFields = new Set(spec.private ?? []);
  await checkTenant(engines, args.tenant);
  const asked = args.tenant !== undefined ? [args.tenant] : await tenantsOf(engines);
  // Only the houses that have documents in it (the summary names them).
  const tenants: string[] = [];
  let total = 0;
  for (const tenant of asked) {
    const count = await engines.documents
      .forTenant(tenant)
      .collection(name)
      .countDocuments({})
      .catch(() => 0);
    if (count > 0 || args.tenant !== undefined) tenants.push(tenant);
    total += count;
  }
  const kept = (field: string) => !RUNTIME_FIELDS.has(field) && (args.private || !privateFields.has(field));
  let layout: Layout;
  let row: (tenant: string, doc: Doc) => Value[];
  if (args.format === 'ndjson') {
    // The documents as they are, their tenant and id first.
    layout = {
      columns: [
        { name: '_tenant', kind: 'string' },
        { name: '_id', kind: 'string' },
        { name: 'fields', kind: 'json' },
      ],
      ndjson: documentLine,
    };
    row = (tenant, doc) => [tenant, doc._id, JSON.stringify(Object.fromEntries(Object.entries(doc).filter(([f]) => kept(f))))];
  } else {
    // Columns: the fields of the documents, found by a first pass over them.
    const fields = new Map<string, FieldKind>();
    for (const tenant of tenants)
      for await (const page of documentsOf(engines, name, tenant))
        for (const doc of page)
          for (const [field, v] of Object.entries(doc)) if (kept(field)) fields.set(field, merge(fields.get(field), kindOf(v)));
    const columns: Column[] = [
      { name: '_tenant', kind: 'string' },
      { name: '_id', kind: 'string' },
      ...[...fields].map(([field, kind]): Column => ({ name: field, kind: kind === 'null' ? 'string' : kind })),
    ];
    layout = { columns };
    row = (tenant, doc) => [tenant, doc._id, ...columns.slice(2).map((c) => cell(c.kind, doc[c.name]))];
  }
  return {
    label: `export ${name}`,
    layout,
    unit: 'documents',
    total,
    async *chunks() {
      let rows = 0;
      for (const tenant of tenants)
        for await (const page of documentsOf(engines, name, tenant)) {
          rows += page.length;
          yield {
            chunk: formatRows(
              args.format,
              layout,
              page.map((doc) => row(tenant, doc)),
            ),
            covered: rows,
          };
          if (stopping()) return;
        }
    },
    summary: { tenants },
  };
}

// ------------------------------------------------------------------------------------------ the run

/** The temporary file beside the output, renamed onto it at the end. */
const temporaryOf = (out: string) => path.join(path.dirname(out), `.${path.basename(out)}.${process.pid}.export.tmp`);

async function openOutput(out: string | undefined): Promise<{ output: Output; temporary: string | null }> {
  if (out === undefined) return { output: stdoutOutput(), temporary: null };
  const temporary = temporaryOf(out);
  try {
    if (fs.statSync(out, { throwIfNoEntry: false })?.isDirectory()) throw new BadInput(`--out ${out} is a directory`);
    // Private (0600) as DATA_DIR is: an export holds members' personal data (docs/analysts.md).
    return { output: fileOutput(await openPrivateFile(temporary, 'wx')), temporary };
  } catch (error) {
    if (error instanceof BadInput) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such directory' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String(code ?? error);
    throw new BadInput(`cannot write ${out}: ${why}`);
  }
}

async function run(args: Args): Promise<number> {
  const config = loadConfig();
  const logger = createLogger({ level: 'warn' });
  let engines: Engines | null = null;
  let temporary: string | null = null;
  let stopping = false;
  const onSignal = () => {
    stopping = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    engines = await openEngines(config, logger, 'api', { withoutLotIndex: true });
    const context: Context = { config, engines, args, stopping: () => stopping };
    const plan = args.what === 'events' ? await eventsPlan(context) : await collectionPlan(context);
    // Everything checked: the output is opened last (a bad --out is bad input too, and nothing is written).
    const opened = await openOutput(args.out);
    temporary = opened.temporary;
    const { output } = opened;
    if (args.private)
      process.stderr.write('export: --private: the output holds private fields (hashes, keys, addresses); keep it inside\n');
    const table = tableWriter(args.format, plan.layout, output);
    const bar = progress(plan.label, plan.unit, plan.total);
    const started = Date.now();
    let rows = 0;
    try {
      for await (const { chunk, covered } of plan.chunks()) {
        await table.write(chunk);
        rows += chunk.rows;
        bar.update(covered, rows);
      }
      if (!stopping) await table.end();
    } finally {
      bar.stop();
    }
    if (stopping) {
      await output.close().catch(() => undefined);
      process.stderr.write(`${plan.label}: stopped${args.out ? `; nothing written to ${args.out}` : ''}\n`);
      return 130;
    }
    await output.close();
    if (temporary) {
      fs.renameSync(temporary, args.out!);
      temporary = null;
    }
    const seconds = (Date.now() - started) / 1000;
    const summary = JSON.stringify({
      exported: args.what === 'events' ? 'events' : args.collection,
      format: args.format,
      rows,
      ...plan.summary,
      out: args.out ?? null,
      bytes: output.bytes,
      seconds,
      rowsPerSecond: Math.round(rows / Math.max(seconds, 0.001)),
    });
    // With --out, standard output carries the summary; without, it carries the export and the summary goes to stderr.
    (args.out ? process.stdout : process.stderr).write(summary + '\n');
    return 0;
  } catch (error) {
    if (error instanceof OutputClosed) return 0;
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (temporary) fs.rmSync(temporary, { force: true });
    await engines?.close();
  }
}

runTool('export', async () => run(parseArgs(process.argv.slice(2))));
