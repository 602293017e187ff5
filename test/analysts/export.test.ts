import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { DuckDBInstance } from '@duckdb/node-api';
import { startTestServer } from '../support/server.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { EventFeed } from '../../src/events/feed.ts';
import { feedEventId, feedItem } from '../../src/events/feed-items.ts';
import type { PositionCodec } from '../../src/events/position.ts';
import { positionCodecOf } from '../../app/runtime.ts';
import { loadConfig } from '../../src/config.ts';
import { eventCatalog } from '../../app/features/events.ts';
import type { NewEvent } from '../../src/ports/event-log.ts';

/**
 * `npm run export -- events ...` and `npm run export -- collection NAME` (BACKOFFICE.md "The analysts' tools"),
 * run as a user runs them, in a process of their own, on copies of one DATA_DIR seeded with the demo data; each
 * export read back (NDJSON, CSV, Parquet with hyparquet and with DuckDB) and checked against the log itself.
 */
describe('npm run export (the log and the read models as NDJSON, CSV and Parquet)', function () {
  this.timeout(120_000);

  let seeded: string;
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  /** A fresh copy of the seeded folder. */
  const copy = () => {
    const dir = tempDir('export-data-');
    fs.cpSync(seeded, dir, { recursive: true });
    return dir;
  };

  /** The houses' positions of the seeded folder (its copies share its secret). */
  let codec: PositionCodec;
  const token = (e: { tenant: string; position: number }) => codec.forTenant(e.tenant ?? '').token(e.position);

  before(async () => {
    seeded = tempDir('export-seeded-');
    const server = await startTestServer({ dataDir: seeded });
    await server.close();
    codec = await positionCodecOf(loadConfig({ DATA_DIR: seeded }));
  });

  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  interface Run {
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
    bytes: Buffer;
  }

  function exportTool(
    dataDir: string,
    args: string[],
    options: { npm?: boolean; env?: Record<string, string>; umask?: string; onStderr?: (stderr: string, pid: number) => void } = {},
  ): Promise<Run> {
    let [command, argv] = options.npm
      ? ['npm', ['run', '--silent', 'export', '--', ...args]]
      : [process.execPath, ['--import', 'tsx', 'app/cli/export.ts', ...args]];
    if (options.umask) [command, argv] = ['sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, command, ...argv]];
    const child = spawn(command, argv, {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c) => {
      stderr += c;
      options.onStderr?.(stderr, child.pid!);
    });
    return new Promise((resolve) =>
      child.on('close', (code, signal) => {
        const bytes = Buffer.concat(out);
        resolve({ code, signal, stdout: bytes.toString('utf8'), stderr, bytes });
      }),
    );
  }

  interface LogEvent {
    position: number;
    streamId: string;
    revision: number;
    type: string;
    version: number;
    data: Record<string, unknown>;
    tenant: string;
    created: string;
  }

  /**
   * The log's events, read from the embedded log directly: as the public export gives them (no operator's record),
   * or all of them (`operator`: as --private does).
   */
  function logEvents(dataDir: string, options: { operator?: boolean } = {}): LogEvent[] {
    const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT * FROM events ORDER BY position').all() as Array<Record<string, string | number>>)
        .map((e) => ({
          position: e.position as number,
          streamId: e.stream_id as string,
          revision: e.revision as number,
          type: e.type as string,
          version: e.version as number,
          data: JSON.parse(e.data as string),
          tenant: JSON.parse(e.metadata as string).tenant,
          created: e.created as string,
        }))
        .filter((e) => options.operator || !definitions.get(e.type)!.operator);
    } finally {
      db.close();
    }
  }

  const definitions = new Map(eventCatalog.map((d) => [d.type, d]));

  /** An event as the export writes it: the feed's item, its tenant, its data without private fields unless asked. */
  function exported(e: LogEvent, withPrivate = false) {
    const data = { ...e.data };
    if (!withPrivate) for (const field of definitions.get(e.type)!.private ?? []) delete data[field];
    return {
      Id: feedEventId(e.streamId, e.revision),
      Type: e.type,
      Version: e.version,
      Stream: e.streamId,
      Revision: e.revision,
      Position: token(e),
      Time: e.created,
      Tenant: e.tenant,
      Data: data,
    };
  }

  const ndjson = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));

  /** RFC 4180: fields separated by commas, records by CRLF, quoted fields with quotes doubled. */
  function parseCsv(text: string): string[][] {
    const records: string[][] = [];
    let record: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c !== '"') field += c;
        else if (text[i + 1] === '"') field += text[++i];
        else quoted = false;
      } else if (c === '"') quoted = true;
      else if (c === ',') {
        record.push(field);
        field = '';
      } else if (c === '\r' && text[i + 1] === '\n') {
        record.push(field);
        records.push(record);
        record = [];
        field = '';
        i++;
      } else {
        expect(c, `a bare ${JSON.stringify(c)} outside quotes`).to.not.be.oneOf(['\r', '\n']);
        field += c;
      }
    }
    expect(field === '' && record.length === 0, 'the last record ends with CRLF').to.equal(true);
    return records;
  }

  async function duckdb<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      return (await (await connection.runAndReadAll(sql)).getRowObjectsJson()) as T[];
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }

  const summaryOf = (run: Run) => JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  const leftIn = (dir: string) => fs.readdirSync(dir);

  /** Appends events as another process would (the tool reads the file). */
  async function append(dataDir: string, streamId: string, events: NewEvent[]) {
    const log = new SqliteEventLog(path.join(dataDir, 'events.sqlite'));
    await log.appendToStream(streamId, events);
    await log.close();
  }

  it('writes the whole log as NDJSON in the feed’s public form: every event once, in log order, ids and positions as the feed gives them', async () => {
    const out = path.join(tempDir('export-out-'), 'events.ndjson');
    const run = await exportTool(seeded, ['events', '--out', out], { npm: true });
    expect(run.code, run.stderr).to.equal(0);
    const events = logEvents(seeded);
    const rows = ndjson(fs.readFileSync(out, 'utf8'));
    expect(rows).to.deep.equal(events.map((e) => exported(e)));
    expect(summaryOf(run)).to.include({ exported: 'events', format: 'ndjson', rows: events.length, out });
    // Not a terminal: plain progress lines on standard error.
    expect(run.stderr).to.match(
      new RegExp(`export events: position ${events.at(-1)!.position} of ${events.at(-1)!.position}, ${events.length} rows`),
    );

    // A tenant's events are those of its back-office feed, item for item (the feed leaves out operator records).
    const log = new SqliteEventLog(path.join(seeded, 'events.sqlite'));
    const feed = new EventFeed(log, eventCatalog, codec).forTenant('demo');
    const items: unknown[] = [];
    for (let after = 0; ;) {
      const page = await feed.page({ after, types: null, limit: 1000, waitMs: 0 });
      for (const e of page.events) items.push(feedItem(e));
      if (!page.hasMore) break;
      after = page.events.at(-1)!.position;
    }
    await log.close();
    const demo = rows.filter((r) => r.Tenant === 'demo' && !definitions.get(r.Type)!.operator).map(({ Tenant: _, ...item }) => item);
    expect(items.length).to.be.greaterThan(1000);
    expect(demo).to.deep.equal(items);
  });

  it('writes CSV with a header and RFC 4180 quoting (commas, quotes and line breaks), the same rows as NDJSON, which DuckDB reads', async () => {
    const dir = copy();
    const tricky = 'Chairs, "tables"\r\nand lamps';
    await append(dir, 'category-demo-9999', [
      {
        type: 'CategoryCatalogued',
        version: 1,
        data: { tenant: 'demo', categoryId: 9999, parentId: null, names: { en: tricky }, sortOrder: 1 },
        metadata: { tenant: 'demo' },
      },
    ]);
    const outDir = tempDir('export-out-');
    const csv = path.join(outDir, 'events.csv');
    const run = await exportTool(dir, ['events', '--out', csv]);
    expect(run.code, run.stderr).to.equal(0);
    const text = fs.readFileSync(csv, 'utf8');
    const [header, ...records] = parseCsv(text);
    expect(header).to.deep.equal(['Id', 'Type', 'Version', 'Stream', 'Revision', 'Position', 'Time', 'Tenant', 'Data']);
    const events = logEvents(dir);
    expect(records).to.deep.equal(
      events.map((e) => {
        const x = exported(e);
        return [x.Id, x.Type, String(x.Version), x.Stream, String(x.Revision), x.Position, x.Time, x.Tenant, JSON.stringify(x.Data)];
      }),
    );
    expect(JSON.parse(records.at(-1)![8]).names.en).to.equal(tricky);
    // The JSON of every Data is quoted (it holds quotes), and the line break stays inside its quotes.
    expect(text).to.include(
      `"{""tenant"":""demo"",""categoryId"":9999,""parentId"":null,""names"":{""en"":""Chairs, \\""tables\\""\\r\\nand lamps""},""sortOrder"":1}"`,
    );

    const [read] = await duckdb<{ n: string; name: string }>(
      `SELECT count(*) AS n, max(CASE WHEN Stream = 'category-demo-9999' THEN Data->>'$.names.en' END) AS name FROM read_csv('${csv}', header = true)`,
    );
    expect(read).to.deep.equal({ n: String(events.length), name: tricky });
  });

  it('writes Parquet that hyparquet reads back row for row and DuckDB opens as it is (Data a JSON string, Time a UTC timestamp, gzip)', async () => {
    const out = path.join(tempDir('export-out-'), 'events.parquet');
    const run = await exportTool(seeded, ['events', '--out', out]);
    expect(run.code, run.stderr).to.equal(0);
    expect(summaryOf(run)).to.include({ format: 'parquet' });
    const events = logEvents(seeded);

    const file = await asyncBufferFromFile(out);
    // Gzip-compressed (hyparquet reads Snappy by itself, and takes a decompressor for the others).
    const compressors = { GZIP: (input: Uint8Array) => new Uint8Array(zlib.gunzipSync(input)) };
    const rows = (await parquetReadObjects({ file, compressors })) as Array<Record<string, unknown>>;
    expect(
      rows.map((r) => ({
        ...r,
        Revision: Number(r.Revision as bigint),
        Time: (r.Time as Date).toISOString(),
        Data: JSON.parse(r.Data as string),
      })),
    ).to.deep.equal(events.map((e) => exported(e)));

    const types = await duckdb<{ column_name: string; column_type: string }>(
      `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${out}')`,
    );
    expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).to.deep.equal({
      Id: 'VARCHAR',
      Type: 'VARCHAR',
      Version: 'INTEGER',
      Stream: 'VARCHAR',
      Revision: 'BIGINT',
      Position: 'VARCHAR',
      Time: 'TIMESTAMP WITH TIME ZONE',
      Tenant: 'VARCHAR',
      Data: 'VARCHAR',
    });
    const bids = events.filter((e) => e.type === 'BidPlaced');
    const [counted] = await duckdb<{ n: string; ids: string; bids: string; amount: string; tenants: string }>(
      `SELECT count(*) AS n, count(DISTINCT Id) AS ids, count(*) FILTER (WHERE Type = 'BidPlaced') AS bids,
              sum(CAST(Data->>'$.amount' AS BIGINT)) FILTER (WHERE Type = 'BidPlaced') AS amount, count(DISTINCT Tenant) AS tenants
         FROM '${out}'`,
    );
    expect(counted).to.deep.equal({
      n: String(events.length),
      ids: String(events.length),
      bids: String(bids.length),
      amount: String(bids.reduce((sum, e) => sum + (e.data.amount as number), 0)),
      tenants: String(new Set(events.map((e) => e.tenant)).size),
    });
  });

  it('leaves private fields out (a member’s password hash) unless --private, which says so on standard error', async () => {
    const outDir = tempDir('export-out-');
    const plain = await exportTool(seeded, ['events', '--types', 'MemberSignedUp', '--out', path.join(outDir, 'public.ndjson')]);
    expect(plain.code, plain.stderr).to.equal(0);
    const members = ndjson(fs.readFileSync(path.join(outDir, 'public.ndjson'), 'utf8'));
    expect(members).to.have.length.greaterThan(0);
    for (const m of members) {
      expect(m.Data).to.include.keys('email', 'memberId');
      expect(m.Data).to.not.have.property('passwordHash');
    }
    expect(plain.stderr).to.not.include('--private');

    const withPrivate = await exportTool(seeded, [
      'events',
      '--types',
      'MemberSignedUp',
      '--private',
      '--out',
      path.join(outDir, 'private.ndjson'),
    ]);
    expect(withPrivate.code, withPrivate.stderr).to.equal(0);
    const full = ndjson(fs.readFileSync(path.join(outDir, 'private.ndjson'), 'utf8'));
    expect(full.map((m) => m.Data.passwordHash)).to.satisfy((hashes: unknown[]) =>
      hashes.every((h) => typeof h === 'string' && h.startsWith('scrypt$')),
    );
    expect(withPrivate.stderr).to.include('--private: the output holds private fields');

    // The same in a read model: the members' password hashes.
    const docs = await exportTool(seeded, ['collection', 'members', '--out', path.join(outDir, 'members.ndjson')]);
    expect(docs.code, docs.stderr).to.equal(0);
    const rows = ndjson(fs.readFileSync(path.join(outDir, 'members.ndjson'), 'utf8'));
    expect(rows).to.have.length.greaterThan(0);
    for (const r of rows) expect(r).to.include.keys('_tenant', '_id', 'Email').and.not.have.property('PasswordHash');
    const docsPrivate = await exportTool(seeded, ['collection', 'members', '--private', '--out', path.join(outDir, 'members-private.csv')]);
    expect(docsPrivate.code, docsPrivate.stderr).to.equal(0);
    const [header] = parseCsv(fs.readFileSync(path.join(outDir, 'members-private.csv'), 'utf8'));
    expect(header).to.include('PasswordHash');
  });

  it('writes its --out file 0600 whatever the umask, as it holds members’ personal data (their addresses) even without --private', async () => {
    const outDir = tempDir('export-out-');
    fs.chmodSync(outDir, 0o777);
    const out = path.join(outDir, 'members.ndjson');
    const run = await exportTool(seeded, ['events', '--types', 'MemberSignedUp', '--out', out], { umask: '000' });
    expect(run.code, run.stderr).to.equal(0);
    expect(ndjson(fs.readFileSync(out, 'utf8'))[0].Data).to.have.property('email');
    expect((fs.statSync(out).mode & 0o777).toString(8)).to.equal('600');
  });

  it("writes exactly the feed's public form: no operator's record (idempotency keys, Api-Keys, settings) unless --private", async () => {
    const outDir = tempDir('export-out-');
    const operatorTypes = eventCatalog.filter((d) => d.operator).map((d) => d.type);
    const all = logEvents(seeded, { operator: true });
    expect(all.filter((e) => operatorTypes.includes(e.type)).length, 'operator records in the log').to.be.greaterThan(0);
    const plain = await exportTool(seeded, ['events', '--out', path.join(outDir, 'public.ndjson')]);
    expect(plain.code, plain.stderr).to.equal(0);
    const rows = ndjson(fs.readFileSync(path.join(outDir, 'public.ndjson'), 'utf8'));
    expect(rows.filter((r) => operatorTypes.includes(r.Type))).to.deep.equal([]);
    expect(rows).to.have.length(logEvents(seeded).length);
    // Asking for an operator's type is asking for private data.
    const asked = await exportTool(seeded, ['events', '--types', 'ApiKeyIssued', '--out', path.join(outDir, 'keys.ndjson')]);
    expect(asked.code).to.equal(2);
    expect(asked.stderr).to.match(/ApiKeyIssued is the operator's record, not in the feed's public form: add --private/);
    expect(fs.existsSync(path.join(outDir, 'keys.ndjson'))).to.equal(false);
    const full = await exportTool(seeded, ['events', '--private', '--out', path.join(outDir, 'private.ndjson')]);
    expect(full.code, full.stderr).to.equal(0);
    expect(ndjson(fs.readFileSync(path.join(outDir, 'private.ndjson'), 'utf8'))).to.have.length(all.length);
  });

  it('leaves out the fields a read model declares private (a lot’s reserve, a bidder’s maximum) unless --private', async () => {
    const outDir = tempDir('export-out-');
    const lots = await exportTool(seeded, ['collection', 'lots', '--out', path.join(outDir, 'lots.ndjson')]);
    expect(lots.code, lots.stderr).to.equal(0);
    const rows = ndjson(fs.readFileSync(path.join(outDir, 'lots.ndjson'), 'utf8'));
    expect(rows.length).to.be.greaterThan(1000);
    expect(rows.filter((r) => 'Reserve' in r)).to.deep.equal([]);
    const withReserve = await exportTool(seeded, ['collection', 'lots', '--private', '--out', path.join(outDir, 'lots-private.ndjson')]);
    expect(withReserve.code, withReserve.stderr).to.equal(0);
    const reserves = ndjson(fs.readFileSync(path.join(outDir, 'lots-private.ndjson'), 'utf8')).filter((r) => typeof r.Reserve === 'number');
    expect(reserves.length, 'lots with a reserve').to.be.greaterThan(0);
    // Documents named by a bidder and a lot: only with --private.
    const bids = await exportTool(seeded, ['collection', 'member_bids', '--out', path.join(outDir, 'member-bids.ndjson')]);
    expect(bids.code).to.equal(2);
    expect(bids.stderr).to.match(/member_bids: its documents are named by private values/);
    // The summary names the houses that have documents in it.
    expect(summaryOf(lots).tenants).to.deep.equal(['demo', 'demo2']);
  });

  it('filters by types, tenant and positions (the feed’s opaque positions, or the log’s), --from exclusive and --to inclusive', async () => {
    const events = logEvents(seeded);
    const outDir = tempDir('export-out-');
    const exportRows = async (args: string[]) => {
      const out = path.join(outDir, `${Math.random().toString(36).slice(2)}.ndjson`);
      const run = await exportTool(seeded, ['events', ...args, '--out', out]);
      expect(run.code, run.stderr).to.equal(0);
      return ndjson(fs.readFileSync(out, 'utf8'));
    };
    const types = ['AuctionCatalogued', 'CategoryCatalogued'];
    expect(await exportRows(['--types', types.join(',')])).to.deep.equal(
      events.filter((e) => types.includes(e.type)).map((e) => exported(e)),
    );
    const demo2 = events.filter((e) => e.tenant === 'demo2');
    expect(demo2.length).to.be.greaterThan(10);
    expect(await exportRows(['--tenant', 'demo2'])).to.deep.equal(demo2.map((e) => exported(e)));

    const [from, to] = [events[100], events[200]];
    const between = events.filter((e) => e.position > from.position && e.position <= to.position).map((e) => exported(e));
    expect(between).to.have.length(100);
    expect(await exportRows(['--from', token(from), '--to', token(to)])).to.deep.equal(between);
    expect(await exportRows(['--from', String(from.position), '--to', String(to.position)])).to.deep.equal(between);
    expect(await exportRows(['--to', token(events[9])])).to.have.length(10);
    expect(await exportRows(['--types', 'BidPlaced', '--tenant', 'demo', '--from', token(from)])).to.deep.equal(
      events.filter((e) => e.type === 'BidPlaced' && e.tenant === 'demo' && e.position > from.position).map((e) => exported(e)),
    );
  });

  it('exports a read model, the service’s or an analyst’s, in every format, its fields as columns', async () => {
    const dir = copy();
    const outDir = tempDir('export-out-');
    const db = new Database(path.join(dir, 'read-models.sqlite'), { readonly: true });
    const categories = db.prepare('SELECT tenant, id, json(doc) AS doc FROM rm_categories_g1 ORDER BY tenant, id').all() as Array<{
      tenant: string;
      id: string;
      doc: string;
    }>;
    db.close();
    const run = await exportTool(dir, ['collection', 'categories', '--out', path.join(outDir, 'categories.ndjson')]);
    expect(run.code, run.stderr).to.equal(0);
    expect(summaryOf(run)).to.include({ exported: 'categories', rows: categories.length });
    expect(ndjson(fs.readFileSync(path.join(outDir, 'categories.ndjson'), 'utf8'))).to.deep.equal(
      categories.map((c) => {
        const { _id, _pos, ...fields } = JSON.parse(c.doc);
        return { _tenant: c.tenant, _id, ...fields };
      }),
    );
    const csv = await exportTool(dir, ['collection', 'categories', '--tenant', 'demo', '--out', path.join(outDir, 'categories.csv')]);
    expect(csv.code, csv.stderr).to.equal(0);
    const [header, ...records] = parseCsv(fs.readFileSync(path.join(outDir, 'categories.csv'), 'utf8'));
    expect(header.slice(0, 2)).to.deep.equal(['_tenant', '_id']);
    expect(header).to.include.members(['Id', 'Names', 'ParentId']).and.not.include('_pos');
    expect(records).to.have.length(categories.filter((c) => c.tenant === 'demo').length);
    const names = records.map((r) => JSON.parse(r[header.indexOf('Names')]));
    expect(names[0]).to.be.an('object');

    // An analyst's projection, replayed, then exported as Parquet and summed by DuckDB: every bid of the log.
    const replay = spawn(process.execPath, ['--import', 'tsx', 'app/cli/project.ts', 'examples/projections/bids-per-category-per-day.ts'], {
      env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    expect(await new Promise((resolve) => replay.on('exit', resolve))).to.equal(0);
    const parquet = path.join(outDir, 'bids.parquet');
    const exportedDocs = await exportTool(dir, ['collection', 'analysis_bids_per_category_day', '--out', parquet]);
    expect(exportedDocs.code, exportedDocs.stderr).to.equal(0);
    const bids = logEvents(dir).filter((e) => e.type === 'BidPlaced');
    const [sums] = await duckdb<{ bids: string; amount: string; highest: string }>(
      `SELECT sum(Bids) AS bids, sum(Amount) AS amount, max(HighestBid) AS highest FROM '${parquet}'`,
    );
    expect(sums).to.deep.equal({
      bids: String(bids.length),
      amount: String(bids.reduce((sum, e) => sum + (e.data.amount as number), 0)),
      highest: String(Math.max(...bids.map((e) => e.data.amount as number))),
    });
    const metadata = await parquetMetadataAsync(await asyncBufferFromFile(parquet));
    expect(metadata.schema.map((s) => s.name)).to.deep.equal([
      'root',
      '_tenant',
      '_id',
      'CategoryId',
      'Category',
      'Day',
      'Currency',
      'Bids',
      'Amount',
      'HighestBid',
    ]);
  });

  it('writes to standard output without --out (the summary then on standard error), and creates no file', async () => {
    const dir = copy();
    const auctions = logEvents(dir).filter((e) => e.type === 'AuctionCatalogued');
    // (SQLite's -wal and -shm files come and go with connections.)
    const files = () =>
      leftIn(dir)
        .filter((f) => !/-(wal|shm)$/.test(f))
        .sort();
    const before = files();
    const run = await exportTool(dir, ['events', '--types', 'AuctionCatalogued', '--format', 'csv']);
    expect(run.code, run.stderr).to.equal(0);
    const [header, ...records] = parseCsv(run.stdout);
    expect(header[0]).to.equal('Id');
    expect(records.map((r) => r[0])).to.deep.equal(auctions.map((e) => feedEventId(e.streamId, e.revision)));
    expect(JSON.parse(run.stderr.trim().split('\n').at(-1)!)).to.include({ exported: 'events', format: 'csv', out: null });
    expect(files()).to.deep.equal(before);
  });

  describe('on a larger log (100,000 more events)', () => {
    let big: string;
    before(async () => {
      big = copy();
      const accepted: NewEvent[] = Array.from({ length: 100_000 }, (_, i) => ({
        type: 'AuctionTermsAccepted',
        version: 1,
        data: { tenant: 'demo', memberId: 1 + (i % 500), auctionId: 1 + (i % 3), at: '2026-01-02T03:04:05.000Z' },
        metadata: { tenant: 'demo' },
      }));
      await append(big, 'terms-demo-many', accepted);
    });

    it('writes Parquet in row groups, which DuckDB reads whole', async () => {
      const out = path.join(tempDir('export-out-'), 'events.parquet');
      const run = await exportTool(big, ['events', '--out', out]);
      expect(run.code, run.stderr).to.equal(0);
      const events = logEvents(big);
      const metadata = await parquetMetadataAsync(await asyncBufferFromFile(out));
      expect(metadata.row_groups.length).to.be.greaterThan(1);
      expect(Number(metadata.num_rows)).to.equal(events.length);
      const [counted] = await duckdb<{ n: string; accepted: string; last: string }>(
        `SELECT count(*) AS n, count(*) FILTER (WHERE Type = 'AuctionTermsAccepted') AS accepted, max(Revision) FILTER (WHERE Stream = 'terms-demo-many') AS last FROM '${out}'`,
      );
      expect(counted).to.deep.equal({ n: String(events.length), accepted: '100000', last: '99999' });
    });

    it('writes the same bytes with worker threads reading the log as with one thread', async () => {
      const outDir = tempDir('export-out-');
      for (const format of ['ndjson', 'csv', 'parquet']) {
        const one = path.join(outDir, `one.${format}`);
        const many = path.join(outDir, `many.${format}`);
        const single = await exportTool(big, ['events', '--tenant', 'demo', '--out', one], { env: { EXPORT_WORKERS: '0' } });
        expect(single.code, single.stderr).to.equal(0);
        const parallel = await exportTool(big, ['events', '--tenant', 'demo', '--out', many], { env: { EXPORT_WORKERS: '2' } });
        expect(parallel.code, parallel.stderr).to.equal(0);
        expect(fs.readFileSync(many).equals(fs.readFileSync(one)), format).to.equal(true);
        expect(summaryOf(parallel).rows).to.equal(logEvents(big).filter((e) => e.tenant === 'demo').length);
      }
    });

    it('writes to a temporary file beside --out and renames it at the end; Ctrl-C leaves --out as it was and nothing else', async () => {
      const outDir = tempDir('export-out-');
      const out = path.join(outDir, 'events.ndjson');
      fs.writeFileSync(out, 'the previous export\n');
      let during: { files: string[]; out: string } | null = null;
      const interrupted = await exportTool(big, ['events', '--out', out], {
        onStderr: (stderr, pid) => {
          if (during || !/export events: position \d+ of \d+/.test(stderr)) return;
          // Frozen mid-export: the output is untouched, the rows so far are in a temporary file beside it.
          process.kill(pid, 'SIGSTOP');
          during = { files: leftIn(outDir).sort(), out: fs.readFileSync(out, 'utf8') };
          process.kill(pid, 'SIGINT');
          process.kill(pid, 'SIGCONT');
        },
      });
      expect(during, interrupted.stderr).to.not.equal(null);
      expect(during!.out).to.equal('the previous export\n');
      expect(during!.files).to.have.length(2);
      const temporary = during!.files.find((f) => f !== 'events.ndjson')!;
      expect(temporary).to.match(/^\.events\.ndjson\.\d+\.export\.tmp$/);
      expect(interrupted.code).to.equal(130);
      expect(interrupted.stderr).to.include(`export events: stopped; nothing written to ${out}`);
      expect(leftIn(outDir)).to.deep.equal(['events.ndjson']);
      expect(fs.readFileSync(out, 'utf8')).to.equal('the previous export\n');

      const done = await exportTool(big, ['events', '--out', out]);
      expect(done.code, done.stderr).to.equal(0);
      expect(leftIn(outDir)).to.deep.equal(['events.ndjson']);
      expect(ndjson(fs.readFileSync(out, 'utf8'))).to.have.length(logEvents(big).length);
    });
  });

  describe('refuses bad input with one line on standard error, exit code 2, nothing written', () => {
    const cases: Array<{ title: string; args: (dir: string) => string[]; says: RegExp; keep?: string[] }> = [
      { title: 'nothing to export', args: () => [], says: /^export: usage: npm run export -- events/ },
      { title: 'an unknown export', args: () => ['everything'], says: /unknown export "everything"; usage:/ },
      {
        title: 'an unknown option',
        args: (d) => ['events', '--verbose', '--out', `${d}/x.ndjson`],
        says: /unknown option --verbose; usage:/,
      },
      {
        title: 'an unknown event type',
        args: (d) => ['events', '--types', 'BidPlaced,LotTeleported', '--out', `${d}/x.ndjson`],
        says: /--types: LotTeleported is not an event type of the log/,
      },
      {
        title: 'an unknown format',
        args: (d) => ['events', '--format', 'xml', '--out', `${d}/x.xml`],
        says: /--format is one of ndjson, csv, parquet, not "xml"/,
      },
      {
        title: '--from not a position',
        args: (d) => ['events', '--from', 'yesterday', '--out', `${d}/x.ndjson`],
        says: /--from takes a position .*"yesterday"/,
      },
      {
        title: '--to not a position the feed gives',
        args: (d) => ['events', '--to', 'p:10', '--out', `${d}/x.ndjson`],
        says: /--to takes a position .*"p:10"/,
      },
      {
        title: '--to before --from',
        args: (d) => ['events', '--from', '200', '--to', '100', '--out', `${d}/x.ndjson`],
        says: /--to \(position 100\) is before --from \(position 200\)/,
      },
      {
        title: 'an unknown tenant',
        args: (d) => ['events', '--tenant', 'nosuch', '--out', `${d}/x.ndjson`],
        says: /--tenant nosuch: no such tenant/,
      },
      {
        title: 'a tenant that is no tenant id',
        args: (d) => ['events', '--tenant', 'Demo!', '--out', `${d}/x.ndjson`],
        says: /--tenant takes a tenant id/,
      },
      { title: 'a collection without its name', args: () => ['collection'], says: /which collection\?/ },
      {
        title: 'an unknown collection',
        args: (d) => ['collection', 'no_such_collection', '--out', `${d}/x.ndjson`],
        says: /no collection no_such_collection; the service's are .*\blots\b.*\bmembers\b/,
      },
      {
        title: 'a collection named by key hashes, without --private',
        args: (d) => ['collection', 'api_keys', '--out', `${d}/x.ndjson`],
        says: /api_keys: its documents are named by private values/,
      },
      {
        title: '--types on a collection',
        args: (d) => ['collection', 'members', '--types', 'BidPlaced', '--out', `${d}/x.ndjson`],
        says: /--types is for events/,
      },
      { title: '--out without a file', args: () => ['events', '--out'], says: /--out needs a value/ },
      {
        title: '--out in a folder that does not exist',
        args: (d) => ['events', '--out', `${d}/missing/x.ndjson`],
        says: /cannot write .*missing\/x\.ndjson: no such directory/,
      },
      { title: '--out a folder', args: (d) => ['events', '--out', d], says: /--out .* is a directory/ },
      {
        title: '--out where nothing can be written (below a file)',
        args: (d) => {
          fs.writeFileSync(`${d}/file`, 'a file\n');
          return ['events', '--out', `${d}/file/x.ndjson`];
        },
        says: /cannot write .*file\/x\.ndjson: ENOTDIR/,
        keep: ['file'],
      },
    ];
    for (const c of cases)
      it(c.title, async () => {
        const outDir = tempDir('export-bad-');
        const run = await exportTool(seeded, c.args(outDir));
        expect(run.code, run.stderr).to.equal(2);
        const lines = run.stderr.trim().split('\n');
        expect(lines, run.stderr).to.have.length(1);
        expect(lines[0]).to.match(c.says);
        expect(run.stdout).to.equal('');
        expect(leftIn(outDir)).to.deep.equal(c.keep ?? []);
      });
  });
});
