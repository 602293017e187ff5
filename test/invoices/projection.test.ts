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
import { invoicesProjection } from '../../projections/invoices/projection.ts';
import { INVOICES, invoicesReadModels, PRICE_LIST_ID, PRICE_LISTS } from '../../projections/invoices/index.ts';
import type { InvoicesEvent } from '../../commands/invoices/events.ts';
import { givenEvents } from '../support/projection-spec.ts';
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
    // The lots the demo invoices' lines name (their VAT scheme: margin, the default).
    const lot = (tenant: string, lotId: number) => ({
      kind: 'lot',
      tenant,
      lotId,
      auctionId: 4,
      lotNumber: lotId,
      categoryId: null,
      texts: { en: { title: `Lot ${lotId}`, description: '' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: tenant === 'demo' ? 'EUR' : 'SEK',
      startingPrice: 1000,
      estimateLow: null,
      estimateHigh: null,
      endTime: '2026-10-23T12:00:00.000Z',
      combiId: null,
      ownerId: null,
    });
    const report = await importLines(
      log,
      [lot('demo', 862), lot('demo', 907), lot('demo2', 3), ...demoInvoicesRecords(now)].map((r) => JSON.stringify(r)),
    );
    expect(report.errors).to.deep.equal([]);
    const stream = invoiceRegisterStreamId('demo');
    const at = '2026-11-22T13:00:00.000Z';
    await runCommand(log, stream, invoiceRegisterDecider, {
      type: 'RaiseCostInvoice',
      tenant: 'demo',
      memberId: 1,
      auctionId: 1,
      auctionExists: true,
      costType: 'printed-catalogue',
      price: { amount: 1500, description: 'Printed catalogue' },
      currency: 'EUR',
      paymentTermDays: 14,
      vatRate: 21,
      vatFree: false,
      at,
    });
    const post = {
      method: 'post' as const,
      name: 'Demo Bidder',
      address: 'Herengracht 7',
      zipCode: '1015 CJ',
      city: 'Amsterdam',
      country: 'NL',
    };
    await runCommand(log, stream, invoiceRegisterDecider, {
      type: 'ChooseShipping',
      tenant: 'demo',
      memberId: 1,
      invoiceId: 3,
      shipping: post,
      at,
    });
    await runCommand(log, stream, invoiceRegisterDecider, {
      type: 'ChooseShipping',
      tenant: 'demo',
      memberId: 1,
      invoiceId: 3,
      shipping: { ...post, method: 'courier' },
      at,
    });
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
      for (const collection of [INVOICES, PRICE_LISTS])
        snapshot[`${collection}/${tenant}`] = await store
          .forTenant(tenant)
          .collection(collection)
          .find({}, { sort: [['_id', 1]] });
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
    expect(raised).to.deep.include({
      CostType: 'printed-catalogue',
      Subtotal: 1500,
      VatTotal: 315,
      Total: 1815,
      PaidAt: '2026-11-22T13:00:00.000Z',
    });
    expect(raised.Shipping).to.include({ Method: 'courier', Address: 'Herengracht 7' });
    expect(raised.Version).to.equal(events[events.length - 1].position);
    // The lines of a lot under the margin scheme name it and show no VAT of their own.
    expect((docs['invoices/demo'][0] as any).Lines).to.deep.equal([
      { Description: 'Lot 12, hammer price', Amount: 80000, VatRate: 0, VatAmount: 0, LotId: 862, VatScheme: 'margin' },
      {
        Description: "Lot 12, buyer's premium 26 % (VAT included)",
        Amount: 25168,
        VatRate: 0,
        VatAmount: 0,
        LotId: 862,
        VatScheme: 'margin',
      },
    ]);
    expect(docs['invoices/demo2'].map((d: any) => [d.Id, d.Currency, d.Total])).to.deep.equal([[1, 'SEK', 262500]]);
    expect(docs['price_lists/demo'].map((d: any) => [d._id, d.Currency, d.Items.map((i: any) => [i.CostType, i.Amount])])).to.deep.equal([
      [
        PRICE_LIST_ID,
        'EUR',
        [
          ['condition-report', 2500],
          ['printed-catalogue', 1500],
        ],
      ],
    ]);
  });

  it('leaves the same documents when every event is handled twice', async () => {
    expect(await project(2)).to.deep.equal(await project(1));
  });
});

