// The back office's event feed, paged (BACKOFFICE.md "The event feed"): GET /backoffice/v1/events.
import { defineOperation } from '../../src/http/operation.ts';
import { INT32_MAX, int32Text, z } from '../../src/http/schemas.ts';
import { feedItemJson, feedItemsJson } from '../../src/events/feed-items.ts';
import { feedTypesOf } from '../../src/events/feed.ts';
import { openEventStream, StreamedAnswer } from '../../src/http/event-stream.ts';
import { JsonAnswer } from '../../src/http/json-answer.ts';
import type { BackOfficeContext } from '../../src/http/operation.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { UnauthorizedError } from '../../src/errors.ts';
import { backOfficeKeyStreamId } from '../../commands/access/events.ts';

const MAX_TYPES_TEXT = 10_000;
/** Events a stream reads at a time, and the longest it stays silent (a comment line then: BACKOFFICE.md says 15 s). */
const STREAM_PAGE = 500;
const HEARTBEAT_MS = 14_000;

const positionParam = z
  .string()
  .max(100)
  .optional()
  .openapi({ description: 'A `Position` (or `Next`) the feed gave; omitted: from the beginning.' });
const typesParam = z.string().max(MAX_TYPES_TEXT).optional().openapi({ description: 'Comma-separated event types; omitted: every type.' });

/** The types asked for (null: all); an unknown one is a 400 naming it. */
const typesOf = (text: string | undefined, known: readonly string[]) =>
  text === undefined || text.trim() === ''
    ? null
    : feedTypesOf(
        text.split(',').map((t) => t.trim()),
        known,
        'query.types',
      );

/**
 * Revocation holds at once for readers too (BACKOFFICE.md "Credential"): a wait ends when the log takes an event of
 * the key's own stream (revoked, or issued again with another value), and no page read meanwhile is handed over
 * before the key is checked again.
 */
const keyChanges = (ctx: BackOfficeContext) => {
  const stream = backOfficeKeyStreamId(ctx.tenant, ctx.keyId);
  return (event: RecordedEvent) => event.streamId === stream;
};
const REVOKED = 'This back-office key was revoked or replaced.';
const ITEMS = Buffer.from('{"Items":');

const feedItemSchema = z
  .object({
    Id: z.string().uuid().max(36).openapi({ description: "The event's id, the same forever: receivers deduplicate by it." }),
    Type: z.string().max(100),
    Version: z.number().int().min(1).max(INT32_MAX),
    Stream: z.string().max(500),
    Revision: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    Position: z.string().max(100).openapi({ description: 'Opaque: give it back as `after`; compare only for equality.' }),
    Time: z.string().max(30).openapi({ format: 'date-time' }),
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
      'With `wait`, a request that finds nothing newer waits up to that many seconds for an event and answers as soon as one comes. ' +
      "A house holds at most half of a process's streams and waiting requests (`429`, `Retry-After`).",
    errors: [400, 429, 503],
    problems: ['too-many-streams'],
    examples: {
      response: {
        Items: [
          {
            Id: '0c2f6f7e-8b1a-5c3d-9e4f-a1b2c3d4e5f6',
            Type: 'InterfaceTranslationsPublished',
            Version: 1,
            Stream: 'translations-demo-en',
            Revision: 3,
            Position: 'HTH6bF7FdqN-CPwJg4Zi1w',
            Time: '2026-11-20T09:30:00.000Z',
            Data: { tenant: 'demo', language: 'en', entries: { 'button.placeBid': 'Place bid' } },
          },
        ],
        Next: 'HTH6bF7FdqN-CPwJg4Zi1w',
        HasMore: false,
      },
    },
  },
  input: {
    query: z.object({
      after: positionParam,
      types: typesParam,
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
          .max(100)
          .openapi({ description: "Give it as `after` for the next page: the last item's position, or `after` when there are none." }),
        HasMore: z.boolean().openapi({ description: 'More events follow (ask again at once).' }),
      })
      .openapi('FeedPage'),
  },
  async handler({ query }, ctx) {
    const after = await ctx.feed.position(query.after ?? '', 'query.after');
    const types = typesOf(query.types, ctx.feedTypes);
    const wait = query.wait ?? 0;
    // A client that goes away while waiting ends its wait.
    const gone = new AbortController();
    const onClose = () => gone.abort();
    ctx.res.once('close', onClose);
    const done = wait > 0 ? ctx.feed.reading() : () => undefined;
    const page = await ctx.feed
      .page({ after, types, limit: query.limit ?? 100, waitMs: wait * 1000, signal: gone.signal, wakeOn: keyChanges(ctx) })
      .finally(() => {
        done();
        ctx.res.off('close', onClose);
      });
    if (!(await ctx.keyStillValid())) throw new UnauthorizedError('backoffice-key-invalid', REVOKED);
    const last = page.events.at(-1);
    const next = last ? last.token : ctx.feed.token(after);
    // The FeedPage's JSON made around its items' (the log's stored data passed on as its bytes, where it may be).
    const rest = Buffer.from(`,"Next":${JSON.stringify(next)},"HasMore":${page.hasMore}}`, 'utf8');
    return new JsonAnswer(Buffer.concat([ITEMS, ...feedItemsJson(page.events), rest]));
  },
});

