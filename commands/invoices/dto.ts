import { INT32_MAX, z } from '../../src/http/schemas.ts';
import type { InvoiceDoc } from '../../projections/invoices/index.ts';
import { PRINTABLE, MAX_INVOICE_LINES, MAX_LINE_AMOUNT, shippingMethods } from './events.ts';
import { VAT_SCHEMES } from '../costs/events.ts';

/*
 * What invoices answer over HTTP (InvoiceDto, from the invoice read model), as queries and the invoice commands
 * both give it.
 */

const dateTime = (description: string) => z.string().max(30).openapi({ format: 'date-time', description });
/** Sums of at most 100 lines, VAT at most 100 %. */
const MAX_TOTAL = 2 * MAX_INVOICE_LINES * MAX_LINE_AMOUNT;
const minor = (description: string, max = MAX_LINE_AMOUNT) => z.number().int().min(0).max(max).openapi({ description });

export const shippingSchema = z
  .object({
    Method: z.enum(shippingMethods).openapi({ description: '`pickup` (collected at the house), `post` or `courier`.' }),
    Name: z.string().max(200).regex(PRINTABLE).nullable().openapi({ description: 'Who receives (or collects) the goods.' }),
    Address: z.string().max(300).regex(PRINTABLE).nullable(),
    ZipCode: z.string().max(20).regex(PRINTABLE).nullable(),
    City: z.string().max(100).regex(PRINTABLE).nullable(),
    Country: z
      .string()
      .length(2)
      .regex(/^[A-Z]{2}$/)
      .nullable()
      .openapi({ description: 'ISO 3166-1 alpha-2.' }),
    ChosenAt: dateTime('When the member chose it.'),
  })
  .openapi('InvoiceShipping');

export const invoiceSchema = z
  .object({
    Id: z.number().int().min(1).max(INT32_MAX),
    Number: z
      .number()
      .int()
      .min(1)
      .max(INT32_MAX)
      .openapi({ description: 'The invoice number: per auction house, increasing, without gaps.' }),
    AuctionId: z
      .number()
      .int()
      .min(1)
      .max(INT32_MAX)
      .nullable()
      .openapi({ description: 'The auction the invoice is for; null for an invoice not tied to one.' }),
    Status: z.enum(['unpaid', 'paid']),
    IssuedAt: dateTime('When the invoice was issued.'),
    DueAt: dateTime('When payment is due.'),
    PaidAt: dateTime('When the house received the payment; null while unpaid.').nullable(),
    Currency: z
      .string()
      .length(3)
      .regex(/^[A-Z]{3}$/)
      .openapi({ description: 'ISO 4217; every amount of the invoice is in its minor units.' }),
    CostType: z
      .string()
      .max(64)
      .regex(/^[a-z0-9][a-z0-9-]*$/)
      .nullable()
      .openapi({
        description:
          "For an invoice the member raised (`POST /v1/me/invoices`): the cost type of the price list; null for the house's invoices.",
      }),
    Lines: z
      .array(
        z.object({
          Description: z.string().max(500),
          Amount: minor('Net amount in minor units.'),
          VatRate: z
            .number()
            .min(0)
            .max(100)
            .openapi({ description: 'VAT rate in percent (21 = 21 %); 0 for a member charged no VAT (reverse charge).' }),
          VatAmount: minor('VAT of the line in minor units: Amount × VatRate / 100, rounded half up.'),
          LotId: z
            .number()
            .int()
            .min(1)
            .max(INT32_MAX)
            .nullable()
            .openapi({ description: 'The lot the line is for; null for a line of no lot.' }),
          VatScheme: z.enum(VAT_SCHEMES).nullable().openapi({
            description:
              "The VAT scheme of the line's lot (its `VatScheme`); null for a line of no lot. Under `margin` the amount holds the VAT of the margin scheme, which is never shown on its own (`VatRate` and `VatAmount` 0; Directive 2006/112 art 339).",
          }),
        }),
      )
      .min(1)
      .max(MAX_INVOICE_LINES),
    Subtotal: minor("Sum of the lines' Amount.", MAX_TOTAL),
    VatTotal: minor("Sum of the lines' VatAmount.", MAX_TOTAL),
    Total: minor('Subtotal + VatTotal.', MAX_TOTAL),
    Shipping: shippingSchema.nullable().openapi({ description: 'How the goods reach the member (`PUT …/shipping`); null until chosen.' }),
  })
  .openapi('Invoice');

export type InvoiceDto = z.infer<typeof invoiceSchema>;

export function toInvoiceDto(doc: InvoiceDoc): InvoiceDto {
  return {
    Id: doc.Id,
    Number: doc.Number,
    AuctionId: doc.AuctionId,
    Status: doc.Status,
    IssuedAt: doc.IssuedAt,
    DueAt: doc.DueAt,
    PaidAt: doc.PaidAt,
    Currency: doc.Currency,
    CostType: doc.CostType,
    Lines: doc.Lines.map((l) => ({
      Description: l.Description,
      Amount: l.Amount,
      VatRate: l.VatRate,
      VatAmount: l.VatAmount,
      LotId: l.LotId ?? null,
      VatScheme: l.VatScheme ?? null,
    })),
    Subtotal: doc.Subtotal,
    VatTotal: doc.VatTotal,
    Total: doc.Total,
    Shipping: doc.Shipping
      ? {
          Method: doc.Shipping.Method,
          Name: doc.Shipping.Name,
          Address: doc.Shipping.Address,
          ZipCode: doc.Shipping.ZipCode,
          City: doc.Shipping.City,
          Country: doc.Shipping.Country,
          ChosenAt: doc.Shipping.ChosenAt,
        }
      : null,
  };
}

export const invoiceExample: InvoiceDto = {
  Id: 3,
  Number: 3,
  AuctionId: 1,
  Status: 'unpaid',
  IssuedAt: '2026-11-22T10:00:00.000Z',
  DueAt: '2026-12-06T10:00:00.000Z',
  PaidAt: null,
  Currency: 'EUR',
  CostType: 'printed-catalogue',
  Lines: [{ Description: 'Printed catalogue', Amount: 1500, VatRate: 21, VatAmount: 315, LotId: null, VatScheme: null }],
  Subtotal: 1500,
  VatTotal: 315,
  Total: 1815,
  Shipping: null,
};
