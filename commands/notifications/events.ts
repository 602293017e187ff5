import { z } from 'zod';
import { defineEvent, defineEvents, isoDateTime, positiveId, tenantId, type EventsOf } from '../../src/events/define.ts';

/** How a reminder is delivered: `Type` 1 of the API is `email`, 2 is `sms`, 3 is `push` (added compatibly: PUSH.md). */
export const notificationChannels = ['email', 'sms', 'push'] as const;
export type NotificationChannel = (typeof notificationChannels)[number];

/** The largest `SendTime`: a week before the lot's end, in minutes. */
export const MAX_MINUTES_BEFORE = 10_080;

/** Why a reminder was not sent: nobody to send it to, or the lot ended before it could go out. */
export const skipReasons = ['no-phone', 'member-removed', 'lot-ended', 'no-push-subscription'] as const;
export type SkipReason = (typeof skipReasons)[number];

/**
 * One stream per member: the limit of pending reminders and the retry rule are decided on it, with its expected
 * revision. Subscriptions made before it have a stream each (LEGACY_STREAM), with the same event types and data:
 * still read, sent, skipped and removed there; nothing new is subscribed on one.
 */
const STREAM = 'notifications-{tenant}-{memberId}';
const LEGACY_STREAM = 'notification-{tenant}-{subscriptionId}';
const olderStreams = ` Subscriptions made before the per-member stream live on \`${LEGACY_STREAM}\` (one stream per subscription), with all their events.`;

const subscription = {
  tenant: tenantId,
  subscriptionId: z.uuid(),
  memberId: positiveId,
  lotId: positiveId,
};

export const NotificationSubscribed = defineEvent({
  type: 'NotificationSubscribed',
  version: 1,
  stream: STREAM,
  description:
    "A bidder asked to be reminded of a lot's end: `minutesBefore` minutes before the lot's actual end time, by e-mail, SMS or push (`push`, added compatibly: to every push subscription of the member). " +
    "`lotEndTime` is the lot's end time when subscribing; `clientEndTime` is the `EndDateTime` the client sent, as sent (informational, never used)." +
    olderStreams,
  schema: z.object({
    ...subscription,
    minutesBefore: z.number().int().min(0).max(MAX_MINUTES_BEFORE),
    channel: z.enum(notificationChannels),
    lotEndTime: isoDateTime,
    clientEndTime: z.string().max(40).nullable(),
    at: isoDateTime,
  }),
});

export const NotificationUnsubscribed = defineEvent({
  type: 'NotificationUnsubscribed',
  version: 1,
  stream: STREAM,
  description: 'A bidder removed a lot-end reminder; nothing is sent for it after this.' + olderStreams,
  schema: z.object({ ...subscription, at: isoDateTime }),
});

export const NotificationDispatched = defineEvent({
  type: 'NotificationDispatched',
  version: 1,
  stream: STREAM,
  description:
    'A lot-end reminder was handed to the mail or SMS gateway (outbox message `messageId`), or to the push subscriptions of the member (`push`), for the lot ending at `lotEndTime`. A subscription sends once.' +
    olderStreams,
  schema: z.object({
    ...subscription,
    channel: z.enum(notificationChannels),
    messageId: z.string().min(1).max(200),
    lotEndTime: isoDateTime,
    at: isoDateTime,
  }),
});

export const NotificationSkipped = defineEvent({
  type: 'NotificationSkipped',
  version: 1,
  stream: STREAM,
  description:
    'A lot-end reminder was not sent, and nothing more is sent for it: `no-phone` (an SMS reminder, and the member has no phone number any more), ' +
    '`member-removed`, `lot-ended` (the lot ended before the reminder could go out: it closed early, or the service was down at the moment), ' +
    'or `no-push-subscription` (a push reminder, and the member has no push subscription at that moment; added compatibly).' +
    olderStreams,
  schema: z.object({ ...subscription, channel: z.enum(notificationChannels), reason: z.enum(skipReasons), at: isoDateTime }),
});

/**
 * The kinds of notification mail a member can unsubscribe from with the one-click link every such mail carries
 * (RFC 8058): `reminder`, the lot-end reminders by e-mail; `outbid`, the "outbid" mails of one auction.
 */
export const mailKinds = ['reminder', 'outbid'] as const;
export type MailKind = (typeof mailKinds)[number];

export const NotificationMailsStopped = defineEvent({
  type: 'NotificationMailsStopped',
  version: 1,
  stream: STREAM,
  description:
    'A member unsubscribed from a kind of notification mail with the one-click link of one (RFC 8058 `List-Unsubscribe`), no sign-in: ' +
    '`reminder` stops every lot-end reminder by e-mail pending then (each also gets NotificationUnsubscribed; a reminder asked for later is sent), ' +
    '`outbid` stops the "outbid" mails of auction `auctionId` for good. `linkId` names the link, which works once.',
  private: ['linkId'],
  schema: z.object({
    tenant: tenantId,
    memberId: positiveId,
    kind: z.enum(mailKinds),
    /** The auction of `outbid`; null for `reminder`. */
    auctionId: positiveId.nullable(),
    linkId: z.string().min(16).max(64),
    at: isoDateTime,
  }),
});

export const notificationsEvents = defineEvents([
  NotificationSubscribed,
  NotificationUnsubscribed,
  NotificationDispatched,
  NotificationSkipped,
  NotificationMailsStopped,
]);
export type NotificationsEvent = EventsOf<typeof notificationsEvents>;

/** A member's reminders: every new subscription and its events; the limit of pending reminders is decided on it. */
export const memberNotificationsStreamId = (tenant: string, memberId: number) => `notifications-${tenant}-${memberId}`;
/** A subscription made before the per-member stream: its own stream, read (never added to) as long as logs hold it. */
export const legacyNotificationStreamId = (tenant: string, subscriptionId: string) => `notification-${tenant}-${subscriptionId}`;
/** The outbox message of a subscription: one id per subscription, so a repeated send delivers once. */
export const notificationMessageId = (subscriptionId: string) => `notification-${subscriptionId}`;
