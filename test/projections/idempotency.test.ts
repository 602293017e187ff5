import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { MiniSearchIndex } from '../../src/adapters/embedded/minisearch/index.ts';
import { LOT_SEARCH_PARTITION } from '../../projections/lot-search/index.ts';
import { SqliteJobQueue } from '../../src/adapters/embedded/sqlite-jobs.ts';
import { UnitOfWork, SearchBatch, type DocumentProjection, type SearchProjection } from '../../src/projector/projection.ts';
import { ProjectorRuntime } from '../../src/projector/runtime.ts';
import { allProjections } from '../../app/features/projections.ts';
import { createLogger } from '../../src/logger.ts';
import { DEMO_AUCTIONS, DEMO_CONDITION_REPORT_LOTS, demoAccountRecords, demoRecords, type DemoCredentials } from '../../app/seed/demo.ts';
import { demoDocumentRecords } from '../../app/seed/demo-documents.ts';
import { FolderFileStore } from '../../src/adapters/embedded/folder-files.ts';
import { importLines } from '../../app/features/intake.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import Database from 'better-sqlite3';

const credentials: DemoCredentials = {
  apiKey: 'projection-test-key-0123456789',
  memberEmail: 'bidder@example.com',
  memberPassword: 'projection-password',
  clientId: 'demo-web',
  clientSecret: 'projection-client-secret-0123',
  backOfficeKeys: { demo: 'projection-backoffice-key-demo-0123', demo2: 'projection-backoffice-key-demo2-0123' },
};
const TENANTS = ['_system', 'demo', 'demo2', 'demo-closed'];

async function snapshot(store: DocumentStore, projection: DocumentProjection) {
  const result: Record<string, unknown[]> = {};
  for (const collection of projection.collections)
    for (const tenant of TENANTS)
      result[`${collection.name}/${tenant}`] = await store
        .forTenant(tenant)
        .collection(collection.name)
        .find({}, { sort: [['_id', 1]] });
  return result;
}

/** Applies every event to a document projection as one batch, through the same unit of work the runtime uses. */
async function applyAll(store: DocumentStore, projection: DocumentProjection, events: RecordedEvent[], expected: number) {
  const uow = new UnitOfWork(store.live());
  for (const event of events.filter((e) => projection.handles.includes(e.type))) {
    uow.current = event;
    await projection.apply(event, uow);
  }
  const position = events[events.length - 1].position;
  await store.live().commit(uow.ops(), { projection: projection.name, expected, position });
  return position;
}

