// Everything a lot page links to (`GET /v1/lots/{id}/links`), read from the read models; declared once
// (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import { type LotDoc, catalogueAuctions, catalogueLots } from '../../projections/catalogue/index.ts';
import { lotDocumentId, lotDocuments } from '../../projections/documents/index.ts';
import { findLot } from '../lots/find.ts';
import { readDictionary } from '../translations/dictionary.ts';

const RELS = ['auction', 'combination', 'document', 'image'] as const;

export const getLotLinks = defineOperation({
  route: { number: 23, operationId: 'getLotLinks', group: 'Lot links', method: 'get', path: '/v1/lots/{id}/links', auth: 'anon' },
  docs: {
    summary: "A lot's links: its auction, the other lots of its combination, its documents and images",
    description:
      "`auction`: the lot's auction. `combination`: every other lot with the same `CombiId`, in lot-number order. " +
      "`document`: the lot's documents (`factsheet` always, `condition-report` where the house published one). `image`: the lot's images. " +
      'Titles are in the negotiated language.',
    errors: [404],
    examples: {
      response: [
        { Rel: 'auction', Href: '/v1/auctions/1', Title: 'Spring Design Sale' },
        { Rel: 'combination', Href: '/v1/lots/202', Title: 'Carved chair, oak' },
        { Rel: 'document', Href: '/v1/lots/201/documents/factsheet', Title: 'Factsheet' },
        { Rel: 'image', Href: 'https://images.example.com/demo/lots/201-1.jpg', Title: 'Image 1' },
      ],
    },
  },
  input: { params: z.object({ id: idText('The lot id.') }) },
  output: {
    response: z
      .array(
        z.object({
          Rel: z.enum(RELS),
          Href: z.string().max(2000).openapi({ description: 'A path of this API (`/v1/...`), or the address of an image.' }),
          // A title (500), or a text of the house's dictionary (2,000) with an image's number.
          Title: z.string().max(2004).openapi({ description: 'In the negotiated language (`Content-Language`).' }),
        }),
      )
      // The auction, the documents, up to 100 images, and every other lot of the combination: no smaller limit.
      .max(2147483647)
      .openapi('LotLinks'),
  },
  cache: { catalogue: true },
  async handler({ params }, ctx) {
    const lot = await findLot(ctx.db, params.id);
    const fallback = ctx.tenant.DefaultLanguage;
    const title = (doc: { Texts: LotDoc['Texts'] }) => pick(doc.Texts, ctx.language, fallback)?.Title ?? '';
    const [auction, combination, conditionReport, dictionary] = await Promise.all([
      catalogueAuctions(ctx.db).findById(String(lot.AuctionId)),
      lot.CombiId !== null ? catalogueLots(ctx.db).find({ CombiId: lot.CombiId }, { sort: [['LotNumber', 1]] }) : Promise.resolve([]),
      lotDocuments(ctx.db).findById(lotDocumentId(lot.Id, 'condition-report')),
      readDictionary(ctx.db, ctx.language, fallback, ctx.tenant.Languages),
    ]);
    const links: Array<{ Rel: (typeof RELS)[number]; Href: string; Title: string }> = [];
    if (auction?.Catalogued) links.push({ Rel: 'auction', Href: `/v1/auctions/${auction.Id}`, Title: title(auction) });
    for (const other of combination)
      if (other.Id !== lot.Id) links.push({ Rel: 'combination', Href: `/v1/lots/${other.Id}`, Title: title(other) });
    links.push({ Rel: 'document', Href: `/v1/lots/${lot.Id}/documents/factsheet`, Title: dictionary.t('link.factsheet', 'Factsheet') });
    if (conditionReport)
      links.push({
        Rel: 'document',
        Href: `/v1/lots/${lot.Id}/documents/condition-report`,
        Title: dictionary.t('link.conditionReport', 'Condition report'),
      });
    lot.Images.forEach((href, i) => links.push({ Rel: 'image', Href: href, Title: `${dictionary.t('link.image', 'Image')} ${i + 1}` }));
    return links;
  },
});

export const lotLinksQueryOperations = [getLotLinks];
