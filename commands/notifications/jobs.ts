import type { EventLog } from '../../src/ports/event-log.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import type { JobOptions, JobProcessor, JobQueue } from '../../src/ports/jobs.ts';
import type { Outbox } from '../../src/ports/outbox.ts';
import type { JobDeps } from '../../src/feature.ts';
import type { Logger } from '../../src/logger.ts';
import type { MailLinks } from '../../src/security/mail-links.ts';
import type { EventOf } from '../../src/events/define.ts';
import { foldStream, runCommand } from '../../src/command-runner.ts';
import { senderOf, tenantSettings } from '../../projections/access/index.ts';
import { memberLanguage } from '../../projections/profile/index.ts';
import { mailHtml } from '../../src/text/mail.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { notificationSubscriptions, type NotificationSubscriptionDoc } from '../../projections/notifications/index.ts';
import { pushSubscriptions } from '../../projections/push/index.ts';
import { lotEvents, lotStreamId, type LotCatalogued, type LotEvent } from '../lots/events.ts';
import {
  legacySubscriptionDecider,
  memberNotificationsDecider,
  planReminder,
  type MemberNotificationsState,
  type SubscriptionCommand,
  type SubscriptionState,
} from './decide.ts';
import { legacyNotificationStreamId, memberNotificationsStreamId, notificationMessageId, type SkipReason } from './events.ts';
import { reminderMessage } from './message.ts';
import { currentPhone } from './recipient.ts';

/*
 * The reminder job as the reactor that plans it (reactors.ts) and its processor (below) both know it: its name,
 * its data and its options.
 */

/** The one job of reminders: plan a subscription, and send it when it is due. */
export const SEND_REMINDER = 'notification-reminder';

export interface ReminderJobData {
  tenant: string;
  subscriptionId: string;
  /**
   * The member, for a subscription on the member's stream. Absent for one made before it (on its own stream),
   * as in every job queued before the member stream: those are found on their own streams.
   */
  memberId?: number;
}

/** Options of a reminder job: keyed (a known id is ignored), retried with backoff, optionally delayed. */
export const reminderJob = (jobId: string, delayMs = 0): JobOptions => ({
  jobId,
  attempts: 8,
  backoffMs: 2000,
  ...(delayMs > 0 ? { delayMs } : {}),
});

/** The reminder job data that finds a subscription of the read model on its stream. */
export const reminderJobData = (
  tenant: string,
  s: Pick<NotificationSubscriptionDoc, 'Id' | 'MemberId' | 'OnMemberStream'>,
): ReminderJobData => (s.OnMemberStream ? { tenant, subscriptionId: s.Id, memberId: s.MemberId } : { tenant, subscriptionId: s.Id });

/** What a reminder needs of its lot's stream: the lot as last catalogued, its end time moved by bids (soft close), and its early close. */
interface LotEnd {
  catalogued: EventOf<typeof LotCatalogued>['data'] | null;
  extendedTo: string | null;
  closedAt: string | null;
}

const lotEnd = {
  events: lotEvents,
  initialState: (): LotEnd => ({ catalogued: null, extendedTo: null, closedAt: null }),
  evolve: (state: LotEnd, event: LotEvent): LotEnd => {
    if (event.type === 'LotCatalogued') return { ...state, catalogued: event.data };
    if (event.type === 'LotEndTimeExtended') return { ...state, extendedTo: event.data.endTime };
    if (event.type === 'LotClosed') return { ...state, closedAt: event.data.closedAt };
    return state;
  },
};

/** The delayed job of a subscription's moment: one per subscription and moment. */
export const reminderJobIdAt = (subscriptionId: string, fireAt: number) => `notification-${subscriptionId}-at-${fireAt}`;

export interface ReminderDeps {
  log: EventLog;
  links: Pick<MailLinks, 'unsubscribe'>;
  documents: DocumentStore;
  jobs: Pick<JobQueue, 'add'>;
  outbox: Outbox;
  logger: Pick<Logger, 'info' | 'warn'>;
  now: () => Date;
}

/** A subscription where it is recorded: its state, the job data that finds it, and how to record its outcome there. */
interface Located {
  subscription: SubscriptionState | null;
  data: ReminderJobData;
  record(command: SubscriptionCommand): Promise<unknown>;
}

/** Member streams folded by a job processor, kept so that the next job of a member reads only newer events. */
const FOLDED_MEMBER_STREAMS = 1000;