describe('invoices projection, given events', () => {
  const time = (day: number) => `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`;
  const line = { description: 'Lot 12: Oak chair', amount: 10000, vatRate: 21, vatAmount: 2100 };
  const fee = { description: "Buyer's premium", amount: 2500, vatRate: 21, vatAmount: 525 };
  const issued = (invoiceId: number, tenant = 'demo', currency = 'EUR'): InvoicesEvent => ({
    type: 'InvoiceIssued',
    data: {
      tenant,
      invoiceId,
      number: invoiceId,
      memberId: 1,
      auctionId: 1,
      issuedAt: time(22),
      dueAt: time(29),
      currency,
      lines: [line, fee],
    },
  });
  const raised = (invoiceId: number, vatFree: boolean): InvoicesEvent => ({
    type: 'CostInvoiceRaised',
    data: {
      tenant: 'demo',
      invoiceId,
      number: invoiceId,
      memberId: 1,
      auctionId: 1,
      issuedAt: time(22),
      dueAt: time(29),
      currency: 'EUR',
      lines: [{ description: 'Printed catalogue', amount: 1500, vatRate: vatFree ? 0 : 21, vatAmount: vatFree ? 0 : 315 }],
      costType: 'printed-catalogue',
      vatFree,
    },
  });
  const paid = (invoiceId: number, day: number, tenant = 'demo'): InvoicesEvent => ({
    type: 'InvoicePaymentReceived',
    data: { tenant, invoiceId, memberId: 1, paidAt: time(day) },
  });
  const shipping = (invoiceId: number, method: 'pickup' | 'post' | 'courier', day: number): InvoicesEvent => ({
    type: 'InvoiceShippingSelected',
    data: {
      tenant: 'demo',
      invoiceId,
      memberId: 1,
      method,
      name: method === 'pickup' ? null : 'Ada Lovelace',
      address: method === 'pickup' ? null : 'Herengracht 7',
      zipCode: method === 'pickup' ? null : '1015 CJ',
      city: method === 'pickup' ? null : 'Amsterdam',
      country: method === 'pickup' ? null : 'NL',
      at: time(day),
    },
  });
  const invoice = (id: number, fields: Record<string, unknown> = {}) => ({
    _id: String(id),
    Id: id,
    Number: id,
    MemberId: 1,
    AuctionId: 1,
    CostType: null,
    VatFree: false,
    Status: 'unpaid',
    IssuedAt: time(22),
    DueAt: time(29),
    PaidAt: null,
    Currency: 'EUR',
    Lines: [
      { Description: 'Lot 12: Oak chair', Amount: 10000, VatRate: 21, VatAmount: 2100 },
      { Description: "Buyer's premium", Amount: 2500, VatRate: 21, VatAmount: 525 },
    ],
    Subtotal: 12500,
    VatTotal: 2625,
    Total: 15125,
    Shipping: null,
    Version: 1,
    ...fields,
  });

  it('lists an issued invoice as unpaid, with its lines and totals, versioned by its position in the log', async () => {
    await givenEvents(issued(1), issued(2))
      .whenProjected(invoicesReadModels)
      .thenDocuments('invoices', 'demo', [invoice(1), invoice(2, { Version: 2 })]);
  });

  it('marks a cost invoice a member raised with its cost type, and a reverse-charged one as VAT-free', async () => {
    await givenEvents(raised(1, false), raised(2, true))
      .whenProjected(invoicesReadModels)
      .thenDocumentsMatching('invoices', 'demo', [
        { _id: '1', CostType: 'printed-catalogue', VatFree: false, Subtotal: 1500, VatTotal: 315, Total: 1815, Version: 1 },
        { _id: '2', CostType: 'printed-catalogue', VatFree: true, Subtotal: 1500, VatTotal: 0, Total: 1500, Version: 2 },
      ]);
  });

  it('keeps the latest shipping choice and the payment, each moving the version of the invoice', async () => {
    await givenEvents(issued(1), shipping(1, 'post', 23), shipping(1, 'pickup', 24), paid(1, 25))
      .whenProjected(invoicesReadModels)
      .thenDocuments('invoices', 'demo', [
        invoice(1, {
          Status: 'paid',
          PaidAt: time(25),
          Version: 4,
          Shipping: { Method: 'pickup', Name: null, Address: null, ZipCode: null, City: null, Country: null, ChosenAt: time(24) },
        }),
      ]);
  });

  it('makes no invoice from a payment or a shipping choice of an invoice it does not hold', async () => {
    await givenEvents(paid(7, 25), shipping(7, 'courier', 26))
      .whenProjected(invoicesReadModels)
      .thenNoDocuments();
  });

  it("replaces the tenant's price list with the one published last", async () => {
    const published = (amount: number, paymentTermDays: number): InvoicesEvent => ({
      type: 'PriceListPublished',
      data: {
        tenant: 'demo',
        currency: 'EUR',
        paymentTermDays,
        items: [{ costType: 'printed-catalogue', amount, description: { en: 'Printed catalogue' } }],
        at: time(1),
      },
    });
    await givenEvents(published(1500, 14), published(1750, 30))
      .whenProjected(invoicesReadModels)
      .thenDocuments('price_lists', 'demo', [
        {
          _id: PRICE_LIST_ID,
          Currency: 'EUR',
          PaymentTermDays: 30,
          Items: [{ CostType: 'printed-catalogue', Amount: 1750, Description: { en: 'Printed catalogue' } }],
        },
      ]);
  });

  it("keeps each tenant's invoices apart: paying invoice 1 of one tenant leaves invoice 1 of another unpaid", async () => {
    await givenEvents(issued(1), issued(1, 'demo2', 'SEK'), paid(1, 25, 'demo2'))
      .whenProjected(invoicesReadModels)
      .thenDocuments('invoices', 'demo', [invoice(1)])
      .thenDocuments('invoices', 'demo2', [invoice(1, { Currency: 'SEK', Status: 'paid', PaidAt: time(25), Version: 3 })]);
  });
});
