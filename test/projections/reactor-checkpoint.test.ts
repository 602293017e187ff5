/**
 * A reactor's checkpoint (src/projector/loops.ts): a reactor's batches are reacted to at once, but its checkpoint
 * is stored like an idle one, within a second, not in a transaction of its own per batch (nobody reads their
 * writes from a reactor, and its jobs are keyed: events replayed after a crash add nothing).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import type { Reactor } from '../../src/projector/projection.ts';
import type { DocumentStore, WriteTarget } from '../../src/ports/read-models.ts';
import { createLogger } from '../../src/logger.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = createLogger({ level: 'silent' });

describe("a reactor's checkpoint", function () {
  this.timeout(20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-reactor-checkpoint-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reacts to each batch at once and stores where it stands within a second, not once per batch', async () => {
    const log = new SqliteEventLog(path.join(dir, 'events.sqlite'), { pollMs: 20 });
    const store = new SqliteDocumentStore(path.join(dir, 'read-models.sqlite'));
    const reacted: number[] = [];
    const reactor: Reactor = {
      kind: 'reactor',
      name: 'jobs-of-bids',
      handles: ['Bid'],
      async react(event) {
        reacted.push(event.position);
      },
    };
    const live = store.live();
    let commits = 0;
    const counting: WriteTarget = {
      get: (...args) => live.get(...args),
      commit: async (ops, checkpoint) => {
        if (checkpoint.projection === reactor.name) commits++;
        return live.commit(ops, checkpoint);
      },
    };
    const documents = new Proxy(store, {
      get: (target, key) => (key === 'live' ? () => counting : Reflect.get(target, key, target)),
    }) as DocumentStore;
    const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    const runtime = new ProjectorRuntime({ log, documents, search, logger }, [reactor]);
    const bid = () => log.appendToStream('lot-1', [{ type: 'Bid', version: 1, data: { tenant: 'demo' }, metadata: { tenant: 'demo' } }]);
    try {
      await runtime.setup();
      await runtime.start();
      const positions: number[] = [];
      for (let i = 0; i < 5; i++) {
        positions.push((await bid()).position);
        await sleep(30);
      }
      await sleep(50);
      expect(reacted, 'every bid reacted to at once').to.deep.equal(positions);
      expect(commits, 'checkpoint writes so far').to.be.at.most(1);
      await sleep(1500);
      expect(await store.getCheckpoint(reactor.name), 'the stored checkpoint').to.equal(positions[4]);
      expect(commits, 'checkpoint writes in all').to.be.at.most(2);
    } finally {
      await runtime.stop();
      await search.close();
      await store.close();
      await log.close();
    }
  });
});