/**
 * Reads members' streams for jobs: a member holds up to 1,000 reminders on one stream, each with jobs of its own,
 * so each job folding the whole stream would cost in proportion to the member's history. The folded state is
 * kept (bounded); a job takes a copy of it, reads the events appended since, and leaves its newer copy (the
 * kept state is never changed in place, so jobs running at once never see each other's events twice).
 */
function memberStreamReader(log: EventLog) {
  const folded = new Map<string, { state: MemberNotificationsState; revision: number }>();
  return async (streamId: string): Promise<MemberNotificationsState> => {
    const kept = folded.get(streamId);
    let state: MemberNotificationsState = kept
      ? {
          subscriptions: new Map(kept.state.subscriptions),
          pendingByRequest: new Map(kept.state.pendingByRequest),
          pending: kept.state.pending,
          usedLinks: new Set(kept.state.usedLinks),
          outbidStopped: new Set(kept.state.outbidStopped),
        }
      : memberNotificationsDecider.initialState();
    let revision = kept ? kept.revision : -1;
    for (const event of await log.readStream(streamId, { fromRevision: revision + 1 })) {
      state = memberNotificationsDecider.evolve(state, memberNotificationsDecider.events.read(event));
      revision = event.revision;
    }
    const latest = folded.get(streamId);
    if (!latest || latest.revision < revision) {
      folded.delete(streamId);
      folded.set(streamId, { state, revision });
      if (folded.size > FOLDED_MEMBER_STREAMS) folded.delete(folded.keys().next().value as string);
    }
    return state;
  };
}

/**
 * Finds a subscription in either layout. With `memberId`: on the member's stream. Without: on its own stream
 * (every job queued before the member stream, for a subscription made before it); when that stream is empty, the
 * read model names the member whose stream holds it (a job without `memberId` for a newer subscription).
 */
async function locate(
  deps: ReminderDeps,
  readMemberStream: ReturnType<typeof memberStreamReader>,
  data: ReminderJobData,
): Promise<Located> {
  const { tenant, subscriptionId } = data;
  const onMemberStream = async (memberId: number): Promise<Located> => {
    const streamId = memberNotificationsStreamId(tenant, memberId);
    const state = await readMemberStream(streamId);
    return {
      subscription: state.subscriptions.get(subscriptionId) ?? null,
      data: { tenant, subscriptionId, memberId },
      record: (command) => runCommand(deps.log, streamId, memberNotificationsDecider, command),
    };
  };
  if (data.memberId !== undefined) return onMemberStream(data.memberId);
  const streamId = legacyNotificationStreamId(tenant, subscriptionId);
  const subscription = await foldStream(deps.log, streamId, legacySubscriptionDecider);
  if (!subscription) {
    // Not on a stream of its own, so on its member's: the read model names the member (flagged or not).
    const doc = await notificationSubscriptions(deps.documents.forTenant(tenant)).findById(subscriptionId);
    if (doc) return onMemberStream(doc.MemberId);
  }
  return {
    subscription,
    data: { tenant, subscriptionId },
    record: (command) => runCommand(deps.log, streamId, legacySubscriptionDecider, command),
  };
}

/**
 * A reminder job. It decides from the streams (the subscription's, on its member's stream or on its own, and the
 * lot's), not from read models, so it is right however far the projections are: the lot's actual end time is its
 * latest catalogued end time, or its early close when that is earlier. Not due yet: it adds the delayed job of
 * the moment. Due: it sends (the outbox message id is the subscription's, so a duplicated or retried job delivers
 * once) and records NotificationDispatched where the subscription is recorded, after which every other job of the
 * subscription does nothing. Due but with nobody to send to, or too late (the lot ended): it records
 * NotificationSkipped with the reason.
 */
export function reminderJobProcessor(deps: ReminderDeps): JobProcessor {
  const readMemberStream = memberStreamReader(deps.log);
  return async (job) => {
    const located = await locate(deps, readMemberStream, job.data as ReminderJobData);
    const { tenant, subscriptionId } = located.data;
    const subscription = located.subscription;
    if (!subscription || subscription.status !== 'active') return;
    const lot = await foldStream(deps.log, lotStreamId(tenant, subscription.lotId), lotEnd);
    if (!lot.catalogued) {
      deps.logger.warn({ tenant, subscriptionId, lotId: subscription.lotId }, 'reminder not planned: the lot is not catalogued');
      return;
    }
    const catalogued = Math.max(Date.parse(lot.catalogued.endTime), lot.extendedTo === null ? 0 : Date.parse(lot.extendedTo));
    const endTime = lot.closedAt === null ? catalogued : Math.min(catalogued, Date.parse(lot.closedAt));
    const now = deps.now().getTime();
    const plan = planReminder(subscription, endTime, now);
    switch (plan.action) {
      case 'done':
        return;
      case 'wait': {
        const jobId = reminderJobIdAt(subscriptionId, plan.fireAt);
        // The queue never runs a job before its time; should a clock disagree, try again a little later.
        if (job.id === jobId) throw new Error('the reminder job ran before its moment');
        await deps.jobs.add(SEND_REMINDER, located.data, reminderJob(jobId, plan.fireAt - now));
        return;
      }
      case 'too-late':
        return skip(deps, located, subscription, 'lot-ended');
      case 'send':
        await send(deps, { located, subscription, lot: lot.catalogued, endTime });
        return;
    }
  };
}

