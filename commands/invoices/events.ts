import { z } from 'zod';
import {
  defineEvent,
  defineEvents,
  isoDateTime,
  languageCode,
  positiveId,
  tenantId,
  type EventOf,
  type EventsOf,
} from '../../src/events/define.ts';
import { VAT_SCHEMES } from '../costs/events.ts';

/**
 * Invoices of a house's members. Every invoice event of a tenant is on ONE stream, the tenant's invoice
 * register (`invoices-{tenant}`): appended with its expected revision, so invoice numbers and ids are unique
 * and gapless however many invoices are raised at once (a conflicting append is decided again on the new state).
 */
export const invoiceRegisterStreamId = (tenant: string) => `invoices-${tenant}`;
/** The tenant's price list of costs a member can be invoiced for (`printed-catalogue`, `condition-report`). */
export const priceListStreamId = (tenant: string) => `pricelist-${tenant}`;

/** Largest amount of one line, in minor units (10 billion in the major unit): totals stay exact integers. */
export const MAX_LINE_AMOUNT = 1_000_000_000_000;
/** Most lines an invoice has. */
export const MAX_INVOICE_LINES = 100;
/** Most cost types a price list has. */
export const MAX_PRICE_LIST_ITEMS = 50;

/** Printable text: no control characters (line breaks included). */
export const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/;

export const shippingMethods = ['pickup', 'post', 'courier'] as const;
export type ShippingMethod = (typeof shippingMethods)[number];

/** A cost type of a price list: lower-case letters, digits and dashes (`printed-catalogue`). */
export const costTypeSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes');
export const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR');
/** A VAT rate in percent (21 = 21 %), with at most two decimals (5.5). */
export const vatRateSchema = z
  .number()
  .min(0)
  .max(100)
  .refine((r) => Math.abs(r * 100 - Math.round(r * 100)) < 1e-9, 'at most two decimals');
export const lineAmount = z.number().int().min(0).max(MAX_LINE_AMOUNT);

/** One line of an invoice: its net amount, its VAT rate in percent and the VAT amount (per line, rounded half up). */
const invoiceLine = z.object({
  description: z.string().min(1).max(500),
  amount: lineAmount,
  vatRate: vatRateSchema,
  vatAmount: lineAmount,
  /** The lot the line is for, and the VAT scheme that lot is sold under (added compatibly; absent: no lot). */
  lotId: positiveId.optional(),
  vatScheme: z.enum(VAT_SCHEMES).optional(),
});
export type InvoiceLine = z.infer<typeof invoiceLine>;

/** What every issued invoice says. */
const issued = {
  tenant: tenantId,
  invoiceId: positiveId,
  /** Per tenant: 1, 2, 3, … without gaps for the invoices the register numbers. */
  number: positiveId,
  memberId: positiveId,
  auctionId: positiveId.nullable(),
  issuedAt: isoDateTime,
  dueAt: isoDateTime,
  currency: currencyCode,
  lines: z.array(invoiceLine).min(1).max(MAX_INVOICE_LINES),
};

export const PriceListPublished = defineEvent({
  type: 'PriceListPublished',
  version: 1,
  stream: 'pricelist-{tenant}',
  description:
    "Invoices intake: the house published its price list of costs a member can raise an invoice for (`POST /v1/me/invoices`): net amounts in minor units (VAT is added at the house's rate), a description per language, and the payment term in days. It replaces the previous price list.",
  schema: z.object({
    tenant: tenantId,
    currency: currencyCode,
    paymentTermDays: z.number().int().min(0).max(365),
    items: z
      .array(
        z.object({
          costType: costTypeSchema,
          amount: lineAmount,
          description: z.record(languageCode, z.string().min(1).max(200)),
        }),
      )
      .max(MAX_PRICE_LIST_ITEMS),
    at: isoDateTime,
  }),
});

