// Timed bidding's reactor, given events, then jobs: every lot of a timed auction gets a close at its end time,
// lots of external auctions get none, an auction catalogued as timed plans its lots once, and the auctions'
// modes are read from the catalogue read model only once that has the event at hand.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { UnitOfWork, type ReactorDeps } from '../../src/projector/projection.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import type { JobOptions, JobQueue } from '../../src/ports/jobs.ts';
import { catalogueReadModels } from '../../projections/catalogue/index.ts';
import { biddingCommands } from '../../commands/bidding/index.ts';
import { CLOSE_LOT, PLAN_CLOSES } from '../../commands/bidding/jobs.ts';
import { registered } from '../support/projection-spec.ts';
import { auctionCatalogued, lotCatalogued, type CatalogueEvent } from '../support/catalogue-events.ts';

const catalogueProjection = registered(catalogueReadModels, 'documents');
const biddingReactor = (deps: ReactorDeps) => registered(biddingCommands, 'reactor', deps);

const streams: Record<string, (data: Record<string, unknown>) => string> = {
  AuctionCatalogued: (d) => `auction-${d.tenant as string}-${d.auctionId as number}`,
  LotCatalogued: (d) => `lot-${d.tenant as string}-${d.lotId as number}`,
};

describe('timed bidding reactor: the closes it plans', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-bidding-reactor-'));
  let store: SqliteDocumentStore;
  let position = 0;
  let checkpoint = 0;
  const added: Array<{ name: string; data: unknown; jobId: string; delayMs?: number }> = [];
  const jobs = {
    async add(name: string, data: unknown, options: JobOptions) {
      added.push({ name, data, jobId: options.jobId, ...(options.delayMs ? { delayMs: options.delayMs } : {}) });
      return { id: options.jobId, added: true };
    },
  } as unknown as JobQueue;
  const record = (event: CatalogueEvent): RecordedEvent => ({
    type: event.type,
    version: 1,
    data: event.data,
    metadata: { tenant: 'demo' },
    streamId: streams[event.type](event.data),
    revision: 0,
    position: ++position,
    created: '2026-11-22T10:00:00.000Z',
  });
  /** The catalogue projection applies these events as one batch, as the projector runtime does. */
  const project = async (events: RecordedEvent[]) => {
    const uow = new UnitOfWork(store.live());
    for (const event of events) {
      uow.current = event;
      await catalogueProjection.apply(event, uow);
    }
    const end = events[events.length - 1].position;
    await store.live().commit(uow.ops(), { projection: catalogueProjection.name, expected: checkpoint, position: end });
    checkpoint = end;
  };
  const future = (ms: number) => new Date(Date.now() + ms).toISOString();

  beforeEach(async () => {
    position = checkpoint = 0;
    added.length = 0;
    store = new SqliteDocumentStore(path.join(dir, `${Date.now()}-${Math.random()}.sqlite`));
    for (const c of catalogueProjection.collections) await store.ensureCollection(c);
  });
  afterEach(async () => store.close());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('plans a close at the end time of each lot catalogued into a timed auction, again when a re-import moves it, and none for an external auction', async () => {
    const reactor = biddingReactor({ jobs, documents: store });
    const end = future(3600_000);
    const moved = future(7200_000);
    const events = [
      record(auctionCatalogued(1, { bidding: 'timed' })),
      record(auctionCatalogued(2, { bidding: 'external' })),
      record(auctionCatalogued(3)),
      record(lotCatalogued(11, { auctionId: 1, endTime: end })),
      record(lotCatalogued(21, { auctionId: 2, endTime: end })),
      record(lotCatalogued(31, { auctionId: 3, endTime: end })),
      record(lotCatalogued(11, { auctionId: 1, endTime: moved })),
    ];
    await project(events);
    for (const event of events) await reactor.react(event);
    expect(added.map(({ delayMs: _d, ...job }) => job)).to.deep.equal([
      { name: PLAN_CLOSES, data: { tenant: 'demo', auctionId: 1 }, jobId: 'plan-closes-demo-1-1' },
      { name: CLOSE_LOT, data: { tenant: 'demo', lotId: 11 }, jobId: `close-lot-demo-11-${Date.parse(end)}` },
      { name: CLOSE_LOT, data: { tenant: 'demo', lotId: 11 }, jobId: `close-lot-demo-11-${Date.parse(moved)}` },
    ]);
    // Delayed until the end time.
    expect(added[1].delayMs).to.be.within(3590_000, 3600_000);
  });

  it("reads an auction's mode anew after its AuctionCatalogued: a lot catalogued after its auction became timed is planned", async () => {
    const reactor = biddingReactor({ jobs, documents: store });
    const end = future(3600_000);
    const first = [record(auctionCatalogued(1, { bidding: 'external' })), record(lotCatalogued(11, { auctionId: 1, endTime: end }))];
    await project(first);
    for (const event of first) await reactor.react(event);
    expect(added).to.deep.equal([]);
    const second = [record(auctionCatalogued(1, { bidding: 'timed' })), record(lotCatalogued(12, { auctionId: 1, endTime: end }))];
    await project(second);
    for (const event of second) await reactor.react(event);
    // Lot 11, catalogued before, is planned by PLAN_CLOSES (from the read model); lot 12 by its own record.
    expect(added.map((a) => a.jobId)).to.deep.equal(['plan-closes-demo-1-3', `close-lot-demo-12-${Date.parse(end)}`]);
  });

  it('waits for the catalogue read model to have the event before it reads the modes', async () => {
    const reactor = biddingReactor({ jobs, documents: store });
    const events = [
      record(auctionCatalogued(1, { bidding: 'timed' })),
      record(lotCatalogued(11, { auctionId: 1, endTime: future(60_000) })),
    ];
    let done = false;
    const reacting = (async () => {
      for (const event of events) await reactor.react(event);
      done = true;
    })();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(done, 'the reactor went on before the read model had the auction').to.equal(false);
    expect(added).to.deep.equal([]);
    await project(events);
    await reacting;
    expect(added.map((a) => a.name)).to.deep.equal([PLAN_CLOSES, CLOSE_LOT]);
  });
});