/** Records that the reminder is not sent, and why (logged without personal data). */
async function skip(deps: ReminderDeps, located: Located, subscription: SubscriptionState, reason: SkipReason) {
  const { tenant, subscriptionId } = located.data;
  deps.logger.warn({ tenant, subscriptionId, lotId: subscription.lotId, reason }, 'reminder not sent');
  await located.record({ type: 'RecordSkipped', tenant, subscriptionId, reason, at: deps.now().toISOString() });
}

async function send(
  deps: ReminderDeps,
  r: { located: Located; subscription: SubscriptionState; lot: NonNullable<LotEnd['catalogued']>; endTime: number },
) {
  const { located, subscription } = r;
  const { tenant, subscriptionId } = located.data;
  const db = deps.documents.forTenant(tenant);
  const skipped = (reason: SkipReason) => skip(deps, located, subscription, reason);
  const member = await memberAccounts(db).findById(String(subscription.memberId));
  if (!member) return skipped('member-removed');
  if (subscription.channel === 'push') return dispatchPush(deps, r, skipped);
  const to = subscription.channel === 'email' ? member.Email : await currentPhone(db, member);
  if (!to) return skipped('no-phone');

  const house = await tenantSettings(deps.documents, tenant);
  const texts = r.lot.texts;
  // The member's language, else the house's default, else any language the lot is written in.
  const language =
    [await memberLanguage(db, member), house?.DefaultLanguage].find((l): l is string => !!l && !!texts[l]?.title) ??
    Object.keys(texts)[0] ??
    'en';
  const message = reminderMessage({
    channel: subscription.channel,
    language,
    houseName: house?.Name ?? tenant,
    lotNumber: r.lot.lotNumber,
    title: texts[language]?.title ?? '',
    endTime: r.endTime,
    minutesBefore: subscription.minutesBefore,
    now: deps.now().getTime(),
  });
  const messageId = notificationMessageId(subscriptionId);
  const mail = subscription.channel === 'email';
  await deps.outbox.send({
    id: messageId,
    kind: 'reminder',
    channel: mail ? 'mail' : 'sms',
    tenant,
    memberId: subscription.memberId,
    to,
    sender: senderOf(house ?? null, tenant),
    language,
    ...message,
    ...(mail
      ? {
          html: mailHtml(message.body, language, message.subject ?? ''),
          // One click stops the member's reminders by e-mail (RFC 8058; the one-click operation, unsubscribe.ts).
          unsubscribeUrl: deps.links.unsubscribe(
            { tenant, memberId: subscription.memberId, kind: 'reminder', scope: null },
            deps.now().getTime(),
          ).url,
        }
      : {}),
  });
  await located.record({
    type: 'RecordDispatched',
    tenant,
    subscriptionId,
    messageId,
    lotEndTime: new Date(r.endTime).toISOString(),
    at: deps.now().toISOString(),
  });
}

/**
 * A push reminder: recorded as dispatched when the member has a push subscription now (the push feature's reactor
 * then pushes it to each, commands/push/reactors.ts), else skipped.
 */
async function dispatchPush(
  deps: ReminderDeps,
  r: { located: Located; subscription: SubscriptionState; endTime: number },
  skipped: (reason: SkipReason) => Promise<void>,
) {
  const { tenant, subscriptionId } = r.located.data;
  const db = deps.documents.forTenant(tenant);
  if ((await pushSubscriptions(db).countDocuments({ MemberId: r.subscription.memberId })) === 0) return skipped('no-push-subscription');
  await r.located.record({
    type: 'RecordDispatched',
    tenant,
    subscriptionId,
    messageId: notificationMessageId(subscriptionId),
    lotEndTime: new Date(r.endTime).toISOString(),
    at: deps.now().toISOString(),
  });
}

/** The background jobs of notifications, by job name. */
export function notificationsJobs(services: JobDeps): Record<string, JobProcessor> {
  return { [SEND_REMINDER]: reminderJobProcessor(services) };
}