export const streamEvents = defineOperation({
  route: {
    number: 2,
    operationId: 'streamBackOfficeEvents',
    group: 'Back office',
    method: 'get',
    path: '/backoffice/v1/events/stream',
    auth: 'backoffice',
  },
  docs: {
    summary: "The house's events as they happen (Server-Sent Events)",
    description:
      "A `text/event-stream` of the key's tenant's events in log order: each event's `id:` is the item's `Position`, `event:` its `Type`, `data:` the item as JSON (as in the paged feed). " +
      'A comment line comes at least every 15 seconds. A client that reconnects with `Last-Event-ID` (which EventSource sends by itself) misses nothing and gets nothing twice; ' +
      "`Last-Event-ID` wins over `after`. A house holds at most half of a process's streams and waiting requests (`429`, `Retry-After`).",
    errors: [400, 429, 503],
    problems: ['too-many-streams'],
  },
  input: {
    query: z.object({
      after: positionParam,
      types: typesParam,
    }),
  },
  output: { response: z.string().openapi({ description: 'A text/event-stream.' }), produces: ['text/event-stream'] },
  async handler({ query }, ctx) {
    const lastEventId = ctx.req.headers['last-event-id'];
    const resumeFrom = typeof lastEventId === 'string' && lastEventId.trim() !== '' ? lastEventId.trim() : undefined;
    let after =
      resumeFrom !== undefined
        ? await ctx.feed.position(resumeFrom, 'header.Last-Event-ID')
        : await ctx.feed.position(query.after ?? '', 'query.after');
    const types = typesOf(query.types, ctx.feedTypes);
    const done = ctx.feed.reading();
    const stream = openEventStream(ctx.res);
    const wakeOn = keyChanges(ctx);
    try {
      await stream.comment('stream open');
      while (!stream.gone.aborted && !ctx.stopping.aborted) {
        const page = await ctx.feed.page({ after, types, limit: STREAM_PAGE, waitMs: HEARTBEAT_MS, signal: stream.gone, wakeOn });
        // A key revoked or replaced ends the stream before anything read since is sent.
        if (!(await ctx.keyStillValid())) break;
        if (page.events.length === 0) {
          if (ctx.stopping.aborted || !(await stream.comment('heartbeat'))) break;
          // Nothing of this tenant and these types up to there: the next wait starts from it.
          after = page.through;
          continue;
        }
        const burst = page.events.map((event) => ({ id: event.token, type: event.type, json: feedItemJson(event) }));
        if (!(await stream.eventsJson(burst))) break;
        after = page.events.at(-1)!.position;
      }
    } finally {
      done();
      stream.end();
    }
    return StreamedAnswer.done;
  },
});

export const backofficeFeedOperations = [listEvents, streamEvents];
