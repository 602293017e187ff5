// An auction's printed catalogue (PDF) and its lots as a spreadsheet (`GET /v1/auctions/{id}/catalogue` and
// `/export`), made from the read models; declared once (defineOperation) for routing, validation, caching and the
// OpenAPI document.
import { defineOperation, auctionInPath } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { FileAnswer } from '../../src/http/file-answer.ts';
import { pick } from '../../src/http/language.ts';
import type { TenantScope } from '../../src/ports/read-models.ts';
import { type LotDoc, catalogueCategories, catalogueLots, findAuction } from '../../projections/catalogue/index.ts';
import { readDictionary } from '../translations/dictionary.ts';
import { renderCataloguePdf } from './pdf.ts';
import { writeLotSpreadsheet, XLSX } from './spreadsheet.ts';

const PAGE = 500;

/** Every lot of an auction (open or closed) in lot-number order, a page at a time. */
async function* lotPages(db: TenantScope, auctionId: number): AsyncIterable<LotDoc[]> {
  const lots = catalogueLots(db);
  for (let skip = 0; ; skip += PAGE) {
    const page = await lots.find({ AuctionId: auctionId }, { sort: [['LotNumber', 1]], skip, limit: PAGE });
    if (page.length) yield page;
    if (page.length < PAGE) return;
  }
}

const auctionParams = z.object({ id: idText('The auction id.') });
const lang = z.string().max(20).optional().openapi({
  description: 'The language of the catalogue (a link opened in a browser cannot send Accept-Language); else the negotiated one.',
});

export const getAuctionCatalogue = defineOperation({
  route: {
    number: 6,
    operationId: 'getAuctionCataloguePdf',
    group: 'Auctions',
    method: 'get',
    path: '/v1/auctions/{id}/catalogue',
    auth: 'anon',
  },
  docs: {
    summary: 'The printed catalogue of an auction, as a PDF',
    description:
      "Every lot of the auction, open or closed, in lot-number order, with its number, title, estimate and a short description; the auction's title and dates on the first page. " +
      "Made once per auction, language and catalogue version, and kept: a change to the auction's lots makes a new one.",
    errors: [404],
  },
  input: { params: auctionParams, query: z.object({ lang }) },
  output: { response: z.string().openapi({ format: 'binary' }), produces: ['application/pdf'] },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    const auction = await findAuction(ctx.db, params.id);
    const { language } = ctx;
    const fallback = ctx.tenant.DefaultLanguage;
    const dictionary = await readDictionary(ctx.db, language, fallback, ctx.tenant.Languages);
    const version = `${auction.CatalogueVersion ?? 0}-${dictionary.version}`;
    const family = `catalogues/${auction.Id}/${language}`;
    return new FileAnswer({
      contentType: 'application/pdf',
      filename: `${dictionary.t('pdf.catalogueTitle', 'Catalogue')} ${pick(auction.Texts, language, fallback)?.Title ?? auction.Id}.pdf`,
      disposition: 'inline',
      etag: `"catalogue-${auction.Id}-${language}-${version}"`,
      open: () =>
        ctx.generatedFiles.open({ key: `${family}/${version}.pdf`, family, contentType: 'application/pdf' }, () =>
          renderCataloguePdf(auction, lotPages(ctx.db, auction.Id), { language, fallback, houseName: ctx.tenant.Name, dictionary }),
        ),
    });
  },
});

export const exportAuctionLots = defineOperation({
  route: { number: 7, operationId: 'exportAuctionLots', group: 'Auctions', method: 'get', path: '/v1/auctions/{id}/export', auth: 'anon' },
  docs: {
    summary: "The auction's lots as a spreadsheet (.xlsx)",
    description:
      'One row per lot in lot-number order under a header row: lot number, title, description, category, estimate low and high, starting price, current bid, currency and end time (UTC). ' +
      "Texts in the negotiated language; amounts as numbers in the currency's major unit.",
    errors: [404],
  },
  input: { params: auctionParams },
  output: { response: z.string().openapi({ format: 'binary' }), produces: [XLSX] },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    const auction = await findAuction(ctx.db, params.id);
    const { language } = ctx;
    const fallback = ctx.tenant.DefaultLanguage;
    const [dictionary, categories] = await Promise.all([
      readDictionary(ctx.db, language, fallback, ctx.tenant.Languages),
      catalogueCategories(ctx.db).find({ Catalogued: true }),
    ]);
    const categoryNames = new Map(categories.map((c) => [c.Id, pick(c.Names, language, fallback) ?? '']));
    const categoriesVersion = categories.reduce((max, c) => Math.max(max, (c._pos as number) ?? 0), 0);
    return new FileAnswer({
      contentType: XLSX,
      filename: `${pick(auction.Texts, language, fallback)?.Title ?? `auction-${auction.Id}`}.xlsx`,
      disposition: 'attachment',
      etag: `"export-${auction.Id}-${language}-${auction.LotsVersion ?? 0}-${categoriesVersion}-${dictionary.version}"`,
      open: async () => ({
        stream: writeLotSpreadsheet(auction, lotPages(ctx.db, auction.Id), { language, fallback, categoryNames, dictionary }),
      }),
    });
  },
});

export const auctionCatalogueQueryOperations = [getAuctionCatalogue, exportAuctionLots];
