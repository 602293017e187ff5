/**
 * Read your writes across processes (src/projector/waiters.ts): a process whose projections run elsewhere (an `api`
 * process) waits for their stored checkpoints. It looks every millisecond, but reads the checkpoints only when the
 * store's change mark (SQLite's data_version) says another connection committed since its last read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { countedProjection as counter } from '../support/counter.ts';
import type { DocumentProjection } from '../../src/projector/projection.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import { createLogger } from '../../src/logger.ts';

describe('read your writes of projections that run in another process', function () {
  this.timeout(20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-remote-waits-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('resolves once the other process stored the position, and reads no checkpoint while nothing was committed', async () => {
    const logger = createLogger({ level: 'silent' });
    const log = new SqliteEventLog(path.join(dir, 'events.sqlite'), { pollMs: 20 });
    const primaryStore = new SqliteDocumentStore(path.join(dir, 'read-models.sqlite'));
    // The api process's own connection to the read models, counting its checkpoint reads.
    const apiStore = new SqliteDocumentStore(path.join(dir, 'read-models.sqlite'));
    let reads = 0;
    const counted = new Proxy(apiStore, {
      get: (target, key) =>
        key === 'getCheckpoint'
          ? (name: string) => (reads++, target.getCheckpoint(name))
          : (Reflect.get(target, key, target) as unknown as (...args: unknown[]) => unknown),
    }) as DocumentStore;
    const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    const primary = new ProjectorRuntime({ log, documents: primaryStore, search, logger }, [counter]);
    const api = new ProjectorRuntime({ log, documents: counted, search, logger }, [counter]);
    const append = async (type: string) =>
      (await log.appendToStream(`s-${type}`, [{ type, version: 1, data: { tenant: 'demo' }, metadata: { tenant: 'demo' } }])).position;
    try {
      await primary.setup();
      await primary.start();
      const first = await append('Counted');
      expect(await api.waitFor(first, ['counter'], 3000)).to.equal(true);
      // A position nobody reaches: 100 ms of polls, and nothing committed meanwhile.
      reads = 0;
      expect(await api.waitFor(first + 1000, ['counter'], 100)).to.equal(false);
      expect(reads, 'checkpoint reads while nothing moved').to.be.at.most(2);
      // Then a write the other process projects: seen within the wait.
      const waiting = api.waitFor(first + 2, ['counter'], 3000);
      await append('Other');
      const second = await append('Counted');
      expect(second).to.equal(first + 2);
      expect(await waiting).to.equal(true);
    } finally {
      await primary.stop();
      await api.stop();
      await log.close();
    }
  });

  it('reads the checkpoints of every projection a write waits for in one statement a poll', async () => {
    const logger = createLogger({ level: 'silent' });
    const sub = path.join(dir, 'several');
    fs.mkdirSync(sub);
    const log = new SqliteEventLog(path.join(sub, 'events.sqlite'), { pollMs: 20 });
    const primaryStore = new SqliteDocumentStore(path.join(sub, 'read-models.sqlite'));
    const apiStore = new SqliteDocumentStore(path.join(sub, 'read-models.sqlite'));
    const reads: string[][] = [];
    const counted = new Proxy(apiStore, {
      get: (target, key) =>
        key === 'getCheckpoint'
          ? (name: string) => (reads.push([name]), target.getCheckpoint(name))
          : key === 'getCheckpoints'
            ? (names: string[]) => (reads.push([...names]), target.getCheckpoints(names))
            : (Reflect.get(target, key, target) as unknown as (...args: unknown[]) => unknown),
    }) as DocumentStore;
    // A second projection of the same events, in a collection of its own.
    const second: DocumentProjection = { ...counter, name: 'counter-2', collections: [{ name: 'counts_2' }] };
    second.apply = async (_event, uow) =>
      uow.update<{ _id: string; n: number }>('counts_2', 'demo', 'n', (doc) => ({ _id: 'n', n: (doc?.n ?? 0) + 1 }));
    const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    const primary = new ProjectorRuntime({ log, documents: primaryStore, search, logger }, [counter, second]);
    const api = new ProjectorRuntime({ log, documents: counted, search, logger }, [counter, second]);
    const append = async () =>
      (await log.appendToStream('s-several', [{ type: 'Counted', version: 1, data: { tenant: 'demo' }, metadata: { tenant: 'demo' } }]))
        .position;
    try {
      await primary.setup();
      await primary.start();
      const first = await append();
      expect(await api.waitFor(first, ['counter', 'counter-2'], 3000)).to.equal(true);
      // Each read the waits made named both projections: one statement, not one a projection.
      expect(reads.length).to.be.at.least(1);
      for (const names of reads) expect(names).to.have.members(['counter', 'counter-2']);
    } finally {
      await primary.stop();
      await api.stop();
      await log.close();
    }
  });
});
