// The reminders reactor, given events, then jobs: a new subscription plans its reminder from the event itself;
// a lot's change plans the reminders of its subscriptions, read once the subscriptions' read model has the change.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { UnitOfWork } from '../../src/projector/projection.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import type { JobOptions, JobQueue } from '../../src/ports/jobs.ts';
import type { ReactorDeps } from '../../src/projector/projection.ts';
import { notificationsReadModels, notificationSubscriptions } from '../../projections/notifications/index.ts';
import { notificationsCommands } from '../../commands/notifications/index.ts';
import { at, id, lotCatalogued, recorded, resetPositions, subscribed } from '../support/notification-events.ts';
import { registered } from '../support/projection-spec.ts';

const notificationsProjection = registered(notificationsReadModels, 'documents');
const notificationRemindersReactor = (deps: ReactorDeps) => registered(notificationsCommands, 'reactor', deps);

describe('notifications reminders reactor, given events, then jobs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-notifications-reactor-'));
  let store: SqliteDocumentStore;
  const added: Array<{ name: string; data: unknown; options: JobOptions }> = [];
  const jobs = {
    async add(name: string, data: unknown, options: JobOptions) {
      added.push({ name, data, options });
      return { id: options.jobId, added: true };
    },
  } as unknown as JobQueue;

  /** Applies events as one batch and moves the checkpoint, as the projector runtime does. */
  const apply = async (events: RecordedEvent[], expected: number) => {
    const uow = new UnitOfWork(store.live());
    for (const event of events) {
      uow.current = event;
      await notificationsProjection.apply(event, uow);
    }
    await store
      .live()
      .commit(uow.ops(), { projection: notificationsProjection.name, expected, position: events[events.length - 1].position });
  };

  beforeEach(async () => {
    resetPositions();
    added.length = 0;
    store = new SqliteDocumentStore(path.join(dir, `${Date.now()}-${Math.random()}.sqlite`));
    for (const c of notificationsProjection.collections) await store.ensureCollection(c);
  });
  afterEach(async () => store.close());
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('adds a planning job for a new subscription from the event itself, keyed by the subscription', async () => {
    const reactor = notificationRemindersReactor({ jobs, documents: store });
    await reactor.react(subscribed());
    expect(added).to.deep.equal([
      {
        name: 'notification-reminder',
        data: { tenant: 'demo', subscriptionId: id },
        options: { jobId: `notification-${id}-subscribed`, attempts: 8, backoffMs: 2000 },
      },
    ]);
  });

  it("waits for the subscriptions read model to reach a lot's change before it looks up the lot's subscriptions", async () => {
    const reactor = notificationRemindersReactor({ jobs, documents: store });
    const subscription = subscribed();
    const change = lotCatalogued();
    let done = false;
    const reacting = reactor.react(change).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(done, 'the reactor went on before the read model had the subscription').to.equal(false);
    // The projection catches up: the subscription appended before the change is found.
    await apply([subscription, change], 0);
    await reacting;
    expect(added.map((a) => [a.data, a.options.jobId])).to.deep.equal([
      [{ tenant: 'demo', subscriptionId: id }, `notification-${id}-p${change.position}`],
    ]);
    expect((await notificationSubscriptions(store.forTenant('demo')).find({ LotId: 412 })).map((s) => s.Id)).to.deep.equal([id]);
    // Other tenants' subscriptions of a lot of the same id are not concerned.
    const elsewhere = recorded('LotClosed', { tenant: 'demo2', lotId: 412, closedAt: at }, 'lot-demo2-412');
    await apply([elsewhere], change.position);
    await reactor.react(elsewhere);
    expect(added).to.have.length(1);
  });
});
