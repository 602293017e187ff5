/**
 * The PostgreSQL adapters against the local PostgreSQL (POSTGRES_TEST_URL, default the machine's own on
 * 127.0.0.1:5432): the event log, the leases, the files and the read models on their contracts, the schema migrated once under concurrent
 * starts, and a log that never lets a subscriber skip an event while writers in several processes append at
 * once. Each run uses a schema of its own, dropped after. PostgreSQL is required: when it cannot be reached the
 * suite fails, unless SKIP_POSTGRES=1 (CI starts it: .ci/run).
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { eventLogContract } from './event-log.contract.ts';
import { EVENT_LOG_STEPS, PgEventLog } from '../../src/adapters/postgres/pg-event-log.ts';
import { migrate } from '../../src/adapters/postgres/migrate.ts';
import { PgLeases } from '../../src/adapters/postgres/pg-leases.ts';
import { leaseStoreContract } from './leases.contract.ts';
import { PgFileStore } from '../../src/adapters/postgres/pg-files.ts';
import { fileStoreContract } from './files.contract.ts';
import { PgDocumentStore } from '../../src/adapters/postgres/pg-documents.ts';
import { documentStoreContract } from './read-models.contract.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const shown = URL.replace(/\/\/[^@/]*@/, '//');

describe(`PostgreSQL adapters on ${shown}`, function () {
  const schema = `bidder_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let admin: pg.Pool;

  before(async function () {
    admin = new pg.Pool({ connectionString: URL, max: 2 });
    try {
      await admin.query('SELECT 1');
    } catch (error) {
      await admin.end();
      if (process.env.SKIP_POSTGRES === '1') {
        console.log(`      (PostgreSQL at ${shown} unreachable, SKIP_POSTGRES=1: skipped)`);
        this.skip();
      }
      throw new Error(`PostgreSQL at ${shown} cannot be reached (${(error as Error).message}); set SKIP_POSTGRES=1 to skip`, {
        cause: error,
      });
    }
  });
  after(async function () {
    if (!admin) return;
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end().catch(() => {});
  });

  eventLogContract('PostgreSQL', () => PgEventLog.open(URL, { schema, pollMs: 50 }));

  leaseStoreContract('PostgreSQL', () => PgLeases.open(URL, { schema }));

  // Each test's store in a schema of its own (the contract reuses keys across tests), closed at the end.
  const fileStores: PgFileStore[] = [];
  let fileSchemas = 0;
  fileStoreContract('PostgreSQL', async () => {
    const store = await PgFileStore.open(URL, { schema: `${schema}_f${++fileSchemas}` });
    fileStores.push(store);
    return store;
  });
  after(async function () {
    for (const store of fileStores) await store.close();
    for (let i = 1; i <= fileSchemas; i++) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}_f${i}" CASCADE`).catch(() => {});
  });

  // The read models likewise: each test's store in a schema of its own, closed at the end.
  const documentStores: PgDocumentStore[] = [];
  let documentSchemas = 0;
  const openDocuments = async (at = `${schema}_d${++documentSchemas}`) => {
    const store = await PgDocumentStore.open(URL, { schema: at });
    documentStores.push(store);
    return store;
  };
  documentStoreContract('PostgreSQL', () => openDocuments());
  after(async function () {
    for (const store of documentStores) await store.close();
    for (let i = 1; i <= documentSchemas; i++) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}_d${i}" CASCADE`).catch(() => {});
  });

  it('stores a large upload in chunks as it arrives, and streams it back chunk by chunk', async function () {
    const store = await PgFileStore.open(URL, { schema });
    fileStores.push(store);
    const bytes = Buffer.alloc(700 * 1024, 0).map((_, i) => i % 251);
    const pieces = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
    expect(await store.putStream('t1', 'large', Readable.from(pieces), 'application/pdf', 1024 * 1024)).to.deep.equal({
      size: bytes.length,
    });
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM "${schema}".file_chunks c JOIN "${schema}".files f USING (version) WHERE f.key = 'large'`,
    );
    expect(rows[0].n).to.equal(3);
    const opened = (await store.open('t1', 'large'))!;
    const read: Buffer[] = [];
    for await (const chunk of opened.stream) read.push(chunk as Buffer);
    expect(read.map((c) => c.length)).to.deep.equal([262144, 262144, 192512]);
    expect(Buffer.concat(read).equals(bytes)).to.equal(true);
  });

  it('migrates a schema once, however many processes start at the same time', async function () {
    const fresh = `${schema}_m`;
    try {
      const applied = await Promise.all(Array.from({ length: 4 }, () => migrate(admin, fresh, 'event-log', EVENT_LOG_STEPS)));
      expect(applied.sort()).to.deep.equal([0, 0, 0, EVENT_LOG_STEPS.length]);
      const { rows } = await admin.query(`SELECT part, version FROM "${fresh}".migrations`);
      expect(rows).to.deep.equal([{ part: 'event-log', version: 1 }]);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${fresh}" CASCADE`);
    }
  });

  it('keeps data as written, its keys in their order', async function () {
    const log = await PgEventLog.open(URL, { schema });
    try {
      const data = { z: 1, a: { y: [1, 'two', null], b: true }, m: 'ü' };
      await log.appendToStream(`order-${randomUUID()}`, [{ type: 'T', version: 1, data, metadata: { tenant: 't' } }]);
      const [event] = (await log.readAll({ fromPosition: (await log.headPosition()) - 1, maxCount: 1 })) as RecordedEvent[];
      expect(JSON.stringify(event.data)).to.equal(JSON.stringify(data));
    } finally {
      await log.close();
    }
  });

  it('lets no subscriber skip an event while writers in three processes append at once: each sees every event once, in order', async function () {
    this.timeout(60_000);
    const ordered = `${schema}_o`;
    const reader = await PgEventLog.open(URL, { schema: ordered, pollMs: 20 });
    const seen: number[][] = [[], []];
    const subscriptions = seen.map((into) => {
      const subscription = reader.subscribeToAll({ fromPosition: 0, batchSize: 7 });
      const done = (async () => {
        for await (const batch of subscription) into.push(...batch.map((e) => e.position));
      })();
      return { subscription, done };
    });
    try {
      const perWriter = 400;
      const writers = Array.from(
        { length: 3 },
        (_, i) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(
              process.execPath,
              ['--import', 'tsx', 'test/support/pg-writer.ts', URL, ordered, String(i), String(perWriter)],
              {
                stdio: ['ignore', 'ignore', 'inherit'],
              },
            );
            child.on('exit', (code) => resolve(code));
          }),
      );
      expect(await Promise.all(writers)).to.deep.equal([0, 0, 0]);
      const { rows } = await admin.query<{ position: string }>(`SELECT position FROM "${ordered}".events ORDER BY position`);
      const all = rows.map((r) => Number(r.position));
      expect(all).to.have.length(3 * perWriter);
      const deadline = Date.now() + 20_000;
      while (seen.some((s) => s.length < all.length) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      for (const positions of seen) expect(positions).to.deep.equal(all);
    } finally {
      for (const { subscription } of subscriptions) await subscription.unsubscribe();
      await Promise.all(subscriptions.map((s) => s.done));
      await reader.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${ordered}" CASCADE`);
    }
  });
});
