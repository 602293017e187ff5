import { expect } from 'chai';
import fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MiniSearchIndex, type MiniSearchIndexOptions } from '../../src/adapters/embedded/minisearch/index.ts';
import { SqliteSearchIndex } from '../../src/adapters/embedded/sqlite-search/index.ts';
import { contractSpec, lot, query, searchIndexContract } from './search.contract.ts';
import type { SearchRequest } from '../../src/ports/search.ts';

const TENANT = 'tenant-a';
/** As the service configures it for the lot index (projections/lot-search: LOT_SEARCH_PARTITION). */
const PARTITIONS = { lots: 'Language' };
const T0 = 1_750_000_000_000;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'search-index-test-'));
  dirs.push(dir);
  return dir;
}

after(function () {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

searchIndexContract(
  'embedded MiniSearch, on disk, partitioned by Language as the service runs it',
  async () => new MiniSearchIndex({ dir: tempDir(), flushIntervalMs: 0, partitions: PARTITIONS }),
);

searchIndexContract('embedded MiniSearch, memory only, not partitioned', async () => new MiniSearchIndex({ dir: null }));

searchIndexContract(
  'embedded SQLite FTS5, on disk, partitioned by Language as the service runs it',
  async () => new SqliteSearchIndex({ file: join(tempDir(), 'index.sqlite'), partitions: PARTITIONS }),
);

searchIndexContract('embedded SQLite FTS5, memory only, not partitioned', async () => new SqliteSearchIndex({ file: null }));

async function expectRejection(p: Promise<unknown>): Promise<void> {
  let failed = false;
  await p.catch(() => (failed = true));
  expect(failed, 'expected the call to be rejected').to.equal(true);
}

describe('embedded MiniSearch index', function () {
  const open = (dir: string, extra: Partial<MiniSearchIndexOptions> = {}) =>
    MiniSearchIndex.open({ dir, flushIntervalMs: 0, partitions: PARTITIONS, ...extra });

  const titles = async (index: MiniSearchIndex, q: string, filter = {}) =>
    (await index.search('lots', TENANT, query(q, { filter }))).hits.map((h) => h.id);

  describe('partitioned by a field (the `partitions` option)', function () {
    let index: MiniSearchIndex;
    const find = (q: string, filter = {}) => index.search('lots', TENANT, query(q, { filter }));
    const ids = async (q: string, filter = {}) => (await find(q, filter)).hits.map((h) => h.id);

    beforeEach(async function () {
      index = await MiniSearchIndex.open({ dir: null, partitions: PARTITIONS });
      await index.ensureCollection(contractSpec);
    });
    afterEach(async () => index.close());

    it('keeps one document per id and partition value, so a lot is indexed once per language', async function () {
      await index.upsert('lots', TENANT, [lot('1', { Title: 'Oak chair', Language: 'en' }), lot('1', { Title: 'Ekstol', Language: 'sv' })]);
      expect(await ids('chair')).to.deep.equal(['1']);
      expect(await ids('ekstol', { Language: 'sv' })).to.deep.equal(['1']);
      await index.upsert('lots', TENANT, [lot('1', { Title: 'Pine chair', Language: 'en' })]);
      expect(await ids('pine')).to.deep.equal(['1']);
      expect(await ids('ekstol', { Language: 'sv' })).to.deep.equal(['1']);
    });

    it('applies an update without the partition field to every partition holding the id, with it to that one', async function () {
      await index.upsert('lots', TENANT, [
        lot('1', { Title: 'Oak chair', Language: 'en', EndTime: T0 }),
        lot('1', { Title: 'Ekstol', Language: 'sv', EndTime: T0 }),
      ]);
      await index.update('lots', TENANT, [{ id: '1', EndTime: T0 + 500 }]);
      expect((await find('chair', { EndTime: T0 + 500 })).found).to.equal(1);
      expect((await find('ekstol', { Language: 'sv', EndTime: T0 + 500 })).found).to.equal(1);
      await index.update('lots', TENANT, [{ id: '1', Language: 'sv', CategoryId: 9 }]);
      expect((await find('ekstol', { Language: 'sv', CategoryId: 9 })).found).to.equal(1);
      expect((await find('chair', { CategoryId: 9 })).found).to.equal(0);
    });

    it('deletes an id from every partition', async function () {
      await index.upsert('lots', TENANT, [lot('1', { Title: 'Oak chair' }), lot('1', { Title: 'Ekstol', Language: 'sv' })]);
      await index.delete('lots', TENANT, ['1']);
      expect((await find('chair')).found).to.equal(0);
      expect((await find('ekstol', { Language: 'sv' })).found).to.equal(0);
    });

    it('refuses a search without an equality filter on the partition field', async function () {
      const request: SearchRequest = { q: 'chair', queryBy: ['Title'], page: 1, perPage: 10 };
      await expectRejection(index.search('lots', TENANT, request));
      await expectRejection(index.search('lots', TENANT, { ...request, filter: { Language: { in: ['en', 'sv'] } } }));
    });

    it('refuses a document without a value of the partition field', async function () {
      await expectRejection(index.upsert('lots', TENANT, [{ id: 'x', Title: 'Oak chair' }]));
    });

    it('refuses a partition field the collection does not have', async function () {
      const other = await MiniSearchIndex.open({ dir: null, partitions: { lots: 'Country' } });
      await expectRejection(other.ensureCollection(contractSpec));
      await other.close();
    });
  });

  it('re-partitions the stored documents when the partitions option changes across a reopen', async function () {
    const dir = tempDir();
    const a = await open(dir, { partitions: {} });
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('en-1', { Title: 'Oak chair' }), lot('sv-1', { Title: 'Ekstol', Language: 'sv' })]);
    await a.close();

    const b = await open(dir);
    expect(b.loadStats).to.include({ partitions: 1, documents: 2 });
    await b.ensureCollection(contractSpec);
    expect(await titles(b, 'ekstol', { Language: 'sv' })).to.deep.equal(['sv-1']);
    expect(await titles(b, 'chair')).to.deep.equal(['en-1']);
    await b.close();

    const c = await open(dir);
    expect(c.loadStats).to.include({ partitions: 2, documents: 2, rebuiltFromDocuments: 0 });
    await c.close();
  });

  it('loads a folder written while the partition field was part of the collection spec, without re-indexing', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('en-1', { Title: 'Oak chair' }), lot('sv-1', { Title: 'Ekstol', Language: 'sv' })]);
    await a.close();
    // The manifest as the index wrote it before: `partitionField` inside the spec, no entry of its own.
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    for (const c of manifest.collections) {
      c.spec = { ...c.spec, partitionField: c.partitionField };
      delete c.partitionField;
    }
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));

    const b = await open(dir);
    expect(b.loadStats).to.include({ partitions: 2, documents: 2, rebuiltFromDocuments: 0 });
    await b.ensureCollection(contractSpec);
    expect(await titles(b, 'ekstol', { Language: 'sv' })).to.deep.equal(['sv-1']);
    await b.close();
  });

  it('read-only: loads the snapshot, follows writes in memory and never writes the folder', async function () {
    const dir = tempDir();
    const writer = await open(dir);
    await writer.ensureCollection(contractSpec);
    await writer.upsert('lots', TENANT, [lot('kept', { Title: 'Pewter jug' })]);
    await writer.setCheckpoint('lots-projection', 5);
    await writer.flush();
    writeFileSync(join(dir, 'manifest.json.tmp-1-inflight'), 'a flush of the writer in progress');
    const before = readdirSync(dir).sort();

    const replica = await open(dir, { readOnly: true, flushIntervalMs: 10 });
    await replica.ensureCollection(contractSpec);
    expect(await replica.getCheckpoint('lots-projection')).to.equal(5);
    await replica.upsert('lots', TENANT, [lot('new', { Title: 'Pewter plate' })]);
    await replica.setCheckpoint('lots-projection', 6);
    expect((await titles(replica, 'pewter')).sort()).to.deep.equal(['kept', 'new']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await replica.flush();
    await replica.close();
    expect(readdirSync(dir).sort()).to.deep.equal(before);
    await writer.close();
  });

  it('read-only on a folder that does not exist yet starts empty and creates nothing', async function () {
    const dir = join(tempDir(), 'not-yet');
    const replica = await open(dir, { readOnly: true });
    await replica.ensureCollection(contractSpec);
    expect(await replica.getCheckpoint('lots-projection')).to.equal(0);
    await replica.close();
    expect(fs.existsSync(dir)).to.equal(false);
  });

  it('keeps documents and checkpoints across a close and a reopen', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [
      lot('en-1', { Title: 'Café chair', CategoryId: 3 }),
      lot('sv-1', { Title: 'Café stol', Language: 'sv' }),
    ]);
    await a.upsert('lots', 'tenant-b', [lot('b-1', { Title: 'Café chair' })]);
    await a.delete('lots', TENANT, ['nothing']);
    await a.setCheckpoint('lots-projection', 123);
    await a.close();

    const b = await open(dir);
    expect(b.loadStats).to.include({ partitions: 3, documents: 3, rebuiltFromDocuments: 0 });
    await b.ensureCollection(contractSpec);
    expect(await b.getCheckpoint('lots-projection')).to.equal(123);
    expect(await titles(b, 'cafe', { CategoryId: 3 })).to.deep.equal(['en-1']);
    expect(await titles(b, 'cafe', { Language: 'sv' })).to.deep.equal(['sv-1']);
    expect((await b.search('lots', 'tenant-b', query('chiar'))).hits.map((h) => h.id)).to.deep.equal(['b-1']);
    // Writes after a reopen go on from the loaded state.
    await b.upsert('lots', TENANT, [lot('en-2', { Title: 'Café table' })]);
    await b.delete('lots', TENANT, ['en-1']);
    expect(await titles(b, 'cafe')).to.deep.equal(['en-2']);
    await b.close();

    const c = await open(dir);
    await c.ensureCollection(contractSpec);
    expect(await titles(c, 'cafe')).to.deep.equal(['en-2']);
    await c.close();
  });

  it('keeps the other fields of a partial update, also across a reopen', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [
      lot('x', { Title: 'Brass lamp', Description: 'Art deco', CategoryId: 4, AuctionId: 8, EndTime: 5000 }),
    ]);
    await a.update('lots', TENANT, [{ id: 'x', EndTime: 9000 }]);
    await a.update('lots', TENANT, [{ id: 'x', Description: 'Art nouveau' }]);
    await a.close();

    const b = await open(dir);
    await b.ensureCollection(contractSpec);
    expect(await titles(b, 'brass nouveau', { CategoryId: 4, AuctionId: 8, EndTime: 9000 })).to.deep.equal(['x']);
    expect(await titles(b, 'deco')).to.deep.equal([]);
    await b.close();
  });

  it('ignores the leftovers of a crashed flush when it opens', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('kept', { Title: 'Pewter jug' })]);
    await a.setCheckpoint('lots-projection', 5);
    await a.close();
    const committed = readFileSync(join(dir, 'manifest.json'), 'utf8');

    // What a flush that died half-way leaves behind: temp files and a partition file of a newer generation.
    const part = readdirSync(dir).find((f) => f.endsWith('.part'))!;
    writeFileSync(join(dir, 'manifest.json.tmp-999-deadbeef'), '{"format":1,"generation":');
    writeFileSync(join(dir, `${part.split('.')[0]}.9.part.tmp-999-cafe`), 'half a snapshot');
    writeFileSync(join(dir, `${part.split('.')[0]}.9.part`), 'a newer partition the manifest never listed');

    const b = await open(dir);
    await b.ensureCollection(contractSpec);
    expect(await b.getCheckpoint('lots-projection')).to.equal(5);
    expect(await titles(b, 'pewter')).to.deep.equal(['kept']);
    expect(readdirSync(dir).sort()).to.deep.equal([part, 'manifest.json'].sort());
    expect(readFileSync(join(dir, 'manifest.json'), 'utf8')).to.equal(committed);
    await b.close();
  });

  it('keeps the previous snapshot when a flush fails before its manifest is committed', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('first', { Title: 'Pewter jug' })]);
    await a.setCheckpoint('lots-projection', 5);
    await a.flush();

    await a.upsert('lots', TENANT, [lot('second', { Title: 'Pewter plate' })]);
    await a.setCheckpoint('lots-projection', 6);
    const realRename = fs.promises.rename;
    fs.promises.rename = async (from, to) => {
      if (String(to).endsWith('manifest.json')) throw new Error('simulated crash before the manifest');
      return realRename(from, to);
    };
    syncBuiltinESMExports();
    try {
      let failed = false;
      await a.flush().catch(() => (failed = true));
      expect(failed).to.equal(true);
    } finally {
      fs.promises.rename = realRename;
      syncBuiltinESMExports();
    }

    // A reader now sees the old checkpoint with the old documents: never a newer checkpoint.
    const b = await open(dir);
    await b.ensureCollection(contractSpec);
    expect(await b.getCheckpoint('lots-projection')).to.equal(5);
    expect(await titles(b, 'pewter')).to.deep.equal(['first']);
    await b.close();

    // The writer still knows its state is unsaved and writes it on the next flush.
    await a.close();
    const c = await open(dir);
    await c.ensureCollection(contractSpec);
    expect(await c.getCheckpoint('lots-projection')).to.equal(6);
    expect((await titles(c, 'pewter')).sort()).to.deep.equal(['first', 'second']);
    await c.close();
  });

  it('starts empty with checkpoints at 0 when a snapshot file is damaged, so that projections replay', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('x', { Title: 'Pewter jug' })]);
    await a.setCheckpoint('lots-projection', 5);
    await a.close();
    const part = readdirSync(dir).find((f) => f.endsWith('.part'))!;
    writeFileSync(join(dir, part), readFileSync(join(dir, part)).subarray(0, 100));

    const errors: unknown[] = [];
    const b = await open(dir, { onError: (e) => errors.push(e) });
    expect(errors).to.have.length(1);
    expect(await b.getCheckpoint('lots-projection')).to.equal(0);
    await b.ensureCollection(contractSpec);
    expect(await titles(b, 'pewter')).to.deep.equal([]);
    await b.close();
  });

  it('rebuilds a partition from its documents when its snapshot comes from another MiniSearch version', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('x', { Title: 'Pewter jug', CategoryId: 2 })]);
    await a.setCheckpoint('lots-projection', 4);
    await a.close();
    const part = readdirSync(dir).find((f) => f.endsWith('.part'))!;
    const bytes = readFileSync(join(dir, part));
    const text = bytes.toString('latin1');
    const version = /"minisearch":"([^"]+)"/.exec(text)![1];
    const at = text.indexOf(`"minisearch":"${version}"`) + '"minisearch":"'.length;
    bytes.write('0'.repeat(version.length), at, 'latin1');
    writeFileSync(join(dir, part), bytes);

    const b = await open(dir);
    expect(b.loadStats.rebuiltFromDocuments).to.equal(1);
    await b.ensureCollection(contractSpec);
    expect(await b.getCheckpoint('lots-projection')).to.equal(4);
    expect(await titles(b, 'pewter', { CategoryId: 2 })).to.deep.equal(['x']);
    await b.close();

    const c = await open(dir);
    expect(c.loadStats.rebuiltFromDocuments).to.equal(0);
    await c.close();
  });

  it('re-indexes the stored documents when the collection spec changes', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('x', { Title: 'Pewter jug', Maker: 'Svenskt Tenn' })]);
    await a.close();

    const spec2 = { ...contractSpec, fields: [...contractSpec.fields, { name: 'Maker', type: 'string' as const, searchable: true }] };
    const b = await open(dir);
    await b.ensureCollection(spec2);
    const r = await b.search('lots', TENANT, query('tenn', { queryBy: ['Maker'] }));
    expect(r.hits.map((h) => h.id)).to.deep.equal(['x']);
    expect(await titles(b, 'pewter')).to.deep.equal(['x']);
    await b.close();

    const c = await open(dir);
    expect(c.loadStats.rebuiltFromDocuments).to.equal(0);
    await c.ensureCollection(spec2);
    expect((await c.search('lots', TENANT, query('tenn', { queryBy: ['Maker'] }))).found).to.equal(1);
    await c.close();
  });

  it('flushes by itself when it has changes', async function () {
    const dir = tempDir();
    const a = await open(dir, { flushIntervalMs: 20 });
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('x', { Title: 'Pewter jug' })]);
    await a.setCheckpoint('lots-projection', 3);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const b = await open(dir);
    await b.ensureCollection(contractSpec);
    expect(await b.getCheckpoint('lots-projection')).to.equal(3);
    expect(await titles(b, 'pewter')).to.deep.equal(['x']);
    await b.close();
    await a.close();
  });

  it('persists a finished rebuild and removes the files of the replaced partitions', async function () {
    const dir = tempDir();
    const a = await open(dir);
    await a.ensureCollection(contractSpec);
    await a.upsert('lots', TENANT, [lot('old', { Title: 'Old clock', Language: 'sv' })]);
    await a.flush();
    const rebuild = await a.startRebuild('lots', 'lots-projection');
    await rebuild.upsert(TENANT, [lot('new', { Title: 'New clock' })]);
    await rebuild.finish(77);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).to.have.length(1);

    const b = await open(dir);
    await b.ensureCollection(contractSpec);
    expect(await b.getCheckpoint('lots-projection')).to.equal(77);
    expect(await titles(b, 'clock')).to.deep.equal(['new']);
    expect(await titles(b, 'clock', { Language: 'sv' })).to.deep.equal([]);
    await b.close();
    await a.close();
  });

  it('ranks equal scores by id and keeps paging stable', async function () {
    const index = await open(tempDir());
    await index.ensureCollection(contractSpec);
    await index.upsert(
      'lots',
      TENANT,
      ['d', 'b', 'e', 'a', 'c'].map((id) => lot(id, { Title: 'Tin soldier' })),
    );
    const r = await index.search('lots', TENANT, query('tin', { perPage: 3 }));
    expect(r.hits.map((h) => h.id)).to.deep.equal(['a', 'b', 'c']);
    const p2 = await index.search('lots', TENANT, query('tin', { perPage: 3, page: 2 }));
    expect(p2.hits.map((h) => h.id)).to.deep.equal(['d', 'e']);
    await index.close();
  });

  it('rejects filters and facets on fields the collection cannot use', async function () {
    const index = await open(tempDir());
    await index.ensureCollection(contractSpec);
    const fails = async (p: Promise<unknown>) => {
      let failed = false;
      await p.catch(() => (failed = true));
      expect(failed).to.equal(true);
    };
    await fails(index.search('lots', TENANT, query('x', { filter: { Nope: 1 } })));
    await fails(index.search('lots', TENANT, query('x', { filter: { Language: 'en', Title: { gt: 3 } } })));
    await fails(index.search('lots', TENANT, query('x', { facetBy: ['EndTime'] })));
    await fails(index.search('lots', TENANT, query('x', { queryBy: ['CategoryId'] })));
    await index.close();
  });
});

