/**
 * A live loop's kept documents (KeptDocuments, src/projector/projection.ts): a projection that declares
 * `keepDocuments` reads the documents its last batches committed from memory instead of the store. A batch that
 * fails has changed them in place, so the loop must forget them and read the store again, or its retry counts
 * the failed batch's events twice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import type { DocumentProjection } from '../../src/projector/projection.ts';
import type { DocumentStore, WriteTarget } from '../../src/ports/read-models.ts';
import { createLogger } from '../../src/logger.ts';

const logger = createLogger({ level: 'silent' });

/** Counts its `Counted` events in one document, changed in place (as the catalogue changes a lot for each bid). */
const counter: DocumentProjection = {
  kind: 'documents',
  name: 'kept-counter',
  collections: [{ name: 'kept_counts' }],
  handles: ['Counted'],
  keepDocuments: 10,
  async apply(event, uow) {
    await uow.update<{ _id: string; n: number }>('kept_counts', 'demo', 'n', (doc) => {
      if (!doc) return { _id: 'n', n: 1 };
      doc.n += 1;
      return doc;
    });
  },
};

describe('a live loop keeping its documents between batches', function () {
  this.timeout(20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-kept-documents-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the store again after a failed batch: every event counted once', async () => {
    const log = new SqliteEventLog(path.join(dir, 'events.sqlite'), { pollMs: 20 });
    const store = new SqliteDocumentStore(path.join(dir, 'read-models.sqlite'));
    const live = store.live();
    // The store reads: after the first batch, the kept document serves the next ones.
    let reads = 0;
    // The second batch's commit fails once (a store away for a moment), after its events were applied.
    let commits = 0;
    const flaky: WriteTarget = {
      get: (...args) => (reads++, live.get(...args)),
      commit: async (ops, checkpoint) => {
        if (ops.length > 0 && ++commits === 2) throw new Error('the store went away for a moment');
        return live.commit(ops, checkpoint);
      },
    };
    const documents = new Proxy(store, {
      get: (target, key) => (key === 'live' ? () => flaky : Reflect.get(target, key, target)),
    }) as DocumentStore;
    const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    const runtime = new ProjectorRuntime({ log, documents, search, logger }, [counter]);
    const count = () =>
      log.appendToStream('counted', [{ type: 'Counted', version: 1, data: { tenant: 'demo' }, metadata: { tenant: 'demo' } }]);
    try {
      await runtime.setup();
      await runtime.start();
      let last = 0;
      for (let i = 0; i < 5; i++) {
        ({ position: last } = await count());
        expect(await runtime.waitFor(last, [counter.name], 5000), `event ${i + 1} projected`).to.equal(true);
      }
      const doc = await store.forTenant('demo').collection('kept_counts').findById('n');
      expect(doc).to.include({ n: 5 });
      expect(commits, 'the failed commit was tried again').to.be.at.least(5);
      // Read from the store by the first batch and by the second try of the failed one (its kept copy forgotten;
      // src/projector/parking.ts tries a batch again where it failed); batches 3, 4 and 5 used the kept copy.
      expect(reads).to.equal(2);
    } finally {
      await runtime.stop();
      await search.close();
      await store.close();
      await log.close();
    }
  });
});
