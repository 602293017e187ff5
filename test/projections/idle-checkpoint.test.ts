/**
 * A projection loop's idle checkpoint (src/projector/loops.ts): events a projection does not handle move its
 * stored checkpoint a moment later, in a write of its own. That write takes time on a networked store; events
 * that come meanwhile must not be taken as stored, or the next batch finds the checkpoint behind and starts over.
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
import type { DocumentStore, WriteTarget } from '../../src/ports/read-models.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import type { SearchIndex } from '../../src/ports/search.ts';
import { LOT_SEARCH_PARTITION } from '../../projections/lot-search/index.ts';
import { lotSearchProjection } from '../../projections/lot-search/projection.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a projection loop storing its idle checkpoint', function () {
  this.timeout(20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-idle-checkpoint-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stores the position it wrote, not one reached while the write took its time: the next batch meets no conflict', async () => {
    const log = new SqliteEventLog(path.join(dir, 'events.sqlite'), { pollMs: 20 });
    const store = new SqliteDocumentStore(path.join(dir, 'read-models.sqlite'));
    // The idle checkpoint's write (a commit of no documents) takes 300 ms, as a slow network store's might.
    const live = store.live();
    const slow: WriteTarget = {
      ...live,
      get: (...args) => live.get(...args),
      commit: async (ops, checkpoint) => {
        if (ops.length === 0) await sleep(300);
        return live.commit(ops, checkpoint);
      },
    };
    const documents = new Proxy(store, {
      get: (target, key) => (key === 'live' ? () => slow : Reflect.get(target, key, target)),
    }) as DocumentStore;
    const conflicts: string[] = [];
    const noop = () => undefined;
    const logger = {
      info: (fields: { projection?: string }, message?: string) => {
        if (message?.includes('checkpoint moved')) conflicts.push(String(fields.projection));
      },
      warn: noop,
      error: noop,
      debug: noop,
      trace: noop,
      fatal: noop,
      child: () => logger,
    } as unknown as Logger;
    const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    const runtime = new ProjectorRuntime({ log, documents, search, logger }, [counter]);
    const append = (type: string) =>
      log.appendToStream(`s-${type}`, [{ type, version: 1, data: { tenant: 'demo' }, metadata: { tenant: 'demo' } }]);
    try {
      await runtime.setup();
      await runtime.start();
      await append('Counted');
      await sleep(100);
      // Passed by: the idle checkpoint is written a second later (the timer runs from here).
      await append('Other');
      await sleep(700);
      await append('Counted');
      await sleep(100);
      await append('Other');
      // The timer fires (about 1 s after the first `Other`): its write takes 300 ms, and an `Other` comes meanwhile.
      await sleep(250);
      await append('Other');
      await sleep(500);
      const { position } = await append('Counted');
      expect(await runtime.waitFor(position, ['counter'], 3000), 'the last Counted projected').to.equal(true);
      expect(conflicts, 'checkpoint conflicts met by the loop').to.deep.equal([]);
      const [doc] = await store.forTenant('demo').collection('counts').find({});
      expect(doc).to.include({ n: 3 });
    } finally {
      await runtime.stop();
      await search.close();
      await store.close();
      await log.close();
    }
  });

  it('moves a search index checkpoint past events it does not index a moment later, in one write, not one write an event', async () => {
    const log = new SqliteEventLog(path.join(dir, 'events-search.sqlite'), { pollMs: 20 });
    const store = new SqliteDocumentStore(path.join(dir, 'read-models-search.sqlite'));
    const index = await MiniSearchIndex.open({ dir: null, partitions: LOT_SEARCH_PARTITION });
    const written: number[] = [];
    const search = new Proxy(index, {
      get: (target, key) =>
        key === 'setCheckpoint'
          ? (name: string, position: number) => (written.push(position), target.setCheckpoint(name, position))
          : Reflect.get(target, key, target),
    }) as SearchIndex;
    const runtime = new ProjectorRuntime({ log, documents: store, search, logger: createLogger({ level: 'silent' }) }, [
      lotSearchProjection,
    ]);
    try {
      await runtime.setup();
      await runtime.start();
      let head = 0;
      for (let i = 0; i < 20; i++) {
        ({ position: head } = await log.appendToStream(`other-${i}`, [
          { type: 'Other', version: 1, data: { tenant: 'demo' }, metadata: { tenant: 'demo' } },
        ]));
        await sleep(10);
      }
      expect(await runtime.waitFor(head, [lotSearchProjection.name], 3000), 'the projection passed them in memory').to.equal(true);
      await sleep(1300);
      expect(await index.getCheckpoint(lotSearchProjection.name), 'stored within a second').to.equal(head);
      expect(written.length, `index checkpoint writes for 20 events: ${written.join(', ')}`).to.be.at.most(2);
    } finally {
      await runtime.stop();
      await index.close();
      await store.close();
      await log.close();
    }
  });
});
