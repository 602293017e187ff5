import type { EventLog } from '../../src/ports/event-log.ts';
import type { DocumentStore } from '../../src/ports/read-models.ts';
import type { JobOptions, JobProcessor, JobQueue } from '../../src/ports/jobs.ts';
import type { Outbox } from '../../src/ports/outbox.ts';
import type { Logger } from '../../src/logger.ts';
import { foldStream, runCommand } from '../../src/command-runner.ts';
import { tenantSettings } from '../../projections/access/projection.ts';
import { memberAccounts } from '../../projections/members/projection.ts';
import { lotDecider } from '../catalogue/decide.ts';
import { lotStreamId } from '../catalogue/events.ts';
import { notificationDecider, planReminder, type SubscriptionState } from './decide.ts';
import { notificationMessageId, notificationStreamId, type SkipReason } from './events.ts';
import { reminderMessage } from './message.ts';
import { currentPhone } from './recipient.ts';

/** The one job of reminders: plan a subscription, and send it when it is due. */
export const SEND_REMINDER = 'notification-reminder';

export interface ReminderJobData {
  tenant: string;
  subscriptionId: string;
}

/** Options of a reminder job: keyed (a known id is ignored), retried with backoff, optionally delayed. */
export const reminderJob = (jobId: string, delayMs = 0): JobOptions => ({ jobId, attempts: 8, backoffMs: 2000, ...(delayMs > 0 ? { delayMs } : {}) });

/** The delayed job of a subscription's moment: one per subscription and moment. */
export const reminderJobIdAt = (subscriptionId: string, fireAt: number) => `notification-${subscriptionId}-at-${fireAt}`;

export interface ReminderDeps {
  log: EventLog;
  documents: DocumentStore;
  jobs: Pick<JobQueue, 'add'>;
  outbox: Outbox;
  logger: Pick<Logger, 'info' | 'warn'>;
  now: () => Date;
}

/**
 * A reminder job. It decides from the streams (the subscription's and the lot's), not from read models, so
 * it is right however far the projections are: the lot's actual end time is its latest catalogued end time,
 * or its early close when that is earlier. Not due yet: it adds the delayed job of the moment. Due: it sends
 * (the outbox message id is the subscription's, so a duplicated or retried job delivers once) and records
 * NotificationDispatched, after which every other job of the subscription does nothing. Due but with nobody
 * to send to, or too late (the lot ended): it records NotificationSkipped with the reason.
 */
export function reminderJobProcessor(deps: ReminderDeps): JobProcessor {
  return async (job) => {
    const { tenant, subscriptionId } = job.data as ReminderJobData;
    const streamId = notificationStreamId(tenant, subscriptionId);
    const subscription = await foldStream(deps.log, streamId, notificationDecider);
    if (!subscription || subscription.status !== 'active') return;
    const lot = await foldStream(deps.log, lotStreamId(tenant, subscription.lotId), lotDecider);
    if (!lot.catalogued) {
      deps.logger.warn({ tenant, subscriptionId, lotId: subscription.lotId }, 'reminder not planned: the lot is not catalogued');
      return;
    }
    const catalogued = Date.parse(lot.catalogued.endTime);
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
        await deps.jobs.add(SEND_REMINDER, { tenant, subscriptionId } satisfies ReminderJobData, reminderJob(jobId, plan.fireAt - now));
        return;
      }
      case 'too-late':
        return skip(deps, tenant, subscriptionId, subscription, 'lot-ended');
      case 'send':
        await send(deps, { tenant, subscriptionId, subscription, lot: lot.catalogued, endTime });
        return;
    }
  };
}

/** Records that the reminder is not sent, and why (logged without personal data). */
async function skip(deps: ReminderDeps, tenant: string, subscriptionId: string, subscription: SubscriptionState, reason: SkipReason) {
  deps.logger.warn({ tenant, subscriptionId, lotId: subscription.lotId, reason }, 'reminder not sent');
  await runCommand(deps.log, notificationStreamId(tenant, subscriptionId), notificationDecider, {
    type: 'RecordSkipped',
    tenant,
    subscriptionId,
    reason,
    at: deps.now().toISOString(),
  });
}

async function send(
  deps: ReminderDeps,
  r: { tenant: string; subscriptionId: string; subscription: SubscriptionState; lot: NonNullable<ReturnType<typeof lotDecider.initialState>['catalogued']>; endTime: number },
) {
  const { tenant, subscriptionId, subscription } = r;
  const db = deps.documents.forTenant(tenant);
  const skipped = (reason: SkipReason) => skip(deps, tenant, subscriptionId, subscription, reason);
  const member = await memberAccounts(db).findById(String(subscription.memberId));
  if (!member) return skipped('member-removed');
  const to = subscription.channel === 'email' ? member.Email : await currentPhone(db, member);
  if (!to) return skipped('no-phone');

  const house = await tenantSettings(deps.documents, tenant);
  const texts = r.lot.texts;
  // The member's language, else the house's default, else any language the lot is written in.
  const language = [member.Language, house?.DefaultLanguage].find((l): l is string => !!l && !!texts[l]?.title) ?? Object.keys(texts)[0] ?? 'en';
  const message = reminderMessage({
    channel: subscription.channel,
    language,
    houseName: house?.Name ?? tenant,
    lotNumber: r.lot.lotNumber,
    title: texts[language]?.title ?? '',
    endTime: r.endTime,
    minutesBefore: subscription.minutesBefore,
  });
  const messageId = notificationMessageId(subscriptionId);
  await deps.outbox.send({ id: messageId, channel: subscription.channel === 'email' ? 'mail' : 'sms', tenant, to, ...message });
  await runCommand(deps.log, notificationStreamId(tenant, subscriptionId), notificationDecider, {
    type: 'RecordDispatched',
    tenant,
    subscriptionId,
    messageId,
    lotEndTime: new Date(r.endTime).toISOString(),
    at: deps.now().toISOString(),
  });
}
