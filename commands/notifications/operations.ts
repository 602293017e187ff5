// Lot-end reminders, asked for and removed (`POST /v1/me/notifications`, `DELETE /v1/me/notifications/{id}`),
// and a kind of notification mail stopped with the one-click link of one (`POST /v1/notifications/unsubscribe`),
// decided on the member's reminder stream; declared once (defineOperation) for routing, validation and the
// OpenAPI document.
import { randomUUID } from 'node:crypto';
import { defineOperation } from '../../src/http/operation.ts';
import { INT32_MAX, z } from '../../src/http/schemas.ts';
import { catalogueLots } from '../../projections/catalogue/index.ts';
import { NotFoundError, ValidationError } from '../../src/errors.ts';
import { UNSUBSCRIBE_LINK_DAYS, UNSUBSCRIBE_PATH, type UnsubscribeClaims } from '../../src/security/mail-links.ts';
import { legacyPendingFilter, notificationSubscriptions } from '../../projections/notifications/index.ts';
import {
  legacyNotificationStreamId,
  mailKinds,
  MAX_MINUTES_BEFORE,
  memberNotificationsStreamId,
  NotificationSubscribed,
  type MailKind,
  type NotificationChannel,
} from './events.ts';
import { legacySubscriptionDecider, memberNotificationsDecider, SameReminderPending } from './decide.ts';
import { currentPhone } from './recipient.ts';

const channelOfType: Record<1 | 2 | 3, NotificationChannel> = { 1: 'email', 2: 'sms', 3: 'push' };

const subscriptionId = z
  .uuid('must be a uuid')
  .max(36)
  .openapi({ format: 'uuid', description: "The subscription's id, as `POST /v1/me/notifications` answered it." });

const receipt = z.object({ Id: subscriptionId }).openapi('NotificationSubscription');