describe('projections', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-projections-'));
  let log: SqliteEventLog;
  let events: RecordedEvent[] = [];

  before(async function () {
    this.timeout(60_000);
    log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
    const now = new Date('2026-11-22T12:00:00.000Z');
    const records = [
      ...demoRecords(credentials, now),
      ...(await demoDocumentRecords(DEMO_AUCTIONS, DEMO_CONDITION_REPORT_LOTS)),
      ...demoAccountRecords(now),
    ];
    const report = await importLines(
      log,
      records.map((r) => JSON.stringify(r)),
      undefined,
      { files: new FolderFileStore(path.join(dir, 'files')) },
    );
    expect(report.errors).to.deep.equal([]);
    // A few member-side events, so every projection has something to do.
    await log.appendToStream('watchlist-demo-1', [
      {
        type: 'LotWatched',
        version: 1,
        data: { tenant: 'demo', memberId: 1, lotId: 5, watchType: 'watch', at: '2026-11-22T12:00:00.000Z' },
        metadata: { tenant: 'demo' },
      },
      {
        type: 'LotWatched',
        version: 1,
        data: { tenant: 'demo', memberId: 1, lotId: 6, watchType: 'watch', at: '2026-11-22T12:01:00.000Z' },
        metadata: { tenant: 'demo' },
      },
      {
        type: 'WatchTypeChanged',
        version: 1,
        data: { tenant: 'demo', memberId: 1, lotId: 5, watchType: 'favourite', at: '2026-11-22T12:02:00.000Z' },
        metadata: { tenant: 'demo' },
      },
      {
        type: 'LotUnwatched',
        version: 1,
        data: { tenant: 'demo', memberId: 1, lotId: 6, at: '2026-11-22T12:03:00.000Z' },
        metadata: { tenant: 'demo' },
      },
    ]);
    const t = (minutes: number) => new Date(Date.parse('2026-11-22T12:00:00.000Z') + minutes * 60_000).toISOString();
    const event = (type: string, data: Record<string, unknown>) => ({
      type,
      version: 1,
      data: { tenant: 'demo', ...data },
      metadata: { tenant: 'demo' },
    });
    await log.appendToStream('webhooks-demo', [
      event('WebhookRegistered', {
        webhookId: 1,
        url: 'https://erp.example.com/hook',
        types: null,
        description: '',
        secret: 'whsec_x',
        at: t(0),
      }),
      event('WebhookRegistered', {
        webhookId: 2,
        url: 'https://crm.example.com/hook',
        types: ['LotWatched'],
        description: 'crm',
        secret: 'whsec_y',
        at: t(1),
      }),
      event('WebhookDisabled', { webhookId: 1, eventId: '0c2f6f7e-8b1a-5c3d-9e4f-a1b2c3d4e5f6', attempts: 8, at: t(2) }),
      event('WebhookReplayRequested', { webhookId: 2, after: 10, at: t(3) }),
      event('WebhookEnabled', { webhookId: 1, at: t(4) }),
      event('WebhookDeleted', { webhookId: 2, at: t(5) }),
    ]);
    // Timed bids on a lot of the timed auction: two bidders, the lead changing hands, then the close.
    const bidId = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    await log.appendToStream('lot-demo-2001', [
      event('MaxBidPlaced', {
        lotId: 2001,
        auctionId: 10,
        bidId: bidId(1),
        memberId: 1,
        maxAmount: 50_000,
        outbidMemberId: null,
        at: t(10),
      }),
      event('BidPlaced', { lotId: 2001, bidId: bidId(1), amount: 20_000, bidType: 'online', placedAt: t(10) }),
      event('MaxBidPlaced', { lotId: 2001, auctionId: 10, bidId: bidId(2), memberId: 2, maxAmount: 60_000, outbidMemberId: 1, at: t(11) }),
      event('BidPlaced', { lotId: 2001, bidId: bidId(2), amount: 51_000, bidType: 'online', placedAt: t(11) }),
      event('LotClosed', { lotId: 2001, closedAt: t(20) }),
      event('LotSettled', { lotId: 2001, sold: true, hammerPrice: 51_000, winnerMemberId: 2, at: t(20) }),
    ]);
    await log.appendToStream('terms-demo-1', [
      {
        type: 'AuctionTermsAccepted',
        version: 1,
        data: { tenant: 'demo', memberId: 1, auctionId: 2, at: '2026-11-22T12:00:00.000Z' },
        metadata: { tenant: 'demo' },
      },
    ]);
    await log.appendToStream('lot-demo-10', [
      {
        type: 'LotClosed',
        version: 1,
        data: { tenant: 'demo', lotId: 10, closedAt: '2026-11-22T12:00:00.000Z' },
        metadata: { tenant: 'demo' },
      },
    ]);
    await log.appendToStream('auctiondocument-demo-2', [
      {
        type: 'AuctionDocumentRemoved',
        version: 1,
        data: { tenant: 'demo', documentId: 2, auctionId: 1, at: '2026-11-22T12:00:00.000Z' },
        metadata: { tenant: 'demo' },
      },
    ]);
    const uploaded = (documentId: string, documentType: string, at: string) => ({
      type: 'IdentityDocumentUploaded',
      version: 1,
      metadata: { tenant: 'demo' },
      data: {
        tenant: 'demo',
        memberId: 1,
        documentId,
        documentType,
        fileName: `${documentType}.pdf`,
        contentType: 'application/pdf',
        size: 2048,
        sha256: 'ab'.repeat(32),
        at,
      },
    });
    await log.appendToStream('identitydocuments-demo-1', [
      uploaded('7c9e6679-7425-40de-944b-e07fc1f90ae7', 'passport', '2026-11-22T12:00:00.000Z'),
      uploaded('9b2f4c1e-8d3a-4e6b-9a7f-2c3d4e5f6a7b', 'proof-of-address', '2026-11-22T12:01:00.000Z'),
      {
        type: 'IdentityDocumentReviewed',
        version: 1,
        data: {
          tenant: 'demo',
          memberId: 1,
          documentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
          status: 'approved',
          at: '2026-11-22T12:02:00.000Z',
        },
        metadata: { tenant: 'demo' },
      },
      {
        type: 'IdentityDocumentRemoved',
        version: 1,
        data: { tenant: 'demo', memberId: 1, documentId: '9b2f4c1e-8d3a-4e6b-9a7f-2c3d4e5f6a7b', at: '2026-11-22T12:03:00.000Z' },
        metadata: { tenant: 'demo' },
      },
    ]);
    await log.appendToStream('invoices-demo', [
      {
        type: 'CostInvoiceRaised',
        version: 1,
        metadata: { tenant: 'demo' },
        data: {
          tenant: 'demo',
          invoiceId: 3,
          number: 3,
          memberId: 1,
          auctionId: 1,
          issuedAt: '2026-11-22T12:00:00.000Z',
          dueAt: '2026-12-06T12:00:00.000Z',
          currency: 'EUR',
          lines: [{ description: 'Printed catalogue', amount: 1500, vatRate: 21, vatAmount: 315 }],
          costType: 'printed-catalogue',
          vatFree: false,
        },
      },
      {
        type: 'InvoiceShippingSelected',
        version: 1,
        metadata: { tenant: 'demo' },
        data: {
          tenant: 'demo',
          invoiceId: 3,
          memberId: 1,
          method: 'post',
          name: 'Demo Bidder',
          address: 'Keizersgracht 1',
          zipCode: '1015 CJ',
          city: 'Amsterdam',
          country: 'NL',
          at: '2026-11-22T12:05:00.000Z',
        },
      },
    ]);
    const reminder = '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b';
    const unsubscribed = '0b6c3f7a-2d4e-4f1a-8b9c-5e6d7f8a9b0c';
    const subscribed = (subscriptionId: string, lotId: number) => ({
      type: 'NotificationSubscribed',
      version: 1,
      metadata: { tenant: 'demo' },
      data: {
        tenant: 'demo',
        subscriptionId,
        memberId: 1,
        lotId,
        minutesBefore: 30,
        channel: 'email',
        lotEndTime: '2026-11-30T12:00:00.000Z',
        clientEndTime: null,
        at: '2026-11-22T12:00:00.000Z',
      },
    });
    await log.appendToStream(`notification-demo-${reminder}`, [
      subscribed(reminder, 5),
      {
        type: 'NotificationDispatched',
        version: 1,
        metadata: { tenant: 'demo' },
        data: {
          tenant: 'demo',
          subscriptionId: reminder,
          memberId: 1,
          lotId: 5,
          channel: 'email',
          messageId: `notification-${reminder}`,
          lotEndTime: '2026-11-30T12:00:00.000Z',
          at: '2026-11-30T11:30:00.000Z',
        },
      },
    ]);
    await log.appendToStream(`notification-demo-${unsubscribed}`, [
      subscribed(unsubscribed, 6),
      {
        type: 'NotificationUnsubscribed',
        version: 1,
        metadata: { tenant: 'demo' },
        data: { tenant: 'demo', subscriptionId: unsubscribed, memberId: 1, lotId: 6, at: '2026-11-22T12:05:00.000Z' },
      },
    ]);
    // A browser subscribed to pushes, then a second one that subscribed and was removed (the push service said gone).
    const pushAdded = (subscriptionId: string, endpoint: string) => ({
      type: 'PushSubscriptionAdded',
      version: 1,
      metadata: { tenant: 'demo' },
      data: {
        tenant: 'demo',
        memberId: 1,
        subscriptionId,
        endpoint,
        endpointHost: 'push.example',
        p256dh: 'B'.repeat(87),
        auth: 'A'.repeat(22),
        expirationTime: null,
        language: null,
        created: '2026-11-22T12:00:00.000Z',
        at: '2026-11-22T12:00:00.000Z',
      },
    });
    const pushKept = '3c1e2a4b-5d6f-4a7b-8c9d-0e1f2a3b4c5d';
    const pushGone = '4d2f3b5c-6e7a-4b8c-9d0e-1f2a3b4c5d6e';
    await log.appendToStream('push-subscriptions-demo-1', [
      pushAdded(pushKept, 'https://push.example/send/kept'),
      pushAdded(pushGone, 'https://push.example/send/gone'),
      {
        type: 'PushSubscriptionRemoved',
        version: 1,
        metadata: { tenant: 'demo' },
        data: { tenant: 'demo', memberId: 1, subscriptionId: pushGone, reason: 'gone', status: 410, at: '2026-11-22T12:05:00.000Z' },
      },
    ]);
    await log.appendToStream('member-demo2-1', [
      {
        type: 'MemberRemoved',
        version: 1,
        data: { tenant: 'demo2', memberId: 1, at: '2026-11-22T12:00:00.000Z' },
        metadata: { tenant: 'demo2' },
      },
    ]);
    events = await log.readAll({ fromPosition: 0, maxCount: 1_000_000 });
  });
  after(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const projections = allProjections({} as never).filter((p): p is DocumentProjection => p.kind === 'documents');
  for (const projection of projections) {
    it(`${projection.name}: handling every event twice leaves the same documents as handling it once`, async () => {
      const store = new SqliteDocumentStore(path.join(dir, `${projection.name}-twice.sqlite`));
      for (const c of projection.collections) await store.ensureCollection(c);
      const position = await applyAll(store, projection, events, 0);
      const once = await snapshot(store, projection);
      await applyAll(store, projection, events, position);
      expect(await snapshot(store, projection)).to.deep.equal(once);
      expect(Object.values(once).some((docs) => docs.length > 0)).to.equal(true);
      await store.close();
    });
  }

  it('lot-search: indexing every event twice finds the same lots as indexing it once', async () => {
    const projection = allProjections({} as never).find((p) => p.kind === 'search') as SearchProjection;
    const index = await MiniSearchIndex.open({ dir: null, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
    await index.ensureCollection(projection.collection);
    const search = () =>
      index.search('lots', 'demo', {
        q: 'chair',
        queryBy: ['Title', 'Description'],
        filter: { Language: 'en' },
        facetBy: ['CategoryId'],
        page: 1,
        perPage: 50,
      });
    const run = async () => {
      const batch = new SearchBatch(async (streamId) => events.filter((e) => e.streamId === streamId));
      for (const e of events.filter((e) => projection.handles.includes(e.type))) await projection.apply(e, batch);
      for (const op of batch.ops) {
        if (op.op === 'upsert') await index.upsert('lots', op.tenant, op.docs);
        else if (op.op === 'update') await index.update('lots', op.tenant, op.docs);
        else await index.delete('lots', op.tenant, op.ids);
      }
    };
    await run();
    const once = await search();
    expect(once.found).to.be.above(0);
    await run();
    expect(await search()).to.deep.equal(once);
    await index.close();
  });

  it('catalogue: a lot carries its catalogue data, its bids, and its early close; counts follow the lots', async () => {
    const store = new SqliteDocumentStore(path.join(dir, 'catalogue-given.sqlite'));
    const projection = projections.find((p) => p.name === 'catalogue')!;
    for (const c of projection.collections) await store.ensureCollection(c);
    await applyAll(store, projection, events, 0);
    const demo = store.forTenant('demo');
    const lot = await demo.collection('lots').findById('10');
    expect(lot).to.include({ Id: 10, AuctionId: 1, LotNumber: 10, Closed: true, EndTime: '2026-11-22T12:00:00.000Z' });
    const bids = events.filter((e) => e.type === 'BidPlaced' && e.data.tenant === 'demo' && e.data.lotId === 10);
    expect(lot!.BidCount).to.equal(bids.length);
    if (bids.length) expect(lot!.CurrentBid).to.equal(Math.max(...bids.map((b) => b.data.amount as number)));
    expect((await demo.collection('auctions').findById('1'))?.LotCount).to.equal(400);
    const categories = await demo.collection('categories').find({});
    expect(categories.reduce((sum, c) => sum + (c.LotCount as number), 0)).to.equal(1280);
    expect(await demo.collection('auctions').findById('2')).to.include({ IsLive: true });
    await store.close();
  });

  it('members, watchlist and terms: removal deletes the member; the watchlist keeps its latest type; acceptance is kept', async () => {
    const store = new SqliteDocumentStore(path.join(dir, 'members-given.sqlite'));
    for (const name of ['members', 'watchlist', 'terms']) {
      const projection = projections.find((p) => p.name === name)!;
      for (const c of projection.collections) await store.ensureCollection(c);
      await applyAll(store, projection, events, 0);
    }
    expect(await store.forTenant('demo2').collection('members').findById('1')).to.equal(null);
    expect(await store.forTenant('demo').collection('members').findById('1')).to.include({ Email: 'bidder@example.com', Validated: true });
    const watches = await store.forTenant('demo').collection('watchlist').find({ MemberId: 1 });
    expect(watches.map((w) => [w.LotId, w.Type])).to.deep.equal([[5, 'favourite']]);
    expect(await store.forTenant('demo').collection('terms_acceptances').findById('1:2')).to.include({ AuctionId: 2 });
    await store.close();
  });

  for (const projection of projections) {
    it(`${projection.name}: a rebuild from position 0 ends with the documents of the live run, also holding only a few documents at a time`, async function () {
      this.timeout(60_000);
      for (const [held, batch] of [
        [1_000_000, 5000],
        [3, 7],
      ]) {
        const store = new SqliteDocumentStore(path.join(dir, `rebuild-${projection.name}-${held}.sqlite`));
        const index = await MiniSearchIndex.open({ dir: null, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
        for (const c of projection.collections) await store.ensureCollection(c);
        const position = await applyAll(store, projection, events, 0);
        const live = await snapshot(store, projection);
        const runtime = new ProjectorRuntime(
          { log, documents: store, search: index, logger: createLogger({ level: 'silent' }) },
          [projection],
          {
            rebuildDocuments: held,
            rebuildBatch: batch,
          },
        );
        const result = await runtime.rebuild(projection.name);
        expect(result.position).to.equal(position);
        expect(await snapshot(store, projection)).to.deep.equal(live);
        expect(await store.getCheckpoint(projection.name)).to.equal(position);
        await index.close();
        await store.close();
      }
    });
  }

  it('a projector stopped half way resumes from its checkpoint and ends where a rebuild from position 0 ends', async function () {
    this.timeout(60_000);
    const store = new SqliteDocumentStore(path.join(dir, 'resume.sqlite'));
    const index = await MiniSearchIndex.open({ dir: null, flushIntervalMs: 0, partitions: LOT_SEARCH_PARTITION });
    const jobsDb = new Database(':memory:');
    const jobs = new SqliteJobQueue({ db: jobsDb });
    const logger = createLogger({ level: 'silent' });
    const catalogue = projections.find((p) => p.name === 'catalogue')!;
    for (const c of catalogue.collections) await store.ensureCollection(c);
    // "Crash" half way: only the first half of the log was handled and checkpointed.
    const half = events.slice(0, Math.floor(events.length / 2));
    await applyAll(store, catalogue, half, 0);
    const runtime = new ProjectorRuntime({ log, documents: store, search: index, logger }, [catalogue]);
    await runtime.setup();
    await runtime.start();
    expect(await runtime.waitFor(events[events.length - 1].position, ['catalogue'], 20_000)).to.equal(true);
    const resumed = await snapshot(store, catalogue);
    await runtime.stop();
    const rebuilder = new ProjectorRuntime({ log, documents: store, search: index, logger }, [catalogue]);
    const result = await rebuilder.rebuild('catalogue');
    expect(result.position).to.equal(events[events.length - 1].position);
    expect(await snapshot(store, catalogue)).to.deep.equal(resumed);
    expect(await store.getCheckpoint('catalogue')).to.equal(result.position);
    await jobs.close();
    jobsDb.close();
    await index.close();
    await store.close();
  });
});
