/**
 * Parking (src/projector/parking.ts), specified once and run on each engine (parking.test.ts: the embedded SQLite
 * default; parking-postgres.test.ts: PostgreSQL): a projection whose handler throws on one event of one house parks
 * it after its tries, holds the later events of its stream, and goes on, so the other houses' reads stay current;
 * `retry` after the fix brings the read model equal to a replay, `skip` drops one event for good.
 */
import { expect } from 'chai';
import type { EventLog, RecordedEvent } from '../../src/ports/event-log.ts';
import type { Doc, DocumentStore, ParkedEvent } from '../../src/ports/read-models.ts';
import type { DocumentProjection, Reactor, SearchProjection } from '../../src/projector/projection.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { PARK_TRIES } from '../../src/projector/parking.ts';

export interface ParkingEngines {
  log: EventLog;
  documents: DocumentStore;
  /** A new, empty read-model store on the same engine: where a replay is built to compare with. */
  freshDocuments(): Promise<DocumentStore>;
  close(): Promise<void>;
}

const PROJECTION = 'parking-prices';
const TENANTS = ['house-a', 'house-b'];

/** A lot's price and how often it changed, and a house's count of changes over all its lots (a document of many streams). */
export function pricesProjection(state: { broken: boolean }): DocumentProjection {
  return {
    kind: 'documents',
    name: PROJECTION,
    collections: [{ name: 'parking_lots' }, { name: 'parking_totals' }],
    handles: ['PriceSet'],
    async apply(event, uow) {
      const { lot, price, bad } = event.data as { lot: string; price: string; bad?: 'throws' | 'nul' };
      if (bad === 'throws' && state.broken) throw new Error(`price of lot ${lot} has a shape this version cannot read`);
      // A value PostgreSQL refuses in jsonb (the commit fails, not the handler): written while broken.
      const stored = bad === 'nul' && state.broken ? `${price}\u0000` : price;
      const tenant = event.metadata.tenant;
      await uow.update<Doc & { changes: number }>('parking_lots', tenant, lot, (doc) => ({
        _id: lot,
        price: stored,
        changes: (doc?.changes ?? 0) + 1,
      }));
      await uow.update<Doc & { changes: number }>('parking_totals', tenant, 'all', (doc) => ({
        _id: 'all',
        changes: (doc?.changes ?? 0) + 1,
      }));
    },
  };
}

/** Every document of the prices projection, per house, as the store holds them. */
async function readModel(documents: DocumentStore): Promise<Record<string, Doc[]>> {
  const all: Record<string, Doc[]> = {};
  for (const tenant of TENANTS)
    for (const collection of ['parking_lots', 'parking_totals'])
      all[`${tenant}/${collection}`] = await documents
        .forTenant(tenant)
        .collection(collection)
        .find({}, { sort: [['_id', 1]] });
  return all;
}

const price = (tenant: string, lot: string, value: string, bad?: 'throws' | 'nul') => ({
  type: 'PriceSet',
  version: 1,
  data: { lot, price: value, ...(bad ? { bad } : {}) },
  metadata: { tenant },
});

/** A logger whose lines are kept (parsed) for the spec to read. */
function keptLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { logger, lines };
}

const FAST = { parking: { backoffMs: 5 } };

/** A word for each price appendSale sets (a search for one finds no other). */
const WORDS: Record<string, string> = { '100': 'alpha', '120': 'bravo', '130': 'charlie', '50': 'delta', '900': 'echo', '950': 'foxtrot' };