export const InvoiceIssued = defineEvent({
  type: 'InvoiceIssued',
  version: 1,
  stream: 'invoices-{tenant}',
  description:
    'Invoices intake: the back office issued an invoice to a member (e.g. for lots bought), with its lines, their VAT rates (percent) and VAT amounts (per line, rounded half up). Amounts in minor units of `currency`. ' +
    "A line's `lotId` and `vatScheme` (added compatibly): the lot it is for and that lot's VAT scheme; a `margin` lot's line has its VAT inside its amount, never its own (`vatRate` 0). " +
    '`notify: false` (absent: true): a backfill of an invoice its member knows of already, which gets no notice by mail.',
  schema: z.object({ ...issued, notify: z.literal(false).optional() }),
});

export const CostInvoiceRaised = defineEvent({
  type: 'CostInvoiceRaised',
  version: 1,
  stream: 'invoices-{tenant}',
  description:
    "A member raised an invoice for a cost of the house's price list (a printed catalogue, a condition report) for an auction. The amount is the price list's, VAT at the house's rate; `vatFree` members (reverse charge) are charged no VAT.",
  schema: z.object({ ...issued, costType: costTypeSchema, vatFree: z.boolean() }),
});

export const InvoicePaymentReceived = defineEvent({
  type: 'InvoicePaymentReceived',
  version: 1,
  stream: 'invoices-{tenant}',
  description:
    'Invoices intake: the house received the payment of an invoice; it is `paid` from then on and its shipping preference can no longer change.',
  schema: z.object({ tenant: tenantId, invoiceId: positiveId, memberId: positiveId, paidAt: isoDateTime }),
});

export const InvoiceShippingSelected = defineEvent({
  type: 'InvoiceShippingSelected',
  version: 1,
  stream: 'invoices-{tenant}',
  description:
    'A member selected how the goods of an unpaid invoice reach them: `pickup` (address fields optional), `post` or `courier` (to the address given). It replaces an earlier choice.',
  schema: z.object({
    tenant: tenantId,
    invoiceId: positiveId,
    memberId: positiveId,
    method: z.enum(shippingMethods),
    name: z.string().min(1).max(200).regex(PRINTABLE).nullable(),
    address: z.string().min(1).max(300).regex(PRINTABLE).nullable(),
    zipCode: z.string().min(1).max(20).regex(PRINTABLE).nullable(),
    city: z.string().min(1).max(100).regex(PRINTABLE).nullable(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .nullable(),
    at: isoDateTime,
  }),
});

export const InvoiceNoticeDispatched = defineEvent({
  type: 'InvoiceNoticeDispatched',
  version: 1,
  stream: 'invoices-{tenant}',
  description:
    "The notice of an invoice the back office issued (its number, total, due date and where its PDF is, in the member's language) was handed to the mail gateway as outbox message `messageId`. Once per invoice: a replayed or retried notice finds it recorded and sends nothing.",
  schema: z.object({
    tenant: tenantId,
    invoiceId: positiveId,
    memberId: positiveId,
    messageId: z.string().min(1).max(200),
    at: isoDateTime,
  }),
});

export const invoicesEvents = defineEvents([
  PriceListPublished,
  InvoiceIssued,
  CostInvoiceRaised,
  InvoicePaymentReceived,
  InvoiceShippingSelected,
  InvoiceNoticeDispatched,
]);
export type InvoicesEvent = EventsOf<typeof invoicesEvents>;
export type PriceListData = EventOf<typeof PriceListPublished>['data'];
export type InvoiceIssuedData = EventOf<typeof InvoiceIssued>['data'];
export type CostInvoiceRaisedData = EventOf<typeof CostInvoiceRaised>['data'];
/** The outbox message of an invoice's notice: one id per invoice of a house, so a repeated send delivers once. */
export const invoiceNoticeMessageId = (tenant: string, invoiceId: number) => `invoice-notice-${tenant}-${invoiceId}`;
export type ShippingChoice = Omit<EventOf<typeof InvoiceShippingSelected>['data'], 'tenant' | 'invoiceId' | 'memberId' | 'at'>;

/**
 * The VAT of a line: `amount × rate / 100`, rounded half up to a whole minor unit (per line; an invoice's VAT
 * total is the sum of its lines'). Exact: computed in integers, the rate in hundredths of a percent.
 */
export function vatOf(amount: number, ratePercent: number): number {
  const hundredths = BigInt(Math.round(ratePercent * 100));
  return Number((BigInt(amount) * hundredths + 5000n) / 10000n);
}
