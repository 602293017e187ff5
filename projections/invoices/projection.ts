import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { invoicesEvents, type InvoiceLine } from '../../commands/invoices/events.ts';
import { INVOICES, PRICE_LISTS, PRICE_LIST_ID, type InvoiceDoc, type PriceListDoc } from './collections.ts';

function totals(lines: InvoiceLine[]) {
  const Lines = lines.map((l) => ({
    Description: l.description,
    Amount: l.amount,
    VatRate: l.vatRate,
    VatAmount: l.vatAmount,
    ...(l.lotId !== undefined ? { LotId: l.lotId, VatScheme: l.vatScheme } : {}),
  }));
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
        await uow.update<InvoiceDoc>(INVOICES, d.tenant, String(d.invoiceId), (doc) =>
          doc ? { ...doc, Status: 'paid', PaidAt: d.paidAt, Version } : null,
        );
        return;
      }
      case 'InvoiceShippingSelected': {
        const d = event.data;
        await uow.update<InvoiceDoc>(INVOICES, d.tenant, String(d.invoiceId), (doc) =>
          doc
            ? {
                ...doc,
                Shipping: {
                  Method: d.method,
                  Name: d.name,
                  Address: d.address,
                  ZipCode: d.zipCode,
                  City: d.city,
                  Country: d.country,
                  ChosenAt: d.at,
                },
                Version,
              }
            : null,
        );
        return;
      }
    }
  },
});
