import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { MiniSearchThread } from '../../src/adapters/embedded/minisearch/thread.ts';
import { contractSpec, lot, query, searchIndexContract } from './search.contract.ts';

const TENANT = 'tenant-a';
const PARTITIONS = { lots: 'Language' };
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'search-thread-test-'));
  dirs.push(dir);
  return dir;
}

after(function () {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

searchIndexContract('embedded MiniSearch in a worker thread, on disk, partitioned by Language as the service runs it', () =>
  MiniSearchThread.open({ dir: tempDir(), flushIntervalMs: 0, partitions: PARTITIONS }),
);

describe('embedded MiniSearch in a worker thread', function () {
  const ids = async (index: MiniSearchThread | MiniSearchIndex, q: string) =>
    (await index.search('lots', TENANT, query(q))).hits.map((h) => h.id).sort();

  it('loads the snapshot a writer flushed, with its checkpoints, and a replica never writes the folder', async function () {
    const dir = tempDir();
    const writer = await MiniSearchThread.open({ dir, flushIntervalMs: 0, partitions: PARTITIONS });
    await writer.ensureCollection(contractSpec);
    await writer.upsert('lots', TENANT, [lot('kept', { Title: 'Pewter jug' })]);
    await writer.setCheckpoint('lots-projection', 7);
    await writer.close();
    const files = readdirSync(dir).sort();

    // The same folder read in process: what the thread wrote is the in-process index's format.
    const inProcess = await MiniSearchIndex.open({ dir, flushIntervalMs: 0, partitions: PARTITIONS, readOnly: true });
    await inProcess.ensureCollection(contractSpec);
    expect(await inProcess.getCheckpoint('lots-projection')).to.equal(7);
    expect(await ids(inProcess, 'pewter')).to.deep.equal(['kept']);

    const replica = await MiniSearchThread.open({ dir, readOnly: true, partitions: PARTITIONS });
    await replica.ensureCollection(contractSpec);
    expect(await replica.getCheckpoint('lots-projection')).to.equal(7);
    await replica.upsert('lots', TENANT, [lot('new', { Title: 'Pewter plate' })]);
    await replica.setCheckpoint('lots-projection', 8);
    expect(await replica.getCheckpoint('lots-projection')).to.equal(8);
    expect(await ids(replica, 'pewter')).to.deep.equal(['kept', 'new']);
    await replica.close();
    expect(readdirSync(dir).sort()).to.deep.equal(files);
  });

  it('answers a search sent after a write with that write, whatever was asked between', async function () {
    const index = await MiniSearchThread.open({ dir: null, partitions: PARTITIONS });
    await index.ensureCollection(contractSpec);
    const writes = Array.from({ length: 50 }, (_, i) => index.upsert('lots', TENANT, [lot(`l${i}`, { Title: `Oak chair ${i}` })]));
    const searches = Array.from({ length: 50 }, () => index.search('lots', TENANT, query('oak')));
    await Promise.all(writes);
    expect((await searches[49]).found).to.equal(50);
    expect((await Promise.all(searches)).map((r) => r.found)).to.deep.equal(Array(50).fill(50));
    await index.close();
  });

  it('rejects what the index refuses with its message, and goes on', async function () {
    const index = await MiniSearchThread.open({ dir: null, partitions: PARTITIONS });
    const refused = await index.search('nothing', TENANT, query('oak')).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(refused).to.equal('unknown search collection nothing');
    await index.ensureCollection(contractSpec);
    expect((await index.search('lots', TENANT, query('oak'))).found).to.equal(0);
    await index.close();
  });

  it('fails every call, and says so once, when its thread stops on its own', async function () {
    const fatal: string[] = [];
    const index = await MiniSearchThread.open({ dir: null, partitions: PARTITIONS, onFatal: (e) => fatal.push(e.message) });
    await index.ensureCollection(contractSpec);
    await (index as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const outcomes = await Promise.allSettled([index.search('lots', TENANT, query('oak')), index.getCheckpoint('x')]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    expect(fatal).to.have.length(1);
    expect(fatal[0]).to.match(/thread stopped/);
    await index.close();
  });
});
