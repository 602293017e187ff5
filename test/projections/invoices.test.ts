import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { SqliteDocumentStore } from '../../src/adapters/embedded/sqlite-documents.ts';
import { UnitOfWork } from '../../src/projector/projection.ts';
import { runCommand } from '../../src/command-runner.ts';
import { importLines } from '../../app/features/intake.ts';
import { demoInvoicesRecords } from '../../app/seed/demo-invoices.ts';
import { invoiceRegisterDecider } from '../../commands/invoices/decide.ts';
import { invoiceRegisterStreamId } from '../../commands/invoices/events.ts';
import { invoicesProjection, INVOICES, PRICE_LIST_ID, PRICE_LISTS } from '../../projections/invoices/projection.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';

/**
 * The invoices projection, given the demo records and every other invoice event (a raised cost, shipping
 * chosen and changed, a payment): the documents it builds, and the same documents when every event is
 * handled twice.
 */
describe('invoices projection', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-invoices-projection-'));
  let events: RecordedEvent[];

  before(async () => {
    const log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
    const now = new Date('2026-11-22T12:00:00.000Z');
    const report = await importLines(log, [...demoInvoicesRecords(now)].map((r) => JSON.stringify(r)));
    expect(report.errors).to.deep.equal([]);
    const stream = invoiceRegisterStreamId('demo');
    const at = '2026-11-22T13:00:00.000Z';
    await runCommand(log, stream, invoiceRegisterDecider, {
      type: 'RaiseCostInvoice', tenant: 'demo', memberId: 1, auctionId: 1, auctionExists: true, costType: 'printed-catalogue',
      price: { amount: 1500, description: 'Printed catalogue' }, currency: 'EUR', paymentTermDays: 14, vatRate: 21, vatFree: false, at,
    });
    const post = { method: 'post' as const, name: 'Demo Bidder', address: 'Herengracht 7', zipCode: '1015 CJ', city: 'Amsterdam', country: 'NL' };
    await runCommand(log, stream, invoiceRegisterDecider, { type: 'ChooseShipping', tenant: 'demo', memberId: 1, invoiceId: 3, shipping: post, at });
    await runCommand(log, stream, invoiceRegisterDecider, { type: 'ChooseShipping', tenant: 'demo', memberId: 1, invoiceId: 3, shipping: { ...post, method: 'courier' }, at });
    await runCommand(log, stream, invoiceRegisterDecider, { type: 'MarkInvoicePaid', tenant: 'demo', invoiceId: 3, paidAt: at });
    events = await log.readAll({ fromPosition: 0, maxCount: 1000 });
    await log.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function project(times: number) {
    const store = new SqliteDocumentStore(path.join(dir, `twice-${times}-${Date.now()}.sqlite`));
    for (const c of invoicesProjection.collections) await store.ensureCollection(c);
    let checkpoint = 0;
    for (let i = 0; i < times; i++) {
      const uow = new UnitOfWork(store.live());
      for (const event of events.filter((e) => invoicesProjection.handles.includes(e.type))) {
        uow.current = event;
        await invoicesProjection.apply(event, uow);
      }
      const position = events[events.length - 1].position;
      await store.live().commit(uow.ops(), { projection: invoicesProjection.name, expected: checkpoint, position });
      checkpoint = position;
    }
    const snapshot: Record<string, unknown[]> = {};
    for (const tenant of ['demo', 'demo2'])
      for (const collection of [INVOICES, PRICE_LISTS]) snapshot[`${collection}/${tenant}`] = await store.forTenant(tenant).collection(collection).find({}, { sort: [['_id', 1]] });
    await store.close();
    return snapshot;
  }

  it('builds each invoice with its totals, status, payment and latest shipping, and the price lists', async () => {
    const docs = await project(1);
    expect(docs['invoices/demo'].map((d: any) => [d.Id, d.Number, d.Status])).to.deep.equal([
      [1, 1, 'paid'],
      [2, 2, 'unpaid'],
      [3, 3, 'paid'],
    ]);
    const raised = docs['invoices/demo'][2] as any;
    expect(raised).to.deep.include({ CostType: 'printed-catalogue', Subtotal: 1500, VatTotal: 315, Total: 1815, PaidAt: '2026-11-22T13:00:00.000Z' });
    expect(raised.Shipping).to.include({ Method: 'courier', Address: 'Herengracht 7' });
    expect(raised.Version).to.equal(events[events.length - 1].position);
    expect(docs['invoices/demo2'].map((d: any) => [d.Id, d.Currency, d.Total])).to.deep.equal([[1, 'SEK', 262500]]);
    expect(docs['price_lists/demo'].map((d: any) => [d._id, d.Currency, d.Items.map((i: any) => [i.CostType, i.Amount])])).to.deep.equal([
      [PRICE_LIST_ID, 'EUR', [['condition-report', 2500], ['printed-catalogue', 1500]]],
    ]);
  });

  it('leaves the same documents when every event is handled twice', async () => {
    expect(await project(2)).to.deep.equal(await project(1));
  });
});
