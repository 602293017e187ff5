// A lot's attributes and the distinct attribute values with lot counts (`GET /v1/lots/{id}/attributes`,
// `GET /v1/attribute-values`), read from the read models; declared once (defineOperation) for routing, validation,
// caching and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { boolText, idText, int32Text, z } from '../../src/http/schemas.ts';
import { pick } from '../../src/http/language.ts';
import type { Filter } from '../../src/ports/read-models.ts';
import { catalogueLots } from '../../projections/catalogue/index.ts';
import { attributeValues } from '../../projections/attributes/index.ts';
import { categoryAndDescendants } from '../categories/find.ts';
import { findLot } from '../lots/find.ts';
import { auctionIdsOfType, readAuctionTypes } from '../auctions/find.ts';

const attribute = z.object({
  Name: z
    .string()
    .max(64)
    .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/)
    .openapi({ description: "The attribute's name, as `MetaDataProperties[Name]` takes it.", example: 'Material' }),
  Label: z.string().max(200).openapi({ description: 'The name as people read it in the language.', example: 'Material' }),
  Value: z.string().max(1000).openapi({ example: 'ek' }),
});

export const getLotAttributes = defineOperation({
  route: {
    number: 21,
    operationId: 'getLotAttributes',
    group: 'Lot attributes',
    method: 'get',
    path: '/v1/lots/{id}/attributes',
    auth: 'anon',
  },
  docs: {
    summary: "A lot's descriptive attributes in the negotiated language",
    errors: [404],
    examples: {
      response: [
        { Name: 'Material', Label: 'Material', Value: 'ek' },
        { Name: 'Period', Label: 'Period', Value: '1700-tal' },
      ],
    },
  },
  input: { params: z.object({ id: idText('The lot id.') }) },
  output: { response: z.array(attribute).max(100).openapi('LotAttributes') },
  cache: { catalogue: true },
  async handler({ params }, ctx) {
    const lot = await findLot(ctx.db, params.id);
    const fallback = ctx.tenant.DefaultLanguage;
    return lot.Attributes.map((a) => ({
      Name: a.Name,
      Label: pick(a.Labels, ctx.language, fallback) ?? a.Name,
      Value: pick(a.Values, ctx.language, fallback) ?? '',
    }));
  },
});

export const listAttributeValues = defineOperation({
  route: {
    number: 22,
    operationId: 'listAttributeValues',
    group: 'Lot attributes',
    method: 'get',
    path: '/v1/attribute-values',
    auth: 'anon',
  },
  docs: {
    summary: 'Distinct attribute values with lot counts, for building search filters',
    description:
      '`Count` is the number of lots (open and closed) that `GET /v1/lots?ShowClosedLots=true&MetaDataProperties[Name]=Value` selects with the same filters. ' +
      'Values are matched as the lot filters match them (case- and accent-insensitive), in the language of `language` (else the negotiated one). ' +
      'Ordered by attribute name, then by count, most lots first.',
    examples: {
      response: [
        { Name: 'Material', Label: 'Material', Value: 'oak', Count: 31 },
        { Name: 'Material', Label: 'Material', Value: 'walnut', Count: 27 },
      ],
    },
  },
  input: {
    query: z.object({
      auctionId: idText('Only lots of this auction.').optional(),
      categoryId: idText('Only lots of this category or of a category below it.').optional(),
      name: z
        .string()
        .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'an attribute name is letters, digits and _')
        .optional()
        .openapi({ description: 'Only this attribute (case-insensitive).', maxLength: 64 }),
      type: int32Text({ min: 0, description: 'Only lots of auctions of this type (the `AuctionTypeId` of auctions and lots).' }).optional(),
      language: z.string().max(20).optional().openapi({ description: 'Language of values and labels; overrides Accept-Language.' }),
      vatFree: boolText('Only lots sold without VAT (true) or with VAT (false).').optional(),
    }),
    languageParam: 'language',
  },
  output: {
    // Every distinct value in one answer: the service sets no smaller limit.
    response: z
      .array(attribute.extend({ Count: z.number().int().min(1).max(2147483647) }))
      .max(2147483647)
      .openapi('AttributeValues'),
  },
  cache: { catalogue: true },
  async handler({ query }, ctx) {
    const language = ctx.language;
    const filter: Filter = {};
    if (query.auctionId !== undefined) filter.AuctionId = query.auctionId;
    if (query.categoryId !== undefined) {
      const ids = await categoryAndDescendants(ctx.db, query.categoryId);
      filter.CategoryId = ids.length === 1 ? ids[0] : { $in: ids };
    }
    if (query.type !== undefined) filter.AuctionId = auctionIdsOfType(await readAuctionTypes(ctx.db), query.type, query.auctionId);
    if (query.vatFree !== undefined) filter.VatFree = query.vatFree;

    const known = await attributeValues(ctx.db).find(
      query.name ? { Language: language, NameKey: query.name.toLowerCase() } : { Language: language },
    );
    const display = new Map(known.map((v) => [`${v.NameKey}|${v.Folded}`, v]));
    const nameKeys = [...new Set(known.map((v) => v.NameKey))];
    const lots = catalogueLots(ctx.db);
    const result: Array<{ Name: string; Label: string; Value: string; Count: number }> = [];
    for (const nameKey of nameKeys) {
      const counts = await lots.countBy({ ...filter, [`Meta.${nameKey}.${language}`]: { $exists: true } }, `Meta.${nameKey}.${language}`);
      const rows = counts.flatMap(({ value, count }) => {
        const shown = display.get(`${nameKey}|${String(value)}`);
        return shown ? [{ Name: shown.Name, Label: shown.Label, Value: shown.Value, Count: count }] : [];
      });
      result.push(...rows);
    }
    return result.sort((a, b) => a.Name.localeCompare(b.Name) || b.Count - a.Count || a.Value.localeCompare(b.Value, language));
  },
});

export const attributesQueryOperations = [getLotAttributes, listAttributeValues];