export const subscribeNotification = defineOperation({
  route: {
    number: 52,
    operationId: 'subscribeNotification',
    group: 'Notifications',
    method: 'post',
    path: '/v1/me/notifications',
    auth: 'member',
  },
  docs: {
    summary: 'Be reminded before a lot ends, by e-mail, SMS or push',
    description:
      "Sends one reminder naming the lot's number and title `SendTime` minutes before the lot's actual end time: when the house moves the end time, " +
      'or closes the lot early, the reminder moves with it; when that moment has already passed and the lot is still open, it is sent at once. ' +
      "`GeneralId` is the lot (unknown, or another house's: 404; closed: 409). `Type` 1 is e-mail to the account's address, 2 is SMS to the profile's phone " +
      "(400 when the profile has none), 3 is a push to every push subscription the member has when it is due (`PUT /v1/me/push-subscriptions`; none then: not sent). `MemberId` is ignored (the member is the token's) and `EndDateTime` is informational. " +
      'Asking again for the same lot, `SendTime` and `Type` while that reminder is pending answers the same `Id`. At most 1,000 pending reminders per member (409).',
    errors: [404, 409],
    problems: ['phone-number-required', 'reminder-exists', 'bidding-ended', 'reminder-limit-reached'],
    examples: {
      body: { GeneralId: 412, EndDateTime: '2026-11-29T18:00:00Z', SendTime: 30, Type: 1 },
      response: { Id: '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b' },
    },
  },
  input: {
    body: z
      .object({
        MemberId: z
          .number()
          .int()
          .min(-Number.MAX_SAFE_INTEGER)
          .max(Number.MAX_SAFE_INTEGER)
          .nullable()
          .optional()
          .openapi({ description: "Ignored: the member is always the token's." }),
        GeneralId: z.number().int().min(1).max(INT32_MAX).openapi({ description: 'The lot to be reminded of.' }),
        EndDateTime: z.iso
          .datetime({ offset: true, local: true, error: 'must be an RFC 3339 date-time' })
          .max(40)
          .nullable()
          .optional()
          .openapi({ description: "Informational: the lot's end time as the client knows it. The lot's actual end time counts." }),
        SendTime: z
          .number()
          .int()
          .min(0, 'must be 0 to 10080 minutes')
          .max(MAX_MINUTES_BEFORE, 'must be 0 to 10080 minutes')
          .openapi({ description: "Minutes before the lot's end to send the reminder: 0 (at the end) to 10,080 (a week)." }),
        Type: z
          .number()
          .int()
          .min(1, 'must be 1 (e-mail), 2 (SMS) or 3 (push)')
          .max(3, 'must be 1 (e-mail), 2 (SMS) or 3 (push)')
          .openapi({ description: 'The channel: 1 = e-mail, 2 = SMS, 3 = push (PUSH.md).' }),
      })
      .openapi('AddPushNotificationRequest'),
  },
  output: { response: receipt },
  async handler({ body }, ctx) {
    const tenant = ctx.tenant.Tenant;
    const memberId = ctx.member.Id;
    const channel = channelOfType[body.Type as 1 | 2 | 3];
    const at = ctx.now.toISOString();
    const lot = await catalogueLots(ctx.db).findById(String(body.GeneralId));
    const open = lot !== null && Date.parse(lot.EndTime) > ctx.now.getTime();
    // Pending reminders made before the member stream (on streams of their own): they count against the limit,
    // and one asking for the same as this request is answered as the retry rule says.
    const subscriptions = notificationSubscriptions(ctx.db);
    const legacyPending = open ? await subscriptions.countDocuments(legacyPendingFilter(memberId)) : 0;
    if (legacyPending > 0) {
      const same = { $and: [legacyPendingFilter(memberId), { LotId: body.GeneralId, SendTime: body.SendTime, Channel: channel }] };
      const pending = await subscriptions.findOne(same);
      if (pending) return { Id: pending.Id };
    }
    const id = randomUUID();
    try {
      await ctx.commands.run(
        memberNotificationsStreamId(tenant, memberId),
        memberNotificationsDecider,
        {
          type: 'Subscribe',
          tenant,
          subscriptionId: id,
          memberId,
          lotId: body.GeneralId,
          minutesBefore: body.SendTime,
          channel,
          clientEndTime: body.EndDateTime ?? null,
          lot: lot && { endTime: lot.EndTime },
          hasPhone: channel === 'sms' ? (await currentPhone(ctx.db, ctx.member)) !== null : true,
          legacyPending,
          at,
        },
        { readYourWrites: true },
      );
    } catch (error) {
      if (!(error instanceof SameReminderPending)) throw error;
      // The same reminder, pending (perhaps appended a moment ago by a parallel request): its id, once readable.
      await ctx.commands.catchUp([NotificationSubscribed.type]);
      return { Id: error.subscriptionId };
    }
    return { Id: id };
  },
});

export const unsubscribeNotification = defineOperation({
  route: {
    number: 53,
    operationId: 'unsubscribeNotification',
    group: 'Notifications',
    method: 'delete',
    path: '/v1/me/notifications/{id}',
    auth: 'member',
  },
  docs: {
    summary: 'Remove a lot-end reminder',
    description:
      "Removes one of the caller's reminders; a reminder removed before its time is never sent. Unknown, already removed, or another member's: 404. " +
      'An id that is not a uuid: 400.',
    errors: [404],
    examples: { response: { Id: '7d9f1c2e-4b3a-4e5f-9a8b-0c1d2e3f4a5b' } },
  },
  input: { params: z.object({ id: subscriptionId }) },
  output: { response: receipt },
  async handler({ params }, ctx) {
    const id = params.id.toLowerCase();
    const tenant = ctx.tenant.Tenant;
    const command = { type: 'Unsubscribe' as const, tenant, subscriptionId: id, memberId: ctx.member.Id, at: ctx.now.toISOString() };
    const options = { readYourWrites: true };
    try {
      await ctx.commands.run(memberNotificationsStreamId(tenant, ctx.member.Id), memberNotificationsDecider, command, options);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // Not on the caller's stream: a subscription made before it, on its own stream (404 there too when it is not the caller's).
      await ctx.commands.run(legacyNotificationStreamId(tenant, id), legacySubscriptionDecider, command, options);
    }
    return { Id: id };
  },
});

