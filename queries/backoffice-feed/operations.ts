// The back office's event feed, paged (BACKOFFICE.md "The event feed"): GET /backoffice/v1/events.
import { defineOperation } from '../../src/http/operation.ts';
import { int32Text, z } from '../../src/http/schemas.ts';
import { ValidationError } from '../../src/errors.ts';
import { decodePosition, encodePosition } from './position.ts';

const MAX_TYPES_TEXT = 10_000;

const feedItemSchema = z
  .object({
    Id: z.string().uuid().openapi({ description: "The event's id, the same forever: receivers deduplicate by it." }),
    Type: z.string(),
    Version: z.number().int(),
    Stream: z.string(),
    Revision: z.number().int().min(0),
    Position: z.string().openapi({ description: 'Opaque: give it back as `after`; compare only for equality.' }),
    Time: z.string().openapi({ format: 'date-time' }),
    Data: z.record(z.string(), z.unknown()).openapi({ description: "The event's data (docs/events.md), less its private fields." }),
  })
  .openapi('FeedItem');

export const listEvents = defineOperation({
  route: {
    number: 1,
    operationId: 'listBackOfficeEvents',
    group: 'Back office',
    method: 'get',
    path: '/backoffice/v1/events',
    auth: 'backoffice',
  },
  docs: {
    summary: "The house's events, in log order, a page at a time",
    description:
      "Every event of the key's tenant (never an operator's record), in the order of the log, `limit` at a time after `after`. " +
      'With `wait`, a request that finds nothing newer waits up to that many seconds for an event and answers as soon as one comes.',
    errors: [400],
  },
  input: {
    query: z.object({
      after: z
        .string()
        .max(100)
        .optional()
        .openapi({ description: 'A `Position` (or `Next`) the feed gave; omitted: from the beginning.' }),
      types: z.string().max(MAX_TYPES_TEXT).optional().openapi({ description: 'Comma-separated event types; omitted: every type.' }),
      limit: int32Text({ min: 1, max: 1000, description: 'Items per page, 1 to 1,000 (default 100).' }).optional(),
      wait: int32Text({ min: 0, max: 60, description: 'Seconds to wait when nothing newer exists, 0 to 60 (default 0).' }).optional(),
    }),
  },
  output: {
    response: z
      .object({
        Items: z.array(feedItemSchema).max(1000),
        Next: z
          .string()
          .openapi({ description: "Give it as `after` for the next page: the last item's position, or `after` when there are none." }),
        HasMore: z.boolean().openapi({ description: 'More events follow (ask again at once).' }),
      })
      .openapi('FeedPage'),
  },
  async handler({ query }, ctx) {
    let after = 0;
    if (query.after !== undefined && query.after !== '') {
      const decoded = decodePosition(query.after);
      if (decoded === null)
        throw new ValidationError('after is not a position this feed gave.', [
          { field: 'query.after', message: 'is not a known position' },
        ]);
      after = decoded;
    }
    let types: Set<string> | null = null;
    if (query.types !== undefined && query.types.trim() !== '') {
      const known = new Set(ctx.feedTypes);
      types = new Set(query.types.split(',').map((t) => t.trim()));
      const unknown = [...types].filter((t) => !known.has(t));
      if (unknown.length > 0)
        throw new ValidationError(`Unknown event types: ${unknown.slice(0, 10).join(', ')}.`, [
          { field: 'query.types', message: `unknown types: ${unknown.slice(0, 10).join(', ')}` },
        ]);
    }
    // A client that goes away while waiting ends its wait (and the log subscription it holds).
    const gone = new AbortController();
    const onClose = () => gone.abort();
    ctx.res.once('close', onClose);
    const page = await ctx.feed
      .page({ after, types, limit: query.limit ?? 100, waitMs: (query.wait ?? 0) * 1000, signal: gone.signal })
      .finally(() => ctx.res.off('close', onClose));
    const last = page.events.at(-1);
    return {
      Items: page.events.map((e) => ({
        Id: e.id,
        Type: e.type,
        Version: e.version,
        Stream: e.streamId,
        Revision: e.revision,
        Position: encodePosition(e.position),
        Time: e.created,
        Data: e.data,
      })),
      Next: last ? encodePosition(last.position) : encodePosition(after),
      HasMore: page.hasMore,
    };
  },
});

export const backofficeFeedOperations = [listEvents];
