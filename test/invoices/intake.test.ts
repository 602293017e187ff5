import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { importAnyRecord, importLines } from '../../app/features/intake.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';

/**
 * The invoice intake records of docs/intake.md (`priceList`, `invoice`, `invoicePaid`), as the back office
 * sends them: what each appends, that sending the same record again appends nothing, and which records are
 * refused (reported with their line, the others imported).
 */
describe('invoice intake (priceList, invoice, invoicePaid)', () => {
  let dir: string;
  let log: SqliteEventLog;
  const stream = (id: string): Promise<RecordedEvent[]> => log.readStream(id);
  const run = (records: unknown[]) =>
    importLines(
      log,
      records.map((r) => JSON.stringify(r)),
    );

  const priceList = {
    kind: 'priceList',
    tenant: 'house',
    currency: 'EUR',
    items: {
      'printed-catalogue': { amount: 1500, description: { en: 'Printed catalogue', sv: 'Tryckt katalog' } },
      'condition-report': { amount: 2500, description: { en: 'Condition report' } },
    },
  };
  const invoice = (invoiceId: number, o: Record<string, unknown> = {}) => ({
    kind: 'invoice',
    tenant: 'house',
    invoiceId,
    memberId: 1,
    auctionId: 4,
    issuedAt: '2026-11-01T09:00:00.000Z',
    dueAt: '2026-11-15T09:00:00.000Z',
    currency: 'EUR',
    lines: [
      { description: 'Lot 57, hammer price', amount: 45000, vatRate: 0 },
      { description: "Buyer's premium", amount: 11250, vatRate: 21 },
      { description: 'Insurance', amount: 999, vatRate: 5.5 },
    ],
    ...o,
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-invoices-intake-'));
    log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('priceList', () => {
    it('publishes the price list, cost types in order, with the default payment term of 14 days', async () => {
      const report = await run([priceList]);
      expect(report).to.include({ records: 1, appended: 1 });
      const [event] = await stream('pricelist-house');
      expect(event.type).to.equal('PriceListPublished');
      expect(event.data).to.deep.include({
        tenant: 'house',
        currency: 'EUR',
        paymentTermDays: 14,
        items: [
          { costType: 'condition-report', amount: 2500, description: { en: 'Condition report' } },
          { costType: 'printed-catalogue', amount: 1500, description: { en: 'Printed catalogue', sv: 'Tryckt katalog' } },
        ],
      });
    });

    it('appends nothing for the same price list again, and a new event for a changed one', async () => {
      await run([priceList]);
      expect(await run([priceList])).to.include({ appended: 0, unchanged: 1 });
      const changed = {
        ...priceList,
        paymentTermDays: 30,
        items: { ...priceList.items, 'printed-catalogue': { amount: 1800, description: { en: 'Printed catalogue' } } },
      };
      expect(await run([changed])).to.include({ appended: 1 });
      expect((await stream('pricelist-house')).map((e) => e.type)).to.deep.equal(['PriceListPublished', 'PriceListPublished']);
    });

    it('refuses bad price lists, each reported with its line', async () => {
      const bad = [
        { ...priceList, currency: 'eur' },
        { ...priceList, items: { 'Bad Type': { amount: 1, description: { en: 'x' } } } },
        { ...priceList, items: { framing: { amount: -1, description: { en: 'x' } } } },
        { ...priceList, items: { framing: { amount: 1.5, description: { en: 'x' } } } },
        { ...priceList, items: { framing: { amount: 100, description: {} } } },
        { ...priceList, paymentTermDays: 400 },
      ];
      const report = await run(bad);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2, 3, 4, 5, 6]);
      expect(await stream('pricelist-house')).to.have.length(0);
    });
  });

  describe('invoice', () => {
    it("issues the invoice with each line's VAT computed half up, numbered by the register when no number is given", async () => {
      await run([invoice(7)]);
      const [event] = await stream('invoices-house');
      expect(event.type).to.equal('InvoiceIssued');
      expect(event.data).to.deep.equal({
        tenant: 'house',
        invoiceId: 7,
        number: 1,
        memberId: 1,
        auctionId: 4,
        issuedAt: '2026-11-01T09:00:00.000Z',
        dueAt: '2026-11-15T09:00:00.000Z',
        currency: 'EUR',
        lines: [
          { description: 'Lot 57, hammer price', amount: 45000, vatRate: 0, vatAmount: 0 },
          { description: "Buyer's premium", amount: 11250, vatRate: 21, vatAmount: 2363 },
          { description: 'Insurance', amount: 999, vatRate: 5.5, vatAmount: 55 },
        ],
      });
    });

    it('keeps the number the house gives, and numbers the next one after the highest', async () => {
      await run([invoice(1, { number: 100 }), invoice(2)]);
      expect((await stream('invoices-house')).map((e) => e.data.number)).to.deep.equal([100, 101]);
    });

    it('takes an invoice without an auction', async () => {
      await run([invoice(1, { auctionId: null }), invoice(2, { auctionId: undefined })]);
      expect((await stream('invoices-house')).map((e) => e.data.auctionId)).to.deep.equal([null, null]);
    });

    it('appends nothing when the same invoice is imported again', async () => {
      await run([invoice(1), invoice(2, { number: 9 })]);
      const again = await run([invoice(1), invoice(2, { number: 9 }), invoice(2)]);
      expect(again).to.include({ appended: 0, unchanged: 3 });
      expect(again.errors).to.deep.equal([]);
    });

    it('refuses a changed invoice, a taken number, and keeps the house tenants apart', async () => {
      await run([invoice(1, { number: 5 })]);
      const report = await run([
        invoice(1, { number: 5, dueAt: '2026-12-01T00:00:00.000Z' }),
        invoice(2, { number: 5 }),
        invoice(1, { tenant: 'other', number: 5 }),
      ]);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2]);
      expect(report.errors[0].message).to.match(/already issued/);
      expect(report.errors[1].message).to.match(/number 5/);
      expect(report.appended).to.equal(1);
      expect(await stream('invoices-other')).to.have.length(1);
    });

    it('refuses bad invoices, each reported with its line', async () => {
      const line = { description: 'x', amount: 100, vatRate: 21 };
      const report = await run([
        invoice(1, { dueAt: '2026-10-01T00:00:00.000Z' }),
        invoice(1, { lines: [] }),
        invoice(1, { lines: [{ ...line, vatRate: 21.555 }] }),
        invoice(1, { lines: [{ ...line, vatRate: 101 }] }),
        invoice(1, { lines: [{ ...line, amount: -100 }] }),
        invoice(1, { lines: [{ ...line, description: '' }] }),
        invoice(1, { lines: Array.from({ length: 101 }, () => line) }),
        invoice(0),
        invoice(2147483648),
        invoice(1, { memberId: undefined }),
        invoice(1, { issuedAt: '2026-11-01T09:00:00+01:00' }),
        invoice(1, { currency: 'euro' }),
      ]);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect(await stream('invoices-house')).to.have.length(0);
    });
  });

  describe("invoice lines of a lot follow the lot's VAT scheme", () => {
    const lot = (lotId: number, o: Record<string, unknown> = {}) => ({
      kind: 'lot',
      tenant: 'house',
      lotId,
      auctionId: 4,
      lotNumber: lotId,
      categoryId: null,
      texts: { en: { title: `Lot ${lotId}`, description: '' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'EUR',
      startingPrice: 1000,
      estimateLow: null,
      estimateHigh: null,
      endTime: '2026-11-01T09:00:00.000Z',
      combiId: null,
      ownerId: null,
      ...o,
    });
    const lines = (lotId: number, premiumVatRate: number) => [
      { description: `Lot ${lotId}, hammer price`, amount: 45000, vatRate: 0, lotId },
      { description: `Lot ${lotId}, buyer's premium`, amount: 11700, vatRate: premiumVatRate, lotId },
      { description: 'Storage', amount: 1250, vatRate: 21 },
    ];

    it("names the lot and its scheme on each of its lines: a margin lot's lines hold their VAT, a normal lot's show it", async () => {
      const report = await run([
        lot(57),
        lot(58, { vatScheme: 'normal' }),
        invoice(1, { lines: lines(57, 0) }),
        invoice(2, { lines: lines(58, 21) }),
      ]);
      expect(report.errors).to.deep.equal([]);
      const [first, second] = (await stream('invoices-house')).map((e) => e.data.lines);
      expect(first).to.deep.equal([
        { description: 'Lot 57, hammer price', amount: 45000, vatRate: 0, vatAmount: 0, lotId: 57, vatScheme: 'margin' },
        { description: "Lot 57, buyer's premium", amount: 11700, vatRate: 0, vatAmount: 0, lotId: 57, vatScheme: 'margin' },
        { description: 'Storage', amount: 1250, vatRate: 21, vatAmount: 263 },
      ]);
      expect((second as Array<Record<string, unknown>>)[1]).to.deep.equal({
        description: "Lot 58, buyer's premium",
        amount: 11700,
        vatRate: 21,
        vatAmount: 2457,
        lotId: 58,
        vatScheme: 'normal',
      });
    });

    it("refuses VAT of its own on a margin lot's line (Directive 2006/112 art 339), and a lot the house does not have", async () => {
      const report = await run([lot(57), invoice(1, { lines: lines(57, 21) }), invoice(2, { lines: lines(99, 0) })]);
      expect(report.errors.map((e) => [e.line, e.message])).to.deep.equal([
        [
          2,
          'lines.1.vatRate: lot 57 is sold under the margin scheme: its lines show no VAT of their own (give the amount with VAT included and vatRate 0)',
        ],
        [3, "lines.0.lotId: no lot 99 in the house's catalogue; lines.1.lotId: no lot 99 in the house's catalogue"],
      ]);
      expect(await stream('invoices-house')).to.deep.equal([]);
    });
  });

  describe('invoicePaid', () => {
    it('marks the invoice paid, naming its member; a second payment record appends nothing', async () => {
      await run([invoice(3, { memberId: 8 })]);
      const paid = { kind: 'invoicePaid', tenant: 'house', invoiceId: 3, paidAt: '2026-11-05T10:00:00.000Z' };
      const first = await importAnyRecord(log, paid);
      expect(first.events).to.deep.equal([
        { type: 'InvoicePaymentReceived', data: { tenant: 'house', invoiceId: 3, memberId: 8, paidAt: '2026-11-05T10:00:00.000Z' } },
      ]);
      expect((await importAnyRecord(log, paid)).events).to.deep.equal([]);
      expect((await importAnyRecord(log, { ...paid, paidAt: '2026-11-06T10:00:00.000Z' })).events).to.deep.equal([]);
    });

    it('refuses a payment of an invoice the house has not issued', async () => {
      const report = await run([
        { kind: 'invoicePaid', tenant: 'house', invoiceId: 3, paidAt: '2026-11-05T10:00:00.000Z' },
        { kind: 'invoicePaid', tenant: 'house', invoiceId: 3 },
      ]);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2]);
      expect(report.errors[0].message).to.match(/Invoice 3 does not exist/);
    });
  });
});