describe('embedded SQLite FTS5 index: one file, a writer and its readers', function () {
  const ids = async (index: SqliteSearchIndex, q: string) =>
    (await index.search('lots', TENANT, query(q, { filter: { Language: 'en' } }))).hits.map((h) => h.id);

  it('lets a read-only index (an api process) read what the writer wrote, refuse writes, and follow a rebuild', async function () {
    const file = join(tempDir(), 'search.sqlite');
    // Opened before the writer made the file: it answers nothing until then.
    const reader = await SqliteSearchIndex.open({ file, readOnly: true, partitions: PARTITIONS });
    await reader.ensureCollection(contractSpec);
    expect(await ids(reader, 'chair')).to.deep.equal([]);
    expect(await reader.getCheckpoint('lot-search')).to.equal(0);

    const writer = await SqliteSearchIndex.open({ file, partitions: PARTITIONS });
    await writer.ensureCollection(contractSpec);
    await writer.upsert('lots', TENANT, [lot('1', { Title: 'Oak chair' }), lot('2', { Title: 'Walnut table' })]);
    await writer.setCheckpoint('lot-search', 7);
    expect(await ids(reader, 'chair')).to.deep.equal(['1']);
    expect(await ids(reader, 'chiar')).to.deep.equal(['1']);
    expect(await reader.getCheckpoint('lot-search')).to.equal(7);
    await expectRejection(reader.upsert('lots', TENANT, [lot('3', { Title: 'Chair' })]));
    await expectRejection(reader.setCheckpoint('lot-search', 9));

    // A word new to the index is found at once, also by the reader.
    await writer.upsert('lots', TENANT, [lot('3', { Title: 'Rosewood chaise' })]);
    expect(await ids(reader, 'rosewood')).to.deep.equal(['3']);

    const rebuild = await writer.startRebuild('lots', 'lot-search');
    await rebuild.upsert(TENANT, [lot('4', { Title: 'Birch chair' })]);
    expect(await ids(reader, 'chair')).to.deep.equal(['1']);
    await rebuild.finish(12);
    expect(await ids(reader, 'chair')).to.deep.equal(['4']);
    expect(await ids(reader, 'table')).to.deep.equal([]);
    expect(await reader.getCheckpoint('lot-search')).to.equal(12);
    await reader.close();
    await writer.close();
  });
});