export function parkingSpec(engine: string, open: () => Promise<ParkingEngines>): void {
  describe(`parking an event a projection cannot apply (${engine})`, function () {
    this.timeout(30_000);
    let engines: ParkingEngines;
    let search: MiniSearchIndex;
    const runtimes: ProjectorRuntime[] = [];
    const stores: DocumentStore[] = [];

    beforeEach(async () => {
      engines = await open();
      search = await MiniSearchIndex.open({ dir: null, partitions: {} });
    });
    afterEach(async () => {
      for (const runtime of runtimes.splice(0)) await runtime.stop();
      for (const store of stores.splice(0)) await store.close();
      await search.close();
      await engines.close();
    });

    const runtime = async (
      projections: Array<DocumentProjection | Reactor | SearchProjection>,
      logger: Logger,
      options = FAST,
      documents = engines.documents,
    ) => {
      const made = new ProjectorRuntime({ log: engines.log, documents, search, logger }, projections, options);
      runtimes.push(made);
      await made.setup();
      return made;
    };

    /** The read model built from scratch with the fixed projection (and what an operator skipped, as the live one left it). */
    const replay = async (skipped: ParkedEvent[] = []) => {
      const documents = await engines.freshDocuments();
      stores.push(documents);
      if (skipped.length > 0) await documents.park(PROJECTION, skipped);
      const fixed = await runtime([pricesProjection({ broken: false })], createLogger({ level: 'silent' }), FAST, documents);
      await fixed.catchUp();
      return readModel(documents);
    };

    /** Houses a and b: a's lot-1 gets a bad price between two good ones; a's lot-2 and b's lot-1 go on around it. */
    const appendSale = async (bad: 'throws' | 'nul' = 'throws') => {
      const { log } = engines;
      const at: Record<string, number> = {};
      at.first = (await log.appendToStream('lot-a1', [price('house-a', 'a1', '100')])).position;
      at.bad = (await log.appendToStream('lot-a1', [price('house-a', 'a1', '120', bad)])).position;
      at.otherLot = (await log.appendToStream('lot-a2', [price('house-a', 'a2', '50')])).position;
      at.otherHouse = (await log.appendToStream('lot-b1', [price('house-b', 'b1', '900')])).position;
      at.held = (await log.appendToStream('lot-a1', [price('house-a', 'a1', '130')])).position;
      at.last = (await log.appendToStream('lot-b1', [price('house-b', 'b1', '950')])).position;
      return at;
    };

    it("parks the event after its tries, holds its stream's later ones, and keeps every other stream and house current", async () => {
      const state = { broken: true };
      const { logger, lines } = keptLogger();
      const projector = await runtime([pricesProjection(state)], logger);
      await projector.start();
      const at = await appendSale();
      expect(await projector.waitFor(at.last, [PROJECTION], 20_000), 'the projection went past the bad event').to.equal(true);

      const model = await readModel(engines.documents);
      expect(model['house-b/parking_lots']).to.deep.include.members([{ _id: 'b1', price: '950', changes: 2, _pos: at.last }]);
      expect(model['house-a/parking_lots']).to.deep.equal([
        // lot a1 as if the bad event and the one behind it had not happened
        { _id: 'a1', price: '100', changes: 1, _pos: at.first },
        { _id: 'a2', price: '50', changes: 1, _pos: at.otherLot },
      ]);
      expect(model['house-a/parking_totals']).to.deep.equal([{ _id: 'all', changes: 2, _pos: at.otherLot }]);

      const [listed] = await projector.parked.list();
      expect(listed.projection).to.equal(PROJECTION);
      expect(
        listed.events.map(({ position, type, streamId, tenant, state }) => ({ position, type, streamId, tenant, state })),
      ).to.deep.equal([
        { position: at.bad, type: 'PriceSet', streamId: 'lot-a1', tenant: 'house-a', state: 'parked' },
        { position: at.held, type: 'PriceSet', streamId: 'lot-a1', tenant: 'house-a', state: 'held' },
      ]);
      expect(listed.events[0].error).to.equal('price of lot a1 has a shape this version cannot read');
      expect(listed.events[0].attempts).to.be.at.least(PARK_TRIES);
      expect(await projector.parked.counts()).to.deep.equal({ [PROJECTION]: { parked: 1, held: 1, skipped: 0 } });

      // One error line, for the parked event: where it is and what failed, nothing of its data or house.
      const errors = lines.filter((line) => (line.level as number) >= 50);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.deep.include({ projection: PROJECTION, position: at.bad, type: 'PriceSet', stream: 'lot-a1' });
      expect(JSON.stringify(errors[0])).to.not.match(/house-a|"120"/);
    });

    it('after the fix, retry brings the read model equal to a replay, and the stream follows the log again', async () => {
      const state = { broken: true };
      const projector = await runtime([pricesProjection(state)], createLogger({ level: 'silent' }));
      await projector.start();
      const at = await appendSale();
      expect(await projector.waitFor(at.last, [PROJECTION], 20_000)).to.equal(true);
      state.broken = false;
      const outcome = await projector.parked.retry(PROJECTION);
      expect(outcome).to.deep.include({
        how: 'rebuilt',
        before: { parked: 1, held: 1, skipped: 0 },
        after: { parked: 0, held: 0, skipped: 0 },
      });
      expect(await readModel(engines.documents)).to.deep.equal(await replay());
      expect((await readModel(engines.documents))['house-a/parking_lots'][0]).to.deep.include({ _id: 'a1', price: '130', changes: 3 });
      // The running loop follows the swapped copy, and lot a1 is no longer held.
      const { position } = await engines.log.appendToStream('lot-a1', [price('house-a', 'a1', '140')]);
      expect(await projector.waitFor(position, [PROJECTION], 10_000)).to.equal(true);
      expect(await engines.documents.forTenant('house-a').collection('parking_lots').findById('a1')).to.deep.include({
        price: '140',
        changes: 4,
      });
      expect(await projector.parked.list()).to.deep.equal([]);
    });

    it('a retry before the fix parks the event again; skip drops it for good (a log line), and the retry then applies what it held', async () => {
      const state = { broken: true };
      const { logger, lines } = keptLogger();
      const projector = await runtime([pricesProjection(state)], logger);
      await projector.start();
      const at = await appendSale();
      expect(await projector.waitFor(at.last, [PROJECTION], 20_000)).to.equal(true);
      const still = await projector.parked.retry(PROJECTION);
      expect(still.after).to.deep.equal({ parked: 1, held: 1, skipped: 0 });

      const skipped = await projector.parked.skip(PROJECTION, at.bad);
      expect(skipped.state).to.equal('skipped');
      const skipLine = lines.find((line) => line.msg === 'operator skipped a parked event: this projection never applies it');
      expect(skipLine).to.deep.include({ projection: PROJECTION, position: at.bad, stream: 'lot-a1' });
      const outcome = await projector.parked.retry(PROJECTION);
      expect(outcome.after).to.deep.equal({ parked: 0, held: 0, skipped: 1 });
      // A replay that leaves the skipped event out, as the live projection now does.
      expect(await readModel(engines.documents)).to.deep.equal(await replay([skipped]));
      expect((await readModel(engines.documents))['house-a/parking_lots'][0]).to.deep.include({ _id: 'a1', price: '130', changes: 2 });
      let refused: unknown;
      await projector.parked.skip(PROJECTION, at.first).catch((e: unknown) => (refused = e));
      expect(String(refused)).to.match(/no parked or held event at position/);
      // unskip parks it again: the next retry (after the fix) applies it.
      expect((await projector.parked.unskip(PROJECTION, at.bad)).state).to.equal('parked');
      state.broken = false;
      expect((await projector.parked.retry(PROJECTION)).after).to.deep.equal({ parked: 0, held: 0, skipped: 0 });
      expect(await readModel(engines.documents)).to.deep.equal(await replay());
    });

    it("parks an event of the search index's projection, kept in the document store (the index has its checkpoint), and a retry rebuilds the index", async () => {
      const state = { broken: true };
      const titles: SearchProjection = {
        kind: 'search',
        name: 'parking-titles',
        collection: { name: 'parking_titles', fields: [{ name: 'title', type: 'string', searchable: true }] },
        handles: ['PriceSet'],
        async apply(event, batch) {
          const data = event.data as { lot: string; price: string; bad?: string };
          if (data.bad && state.broken) throw new Error('title of a shape this version cannot read');
          batch.upsert(event.metadata.tenant, { id: data.lot, title: WORDS[data.price] });
        },
      };
      const projector = await runtime([titles], createLogger({ level: 'silent' }));
      await projector.start();
      const at = await appendSale();
      expect(await projector.waitFor(at.last, ['parking-titles'], 20_000)).to.equal(true);
      const found = async (tenant: string, q: string) =>
        (await search.search('parking_titles', tenant, { q, queryBy: ['title'], page: 1, perPage: 10 })).hits.map((h) => h.id);
      expect(await found('house-b', 'foxtrot')).to.deep.equal(['b1']);
      expect(await found('house-a', 'alpha')).to.deep.equal(['a1']);
      expect(await found('house-a', 'charlie'), 'held').to.deep.equal([]);
      expect(await projector.parked.counts()).to.deep.equal({ 'parking-titles': { parked: 1, held: 1, skipped: 0 } });
      state.broken = false;
      expect((await projector.parked.retry('parking-titles')).after).to.deep.equal({ parked: 0, held: 0, skipped: 0 });
      expect(await found('house-a', 'charlie')).to.deep.equal(['a1']);
    });

    it('parks an event of a reactor that keeps failing, reacts to the others, and re-reacts to it in order at the retry', async () => {
      const state = { broken: true };
      const jobs: string[] = [];
      const reactor: Reactor = {
        kind: 'reactor',
        name: 'parking-mails',
        handles: ['PriceSet'],
        async react(event: RecordedEvent) {
          const data = event.data as { lot: string; price: string; bad?: string };
          if (data.bad && state.broken) throw new Error('mail template missing');
          // Keyed, as a job reactor's jobs are: a second reaction to one event adds nothing.
          if (!jobs.includes(`${data.lot}:${data.price}`)) jobs.push(`${data.lot}:${data.price}`);
        },
      };
      const projector = await runtime([reactor], createLogger({ level: 'silent' }));
      await projector.start();
      const at = await appendSale();
      expect(await projector.waitFor(at.last, ['parking-mails'], 20_000), 'the reactor went past the bad event').to.equal(true);
      expect(jobs).to.deep.equal(['a1:100', 'a2:50', 'b1:900', 'b1:950']);
      expect(await projector.parked.counts()).to.deep.equal({ 'parking-mails': { parked: 1, held: 1, skipped: 0 } });
      state.broken = false;
      const outcome = await projector.parked.retry('parking-mails');
      expect(outcome).to.deep.include({ how: 're-reacted', after: { parked: 0, held: 0, skipped: 0 } });
      expect(jobs.slice(4)).to.deep.equal(['a1:120', 'a1:130']);
      expect(at.held).to.be.greaterThan(at.bad);
    });
  });
}
