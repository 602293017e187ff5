// Raising an invoice and choosing its shipping (`POST /v1/me/invoices`, `PUT /v1/me/invoices/{id}/shipping`),
// decided on the tenant's invoice register; declared once (defineOperation) for routing, validation and the
// OpenAPI document.
import { defineOperation, type MemberContext } from '../../src/http/operation.ts';
import { idText, INT32_MAX, z } from '../../src/http/schemas.ts';
import { NotFoundError, ServiceUnavailableError } from '../../src/errors.ts';
import { pick } from '../../src/http/language.ts';
import type { Filter } from '../../src/ports/read-models.ts';
import { findAuction } from '../../projections/catalogue/index.ts';
import { invoices, PRICE_LIST_ID, priceLists, type InvoiceDoc } from '../../projections/invoices/index.ts';
import { invoiceExample, invoiceSchema, toInvoiceDto } from './dto.ts';
import { invoiceProfile } from './rules.ts';
import { invoiceRegisterDecider, type InvoiceCommand } from './decide.ts';
import { invoiceRegisterStreamId, invoicesEvents, PRINTABLE, shippingMethods } from './events.ts';
import { DEFAULT_PAYMENT_TERM_DAYS } from './intake.ts';

/**
 * Every invoice command of a house is decided on its one register stream: commands in one process queue up,
 * and a conflicting append by another process is decided again on the new state, a few more times than a
 * per-member stream needs. Then waits (bounded) for the read model, so the caller reads its write.
 */
async function runOnRegister(ctx: MemberContext, command: InvoiceCommand) {
  return ctx.commands.run(invoiceRegisterStreamId(ctx.tenant.Tenant), invoiceRegisterDecider, command, {
    readYourWrites: true,
    attempts: 20,
  });
}

/**
 * The invoice a command has just written or found, from the read model. The command waited for the projection;
 * should it not have caught up in time, this waits once more for everything appended so far.
 */
async function readInvoice(ctx: MemberContext, filter: Filter): Promise<InvoiceDoc> {
  const find = () => invoices(ctx.db).findOne(filter);
  const found = await find();
  if (found) return found;
  await ctx.commands.catchUp(invoicesEvents.types);
  const later = await find();
  if (!later) throw new ServiceUnavailableError('The invoice is recorded but cannot be shown yet; read it again in a moment.');
  return later;
}

export const raiseInvoice = defineOperation({
  route: { number: 50, operationId: 'raiseInvoice', group: 'Invoices', method: 'post', path: '/v1/me/invoices', auth: 'member' },
  docs: {
    summary: "Raise an invoice for a cost of the house's price list",
    description:
      "Invoices the caller for a cost of the auction house's price list (e.g. `printed-catalogue`, `condition-report`) for an auction of the house, " +
      "open or closed. The amount is the price list's, never the body's (an `Amount` or any other field in the body is ignored), plus VAT at the " +
      "house's rate, rounded half up; a member whose profile says `VatFree` is charged no VAT. The description is in the negotiated language. " +
      "Payment is due after the price list's payment term (14 days unless the house says otherwise). Raising the same cost for the same auction again " +
      'while that invoice is unpaid answers that invoice instead of a second one. A cost type the price list does not have is 400; an unknown auction 404. ' +
      'The answer is the invoice, as `GET /v1/me/invoices/{id}` shows it from then on.',
    errors: [404],
    examples: { body: { CostType: 'printed-catalogue', AuctionId: 1 }, response: invoiceExample },
  },
  input: {
    body: z
      .object({
        CostType: z
          .string()
          .min(1)
          .max(64)
          .regex(/^[a-z0-9][a-z0-9-]*$/, 'a cost type of the price list, such as printed-catalogue')
          .openapi({ description: "A cost type of the house's price list.", examples: ['printed-catalogue', 'condition-report'] }),
        AuctionId: z.number().int().min(1).max(INT32_MAX).openapi({ description: 'The auction the cost is for.' }),
      })
      .openapi('RaiseInvoiceRequest'),
  },
  output: { response: invoiceSchema },
  async handler({ body }, ctx) {
    const { tenant, member } = ctx;
    const [auction, priceList, profile] = await Promise.all([
      findAuction(ctx.db, body.AuctionId).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      }),
      priceLists(ctx.db).findById(PRICE_LIST_ID),
      invoiceProfile(ctx.db, member.Id),
    ]);
    const item = priceList?.Items.find((i) => i.CostType === body.CostType);
    const result = await runOnRegister(ctx, {
      type: 'RaiseCostInvoice',
      tenant: tenant.Tenant,
      memberId: member.Id,
      auctionId: body.AuctionId,
      auctionExists: auction !== null,
      costType: body.CostType,
      price: item
        ? { amount: item.Amount, description: pick(item.Description, ctx.language, tenant.DefaultLanguage) ?? body.CostType }
        : null,
      currency: priceList?.Currency ?? tenant.Currency,
      paymentTermDays: priceList?.PaymentTermDays ?? DEFAULT_PAYMENT_TERM_DAYS,
      vatRate: tenant.VatRate ?? 0,
      vatFree: profile.vatFree,
      at: ctx.now.toISOString(),
    });
    const raised = result.events[0];
    const filter: Filter =
      raised?.type === 'CostInvoiceRaised'
        ? { _id: String(raised.data.invoiceId) }
        : { MemberId: member.Id, CostType: body.CostType, AuctionId: body.AuctionId, Status: 'unpaid' };
    return toInvoiceDto(await readInvoice(ctx, filter));
  },
});

