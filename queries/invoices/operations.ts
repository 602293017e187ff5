// The caller's invoices: the list, one invoice and its PDF (`GET /v1/me/invoices`, `/v1/me/invoices/{id}` and its
// `/pdf`), read from the read models; declared once (defineOperation) for routing, validation and the OpenAPI
// document.
import { defineOperation, type MemberContext } from '../../src/http/operation.ts';
import { idText, pagedEnvelope, pageQuery, z } from '../../src/http/schemas.ts';
import { FileAnswer } from '../../src/http/file-answer.ts';
import { NotFoundError } from '../../src/errors.ts';
import { pick } from '../../src/http/language.ts';
import { catalogueAuctions } from '../../projections/catalogue/index.ts';
import { invoices, type InvoiceDoc } from '../../projections/invoices/index.ts';
import { envelope, paging } from '../paging.ts';
import { invoiceExample, invoiceSchema, toInvoiceDto } from '../../commands/invoices/dto.ts';
import { invoiceProfile } from '../../commands/invoices/rules.ts';
import { invoiceLabels, renderInvoicePdf } from './pdf.ts';

/** The caller's invoice; another member's, or none, is 404 (the same answer). */
export async function findOwnInvoice(ctx: MemberContext, id: number): Promise<InvoiceDoc> {
  const doc = await invoices(ctx.db).findById(String(id));
  if (!doc || doc.MemberId !== ctx.member.Id) throw new NotFoundError(`Invoice ${id} does not exist.`);
  return doc;
}

const invoiceParams = z.object({ id: idText('The invoice id.') });

export const listInvoices = defineOperation({
  route: { number: 47, operationId: 'listInvoices', group: 'Invoices', method: 'get', path: '/v1/me/invoices', auth: 'member' },
  docs: {
    summary: "The caller's invoices, newest first",
    description:
      'Every invoice of the signed-in member, paid and unpaid, newest `IssuedAt` first, with its lines, VAT and totals in minor units of its `Currency` ' +
      '(`Total = Subtotal + VatTotal`).',
    examples: { response: { Items: [invoiceExample], TotalCount: 1, Page: 1, PageSize: 20, TotalPages: 1 } },
  },
  input: { query: z.object({ ...pageQuery }) },
  output: { response: pagedEnvelope(invoiceSchema, 'InvoicePage') },
  async handler({ query }, ctx) {
    const p = paging(query, ctx.tenant);
    const filter = { MemberId: ctx.member.Id };
    const collection = invoices(ctx.db);
    const [total, page] = await Promise.all([
      collection.countDocuments(filter),
      collection.find(filter, {
        sort: [
          ['IssuedAt', -1],
          ['Id', -1],
        ],
        skip: p.skip,
        limit: p.pageSize,
      }),
    ]);
    return envelope(page.map(toInvoiceDto), total, p);
  },
});

export const getInvoice = defineOperation({
  route: { number: 48, operationId: 'getInvoice', group: 'Invoices', method: 'get', path: '/v1/me/invoices/{id}', auth: 'member' },
  docs: {
    summary: "One of the caller's invoices, with its lines, VAT and totals",
    description:
      "Amounts are in minor units of `Currency`; `VatRate` is in percent and each line's `VatAmount` is `Amount × VatRate / 100` rounded half up, " +
      "`VatTotal` their sum and `Total = Subtotal + VatTotal`. Another member's invoice, or an unknown id, is 404.",
    errors: [404],
    examples: { response: invoiceExample },
  },
  input: { params: invoiceParams },
  output: { response: invoiceSchema },
  async handler({ params }, ctx) {
    return toInvoiceDto(await findOwnInvoice(ctx, params.id));
  },
});

export const getInvoicePdf = defineOperation({
  route: { number: 49, operationId: 'getInvoicePdf', group: 'Invoices', method: 'get', path: '/v1/me/invoices/{id}/pdf', auth: 'member' },
  docs: {
    summary: "One of the caller's invoices as a PDF",
    description:
      "The printed invoice in the negotiated language: the auction house, the invoice number, its dates and status, the member's name and address, " +
      'the lines with their VAT, the totals and the shipping preference. Made on first request and kept until the invoice (payment, shipping) or the ' +
      "member's name or address changes. Another member's invoice, or an unknown id, is 404.",
    errors: [404],
  },
  input: { params: invoiceParams },
  output: { response: z.string().openapi({ format: 'binary' }), produces: ['application/pdf'] },
  async handler({ params }, ctx) {
    const invoice = await findOwnInvoice(ctx, params.id);
    const { language, tenant, member } = ctx;
    const [profile, auction] = await Promise.all([
      invoiceProfile(ctx.db, member.Id),
      invoice.AuctionId !== null ? catalogueAuctions(ctx.db).findById(String(invoice.AuctionId)) : Promise.resolve(null),
    ]);
    const catalogued = auction?.Catalogued ? auction : null;
    // What the print shows: the invoice, the member's name and address, the house's name and the auction's title.
    const version = [invoice.Version, member._pos ?? 0, profile.version, tenant._pos ?? 0, catalogued?.CatalogueVersion ?? 0].join('.');
    const family = `invoices/${invoice.Id}/${language}`;
    const memberName = [profile.firstName ?? member.FirstName, profile.lastName ?? member.LastName].filter(Boolean).join(' ');
    return new FileAnswer({
      contentType: 'application/pdf',
      filename: `${invoiceLabels(language).invoice} ${invoice.Number}.pdf`,
      disposition: 'inline',
      etag: `"invoice-${invoice.Id}-${language}-${version}"`,
      open: () =>
        ctx.generatedFiles.open({ key: `${family}/${version}.pdf`, family, contentType: 'application/pdf' }, () =>
          renderInvoicePdf({
            invoice,
            language,
            houseName: tenant.Name,
            memberId: member.Id,
            memberName,
            companyName: profile.companyName,
            addressLines: profile.addressLines,
            auctionTitle: catalogued ? (pick(catalogued.Texts, language, tenant.DefaultLanguage)?.Title ?? null) : null,
          }),
        ),
    });
  },
});

export const invoicesQueryOperations = [listInvoices, getInvoice, getInvoicePdf];
