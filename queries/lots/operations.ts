// Lots: the filtered, sorted, paged list and one lot (`GET /v1/lots`, `GET /v1/lots/{id}`), read from the read
// models; declared once (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { boolText, idText, int32Text, pagedEnvelope, pageQuery, z } from '../../src/http/schemas.ts';
import { ForbiddenError, ValidationError, type FieldError } from '../../src/errors.ts';
import { findLot, lotMapper, nextClosing } from './find.ts';
import type { Filter, SortSpec } from '../../src/ports/read-models.ts';
import { catalogueLots } from '../../projections/catalogue/index.ts';
import { foldText } from '../../src/text/fold.ts';
import { envelope, paging } from '../paging.ts';
import { lotExample, lotSchema } from './dto.ts';
import { auctionIdsOfType, readAuctionTypes } from '../auctions/find.ts';
import { categoryAndDescendants } from '../categories/find.ts';

const SORTS = ['LotNumber', 'EndTime', 'CurrentBid', 'EstimateLow', 'Title', 'Created'] as const;

const lotsQuery = z.object({
  AuctionId: idText().optional(),
  AuctionTypeId: int32Text({ min: 0 }).optional(),
  CategoryId: idText('Lots of this category or of any category below it.').optional(),
  OwnerId: idText("Lots consigned by this member: only with a member token and the caller's own member id (else 403).").optional(),
  HotLot: boolText().optional(),
  SearchTerms: z
    .string()
    .trim()
    .max(200)
    .optional()
    .openapi({ description: 'Every word must occur in the title or description (case- and accent-insensitive).' }),
  Sort: z
    .string()
    .transform((v, ctx) => {
      const found = SORTS.find((s) => s.toLowerCase() === v.toLowerCase());
      if (!found) ctx.addIssue({ code: 'custom', message: `must be one of ${SORTS.join(', ')}` });
      return found ?? 'LotNumber';
    })
    .optional()
    .openapi({ type: 'string', enum: [...SORTS], description: 'Order of the lots; LotNumber by default.' }),
  Descending: boolText('Reverses the order.').optional(),
  Page: pageQuery.page,
  PageSize: pageQuery.pageSize,
  LanguageCode: z.string().max(20).optional().openapi({ description: 'Overrides Accept-Language.' }),
  ShowClosedLots: boolText('Include lots whose bidding has ended.').optional(),
  CombiId: idText().optional(),
  vatFree: boolText().optional(),
  StartLotNumber: int32Text({ min: 0 }).optional(),
  EndLotNumber: int32Text({ min: 0 }).optional(),
  MetaDataProperties: z
    .string()
    .optional()
    .openapi({
      description:
        'Attribute filters, written MetaDataProperties[Name]=Value (one parameter per attribute, at most 20; a name is letters, digits and _, a value at most 200 characters, matched case- and accent-insensitively in the negotiated language).',
      // Read from the raw query: documented as the deepObject it is.
      type: 'object',
      additionalProperties: { type: 'string', maxLength: 200 },
      propertyNames: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$', maxLength: 64 },
      maxProperties: 20,
      param: { style: 'deepObject', explode: true },
    } as never),
});

const META = /^metadataproperties\[([^\]]*)\]$/i;

/** MetaDataProperties[Name]=Value pairs from the raw query. */
function metaFilters(raw: Record<string, unknown>, language: string): { filter: Filter; errors: FieldError[] } {
  const filter: Filter = {};
  const errors: FieldError[] = [];
  let count = 0;
  const seen = new Set<string>();
  for (const [key, value] of Object.entries(raw)) {
    const match = META.exec(key);
    if (!match) {
      // `MetaDataProperties=oak` or `MetaDataProperties[Material=oak`: a filter the caller meant, not one to drop silently.
      if (key.toLowerCase().startsWith('metadataproperties'))
        errors.push({ field: 'query.MetaDataProperties', message: 'write one parameter per attribute: MetaDataProperties[Name]=Value' });
      continue;
    }
    const name = match[1];
    const field = `query.MetaDataProperties[${name.slice(0, 64)}]`;
    // Names are matched case-insensitively, so [Material] and [material] are one parameter given twice.
    if (seen.has(name.toLowerCase())) {
      errors.push({ field, message: 'must be given once' });
      continue;
    }
    seen.add(name.toLowerCase());
    if (++count > 20) {
      errors.push({ field, message: 'at most 20 attribute filters' });
      break;
    }
    if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name)) errors.push({ field, message: 'an attribute name is letters, digits and _' });
    else if (typeof value !== 'string' || value.length > 200) errors.push({ field, message: 'must be given once, at most 200 characters' });
    else filter[`Meta.${name.toLowerCase()}.${language}`] = foldText(value);
  }
  return { filter, errors };
}