const optionalText = (max: number, description: string) =>
  z.string().max(max).regex(PRINTABLE, 'no control characters').nullable().optional().openapi({ description });
const blank = (value: string | null | undefined) => value === undefined || value === null || value.trim() === '';
const ADDRESS_FIELDS = ['Name', 'Address', 'ZipCode', 'City', 'Country'] as const;

export const chooseInvoiceShipping = defineOperation({
  route: {
    number: 51,
    operationId: 'chooseInvoiceShipping',
    group: 'Invoices',
    method: 'put',
    path: '/v1/me/invoices/{id}/shipping',
    auth: 'member',
  },
  docs: {
    summary: 'Choose how the goods of an unpaid invoice reach you',
    description:
      '`Method` is `pickup` (collected at the auction house), `post` or `courier`. `Name`, `Address`, `ZipCode`, `City` and `Country` (ISO 3166-1 alpha-2) ' +
      'are required unless `pickup`, where they are optional. A replacement: the preference is stored as sent, and sending the same again changes nothing. ' +
      "A paid invoice's shipping can no longer change (409). Another member's invoice, or an unknown id, is 404. The answer is the invoice.",
    errors: [404, 409],
    problems: ['invoice-paid'],
    examples: {
      body: { Method: 'post', Name: 'Demo Bidder', Address: 'Keizersgracht 1', ZipCode: '1015 CJ', City: 'Amsterdam', Country: 'NL' },
      response: {
        ...invoiceExample,
        Shipping: {
          Method: 'post',
          Name: 'Demo Bidder',
          Address: 'Keizersgracht 1',
          ZipCode: '1015 CJ',
          City: 'Amsterdam',
          Country: 'NL',
          ChosenAt: '2026-11-22T10:05:00.000Z',
        },
      },
    },
  },
  input: {
    params: z.object({ id: idText('The invoice id.') }),
    body: z
      .object({
        Method: z.enum(shippingMethods).openapi({ description: '`pickup`, `post` or `courier`.' }),
        Name: optionalText(200, 'Who receives the goods.'),
        Address: optionalText(300, 'Street and house number.'),
        ZipCode: optionalText(20, 'Postal code.'),
        City: optionalText(100, 'City.'),
        Country: z
          .string()
          .regex(/^([A-Z]{2})?$/, 'an ISO 3166-1 alpha-2 code in capitals, such as NL')
          .max(2)
          .nullable()
          .optional()
          .openapi({ description: 'ISO 3166-1 alpha-2 country code (`NL`, `SE`).' }),
      })
      .superRefine((b, ctx) => {
        if (b.Method === 'pickup') return;
        for (const field of ADDRESS_FIELDS)
          if (blank(b[field])) ctx.addIssue({ code: 'custom', path: [field], message: `required when Method is ${b.Method}` });
      })
      .openapi('ShippingPreference'),
  },
  output: { response: invoiceSchema },
  async handler({ params, body }, ctx) {
    const value = (v: string | null | undefined) => (blank(v) ? null : v!.trim());
    // Checked against the register (the decider): unknown or another member's invoice 404, a paid one 409.
    await runOnRegister(ctx, {
      type: 'ChooseShipping',
      tenant: ctx.tenant.Tenant,
      memberId: ctx.member.Id,
      invoiceId: params.id,
      shipping: {
        method: body.Method,
        name: value(body.Name),
        address: value(body.Address),
        zipCode: value(body.ZipCode),
        city: value(body.City),
        country: value(body.Country),
      },
      at: ctx.now.toISOString(),
    });
    return toInvoiceDto(await readInvoice(ctx, { _id: String(params.id), MemberId: ctx.member.Id }));
  },
});

export const invoicesCommandOperations = [raiseInvoice, chooseInvoiceShipping];
