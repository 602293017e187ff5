/**
 * Parking on PostgreSQL: the event log and the read models in a schema of the run's own on the local PostgreSQL
 * (POSTGRES_TEST_URL), dropped after (the spec: parking-suite.ts). Beyond it, a value PostgreSQL refuses (a NUL in
 * jsonb) fails the batch's commit, not its handler: that event is parked alike. PostgreSQL is required: when it
 * cannot be reached the suite fails, unless SKIP_POSTGRES=1.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { PgEventLog } from '../../src/adapters/postgres/pg-event-log.ts';
import { PgDocumentStore } from '../../src/adapters/postgres/pg-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { createLogger } from '../../src/logger.ts';
import { parkingSpec, pricesProjection } from './parking-suite.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const shown = URL.replace(/\/\/[^@/]*@/, '//');
const run = `bidder_parking_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
let schemas = 0;

describe(`parking on PostgreSQL (${shown})`, function () {
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
    const { rows } = await admin.query<{ name: string }>('SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)', [run]);
    for (const { name } of rows) await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`).catch(() => {});
    await admin.end().catch(() => {});
  });

  const open = async () => {
    const schema = `${run}_${++schemas}`;
    const log = await PgEventLog.open(URL, { schema, pollMs: 20 });
    const documents = await PgDocumentStore.open(URL, { schema });
    return {
      log,
      documents,
      freshDocuments: () => PgDocumentStore.open(URL, { schema: `${schema}_replay_${++schemas}` }),
      close: async () => {
        await documents.close();
        await log.close();
      },
    };
  };

  parkingSpec('PostgreSQL', open);

  it('parks an event whose documents PostgreSQL refuses (a NUL in jsonb), and applies it once the projection writes it right', async () => {
    const engines = await open();
    const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    const state = { broken: true };
    const projector = new ProjectorRuntime(
      { log: engines.log, documents: engines.documents, search, logger: createLogger({ level: 'silent' }) },
      [pricesProjection(state)],
      { parking: { backoffMs: 5 } },
    );
    try {
      await projector.setup();
      await projector.start();
      const bad = await engines.log.appendToStream('lot-a1', [
        { type: 'PriceSet', version: 1, data: { lot: 'a1', price: '7', bad: 'nul' }, metadata: { tenant: 'house-a' } },
      ]);
      const next = await engines.log.appendToStream('lot-b1', [
        { type: 'PriceSet', version: 1, data: { lot: 'b1', price: '8' }, metadata: { tenant: 'house-b' } },
      ]);
      expect(await projector.waitFor(next.position, ['parking-prices'], 20_000)).to.equal(true);
      const [listed] = await projector.parked.list();
      expect(listed.events).to.have.length(1);
      expect(listed.events[0]).to.deep.include({ position: bad.position, state: 'parked' });
      expect(listed.events[0].error).to.match(/unsupported Unicode escape sequence|\\u0000/);
      expect(await engines.documents.forTenant('house-b').collection('parking_lots').findById('b1')).to.deep.include({ price: '8' });
      state.broken = false;
      expect((await projector.parked.retry('parking-prices')).after).to.deep.equal({ parked: 0, held: 0, skipped: 0 });
      expect(await engines.documents.forTenant('house-a').collection('parking_lots').findById('a1')).to.deep.include({ price: '7' });
    } finally {
      await projector.stop();
      await search.close();
      await engines.close();
    }
  });
});
