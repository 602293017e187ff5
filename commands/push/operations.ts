// A member's push subscriptions (`PUT /v1/me/push-subscriptions`, `DELETE /v1/me/push-subscriptions/{id}`, PUSH.md
// operations 66–67), decided on the member's push stream; declared once (defineOperation) for routing, validation
// and the OpenAPI document.
import { randomUUID } from 'node:crypto';
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { ValidationError, type FieldError } from '../../src/errors.ts';
import { base64urlBytes, isP256Point } from '../../src/security/vapid.ts';
import { endpointHash, pushSubscriptions } from '../../projections/push/index.ts';
import { pushSubscriptionsStreamId } from './events.ts';
import { MAX_PUSH_SUBSCRIPTIONS, pushSubscriptionsDecider } from './decide.ts';

const subscriptionId = z
  .uuid('must be a uuid')
  .max(36)
  .openapi({ format: 'uuid', description: "The subscription's id, as `PUT /v1/me/push-subscriptions` answered it." });

const EXAMPLE = {
  endpoint:
    'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bHqjZxM0VImWWqDRN7U0a3AycjUf4O-byuxb_wJsKRaKvV_iKw56s16ekq6FUqoCF7k2nqIfY',
  expirationTime: null,
  keys: {
    p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
    auth: 'BTBZMqHH6r4Tts7J_aSIgg',
  },
  Language: 'sv',
};

/** The keys of a subscription, checked as RFC 8291 needs them: a P-256 point and a 16-byte secret. */
function keyErrors(keys: { p256dh: string; auth: string }): FieldError[] {
  const errors: FieldError[] = [];
  const point = base64urlBytes(keys.p256dh);
  if (!point || !isP256Point(point))
    errors.push({ field: 'body.keys.p256dh', message: 'must be an uncompressed P-256 point (65 bytes), base64url' });
  if (base64urlBytes(keys.auth)?.length !== 16) errors.push({ field: 'body.keys.auth', message: 'must be 16 bytes, base64url' });
  return errors;
}

