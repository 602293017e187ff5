/**
 * The four roles in the PostgreSQL shape (PRODUCTION.md "PostgreSQL"): two `api`, one `projector` and one `worker`
 * process, each on a DATA_DIR of its own (as on machines of their own), sharing only PostgreSQL (POSTGRES_TEST_URL,
 * a schema of the run's own, dropped after) and Redis. The specification is topology-suite.ts. PostgreSQL is
 * required: when it cannot be reached the suite fails, unless SKIP_POSTGRES=1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PgEventLog } from '../../src/adapters/postgres/pg-event-log.ts';
import { PgDocumentStore } from '../../src/adapters/postgres/pg-documents.ts';
import { PgFileStore } from '../../src/adapters/postgres/pg-files.ts';
import { describeTopology } from './topology-suite.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const shown = URL.replace(/\/\/[^@/]*@/, '//');
const schema = `bidder_topology_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const dirs: string[] = [];

describeTopology({
  title: 'roles: two api, one projector and one worker, each on a DATA_DIR of its own, sharing PostgreSQL and Redis',
  sharedDataDir: false,
  async check(ctx) {
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    try {
      await admin.query('SELECT 1');
    } catch (error) {
      if (process.env.SKIP_POSTGRES === '1') {
        console.log(`      (PostgreSQL at ${shown} unreachable, SKIP_POSTGRES=1: skipped)`);
        ctx.skip();
      }
      throw new Error(`PostgreSQL at ${shown} cannot be reached (${(error as Error).message}); set SKIP_POSTGRES=1 to skip`, {
        cause: error,
      });
    } finally {
      await admin.end();
    }
  },
  // No JWT_SECRET: the signing keys and the positions' anchor are PostgreSQL's, so tokens and stream positions one
  // api makes are read by the other (an inherited JWT_SECRET is cleared).
  env: { POSTGRES_URL: URL, POSTGRES_SCHEMA: schema, JWT_SECRET: '' },
  dataDir() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-topology-pg-'));
    dirs.push(dir);
    return dir;
  },
  async open() {
    const log = await PgEventLog.open(URL, { schema });
    const documents = await PgDocumentStore.open(URL, { schema });
    const files = await PgFileStore.open(URL, { schema });
    return {
      log,
      documents,
      files,
      async close() {
        await Promise.all([log.close(), documents.close(), files.close()]);
      },
    };
  },
  async cleanup() {
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  },
});