export const listLots = defineOperation({
  route: { number: 16, operationId: 'listLots', group: 'Lots', method: 'get', path: '/v1/lots', auth: 'anon' },
  docs: {
    summary: 'Lots, filtered, sorted and paged',
    description:
      'Closed lots are left out unless ShowClosedLots=true. StartLotNumber and EndLotNumber bound the lot number, both inclusive. ' +
      "Consigners are private: `OwnerId` is accepted only with a member token and the caller's own member id (any other use is 403); no lot says who consigned it.",
    errors: [403],
    problems: ['owner-not-caller', 'session-ended'],
    examples: { response: { Items: [lotExample], TotalCount: 1, Page: 1, PageSize: 20, TotalPages: 1 } },
  },
  input: { query: lotsQuery, languageParam: 'LanguageCode' },
  output: { response: pagedEnvelope(lotSchema, 'LotPage') },
  cache: {
    catalogue: true,
    // With OwnerId the answer is the caller's own: never shared through the response cache.
    personal: (query) => Object.keys(query).some((k) => k.toLowerCase() === 'ownerid'),
    // Filtered to one auction, the answer holds its lots alone: it stays cached while other auctions change.
    auction: ({ query }) => (typeof query.AuctionId === 'number' ? query.AuctionId : undefined),
  },
  async handler({ query }, ctx) {
    const nowIso = ctx.now.toISOString();
    const lang = ctx.language;
    const meta = metaFilters(ctx.req.query as Record<string, unknown>, lang);
    if (query.StartLotNumber !== undefined && query.EndLotNumber !== undefined && query.StartLotNumber > query.EndLotNumber)
      meta.errors.push({ field: 'query.EndLotNumber', message: 'must not be below StartLotNumber' });
    if (meta.errors.length) throw new ValidationError('The request has invalid values.', meta.errors);
    if (query.OwnerId !== undefined && (ctx.claims.kind !== 'member' || ctx.claims.sub !== String(query.OwnerId)))
      throw new ForbiddenError('owner-not-caller', 'OwnerId may only name the signed-in member themself (consigners are private).');
    if (query.OwnerId !== undefined) await ctx.auth.requireMember(ctx.claims);

    const filter: Filter = { ...meta.filter };
    if (query.AuctionId !== undefined) filter.AuctionId = query.AuctionId;
    if (query.AuctionTypeId !== undefined)
      filter.AuctionId = auctionIdsOfType(await readAuctionTypes(ctx.db), query.AuctionTypeId, query.AuctionId);
    if (query.CategoryId !== undefined) {
      const ids = await categoryAndDescendants(ctx.db, query.CategoryId);
      filter.CategoryId = ids.length === 1 ? ids[0] : { $in: ids };
    }
    if (query.OwnerId !== undefined) filter.OwnerId = query.OwnerId;
    if (query.HotLot !== undefined) filter.HotLot = query.HotLot;
    if (query.CombiId !== undefined) filter.CombiId = query.CombiId;
    if (query.vatFree !== undefined) filter.VatFree = query.vatFree;
    if (query.StartLotNumber !== undefined || query.EndLotNumber !== undefined)
      filter.LotNumber = {
        ...(query.StartLotNumber !== undefined ? { $gte: query.StartLotNumber } : {}),
        ...(query.EndLotNumber !== undefined ? { $lte: query.EndLotNumber } : {}),
      };
    if (!query.ShowClosedLots) filter.EndTime = { $gt: nowIso };
    const words = (query.SearchTerms ?? '').split(/\s+/).filter(Boolean).slice(0, 10);
    // Words are matched in the folded text the projection stores, folded the same way (one rule: src/text/fold.ts).
    if (words.length) filter.$and = words.map((w) => ({ [`SearchText.${lang}`]: { $contains: foldText(w) } }));

    const direction = query.Descending ? -1 : 1;
    const sortField = query.Sort === 'Title' ? `SortTitle.${lang}` : (query.Sort ?? 'LotNumber');
    const sort: SortSpec =
      sortField === 'LotNumber'
        ? [['LotNumber', direction]]
        : [
            [sortField, direction],
            ['LotNumber', direction],
          ];
    const p = paging({ page: query.Page, pageSize: query.PageSize }, ctx.tenant);
    const lots = catalogueLots(ctx.db);
    const [total, docs] = await Promise.all([
      lots.countDocuments(filter),
      lots.find(filter, { sort, skip: p.skip, limit: p.pageSize }),
      nextClosing(lots, filter, nowIso).then(ctx.changesAt),
    ]);
    return envelope(docs.map(await lotMapper(ctx)), total, p);
  },
});

export const getLot = defineOperation({
  route: { number: 18, operationId: 'getLot', group: 'Lots', method: 'get', path: '/v1/lots/{id}', auth: 'anon' },
  docs: {
    summary: 'One lot with its attributes',
    errors: [404],
    examples: { response: lotExample },
  },
  input: { params: z.object({ id: idText('The lot id.') }) },
  output: { response: lotSchema },
  // The lot's page depends on its own auction alone: it stays cached while bids arrive on other auctions' lots.
  cache: { catalogue: true, auction: (_input, answer) => (answer as { AuctionId: number } | undefined)?.AuctionId },
  async handler({ params }, ctx) {
    const [lot, toDto] = await Promise.all([findLot(ctx.db, params.id), lotMapper(ctx)]);
    const endTime = Date.parse(lot.EndTime);
    ctx.changesAt(endTime > ctx.now.getTime() ? endTime : Number.POSITIVE_INFINITY);
    return toDto(lot);
  },
});

export const lotsQueryOperations = [listLots, getLot];
