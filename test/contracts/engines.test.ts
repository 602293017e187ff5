import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { eventLogContract } from './event-log.contract.ts';
import { documentStoreContract } from './read-models.contract.ts';
import { FolderFileStore } from '../../src/adapters/embedded/folder-files.ts';
import { fileStoreContract } from './files.contract.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-engines-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

eventLogContract('embedded SQLite', async () => new SqliteEventLog(path.join(dir, `log-${++n}.sqlite`), { pollMs: 20 }));
documentStoreContract('embedded SQLite', async () => new SqliteDocumentStore(path.join(dir, `rm-${++n}.sqlite`)));
fileStoreContract('embedded data folder', async () => new FolderFileStore(path.join(dir, `files-${++n}`)));

describe('embedded SQLite engines', () => {
  it('keep the event log across a close and reopen', async () => {
    const file = path.join(dir, 'durable.sqlite');
    const log = new SqliteEventLog(file);
    await log.appendToStream('x', [{ type: 'A', version: 1, data: { tenant: 't' }, metadata: { tenant: 't' } }]);
    await log.close();
    const again = new SqliteEventLog(file);
    expect(await again.readStream('x')).to.have.length(1);
    await again.close();
  });

  it("read $all in order when another process appended between this process's own appends", async () => {
    const file = path.join(dir, 'two-writers.sqlite');
    const mine = new SqliteEventLog(file);
    const other = new SqliteEventLog(file);
    const e = (n: number) => ({ type: 'A', version: 1, data: { tenant: 't', n }, metadata: { tenant: 't' } });
    await mine.appendToStream('x', [e(1)]);
    await other.appendToStream('y', [e(2)]);
    await mine.appendToStream('x', [e(3)]);
    const read = await mine.readAll({ fromPosition: 0, maxCount: 10 });
    const all = [...read, ...(await mine.readAll({ fromPosition: read[read.length - 1].position, maxCount: 10 }))];
    expect(all.map((r) => r.data.n)).to.deep.equal([1, 2, 3]);
    await mine.close();
    await other.close();
  });

  it('drop the table a rebuild replaced, and the tables of an aborted rebuild', async () => {
    const store = new SqliteDocumentStore(path.join(dir, 'swap.sqlite'));
    const tables = () =>
      (
        store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm_items_%'").all() as Array<{ name: string }>
      ).map((t) => t.name);
    await store.ensureCollection({ name: 'items', indexes: [{ fields: ['Number'] }] });
    const put = { op: 'put' as const, collection: 'items', tenant: 't', doc: { _id: '1', Number: 1 } };
    const aborted = await store.startRebuild('p', ['items']);
    await aborted.commit([put], { projection: 'p', expected: 0, position: 1 });
    expect(tables()).to.deep.equal(['rm_items_g1', 'rm_items_g2']);
    await aborted.abort();
    expect(tables()).to.deep.equal(['rm_items_g1']);
    const rebuild = await store.startRebuild('p', ['items']);
    await rebuild.commit([put], { projection: 'p', expected: 0, position: 1 });
    expect(await rebuild.finish()).to.equal(true);
    expect(tables()).to.deep.equal(['rm_items_g2']);
    const indexes = store.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_items_g2' AND sql IS NOT NULL")
      .all();
    expect(indexes).to.have.length(1);
    await store.close();
  });

  it('bring an index changed between starts to the existing copy, and drop one no longer declared', async () => {
    const file = path.join(dir, 'changed-index.sqlite');
    const indexes = (store: SqliteDocumentStore) =>
      (
        store.db
          .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_items_g1' AND sql IS NOT NULL")
          .all() as Array<{
          sql: string;
        }>
      ).map((i) => i.sql);
    const before = new SqliteDocumentStore(file);
    await before.ensureCollection({ name: 'items', indexes: [{ fields: ['Code'] }, { fields: ['Old'] }] });
    const put = (id: string) => ({ op: 'put' as const, collection: 'items', tenant: 't', doc: { _id: id, Code: 'same' } });
    await before.live().commit([put('1'), put('2')], { projection: 'p', expected: 0, position: 1 });
    await before.close();
    const after = new SqliteDocumentStore(file);
    await after.ensureCollection({ name: 'items', indexes: [{ fields: ['Code', 'Kind'], unique: true }] });
    const now = indexes(after);
    expect(now).to.have.length(1);
    expect(now[0]).to.match(/^CREATE UNIQUE INDEX .*Code.*Kind/);
    await after.close();
  });

  it('answer a lot page from the declared index, not a scan of the collection', async () => {
    const store = new SqliteDocumentStore(path.join(dir, 'plan.sqlite'));
    await store.ensureCollection({ name: 'lots', indexes: [{ fields: ['AuctionId', 'LotNumber'] }] });
    const physical = (store.db.prepare("SELECT physical FROM rm_aliases WHERE name = 'lots'").get() as { physical: string }).physical;
    const plan = store.db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT json(doc) FROM ${physical} WHERE tenant = ? AND json_extract(doc, '$."AuctionId"') = ? ORDER BY json_extract(doc, '$."LotNumber"') ASC, rowid ASC LIMIT 20`,
      )
      .all('t', 1) as Array<{ detail: string }>;
    const details = plan.map((p) => p.detail).join(' | ');
    expect(details).to.match(/USING INDEX/);
    expect(details).to.not.match(/USE TEMP B-TREE|SCAN /);
    await store.close();
  });
});
