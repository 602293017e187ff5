// Parking on the embedded default: the SQLite event log and read models (the spec: parking-suite.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { parkingSpec } from './parking-suite.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-parking-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

parkingSpec('embedded SQLite', async () => {
  const at = path.join(dir, String(++n));
  fs.mkdirSync(at);
  const log = new SqliteEventLog(path.join(at, 'events.sqlite'), { pollMs: 20 });
  const documents = new SqliteDocumentStore(path.join(at, 'read-models.sqlite'));
  let fresh = 0;
  return {
    log,
    documents,
    freshDocuments: async () => new SqliteDocumentStore(path.join(at, `replay-${++fresh}.sqlite`)),
    close: async () => {
      await documents.close();
      await log.close();
    },
  };
});
