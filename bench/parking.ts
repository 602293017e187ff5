/**
 * What a parked event costs a read model (docs/operations.md "Parked events and jobs"), measured on the embedded
 * default and, with `--postgres URL`, on PostgreSQL: `npx tsx bench/parking.ts [--postgres postgres://...] [--events N]`.
 *
 *  live      the lag of another house's event appended right behind one the projection cannot apply (default tries),
 *            against the lag of one behind a good event;
 *  catch-up  a first build of N events in pages of 5,000, with and without one bad event in the middle (the bisection);
 *  held      appends to the parked event's stream (held, each stored as held) against appends to another stream;
 *  retry     the retry after the fix: a rebuild of the projection from position 0.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { EventLog, NewEvent } from '../src/ports/event-log.ts';
import type { Doc, DocumentStore } from '../src/ports/read-models.ts';
import type { DocumentProjection } from '../src/projector/projection.ts';
import { ProjectorRuntime } from '../src/projector/runtime.ts';
import { SqliteEventLog } from '../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../src/adapters/embedded/sqlite-documents.ts';
import { PgEventLog } from '../src/adapters/postgres/pg-event-log.ts';
import { PgDocumentStore } from '../src/adapters/postgres/pg-documents.ts';
import { MiniSearchIndex } from '../src/adapters/embedded/minisearch/index.ts';
import { createLogger } from '../src/logger.ts';

const args = process.argv.slice(2);
const postgres = args.includes('--postgres') ? args[args.indexOf('--postgres') + 1] : null;
const EVENTS = args.includes('--events') ? Number(args[args.indexOf('--events') + 1]) : 20_000;
const state = { broken: true };
const logger = createLogger({ level: 'silent' });

/** A lot's price, and a house's count of changes (a document of many streams). */
const prices: DocumentProjection = {
  kind: 'documents',
  name: 'bench-prices',
  collections: [{ name: 'bench_lots' }, { name: 'bench_totals' }],
  handles: ['PriceSet'],
  async apply(event, uow) {
    const { lot, price, bad } = event.data as { lot: string; price: number; bad?: boolean };
    if (bad && state.broken) throw new Error('a shape this version cannot read');
    const tenant = event.metadata.tenant;
    await uow.update<Doc & { n: number }>('bench_lots', tenant, lot, (doc) => ({ _id: lot, price, n: (doc?.n ?? 0) + 1 }));
    await uow.update<Doc & { n: number }>('bench_totals', tenant, 'all', (doc) => ({ _id: 'all', n: (doc?.n ?? 0) + 1 }));
  },
};

const price = (tenant: string, lot: string, value: number, bad = false): NewEvent => ({
  type: 'PriceSet',
  version: 1,
  data: { lot, price: value, ...(bad ? { bad } : {}) },
  metadata: { tenant },
});

interface Engines {
  log: EventLog;
  documents: DocumentStore;
  close(): Promise<void>;
}

async function engines(name: string): Promise<Engines> {
  if (name === 'postgres') {
    const schema = `bench_parking_${randomUUID().replace(/-/g, '').slice(0, 10)}`;
    const log = await PgEventLog.open(postgres!, { schema, pollMs: 20 });
    const documents = await PgDocumentStore.open(postgres!, { schema });
    return {
      log,
      documents,
      close: async () => {
        await documents.close();
        await log.close();
        const admin = new pg.Pool({ connectionString: postgres!, max: 1 });
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
        await admin.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-parking-'));
  const log = new SqliteEventLog(path.join(dir, 'events.sqlite'), { pollMs: 20 });
  const documents = new SqliteDocumentStore(path.join(dir, 'read-models.sqlite'));
  return {
    log,
    documents,
    close: async () => {
      await documents.close();
      await log.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function projector(e: Engines) {
  const search = await MiniSearchIndex.open({ dir: null, partitions: {} });
  const runtime = new ProjectorRuntime({ log: e.log, documents: e.documents, search, logger }, [prices]);
  await runtime.setup();
  return { runtime, stop: async () => (await runtime.stop(), await search.close()) };
}

/** Seconds from an append of a good event of house b behind `before` (a bad or a good event of house a) to its read. */
async function lagBehind(e: Engines, runtime: ProjectorRuntime, bad: boolean, n: number): Promise<number> {
  await e.log.appendToStream(`lot-a-${n}`, [price('a', `a${n}`, n, bad)]);
  const started = performance.now();
  const { position } = await e.log.appendToStream(`lot-b-${n}`, [price('b', `b${n}`, n)]);
  await runtime.waitFor(position, [prices.name], 60_000);
  return (performance.now() - started) / 1000;
}

async function live(name: string) {
  const e = await engines(name);
  const { runtime, stop } = await projector(e);
  await runtime.start();
  try {
    state.broken = true;
    const good = [];
    const bad = [];
    for (let i = 0; i < 3; i++) good.push(await lagBehind(e, runtime, false, i));
    for (let i = 3; i < 6; i++) bad.push(await lagBehind(e, runtime, true, i));
    // Appends to a parked stream (each held) against appends to a free one, 200 each, one at a time.
    const timed = async (stream: string) => {
      const started = performance.now();
      for (let i = 0; i < 200; i++) {
        const { position } = await e.log.appendToStream(stream, [price('a', stream, i)]);
        await runtime.waitFor(position, [prices.name], 60_000);
      }
      return (performance.now() - started) / 200;
    };
    const free = await timed('lot-a-free');
    const held = await timed('lot-a-3');
    const counts = (await runtime.parked.counts())[prices.name];
    console.log(
      JSON.stringify({
        engine: name,
        lagBehindGoodSeconds: good.map((s) => +s.toFixed(3)),
        lagBehindBadSeconds: bad.map((s) => +s.toFixed(3)),
        msPerEventFreeStream: +free.toFixed(2),
        msPerEventHeldStream: +held.toFixed(2),
        parked: counts,
      }),
    );
  } finally {
    await stop();
    await e.close();
  }
}

/** A first build of EVENTS events (houses a and b, 500 lots each), one of them bad when `bad`; then the retry. */
async function catchUp(name: string, bad: boolean) {
  const e = await engines(name);
  try {
    for (let i = 0; i < EVENTS; i += 500) {
      const batch: Array<[string, NewEvent]> = [];
      for (let j = i; j < i + 500 && j < EVENTS; j++) {
        const house = j % 2 === 0 ? 'a' : 'b';
        const lot = `${house}${j % 500}`;
        batch.push([`lot-${lot}`, price(house, lot, j, bad && j === Math.floor(EVENTS / 2))]);
      }
      for (const [stream, event] of batch) await e.log.appendToStream(stream, [event]);
    }
    state.broken = true;
    const { runtime, stop } = await projector(e);
    try {
      let started = performance.now();
      await runtime.catchUp();
      const build = (performance.now() - started) / 1000;
      state.broken = false;
      started = performance.now();
      const retry = bad ? await runtime.parked.retry(prices.name) : null;
      const retrySeconds = (performance.now() - started) / 1000;
      console.log(
        JSON.stringify({
          engine: name,
          events: EVENTS,
          bad,
          buildSeconds: +build.toFixed(2),
          ...(retry ? { retrySeconds: +retrySeconds.toFixed(2), retry: { how: retry.how, before: retry.before, after: retry.after } } : {}),
        }),
      );
    } finally {
      await stop();
    }
  } finally {
    await e.close();
  }
}

for (const name of ['sqlite', ...(postgres ? ['postgres'] : [])]) {
  await live(name);
  await catchUp(name, false);
  await catchUp(name, true);
}
process.exit(0);
