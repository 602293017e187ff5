/**
 * A projection loop whose store is out of room (a full disk): the batch is tried again, soon, as when its store is
 * away, never set aside, and the failure is told to the process's record of the episode (src/storage-room.ts), which
 * logs it once, instead of an error line per retry. Once there is room, the projection catches up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { createLogger } from '../../src/logger.ts';
import { StorageRoom } from '../../src/storage-room.ts';
import { countedProjection as counter } from '../support/counter.ts';
import type { DocumentStore, WriteTarget } from '../../src/ports/read-models.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a projection loop on a full disk', function () {
  this.timeout(20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-projection-full-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('retries the batch within a second, logged once by the storage’s record rather than at every try, and catches up once there is room', async () => {
    const log = new SqliteEventLog(path.join(dir, 'events.sqlite'), { pollMs: 20 });
    const store = new SqliteDocumentStore(path.join(dir, 'read-models.sqlite'));
    // The read models' file has no room: each batch's commit fails as SQLite fails it, until `full` is false.
    let full = false;
    let refused = 0;
    const live = store.live();
    const filling: WriteTarget = {
      ...live,
      get: (...args) => live.get(...args),
      commit: async (ops, checkpoint) => {
        if (full && ops.length > 0) {
          refused += 1;
          throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        }
        return live.commit(ops, checkpoint);
      },
    };
    const documents = new Proxy(store, {
      get: (target, key) => (key === 'live' ? () => filling : Reflect.get(target, key, target)),
    }) as DocumentStore;
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    let room = true;
    const storage = new StorageRoom({ dataDir: dir, logger, hasRoom: async () => room, checkMs: 50 });
    const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    const runtime = new ProjectorRuntime({ log, documents, search, logger, storage }, [counter]);
    const append = () =>
      log.appendToStream('s-1', [{ type: 'Counted', version: 1, data: { tenant: 'demo' }, metadata: { tenant: 'demo' } }]);
    try {
      await runtime.setup();
      await runtime.start();
      full = true;
      room = false;
      const { position } = await append();
      // Three seconds of a full disk: at least three tries (a retry waits at most a second), not a backoff of 10 s.
      await sleep(3000);
      expect(refused, 'batches tried while full').to.be.at.least(3);
      expect(storage.full).to.equal(true);
      full = false;
      room = true;
      expect(await runtime.waitFor(position, ['counter'], 3000), 'projected once there is room').to.equal(true);
      const [doc] = await store.forTenant('demo').collection('counts').find({});
      expect(doc).to.include({ n: 1 });
      for (const deadline = Date.now() + 3000; storage.full && Date.now() < deadline;) await sleep(20);
      expect(storage.full).to.equal(false);
      expect(lines.filter((l) => l.level >= 40).map((l) => l.msg)).to.deep.equal([
        'storage full: writes are refused until there is room again',
      ]);
      expect(lines.filter((l) => l.msg === 'storage has room again: writes resumed')).to.have.length(1);
    } finally {
      storage.close();
      await runtime.stop();
      await search.close();
      await store.close();
      await log.close();
    }
  });
});
