/**
 * The four roles on the embedded default with Redis: two `api`, one `projector` and one `worker` process on one
 * DATA_DIR (one machine), jobs and rate limits in the local Redis. The specification is topology-suite.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { FolderFileStore } from '../../src/adapters/embedded/folder-files.ts';
import { dataPaths } from '../../app/engines.ts';
import { describeTopology } from './topology-suite.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-topology-'));

describeTopology({
  title: 'roles: two api, one projector and one worker on one DATA_DIR with Redis',
  sharedDataDir: true,
  async check() {},
  env: {},
  dataDir: () => dataDir,
  async open() {
    const paths = dataPaths(dataDir);
    const log = new SqliteEventLog(paths.events);
    const documents = new SqliteDocumentStore(paths.readModels);
    return {
      log,
      documents,
      files: new FolderFileStore(paths.files),
      async close() {
        await documents.close();
        await log.close();
      },
    };
  },
  async cleanup() {
    fs.rmSync(dataDir, { recursive: true, force: true });
  },
});
