// Watching and unwatching a lot (`PUT` and `DELETE /v1/me/watchlist/{lotId}`), decided on the member's watchlist
// stream; declared once (defineOperation) for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { ValidationError } from '../../src/errors.ts';
import { lotExists } from '../../projections/catalogue/index.ts';
import { watchlistStreamId, watchTypes } from './events.ts';
import { watchlistDecider } from './decide.ts';

const lotParam = z.object({ lotId: idText('The lot id (not a watch record id).') });
const watchResult = z
  .object({
    LotId: z.number().int().min(1).max(2147483647),
    Watched: z.boolean(),
    Type: z.enum(watchTypes).nullable().openapi({ description: 'The watch type; null when not watched.' }),
  })
  .openapi('WatchResult');

export const watchLot = defineOperation({
  route: { number: 25, operationId: 'watchLot', group: 'Lots', method: 'put', path: '/v1/me/watchlist/{lotId}', auth: 'member' },
  docs: {
    summary: 'Watch a lot (idempotent)',
    description:
      'The body is optional. `Type` is the watch type (`watch` by default); watching again with the same type changes nothing, with another type changes the type. ' +
      "`MemberId` is ignored (the member is the token's); `Id`, when given, must equal the path's lot id. Unknown lot, or another tenant's: 404. A watchlist holds at most 5,000 lots (409).",
    errors: [404, 409],
    problems: ['watchlist-full'],
    examples: { body: { Type: 'favourite' }, response: { LotId: 412, Watched: true, Type: 'favourite' } },
  },
  input: {
    params: lotParam,
    body: z
      .object({
        // zod's int() takes safe integers only: these bounds are the ones it enforces.
        Id: z
          .number()
          .int()
          .min(-Number.MAX_SAFE_INTEGER)
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .openapi({ description: 'The lot id; must equal the path when given.' }),
        MemberId: z
          .number()
          .int()
          .min(-Number.MAX_SAFE_INTEGER)
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .openapi({ description: "Ignored: the member is always the token's." }),
        Type: z.enum(watchTypes).optional().openapi({ description: 'Watch type; `watch` when omitted.' }),
      })
      .openapi('AddTrackerRequest'),
    bodyOptional: true,
  },
  output: { response: watchResult },
  async handler({ params, body }, ctx) {
    if (body?.Id !== undefined && body.Id !== params.lotId)
      throw new ValidationError('Id in the body must equal the lot id of the path.', [
        { field: 'body.Id', message: 'must equal the path lotId' },
      ]);
    const lotIsCatalogued = await lotExists(ctx.db, params.lotId);
    const watchType = body?.Type ?? 'watch';
    await ctx.commands.run(
      watchlistStreamId(ctx.tenant.Tenant, ctx.member.Id),
      watchlistDecider,
      {
        type: 'WatchLot',
        tenant: ctx.tenant.Tenant,
        memberId: ctx.member.Id,
        lotId: params.lotId,
        watchType,
        at: ctx.now.toISOString(),
        lotExists: lotIsCatalogued,
      },
      { readYourWrites: true },
    );
    return { LotId: params.lotId, Watched: true, Type: watchType };
  },
});

export const unwatchLot = defineOperation({
  route: { number: 26, operationId: 'unwatchLot', group: 'Lots', method: 'delete', path: '/v1/me/watchlist/{lotId}', auth: 'member' },
  docs: {
    summary: 'Stop watching a lot (idempotent)',
    description: '200 whether or not the lot was watched.',
    examples: { response: { LotId: 412, Watched: false, Type: null } },
  },
  input: { params: lotParam },
  output: { response: watchResult },
  async handler({ params }, ctx) {
    await ctx.commands.run(
      watchlistStreamId(ctx.tenant.Tenant, ctx.member.Id),
      watchlistDecider,
      { type: 'UnwatchLot', tenant: ctx.tenant.Tenant, memberId: ctx.member.Id, lotId: params.lotId, at: ctx.now.toISOString() },
      { readYourWrites: true },
    );
    return { LotId: params.lotId, Watched: false, Type: null };
  },
});

export const watchlistCommandOperations = [watchLot, unwatchLot];
