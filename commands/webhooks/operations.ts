// Registering, deleting, enabling and replaying a webhook (BACKOFFICE.md "Webhooks"), decided on the tenant's
// webhooks stream; declared once (defineOperation) for routing, validation and the back office's OpenAPI document.
import { randomBytes } from 'node:crypto';
import { defineOperation, type BackOfficeContext } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { ValidationError } from '../../src/errors.ts';
import { feedTypesOf } from '../../src/events/feed.ts';
import { webhooksStreamId } from './events.ts';
import { webhooksDecider, type WebhookCommand } from './decide.ts';
import { webhookExample, webhookSchema } from './dto.ts';

const idParam = z.object({ id: idText('The webhook id.') });

const run = (ctx: BackOfficeContext, command: WebhookCommand) =>
  ctx.commands.run(webhooksStreamId(ctx.tenant), webhooksDecider, command, { readYourWrites: true });

export const registerWebhook = defineOperation({
  route: {
    number: 3,
    operationId: 'registerWebhook',
    group: 'Back office',
    method: 'post',
    path: '/backoffice/v1/webhooks',
    auth: 'backoffice',
  },
  docs: {
    summary: 'Register a webhook',
    description:
      "Deliveries start with the tenant's events after this registration (ask for a replay for earlier ones). `Url`: `https` only, no user or password, " +
      'and a host that resolves only to public addresses (checked again at each delivery); otherwise `400`. ' +
      '`Types` omitted or null: every event type. The answer carries `Secret`, shown only here: keep it to verify signatures. At most 20 webhooks a house (`409`).',
    errors: [409],
    problems: ['webhook-limit-reached'],
    examples: {
      body: { Url: webhookExample.Url, Types: webhookExample.Types, Description: webhookExample.Description },
      response: { ...webhookExample, LastDeliveredPosition: undefined, Secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    },
  },
  input: {
    body: z
      .object({
        Url: z.string().min(1).max(2000),
        Types: z.array(z.string().max(100)).min(1).max(200).nullable().optional(),
        Description: z.string().max(500).optional(),
      })
      .openapi('WebhookRequest'),
  },
  output: {
    response: webhookSchema
      .omit({ LastDeliveredPosition: true })
      .extend({
        Secret: z
          .string()
          .max(100)
          .openapi({ description: '`whsec_` and the base64 of 32 random bytes: the signing key, shown only once.' }),
      })
      .openapi('WebhookCreated'),
  },
  async handler({ body }, ctx) {
    const verdict = await ctx.urls.check(body.Url);
    if (!verdict.ok) throw new ValidationError(`Url ${verdict.reason}.`, [{ field: 'body.Url', message: verdict.reason }]);
    const types = body.Types ? [...feedTypesOf(body.Types, ctx.feedTypes, 'body.Types')] : null;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const at = ctx.now.toISOString();
    const result = await run(ctx, {
      type: 'RegisterWebhook',
      tenant: ctx.tenant,
      url: verdict.url.href,
      types,
      description: body.Description ?? '',
      secret,
      at,
    });
    const registered = result.events.find((e) => e.type === 'WebhookRegistered')!;
    return {
      Id: registered.data.webhookId,
      Url: verdict.url.href,
      Types: types,
      Description: body.Description ?? '',
      Status: 'active' as const,
      Secret: secret,
      CreatedAt: at,
    };
  },
});

const done = z
  .object({ Id: z.number().int().min(1).max(2147483647), Status: z.enum(['active', 'deleted', 'replaying']) })
  .openapi('WebhookChanged');

export const deleteWebhook = defineOperation({
  route: {
    number: 4,
    operationId: 'deleteWebhook',
    group: 'Back office',
    method: 'delete',
    path: '/backoffice/v1/webhooks/{id}',
    auth: 'backoffice',
  },
  docs: {
    summary: 'Delete a webhook',
    description: "Nothing more is delivered to it. Unknown (or another house's): `404`.",
    errors: [404],
    examples: { response: { Id: 3, Status: 'deleted' } },
  },
  input: { params: idParam },
  output: { response: done },
  async handler({ params }, ctx) {
    await run(ctx, { type: 'DeleteWebhook', tenant: ctx.tenant, webhookId: params.id, at: ctx.now.toISOString() });
    return { Id: params.id, Status: 'deleted' };
  },
});

export const enableWebhook = defineOperation({
  route: {
    number: 5,
    operationId: 'enableWebhook',
    group: 'Back office',
    method: 'post',
    path: '/backoffice/v1/webhooks/{id}/enable',
    auth: 'backoffice',
  },
  docs: {
    summary: 'Enable a disabled webhook',
    description:
      'It goes on from the event where it stopped (that event is tried again first). Enabling an active webhook changes nothing.',
    errors: [404],
    examples: { response: { Id: 3, Status: 'active' } },
  },
  input: { params: idParam },
  output: { response: done },
  async handler({ params }, ctx) {
    await run(ctx, { type: 'EnableWebhook', tenant: ctx.tenant, webhookId: params.id, at: ctx.now.toISOString() });
    return { Id: params.id, Status: 'active' };
  },
});

export const replayWebhook = defineOperation({
  route: {
    number: 6,
    operationId: 'replayWebhook',
    group: 'Back office',
    method: 'post',
    path: '/backoffice/v1/webhooks/{id}/replay',
    auth: 'backoffice',
  },
  docs: {
    summary: 'Deliver again every event after a position',
    description:
      '`After`: a `Position` the feed or a delivery gave (an empty text: from the beginning). The webhook gets every event of its types after it again, in order, then goes on as before; ' +
      'receivers deduplicate by `webhook-id`.',
    errors: [404],
    examples: { body: { After: 'HTH6bF7FdqN-CPwJg4Zi1w' }, response: { Id: 3, Status: 'replaying' } },
  },
  input: { params: idParam, body: z.object({ After: z.string().max(100) }).openapi('WebhookReplayRequest') },
  output: { response: done },
  async handler({ params, body }, ctx) {
    const after = await ctx.feed.position(body.After, 'body.After');
    await run(ctx, { type: 'ReplayWebhook', tenant: ctx.tenant, webhookId: params.id, after, at: ctx.now.toISOString() });
    return { Id: params.id, Status: 'replaying' };
  },
});

export const webhooksCommandOperations = [registerWebhook, deleteWebhook, enableWebhook, replayWebhook];
