/**
 * The embedded SQLite files read through a memory map (SQLITE_MMAP_MB, src/adapters/embedded/sqlite-mmap.ts): both
 * ports keep their contracts with a map smaller than the files they grow to, a reader sees what another
 * connection wrote beyond its map, and the setting reaches every connection the service opens.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type Database from 'better-sqlite3';
import { openEngines } from '../../app/engines.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { eventLogContract } from './event-log.contract.ts';
import { documentStoreContract } from './read-models.contract.ts';

const logger = createLogger({ level: 'silent' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-mmap-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** Smaller than the files the suites write, so reads cross from the map to plain reads. */
const SMALL_MAP = 64 * 1024;

eventLogContract(
  'embedded SQLite read through a memory map',
  async () => new SqliteEventLog(path.join(dir, `log-${++n}.sqlite`), { pollMs: 20, mmapBytes: SMALL_MAP }),
);
documentStoreContract(
  'embedded SQLite read through a memory map',
  async () => new SqliteDocumentStore(path.join(dir, `rm-${++n}.sqlite`), { mmapBytes: SMALL_MAP }),
);

const mapped = (db: Database.Database) => db.pragma('mmap_size', { simple: true }) as number;
// The log keeps its connection to itself; the spec reads the setting through it.
const logDb = (log: SqliteEventLog) => (log as unknown as { db: Database.Database }).db;

describe('Embedded SQLite read through a memory map', () => {
  it("reads what another connection wrote, past the map's end and after the WAL moved into the file", async () => {
    const file = path.join(dir, 'shared.sqlite');
    const writer = new SqliteDocumentStore(file);
    const reader = new SqliteDocumentStore(file, { mmapBytes: SMALL_MAP });
    try {
      await writer.ensureCollection({ name: 'lots' });
      const text = 'x'.repeat(2000);
      const docs = Array.from({ length: 300 }, (_, i) => ({ _id: String(i), N: i, Text: `${i} ${text}` }));
      const lots = () => reader.forTenant('t').collection<(typeof docs)[number]>('lots');
      await writer.live().commit(
        docs.map((doc) => ({ op: 'put', collection: 'lots', tenant: 't', doc })),
        { projection: 'p', expected: 0, position: 1 },
      );
      expect(fs.statSync(file).size + fs.statSync(`${file}-wal`).size).to.be.greaterThan(4 * SMALL_MAP);
      expect((await lots().find({}, { sort: [['N', 1]] })).map((d) => d.Text)).to.deep.equal(docs.map((d) => d.Text));

      // Moved into the file itself (a checkpoint of the WAL), then changed again: the reader sees the newest.
      writer.db.pragma('wal_checkpoint(TRUNCATE)');
      await writer.live().commit([{ op: 'put', collection: 'lots', tenant: 't', doc: { ...docs[299], Text: 'changed' } }], {
        projection: 'p',
        expected: 1,
        position: 2,
      });
      expect((await lots().findById('299'))?.Text).to.equal('changed');
      const now = docs.map((d) => (d.N === 299 ? 'changed' : d.Text));
      expect((await lots().find({}, { sort: [['N', 1]] })).map((d) => d.Text)).to.deep.equal(now);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('maps nothing unless asked, and refuses a size that is not a byte count', async () => {
    const store = new SqliteDocumentStore(path.join(dir, `plain-${++n}.sqlite`));
    expect(mapped(store.db)).to.equal(0);
    await store.close();
    expect(() => new SqliteDocumentStore(path.join(dir, `bad-${++n}.sqlite`), { mmapBytes: -1 })).to.throw(RangeError);
  });

  it('reads SQLITE_MMAP_MB: 1024 MB unless set, 0 for none, a clear error for anything else', () => {
    expect(loadConfig({}).sqliteMmapBytes).to.equal(1024 * 2 ** 20);
    expect(loadConfig({ SQLITE_MMAP_MB: '0' }).sqliteMmapBytes).to.equal(0);
    expect(loadConfig({ SQLITE_MMAP_MB: '16' }).sqliteMmapBytes).to.equal(16 * 2 ** 20);
    for (const bad of ['-1', '1.5', 'lots', '4096'])
      expect(() => loadConfig({ SQLITE_MMAP_MB: bad }), bad)
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains('SQLITE_MMAP_MB');
  });

  it("opens the service's log and read models with the configured map", async () => {
    const engines = await openEngines(loadConfig({ DATA_DIR: path.join(dir, `service-${++n}`), SQLITE_MMAP_MB: '16' }), logger, 'all');
    try {
      expect(engines.documents).to.be.instanceOf(SqliteDocumentStore);
      expect(mapped((engines.documents as SqliteDocumentStore).db)).to.equal(16 * 2 ** 20);
      expect(mapped(logDb(engines.log as SqliteEventLog))).to.equal(16 * 2 ** 20);
    } finally {
      await engines.close();
    }
  });
});
