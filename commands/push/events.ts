// Web Push subscriptions of a member's browsers and phones (PUSH.md operations 66–67), one stream per member: the
// limit of 20 and the rule of one subscription per endpoint are decided on it, with its expected revision.
import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, languageCode, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

const STREAM = 'push-subscriptions-{tenant}-{memberId}';

/** Why a subscription ended: its member removed it, the push service said it is gone, or another member subscribed its endpoint. */
export const pushRemovalReasons = ['member', 'gone', 'moved'] as const;
export type PushRemovalReason = (typeof pushRemovalReasons)[number];

export const PushSubscriptionAdded = defineEvent({
  type: 'PushSubscriptionAdded',
  version: 1,
  stream: STREAM,
  description:
    "A member's browser or phone subscribed to pushes (`PUT /v1/me/push-subscriptions`): the push service's endpoint and the keys the messages are " +
    'encrypted to (RFC 8291), all three private. The same endpoint again replaces the subscription and keeps its `subscriptionId` and `created`. ' +
    "`endpointHost` names the push service; `language` the one the member asked the pushes in (null: the member's); `expirationTime` the browser's, if any.",
  private: ['endpoint', 'p256dh', 'auth'],
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    subscriptionId: z.uuid(),
    endpoint: z.string().min(1).max(2000),
    endpointHost: z.string().min(1).max(253),
    /** The browser's P-256 public key (65 bytes), base64url. */
    p256dh: z.string().length(87),
    /** The browser's authentication secret (16 bytes), base64url. */
    auth: z.string().length(22),
    expirationTime: isoDateTime.nullable(),
    language: languageCode.nullable(),
    /** When the subscription was first made (kept when its endpoint subscribes again). */
    created: isoDateTime,
    at: isoDateTime,
  }),
});

export const PushSubscriptionRemoved = defineEvent({
  type: 'PushSubscriptionRemoved',
  version: 1,
  stream: STREAM,
  description:
    'A push subscription ended: `member` (the member removed it, `DELETE /v1/me/push-subscriptions/{id}`), `gone` (the push service answered ' +
    '`404` or `410`, its `status`: the browser unsubscribed or the subscription expired), or `moved` (another member of the house subscribed the ' +
    'same endpoint: one browser, signed in by someone else). Nothing is pushed to it afterwards.',
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    subscriptionId: z.uuid(),
    reason: z.enum(pushRemovalReasons),
    /** The push service's answer that ended it (`gone`); null otherwise. */
    status: z.number().int().min(100).max(599).nullable(),
    at: isoDateTime,
  }),
});

export const pushEvents = defineEvents([PushSubscriptionAdded, PushSubscriptionRemoved]);
export type PushEvent = EventsOf<typeof pushEvents>;

/** A member's push subscriptions. */
export const pushSubscriptionsStreamId = (tenant: string, memberId: number) => `push-subscriptions-${tenant}-${memberId}`;
