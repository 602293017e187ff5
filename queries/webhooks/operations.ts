// The back office's webhooks as it reads them (BACKOFFICE.md "Webhooks"): the list, one, and its deliveries log.
import { defineOperation } from '../../src/http/operation.ts';
import { idText, int32Text, pagedEnvelope, z } from '../../src/http/schemas.ts';
import { NotFoundError } from '../../src/errors.ts';
import type { TenantScope } from '../../src/ports/read-models.ts';
import { webhooks, type WebhookDoc } from '../../projections/webhooks/index.ts';
import { webhookCursors, webhookDeliveries, type WebhookCursorDoc } from '../../commands/webhooks/collections.ts';
import { webhookExample, webhookSchema } from '../../commands/webhooks/dto.ts';

const idParam = z.object({ id: idText('The webhook id.') });

/** `token`: a log position as the house sees it (ctx.feed.token). */
function webhookOf(doc: WebhookDoc, cursor: WebhookCursorDoc | null, token: (position: number) => string) {
  return {
    Id: doc.Id,
    Url: doc.Url,
    Types: doc.Types,
    Description: doc.Description,
    Status: doc.Status,
    CreatedAt: doc.CreatedAt,
    LastDeliveredPosition: cursor?.LastDeliveredPosition != null ? token(cursor.LastDeliveredPosition) : null,
  };
}

async function findWebhook(db: TenantScope, id: number) {
  const doc = await webhooks(db).findById(String(id));
  if (!doc) throw new NotFoundError(`No webhook ${id}.`);
  return doc;
}

export const listWebhooks = defineOperation({
  route: {
    number: 7,
    operationId: 'listWebhooks',
    group: 'Back office',
    method: 'get',
    path: '/backoffice/v1/webhooks',
    auth: 'backoffice',
  },
  docs: { summary: "The house's webhooks", description: 'Oldest first; never their secrets.', examples: { response: [webhookExample] } },
  output: { response: z.array(webhookSchema).max(20) },
  async handler(_input, ctx) {
    const [docs, cursors] = await Promise.all([webhooks(ctx.db).find({}, { sort: [['Id', 1]] }), webhookCursors(ctx.db).find({})]);
    const cursorOf = new Map(cursors.map((c) => [c.WebhookId, c]));
    return docs.map((doc) => webhookOf(doc, cursorOf.get(doc.Id) ?? null, ctx.feed.token));
  },
});

export const getWebhook = defineOperation({
  route: {
    number: 8,
    operationId: 'getWebhook',
    group: 'Back office',
    method: 'get',
    path: '/backoffice/v1/webhooks/{id}',
    auth: 'backoffice',
  },
  docs: {
    summary: 'One webhook',
    description: "Never its secret. Unknown (or another house's): `404`.",
    errors: [404],
    examples: { response: webhookExample },
  },
  input: { params: idParam },
  output: { response: webhookSchema },
  async handler({ params }, ctx) {
    const doc = await findWebhook(ctx.db, params.id);
    return webhookOf(doc, await webhookCursors(ctx.db).findById(String(params.id)), ctx.feed.token);
  },
});

const deliverySchema = z
  .object({
    EventId: z.string().max(36).openapi({ description: "The event's `Id` (the delivery's `webhook-id` header)." }),
    Type: z.string().max(100),
    Position: z.string().max(100),
    Attempt: z.number().int().min(1).max(8).openapi({ description: 'The try: 1 the first, 2 to 8 the retries.' }),
    Outcome: z.enum(['delivered', 'failed', 'pending']).openapi({ description: '`pending`: a retry waits (its `At` is when it is due).' }),
    ResponseStatus: z
      .number()
      .int()
      .min(100)
      .max(599)
      .nullable()
      .openapi({ description: "The receiver's status code (null: no answer, or not tried yet)." }),
    At: z.string().max(30).openapi({ format: 'date-time' }),
  })
  .openapi('WebhookDelivery');

/** Default page size of the deliveries log. */
const DELIVERIES_PAGE = 20;

export const listDeliveries = defineOperation({
  route: {
    number: 9,
    operationId: 'listWebhookDeliveries',
    group: 'Back office',
    method: 'get',
    path: '/backoffice/v1/webhooks/{id}/deliveries',
    auth: 'backoffice',
  },
  docs: {
    summary: "A webhook's deliveries, newest first",
    description:
      'One line per try (the last 1,000 tries are kept), and first a `pending` line while a retry waits. Unknown webhook: `404`.',
    errors: [404],
    examples: {
      response: {
        Items: [
          {
            EventId: '0c2f6f7e-8b1a-5c3d-9e4f-a1b2c3d4e5f6',
            Type: 'MemberSignedUp',
            Position: 'HTH6bF7FdqN-CPwJg4Zi1w',
            Attempt: 1,
            Outcome: 'delivered',
            ResponseStatus: 204,
            At: '2026-11-20T09:30:01.000Z',
          },
        ],
        TotalCount: 1,
        Page: 1,
        PageSize: 20,
        TotalPages: 1,
      },
    },
  },
  input: {
    params: idParam,
    query: z.object({
      page: int32Text({ min: 1, description: '1-based page number.' }).optional(),
      pageSize: int32Text({ min: 1, max: 100, description: `Items per page, at most 100 (default ${DELIVERIES_PAGE}).` }).optional(),
    }),
  },
  output: { response: pagedEnvelope(deliverySchema, 'WebhookDeliveriesPage') },
  async handler({ params, query }, ctx) {
    await findWebhook(ctx.db, params.id);
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? DELIVERIES_PAGE;
    const cursor = await webhookCursors(ctx.db).findById(String(params.id));
    const pending =
      cursor?.NextAttemptAt != null && cursor.PendingEventId !== null
        ? [
            {
              EventId: cursor.PendingEventId,
              Type: cursor.PendingType ?? '',
              Position: ctx.feed.token(cursor.PendingPosition ?? 0),
              Attempt: cursor.Attempt + 1,
              Outcome: 'pending' as const,
              ResponseStatus: null,
              At: new Date(cursor.NextAttemptAt).toISOString(),
            },
          ]
        : [];
    const lines = webhookDeliveries(ctx.db);
    const filter = { WebhookId: params.id };
    const total = (await lines.countDocuments(filter)) + pending.length;
    const skip = (page - 1) * pageSize;
    const fromPending = pending.slice(skip, skip + pageSize);
    const stored = await lines.find(filter, {
      sort: [['Line', -1]],
      skip: Math.max(0, skip - pending.length),
      limit: pageSize - fromPending.length,
    });
    return {
      Items: [
        ...fromPending,
        ...stored.map((d) => ({
          EventId: d.EventId,
          Type: d.Type,
          Position: ctx.feed.token(d.Position),
          Attempt: d.Attempt,
          Outcome: d.Outcome,
          ResponseStatus: d.ResponseStatus,
          At: d.At,
        })),
      ],
      TotalCount: total,
      Page: page,
      PageSize: pageSize,
      TotalPages: Math.ceil(total / pageSize),
    };
  },
});

export const webhooksQueryOperations = [listWebhooks, getWebhook, listDeliveries];
