/**
 * The PostgreSQL adapters against the local PostgreSQL (POSTGRES_TEST_URL, default the machine's own on
 * 127.0.0.1:5432): the event log, the leases, the files, the read models and the key ring on their contracts, the
 * schema migrated once under concurrent starts, and a log that never lets a subscriber skip an event while writers in several processes append at
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
import { createPool, inTransaction, releaseError, unboundedHere } from '../../src/adapters/postgres/pool.ts';
import { isTransientFault, unavailableFrom } from '../../src/errors.ts';
import { PgLeases } from '../../src/adapters/postgres/pg-leases.ts';
import { leaseStoreContract } from './leases.contract.ts';
import { PgFileStore } from '../../src/adapters/postgres/pg-files.ts';
import { fileStoreContract } from './files.contract.ts';
import { PgDocumentStore } from '../../src/adapters/postgres/pg-documents.ts';
import { documentStoreContract } from './read-models.contract.ts';
import { fieldExpr, filterToSql, sortToSql } from '../../src/adapters/postgres/pg-filter.ts';
import type { Doc, Filter } from '../../src/ports/read-models.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { CheckpointConflictError } from '../../src/ports/read-models.ts';
import { PgKeyRing } from '../../src/adapters/postgres/pg-key-ring.ts';
import { keyRingStoreContract } from './key-ring.contract.ts';

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
  // Mocha runs a suite's after hooks in the order they are written: this one, the first, closes the stores and
  // drops every schema of the run (`<schema>`, `<schema>_f<n>`, `<schema>_d<n>`) before the admin pool ends.
  after(async function () {
    if (!admin) return;
    for (const store of [...fileStores, ...documentStores]) await store.close().catch(() => {});
    const { rows } = await admin.query<{ name: string }>('SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)', [
      schema,
    ]);
    for (const { name } of rows) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => {});
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

  // The read models likewise: each test's store in a schema of its own, closed at the end.
  const documentStores: PgDocumentStore[] = [];
  let documentSchemas = 0;
  const openDocuments = async (at = `${schema}_d${++documentSchemas}`) => {
    const store = await PgDocumentStore.open(URL, { schema: at });
    documentStores.push(store);
    return store;
  };
  documentStoreContract('PostgreSQL', () => openDocuments());

  // The key ring: each test's in a schema of its own, each store opened on it a process of its own (a pool each).
  let keySchemas = 0;
  keyRingStoreContract('PostgreSQL', async () => {
    const at = `${schema}_k${++keySchemas}`;
    return () => PgKeyRing.open(URL, { schema: at });
  });

  describe('read models on PostgreSQL, beyond the contract', function () {
    const put = (doc: Doc, tenant = 't') => ({ op: 'put' as const, collection: 'things', tenant, doc });
    const docs: Doc[] = [
      { _id: 'n1', Code: 1, Rank: 2, A: { B: { C: 5 } } },
      { _id: 'n10', Code: 10, Rank: null, A: { B: 'x' } },
      { _id: 's1', Code: '1', Rank: 1 },
      { _id: 's2', Code: '2', Rank: 3, A: { B: { C: 7 } } },
      { _id: 'nul', Code: null },
      { _id: 'none' },
    ];
    let store: PgDocumentStore;
    const ids = async (filter: Filter, sort: Array<[string, 1 | -1]> = [['_id', 1]]) =>
      (await store.forTenant('t').collection('things').find(filter, { sort })).map((d) => d._id);

    beforeEach(async function () {
      store = await openDocuments();
      await store.ensureCollection({ name: 'things', indexes: [{ fields: ['Code'] }, { fields: ['A.B.C', 'Rank'] }] });
      await store.live().commit(
        docs.map((doc) => put(doc)),
        { projection: 'things', expected: 0, position: 1 },
      );
    });

    it('tells numbers from strings: equality, $in, ranges within the operand type, $contains on strings only', async function () {
      expect(await ids({ Code: 1 })).to.deep.equal(['n1']);
      expect(await ids({ Code: '1' })).to.deep.equal(['s1']);
      expect(await ids({ Code: { $in: [1, '2'] } })).to.deep.equal(['n1', 's2']);
      expect(await ids({ Code: { $gt: 0 } })).to.deep.equal(['n1', 'n10']);
      expect(await ids({ Code: { $lt: 5 } })).to.deep.equal(['n1']);
      expect(await ids({ Code: { $gte: '1' } })).to.deep.equal(['s1', 's2']);
      expect(await ids({ Code: { $contains: '1' } })).to.deep.equal(['s1']);
      expect(await ids({ _id: { $gte: 'n', $lt: 'o' } })).to.deep.equal(['n1', 'n10', 'none', 'nul']);
    });

    it('treats an absent field as null, as MongoDB does: null, $in [null], $ne, $exists', async function () {
      expect(await ids({ Code: null })).to.deep.equal(['none', 'nul']);
      expect(await ids({ Code: { $in: [null, 10] } })).to.deep.equal(['n10', 'none', 'nul']);
      expect(await ids({ Code: { $ne: 1 } })).to.deep.equal(['n10', 'none', 'nul', 's1', 's2']);
      expect(await ids({ Code: { $ne: null } })).to.deep.equal(['n1', 'n10', 's1', 's2']);
      expect(await ids({ Code: { $exists: true } })).to.deep.equal(['n1', 'n10', 's1', 's2']);
      expect(await ids({ Rank: { $exists: false } })).to.deep.equal(['n10', 'none', 'nul']);
    });

    it('follows dotted paths, and one through a value that is not an object finds nothing there', async function () {
      expect(await ids({ 'A.B.C': 5 })).to.deep.equal(['n1']);
      expect(await ids({ 'A.B.C': { $gte: 6 } })).to.deep.equal(['s2']);
      expect(await ids({ 'A.B.C': null })).to.deep.equal(['n10', 'none', 'nul', 's1']);
      expect(await ids({ 'A.B': 'x' })).to.deep.equal(['n10']);
    });

    it('sorts null and absent first ascending and last descending, ties broken by id in the last key direction', async function () {
      expect(await ids({}, [['Rank', 1]])).to.deep.equal(['n10', 'none', 'nul', 's1', 'n1', 's2']);
      expect(await ids({}, [['Rank', -1]])).to.deep.equal(['s2', 'n1', 's1', 'nul', 'none', 'n10']);
      const things = store.forTenant('t').collection('things');
      const page = await things.find({}, { sort: [['Rank', 1]], skip: 2, limit: 2 });
      expect(page.map((d) => d._id)).to.deep.equal(['nul', 's1']);
      expect(await things.find({}, { limit: 0 })).to.deep.equal([]);
      expect((await things.find({}, { limit: 2 })).map((d) => d._id)).to.deep.equal(['n1', 'n10']);
    });

    it('groups absent and null values together in countBy, and keeps documents as written', async function () {
      const things = store.forTenant('t').collection('things');
      expect(await things.countBy({ Code: { $ne: '2' } }, 'Rank')).to.deep.equal([
        { value: null, count: 3 },
        { value: 1, count: 1 },
        { value: 2, count: 1 },
      ]);
      expect(await things.findById('n1')).to.deep.equal(docs[0]);
      expect(await things.findOne({ 'A.B': 'x' })).to.deep.equal(docs[1]);
    });

    it('writes only the last operation of a document in a batch', async function () {
      await store
        .live()
        .commit(
          [
            put({ _id: 'z', V: 1 }),
            { op: 'delete', collection: 'things', tenant: 't', id: 'z' },
            put({ _id: 'y', V: 1 }),
            put({ _id: 'y', V: 2 }),
          ],
          {
            projection: 'things',
            expected: 1,
            position: 2,
          },
        );
      const things = store.forTenant('t').collection('things');
      expect(await things.findById('z')).to.equal(null);
      expect((await things.findById('y'))?.V).to.equal(2);
    });

    it("lets another store object on the schema see a rebuild's swap by itself, and write to the new copy", async function () {
      const at = `${schema}_d${documentSchemas}`;
      const other = await openDocuments(at);
      const theirs = other.forTenant('t').collection('things');
      expect((await theirs.findById('n1'))?.Code).to.equal(1);
      const rebuild = await store.startRebuild('things', ['things']);
      await rebuild.commit([put({ _id: 'r1', Code: 5 })], { projection: 'things', expected: 0, position: 1 });
      expect(await rebuild.finish()).to.equal(true);
      expect(await theirs.findById('n1')).to.equal(null);
      expect(await theirs.countDocuments({})).to.equal(1);
      await other.live().commit([put({ _id: 'r2', Code: 6 })], { projection: 'things', expected: 1, position: 2 });
      expect(await ids({})).to.deep.equal(['r1', 'r2']);
      const { rows } = await admin.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'rm_things_%'`, [at]);
      expect(rows.map((r) => r.tablename)).to.deep.equal(['rm_things_g2']);
      const indexes = await admin.query(`SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = $1 AND tablename = 'rm_things_g2'`, [
        at,
      ]);
      expect(indexes.rows[0].n).to.equal(3); // the primary key and the two declared
    });

    it('keeps the commits of a projection in order: of two commits from the same checkpoint, one wins', async function () {
      const other = await openDocuments(`${schema}_d${documentSchemas}`);
      const results = await Promise.allSettled([
        store.live().commit([put({ _id: 'w', By: 'a' })], { projection: 'things', expected: 1, position: 2 }),
        other.live().commit([put({ _id: 'w', By: 'b' })], { projection: 'things', expected: 1, position: 3 }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
      expect(results.find((r) => r.status === 'rejected')?.reason).to.be.instanceOf(CheckpointConflictError);
    });

    it('answers a page from a declared index, without a sort', async function () {
      const params: unknown[] = ['t'];
      const where = filterToSql({ 'A.B.C': 5 }, params);
      const sql = `SELECT doc FROM "${schema}_d${documentSchemas}".rm_things_g1 WHERE tenant = $1 AND ${where} ORDER BY ${sortToSql([['Rank', 1]])} LIMIT 20`;
      const client = await admin.connect();
      try {
        await client.query('SET enable_seqscan = off');
        const plan = (await client.query(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN'] as string).join('\n');
        expect(plan).to.match(/Index Scan using rm_things_g1_x/);
        expect(plan).to.not.match(/Sort/);
        expect(fieldExpr('A.B.C')).to.equal(`coalesce(doc #> '{A,B,C}', 'null'::jsonb)`);
      } finally {
        await client.query('RESET enable_seqscan');
        client.release();
      }
    });
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
      expect(rows).to.deep.equal(EVENT_LOG_STEPS.map((_, i) => ({ part: 'event-log', version: i + 1 })));
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${fresh}" CASCADE`);
    }
  });

  describe('sessions, each bounded', function () {
    const settings = `SELECT current_setting('application_name') AS name, current_setting('idle_in_transaction_session_timeout') AS idle,
      current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement, current_setting('tcp_keepalives_idle') AS keepalive`;

    it('names every session of a pool and the log’s listener, and bounds idle transactions, lock waits and silent peers', async function () {
      const name = `bidder-spec-${randomUUID().slice(0, 8)}`;
      const pool = createPool(URL, 2, { applicationName: name });
      const log = await PgEventLog.open(pool, { schema });
      try {
        const { rows } = await pool.query(settings);
        expect(rows[0]).to.deep.equal({ name, idle: '3s', lock: '4s', statement: '5s', keepalive: '10' });
        // The listener is a session of its own, under the same name (what an operator sees in pg_stat_activity).
        const listening = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`, [name]);
        expect(listening.rows).to.have.length(1);
      } finally {
        await log.close();
        await pool.end();
      }
    });

    it('ends a lock wait past its bound (55P03) and a transaction left idle past its bound (the server ends the session): 503, and the pool serves on', async function () {
      const pool = createPool(URL, 2, { idleInTransactionTimeoutMs: 300, lockTimeoutMs: 200 });
      const holder = await admin.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.bounded`]);
        const waited = await inTransaction(pool, (client) =>
          client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.bounded`]),
        ).then(
          () => null,
          (error: unknown) => error,
        );
        expect(waited).to.have.property('code', '55P03');
        expect(isTransientFault(waited)).to.equal(true);
        expect(unavailableFrom(waited)?.status).to.equal(503);
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
      try {
        const idle = await pool.connect();
        await idle.query('BEGIN');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const ended = await idle.query('SELECT 1').then(
          () => null,
          (error: unknown) => error,
        );
        idle.release(releaseError(ended));
        expect(ended, 'the idle transaction ended by the server').to.not.equal(null);
        expect(isTransientFault(ended)).to.equal(true);
        expect(unavailableFrom(ended)?.status).to.equal(503);
        expect((await pool.query('SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
      } finally {
        await pool.end();
      }
    });

    it('lifts the statement and lock bounds for one transaction (unboundedHere) and one migration only', async function () {
      const pool = createPool(URL, 1, { applicationName: 'bidder-spec' });
      const fresh = `${schema}_u`;
      try {
        const inside = await inTransaction(pool, async (client) => {
          await unboundedHere(client);
          return (await client.query(settings)).rows[0];
        });
        expect(inside).to.include({ lock: '0', statement: '0', idle: '3s' });
        expect((await pool.query(settings)).rows[0]).to.include({ lock: '4s', statement: '5s' });
        await migrate(pool, fresh, 'event-log', EVENT_LOG_STEPS);
        expect((await pool.query(settings)).rows[0]).to.include({ lock: '4s', statement: '5s' });
      } finally {
        await pool.end();
        await admin.query(`DROP SCHEMA IF EXISTS "${fresh}" CASCADE`);
      }
    });
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

  it('fails only the append a writer outside the lock raced, and commits the rest of its group', async function () {
    const log = await PgEventLog.open(URL, { schema });
    const raced = `raced-${randomUUID()}`;
    const other = `other-${randomUUID()}`;
    const event = { type: 'T', version: 1, data: {}, metadata: { tenant: 't' } };
    // A row of `raced` written without the append lock, not yet committed when the group checks the revisions.
    const intruder = await admin.connect();
    try {
      await intruder.query('BEGIN');
      await intruder.query(
        `INSERT INTO "${schema}".events (position, stream_id, revision, type, version, data, metadata)
         VALUES (nextval('"${schema}".event_positions'), $1, 0, 'T', 1, '{}', '{"tenant":"t"}')`,
        [raced],
      );
      // Asked in one turn: one group, whose INSERT then waits on the intruder's row.
      const first = log.appendToStream(raced, [event], { expectedRevision: 'no_stream' }).then(
        () => null,
        (error: unknown) => error,
      );
      const second = log.appendToStream(other, [event], { expectedRevision: 'no_stream' });
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%"${schema}".append_group(%'`,
        );
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await intruder.query('COMMIT');
      expect(await first).to.have.property('name', 'WrongExpectedVersionError');
      expect((await second).nextExpectedRevision).to.equal(0);
      expect((await log.readStream(other)).map((e) => e.revision)).to.deep.equal([0]);
      expect(await log.readStream(raced)).to.have.length(1);
    } finally {
      intruder.release();
      await log.close();
    }
  });

  it("gives a subscriber its own process's appends and another's interleaved, each once, in order, as the table holds them", async function () {
    const mine = await PgEventLog.open(URL, { schema, pollMs: 50 });
    const theirs = await PgEventLog.open(URL, { schema });
    const from = await mine.headPosition();
    const subscription = mine.subscribeToAll({ fromPosition: from, batchSize: 7 });
    try {
      const streams = { mine: `tail-mine-${randomUUID()}`, theirs: `tail-theirs-${randomUUID()}` };
      const event = (n: number) => ({ type: 'T', version: 1, data: { n, text: 'é \u2028 😀' }, metadata: { tenant: 't' } });
      for (let n = 0; n < 30; n++) {
        // Groups of this process (several appends in one turn), and single appends of the other in between.
        await Promise.all([
          mine.appendToStream(streams.mine, [event(n)]),
          mine.appendToStream(`${streams.mine}-${n}`, [event(n), event(n)], { expectedRevision: 'no_stream' }),
        ]);
        if (n % 3 === 0) await theirs.appendToStream(streams.theirs, [event(n)]);
      }
      const head = await mine.headPosition();
      const seen: RecordedEvent[] = [];
      for await (const batch of subscription) {
        seen.push(...batch);
        if (seen.at(-1)!.position >= head) break;
      }
      const stored = await mine.readAll({ fromPosition: from, maxCount: 10_000 });
      expect(stored).to.have.length(30 * 3 + 10);
      expect(seen).to.deep.equal(stored);
    } finally {
      await subscription.unsubscribe();
      await mine.close();
      await theirs.close();
    }
  });

  it("hands a subscriber its own process's appends without reading the table, also when their notification comes before the answer", async function () {
    const pool = new pg.Pool({ connectionString: URL, max: 3 });
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    let counting = false;
    let tableReads = 0;
    // The append's answer held back 30 ms: its notification, on the listener's own connection, comes first.
    pool.query = (async (...args: unknown[]) => {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
      if (counting && /\.events WHERE position > \$1 ORDER BY position/.test(text)) tableReads++;
      const result = await query(...args);
      if (text.includes('append_group')) await new Promise((resolve) => setTimeout(resolve, 30));
      return result;
    }) as typeof pool.query;
    const log = await PgEventLog.open(pool, { schema, pollMs: 60_000 });
    const subscription = log.subscribeToAll({ fromPosition: await log.headPosition(), batchSize: 100 });
    const events = subscription[Symbol.asyncIterator]();
    try {
      const stream = `notified-first-${randomUUID()}`;
      for (let n = 0; n < 5; n++) {
        const next = events.next();
        await new Promise((resolve) => setTimeout(resolve, 20)); // the subscriber waiting
        counting = true;
        const { position } = await log.appendToStream(stream, [{ type: 'T', version: 1, data: { n }, metadata: { tenant: 't' } }]);
        const batch = (await next).value as RecordedEvent[];
        expect(batch.map((e) => [e.position, e.data])).to.deep.equal([[position, { n }]]);
      }
      expect(tableReads).to.equal(0);
    } finally {
      await subscription.unsubscribe();
      await log.close();
      await pool.end();
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