export const subscribePush = defineOperation({
  route: {
    number: 66,
    operationId: 'subscribePush',
    group: 'Notifications',
    method: 'put',
    path: '/v1/me/push-subscriptions',
    auth: 'member',
  },
  docs: {
    summary: 'Have pushes sent to this browser or phone',
    description:
      'The body is the `PushSubscription` the browser gave (`JSON.stringify(subscription)`: `endpoint`, `expirationTime`, `keys`), made with the key of ' +
      "`GET /v1/push/key`, plus `Language` for the pushes (one of the house's; else the member's). The same endpoint again replaces its subscription " +
      `and keeps its \`Id\` and \`Created\`; another member's subscription of the endpoint ends (the browser is this member's now). At most ${MAX_PUSH_SUBSCRIPTIONS} per member (409). ` +
      'Keys that are not an uncompressed P-256 point and a 16-byte secret: 400. An endpoint at a push service the deployment does not send to, ' +
      'not `https` on port 443, or at an address that is not public: 400 `push-endpoint-refused`. What is pushed: outbid, won, lost and closing of timed bidding, and reminders of `Type` 3.',
    errors: [409],
    problems: ['push-endpoint-refused', 'push-subscriptions-full'],
    examples: { body: EXAMPLE, response: { Id: '3a4f9a2e-1d5b-4c6e-8f70-9a1b2c3d4e5f', Created: '2026-11-22T14:05:00.000Z' } },
  },
  input: {
    body: z
      .object({
        endpoint: z.string().min(1).max(2000).openapi({ description: "The push service's URL of this browser." }),
        expirationTime: z
          .number()
          .int()
          .min(0)
          .max(8.64e15)
          .nullable()
          .optional()
          .openapi({ description: 'When the subscription expires (epoch milliseconds), as the browser says; usually null.' }),
        keys: z
          .object({
            p256dh: z.string().max(100).openapi({ description: "The browser's P-256 public key, base64url (RFC 8291)." }),
            auth: z.string().max(100).openapi({ description: "The browser's 16-byte authentication secret, base64url." }),
          })
          .openapi('PushSubscriptionKeys'),
        Language: z
          .string()
          .max(10)
          .optional()
          .openapi({ description: "The language of the pushes, one of the house's; omitted: the member's language." }),
      })
      .openapi('PushSubscriptionRequest'),
  },
  output: {
    response: z
      .object({
        Id: subscriptionId,
        Created: z.string().max(30).openapi({ format: 'date-time', description: 'When the subscription of this endpoint was first made.' }),
      })
      .openapi('PushSubscription'),
  },
  async handler({ body }, ctx) {
    const errors = keyErrors(body.keys);
    if (body.Language !== undefined && !ctx.tenant.Languages.includes(body.Language))
      errors.push({ field: 'body.Language', message: `one of the house's languages: ${ctx.tenant.Languages.join(', ')}` });
    if (errors.length > 0) throw new ValidationError('The subscription is not valid.', errors);
    const verdict = await ctx.push.checkEndpoint(body.endpoint);
    if (!verdict.ok)
      throw new ValidationError(`The endpoint ${verdict.reason}.`, [{ field: 'body.endpoint', message: verdict.reason }], {
        code: 'push-endpoint-refused',
      });
    const tenant = ctx.tenant.Tenant;
    const memberId = ctx.member.Id;
    const at = ctx.now.toISOString();
    const { view } = await ctx.commands.run(
      pushSubscriptionsStreamId(tenant, memberId),
      pushSubscriptionsDecider,
      {
        type: 'Subscribe',
        tenant,
        memberId,
        subscriptionId: randomUUID(),
        endpoint: body.endpoint,
        endpointHost: verdict.url.hostname,
        p256dh: body.keys.p256dh,
        auth: body.keys.auth,
        expirationTime: body.expirationTime == null ? null : new Date(body.expirationTime).toISOString(),
        language: body.Language ?? null,
        at,
      },
      { readYourWrites: true },
    );
    // One browser, one member: whoever subscribed it before on this house no longer gets its pushes.
    const others = await pushSubscriptions(ctx.db).find({ EndpointHash: endpointHash(body.endpoint), MemberId: { $ne: memberId } });
    for (const other of new Set(others.map((s) => s.MemberId)))
      await ctx.commands.run(
        pushSubscriptionsStreamId(tenant, other),
        pushSubscriptionsDecider,
        { type: 'RemoveMoved', tenant, memberId: other, endpoint: body.endpoint, at },
        { readYourWrites: true },
      );
    return view!;
  },
});

export const unsubscribePush = defineOperation({
  route: {
    number: 67,
    operationId: 'unsubscribePush',
    group: 'Notifications',
    method: 'delete',
    path: '/v1/me/push-subscriptions/{id}',
    auth: 'member',
  },
  docs: {
    summary: 'Stop pushes to a browser or phone',
    description:
      "Removes one of the caller's push subscriptions: nothing is pushed to it afterwards. Unknown, removed already, or another member's: 404. " +
      'A page that turns notifications off also calls `subscription.unsubscribe()` in the browser.',
    errors: [404],
    examples: { response: { Id: '3a4f9a2e-1d5b-4c6e-8f70-9a1b2c3d4e5f' } },
  },
  input: { params: z.object({ id: subscriptionId }) },
  output: { response: z.object({ Id: subscriptionId }).openapi('PushSubscriptionRemoved') },
  async handler({ params }, ctx) {
    const tenant = ctx.tenant.Tenant;
    const subscription = params.id.toLowerCase();
    await ctx.commands.run(
      pushSubscriptionsStreamId(tenant, ctx.member.Id),
      pushSubscriptionsDecider,
      { type: 'Unsubscribe', tenant, memberId: ctx.member.Id, subscriptionId: subscription, at: ctx.now.toISOString() },
      { readYourWrites: true },
    );
    return { Id: subscription };
  },
});

export const pushCommandOperations = [subscribePush, unsubscribePush];
