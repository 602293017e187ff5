import { defineDocumentProjection } from '../../src/projector/projection.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { invoicesEvents, type InvoiceLine, type ShippingMethod } from '../../commands/invoices/events.ts';

/** Members' invoices, and the house's price list of costs. */
export const INVOICES = 'invoices';
export const PRICE_LISTS = 'price_lists';
/** The one price-list document of a tenant. */
export const PRICE_LIST_ID = 'current';

export interface InvoiceLineDoc {
  Description: string;
  Amount: number;
  VatRate: number;
  VatAmount: number;
}

export interface ShippingDoc {
  Method: ShippingMethod;
  Name: string | null;
  Address: string | null;
  ZipCode: string | null;
  City: string | null;
  Country: string | null;
  ChosenAt: string;
}

export interface InvoiceDoc extends Doc {
  Id: number;
  Number: number;
  MemberId: number;
  AuctionId: number | null;
  /** The price list's cost type of an invoice the member raised; null for the house's invoices. */
  CostType: string | null;
  /** Raised by a member charged no VAT (reverse charge). */
  VatFree: boolean;
  Status: 'unpaid' | 'paid';
  IssuedAt: string;
  DueAt: string;
  PaidAt: string | null;
  Currency: string;
  Lines: InvoiceLineDoc[];
  Subtotal: number;
  VatTotal: number;
  Total: number;
  Shipping: ShippingDoc | null;
  /** Position of the last event that changed the invoice: its printed PDF is kept per version. */
  Version: number;
}

export interface PriceListDoc extends Doc {
  Currency: string;
  PaymentTermDays: number;
  Items: Array<{ CostType: string; Amount: number; Description: Record<string, string> }>;
}

export const invoices = (db: TenantScope) => db.collection<InvoiceDoc>(INVOICES);
export const priceLists = (db: TenantScope) => db.collection<PriceListDoc>(PRICE_LISTS);

function totals(lines: InvoiceLine[]) {
  const Lines = lines.map((l) => ({ Description: l.description, Amount: l.amount, VatRate: l.vatRate, VatAmount: l.vatAmount }));
  const Subtotal = Lines.reduce((sum, l) => sum + l.Amount, 0);
  const VatTotal = Lines.reduce((sum, l) => sum + l.VatAmount, 0);
  return { Lines, Subtotal, VatTotal, Total: Subtotal + VatTotal };
}

export const invoicesProjection = defineDocumentProjection({
  name: 'invoices',
  events: [invoicesEvents],
  collections: [
    { name: INVOICES, indexes: [{ fields: ['MemberId', 'IssuedAt', 'Id'] }, { fields: ['MemberId', 'CostType', 'AuctionId', 'Status'] }] },
    { name: PRICE_LISTS },
  ],
  async apply(event, uow) {
    const Version = uow.current.position;
    switch (event.type) {
      case 'PriceListPublished': {
        const d = event.data;
        await uow.update<PriceListDoc>(PRICE_LISTS, d.tenant, PRICE_LIST_ID, () => ({
          Currency: d.currency,
          PaymentTermDays: d.paymentTermDays,
          Items: d.items.map((i) => ({ CostType: i.costType, Amount: i.amount, Description: i.description })),
        }));
        return;
      }
      case 'InvoiceIssued':
      case 'CostInvoiceRaised': {
        const d = event.data;
        await uow.update<InvoiceDoc>(INVOICES, d.tenant, String(d.invoiceId), () => ({
          Id: d.invoiceId,
          Number: d.number,
          MemberId: d.memberId,
          AuctionId: d.auctionId,
          CostType: event.type === 'CostInvoiceRaised' ? event.data.costType : null,
          VatFree: event.type === 'CostInvoiceRaised' ? event.data.vatFree : false,
          Status: 'unpaid',
          IssuedAt: d.issuedAt,
          DueAt: d.dueAt,
          PaidAt: null,
          Currency: d.currency,
          ...totals(d.lines),
          Shipping: null,
          Version,
        }));
        return;
      }
      case 'InvoicePaymentReceived': {
        const d = event.data;
        await uow.update<InvoiceDoc>(INVOICES, d.tenant, String(d.invoiceId), (doc) => (doc ? { ...doc, Status: 'paid', PaidAt: d.paidAt, Version } : null));
        return;
      }
      case 'InvoiceShippingSelected': {
        const d = event.data;
        await uow.update<InvoiceDoc>(INVOICES, d.tenant, String(d.invoiceId), (doc) =>
          doc
            ? {
                ...doc,
                Shipping: { Method: d.method, Name: d.name, Address: d.address, ZipCode: d.zipCode, City: d.city, Country: d.country, ChosenAt: d.at },
                Version,
              }
            : null,
        );
        return;
      }
    }
  },
});
