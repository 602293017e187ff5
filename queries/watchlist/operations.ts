// The lots the caller watches (`GET /v1/me/watchlist`), read from the read models; declared once (defineOperation)
// for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { pagedEnvelope, pageQuery, z } from '../../src/http/schemas.ts';
import type { Filter } from '../../src/ports/read-models.ts';
import { catalogueLots } from '../../projections/catalogue/index.ts';
import { watchlistEntries } from '../../projections/watchlist/index.ts';
import { watchTypes } from '../../commands/watchlist/events.ts';
import { envelope, paging } from '../paging.ts';
import { lotExample, lotSchema } from '../lots/dto.ts';
import { lotMapper } from '../lots/find.ts';

const watchedLot = lotSchema
  .extend({
    WatchType: z.enum(watchTypes),
    WatchedAt: z.string().max(30).openapi({ format: 'date-time' }),
  })
  .openapi('WatchedLot');

export const listWatchlist = defineOperation({
  route: { number: 24, operationId: 'listWatchlist', group: 'Lots', method: 'get', path: '/v1/me/watchlist', auth: 'member' },
  docs: {
    summary: 'Lots the caller watches, newest first, with their watch type',
    examples: {
      response: {
        Items: [{ ...lotExample, WatchType: 'watch', WatchedAt: '2026-11-21T12:00:00.000Z' }],
        TotalCount: 1,
        Page: 1,
        PageSize: 20,
        TotalPages: 1,
      },
    },
  },
  input: {
    query: z.object({
      ...pageQuery,
      type: z.enum(watchTypes).optional().openapi({ description: 'Only this watch type; all when omitted.' }),
    }),
  },
  output: { response: pagedEnvelope(watchedLot, 'WatchlistPage') },
  async handler({ query }, ctx) {
    const p = paging(query, ctx.tenant);
    const filter: Filter = { MemberId: ctx.member.Id };
    if (query.type) filter.Type = query.type;
    const watches = watchlistEntries(ctx.db);
    const [total, page] = await Promise.all([
      watches.countDocuments(filter),
      watches.find(filter, { sort: [['WatchedAt', -1]], skip: p.skip, limit: p.pageSize }),
    ]);
    const lots = page.length ? await catalogueLots(ctx.db).find({ _id: { $in: page.map((w) => String(w.LotId)) } }) : [];
    const byId = new Map(lots.map((l) => [l.Id, l]));
    const toDto = await lotMapper(ctx);
    const items = page.flatMap((w) => {
      const lot = byId.get(w.LotId);
      return lot ? [{ ...toDto(lot), WatchType: w.Type as (typeof watchTypes)[number], WatchedAt: w.WatchedAt }] : [];
    });
    return envelope(items, total, p);
  },
});

export const watchlistQueryOperations = [listWatchlist];
