import { z } from 'zod';
import { runCommand } from '../../src/command-runner.ts';
import { isoDateTime, languageCode, positiveId, tenantId } from '../../src/events/define.ts';
import { defineIntakeKind, type IntakeDeps, type IntakeKind } from '../../src/intake-kind.ts';
import { ValidationError } from '../../src/errors.ts';
import { lotEvents, lotStreamId } from '../lots/events.ts';
import type { VatScheme } from '../costs/events.ts';
import { lotVatScheme } from '../costs/rules.ts';
import { invoiceRegisterDecider, priceListDecider } from './decide.ts';
import {
  costTypeSchema,
  currencyCode,
  invoiceRegisterStreamId,
  lineAmount,
  MAX_INVOICE_LINES,
  MAX_PRICE_LIST_ITEMS,
  priceListStreamId,
  vatOf,
  vatRateSchema,
} from './events.ts';

/** Days to pay an invoice a member raises, when the price list does not say. */
export const DEFAULT_PAYMENT_TERM_DAYS = 14;

/**
 * `priceList`: the costs a member can raise an invoice for, by cost type: a net amount in minor units of
 * `currency` (VAT is added at the house's rate) and a description per language.
 */
export const priceListRecord = z.object({
  kind: z.literal('priceList'),
  tenant: tenantId,
  currency: currencyCode,
  paymentTermDays: z.number().int().min(0).max(365).default(DEFAULT_PAYMENT_TERM_DAYS),
  items: z
    .record(
      costTypeSchema,
      z.object({
        amount: lineAmount,
        description: z.record(languageCode, z.string().min(1).max(200)).refine((d) => Object.keys(d).length > 0, 'at least one language'),
      }),
    )
    .refine((items) => Object.keys(items).length <= MAX_PRICE_LIST_ITEMS, `at most ${MAX_PRICE_LIST_ITEMS} cost types`),
});

/**
 * `invoice`: the back office issued an invoice to a member. `number` may be left out: the register then gives
 * the next number of the tenant. The VAT of each line is computed here (amount × vatRate %, half up). The member
 * is mailed a notice of it unless `notify` is false (a backfill of invoices members know of: a house's past).
 */
export const invoiceRecord = z
  .object({
    kind: z.literal('invoice'),
    tenant: tenantId,
    invoiceId: positiveId,
    number: positiveId.optional(),
    memberId: positiveId,
    auctionId: positiveId.nullable().default(null),
    issuedAt: isoDateTime,
    dueAt: isoDateTime,
    currency: currencyCode,
    lines: z
      .array(
        z.object({
          description: z.string().min(1).max(500),
          amount: lineAmount,
          vatRate: vatRateSchema,
          /** The lot the line is for: the line then follows the lot's VAT scheme. */
          lotId: positiveId.optional(),
        }),
      )
      .min(1)
      .max(MAX_INVOICE_LINES),
    notify: z.boolean().default(true),
  })
  .refine((r) => Date.parse(r.dueAt) >= Date.parse(r.issuedAt), { message: 'dueAt must not be before issuedAt', path: ['dueAt'] });

/** `invoicePaid`: the house received the payment of an invoice. */
export const invoicePaidRecord = z.object({
  kind: z.literal('invoicePaid'),
  tenant: tenantId,
  invoiceId: positiveId,
  paidAt: isoDateTime,
});

/** The VAT scheme of a lot of the house as its catalogue record says now (null: no such lot). */
async function lotSchemeOf(deps: IntakeDeps, tenant: string, lotId: number): Promise<VatScheme | null> {
  const events = (await deps.log.readStream(lotStreamId(tenant, lotId))).map((e) => lotEvents.read(e));
  const catalogued = events.filter((e) => e.type === 'LotCatalogued').at(-1);
  return catalogued?.type === 'LotCatalogued' ? lotVatScheme(catalogued.data.vatScheme, catalogued.data.vatFree) : null;
}

/**
 * The VAT scheme of each line's lot (null: a line of no lot). A line of a lot the house does not have, and a line of
 * a `margin` lot with VAT of its own, are refused: under the margin scheme the VAT is inside the amount and is never
 * shown (Directive 2006/112 art 339), so such a line gives its amount with the VAT included and `vatRate` 0.
 */
async function lineSchemes(deps: IntakeDeps, tenant: string, lines: Array<{ lotId?: number; vatRate: number }>) {
  const schemes = await Promise.all(lines.map((l) => (l.lotId === undefined ? null : lotSchemeOf(deps, tenant, l.lotId))));
  const errors = lines.flatMap((l, i) => {
    if (l.lotId === undefined) return [];
    if (schemes[i] === null) return [{ field: `lines.${i}.lotId`, message: `no lot ${l.lotId} in the house's catalogue` }];
    if (schemes[i] === 'margin' && l.vatRate !== 0)
      return [
        {
          field: `lines.${i}.vatRate`,
          message: `lot ${l.lotId} is sold under the margin scheme: its lines show no VAT of their own (give the amount with VAT included and vatRate 0)`,
        },
      ];
    return [];
  });
  if (errors.length) throw new ValidationError(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  return schemes;
}

/** NDJSON intake records of invoices (docs/intake.md). Importing the same record again appends nothing. */
export const invoicesIntake: IntakeKind[] = [
  defineIntakeKind('priceList', priceListRecord, ({ log, correlationId }, r) =>
    runCommand(
      log,
      priceListStreamId(r.tenant),
      priceListDecider,
      {
        type: 'PublishPriceList',
        data: {
          tenant: r.tenant,
          currency: r.currency,
          paymentTermDays: r.paymentTermDays,
          items: Object.entries(r.items)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([costType, item]) => ({ costType, amount: item.amount, description: item.description })),
          at: new Date().toISOString(),
        },
      },
      { correlationId },
    ),
  ),
  defineIntakeKind('invoice', invoiceRecord, async (deps, r) => {
    const schemes = await lineSchemes(deps, r.tenant, r.lines);
    return runCommand(
      deps.log,
      invoiceRegisterStreamId(r.tenant),
      invoiceRegisterDecider,
      {
        type: 'IssueInvoice',
        data: {
          tenant: r.tenant,
          invoiceId: r.invoiceId,
          number: r.number ?? null,
          memberId: r.memberId,
          auctionId: r.auctionId,
          issuedAt: r.issuedAt,
          dueAt: r.dueAt,
          currency: r.currency,
          lines: r.lines.map((l, i) => ({
            description: l.description,
            amount: l.amount,
            vatRate: l.vatRate,
            vatAmount: vatOf(l.amount, l.vatRate),
            ...(l.lotId !== undefined ? { lotId: l.lotId, vatScheme: schemes[i]! } : {}),
          })),
          // Written only when false, so that an invoice's event is as it always was.
          ...(r.notify ? {} : { notify: false as const }),
        },
      },
      { correlationId: deps.correlationId },
    );
  }),
  defineIntakeKind('invoicePaid', invoicePaidRecord, ({ log, correlationId }, r) =>
    runCommand(
      log,
      invoiceRegisterStreamId(r.tenant),
      invoiceRegisterDecider,
      { type: 'MarkInvoicePaid', tenant: r.tenant, invoiceId: r.invoiceId, paidAt: r.paidAt },
      { correlationId },
    ),
  ),
];
