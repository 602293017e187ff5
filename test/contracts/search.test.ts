import { expect } from 'chai';
import fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch-index.ts';
import { contractSpec, lot, query, searchIndexContract } from './search.contract.ts';

const TENANT = 'tenant-a';
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'search-index-test-'));
  dirs.push(dir);
  return dir;
}

after(function () {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

searchIndexContract('embedded MiniSearch', async () => new MiniSearchIndex({ dir: tempDir(), flushIntervalMs: 0 }));

searchIndexContract('embedded MiniSearch, memory only', async () => new MiniSearchIndex({ dir: null }));

describe('embedded MiniSearch index', function () {
  const open = (dir: string, extra: { onError?: (e: unknown) => void; flushIntervalMs?: number } = {}) =>
    MiniSearchIndex.open({ dir, flushIntervalMs: 0, ...extra });

  const titles = async (index: MiniSearchIndex, q: string, filter = {}) =>
    (await index.search('lots', TENANT, query(q, { filter }))).hits.map((h) => h.id);

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
    await a.upsert('lots', TENANT, [lot('x', { Title: 'Brass lamp', Description: 'Art deco', CategoryId: 4, AuctionId: 8, EndTime: 5000 })]);
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
    await index.upsert('lots', TENANT, ['d', 'b', 'e', 'a', 'c'].map((id) => lot(id, { Title: 'Tin soldier' })));
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