/** The kind a link names and its scope, as this service makes them: `reminder` of all, `outbid` of one auction. */
function stopped(link: UnsubscribeClaims): { kind: MailKind; auctionId: number | null } {
  const kind = mailKinds.find((k) => k === link.kind);
  if (kind === 'reminder' && link.scope === null) return { kind, auctionId: null };
  if (kind === 'outbid' && link.scope !== null) return { kind, auctionId: link.scope };
  throw new ValidationError('This link is not valid.', [{ field: 'query.token', message: 'names no kind of notification' }], {
    code: 'unsubscribe-link-invalid',
  });
}

export const unsubscribeByLink = defineOperation({
  route: {
    number: 68,
    operationId: 'unsubscribeByLink',
    group: 'Notifications',
    method: 'post',
    path: UNSUBSCRIBE_PATH,
    auth: 'link',
  },
  docs: {
    summary: 'Unsubscribe from a kind of notification mail with one click (RFC 8058)',
    description:
      'The URL of the `List-Unsubscribe` header of every notification mail (lot-end reminders by e-mail, "outbid" mails), which also carries ' +
      '`List-Unsubscribe-Post: List-Unsubscribe=One-Click`: a mailbox provider POSTs `List-Unsubscribe=One-Click` to it when the member asks, with no other credential. ' +
      'It stops that kind of notification for that member: a reminder link removes every reminder by e-mail pending now (a reminder asked for later is sent; SMS reminders stay), ' +
      'an outbid link stops the "outbid" mails of that auction. A `GET` of the URL (a mail scanner following links) changes nothing: `405`. ' +
      `A link works once (used again: \`404\`) and for ${UNSUBSCRIBE_LINK_DAYS} days; a token this service did not sign, changed, or of another house or member: \`400\`. ` +
      'Account mails (confirmation, password reset) and invoice notices carry no such link.',
    problems: ['unsubscribe-link-used'],
    examples: { response: { Kind: 'outbid', AuctionId: 4 } },
  },
  input: {
    query: z.object({
      token: z.string().min(1).max(1024).openapi({ description: 'The signed token of the link, as the mail gives it.' }),
    }),
    form: {
      fields: z.object({
        'List-Unsubscribe': z.literal('One-Click').openapi({ description: 'What RFC 8058 has a mailbox provider send: `One-Click`.' }),
      }),
      maxBytes: 4096,
      description: 'The one field of RFC 8058, as an HTML form posts it (multipart/form-data or application/x-www-form-urlencoded).',
      example: { 'List-Unsubscribe': 'One-Click' },
    },
  },
  output: {
    response: z
      .object({
        Kind: z
          .enum(mailKinds)
          .openapi({ description: '`reminder`: lot-end reminders by e-mail; `outbid`: the "outbid" mails of `AuctionId`.' }),
        AuctionId: z
          .number()
          .int()
          .min(1)
          .max(INT32_MAX)
          .nullable()
          .openapi({ description: 'The auction of an `outbid` link; null for `reminder`.' }),
      })
      .openapi('Unsubscribed'),
  },
  async handler(_input, ctx) {
    const { link, tenant } = ctx;
    const { kind, auctionId } = stopped(link);
    const memberId = link.memberId;
    const at = ctx.now.toISOString();
    const command = { type: 'StopMails' as const, tenant, memberId, kind, auctionId, linkId: link.linkId, at };
    await ctx.commands.run(memberNotificationsStreamId(tenant, memberId), memberNotificationsDecider, command, { readYourWrites: true });
    if (kind === 'reminder') {
      // Reminders made before the member stream are each on a stream of their own.
      const legacy = await notificationSubscriptions(ctx.db).find({ ...legacyPendingFilter(memberId), Channel: 'email' });
      for (const s of legacy) {
        const unsubscribe = { type: 'Unsubscribe' as const, tenant, subscriptionId: s.Id, memberId, at };
        await ctx.commands
          .run(legacyNotificationStreamId(tenant, s.Id), legacySubscriptionDecider, unsubscribe, { readYourWrites: true })
          .catch((error: unknown) => {
            if (!(error instanceof NotFoundError)) throw error; // removed meanwhile
          });
      }
    }
    return { Kind: kind, AuctionId: auctionId };
  },
});

export const notificationsCommandOperations = [subscribeNotification, unsubscribeNotification, unsubscribeByLink];
