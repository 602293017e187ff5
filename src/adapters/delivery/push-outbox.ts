/**
 * The push outbox (PUSH.md "What is pushed"): a message becomes background jobs (`deliver-push`) of up to
 * TARGETS_PER_JOB subscriptions each, keyed by the message and its subscriptions (a message handed over twice is
 * sent once), which the worker sends PUSHES_AT_ONCE at a time (web-push.ts). Mail's retry rules: a temporary
 * failure (429, 5xx, no connection) is tried again after DELIVERY_FIRST_RETRY_MS, doubling, for at least six hours,
 * but never past the message's TTL; 404 and 410 remove the subscription; 400, 403 and 413 end that push, logged
 * (the endpoint's host only), counted and told on the member's stream (MessageDeliveryFailed, channel `push`). A
 * subscription's outcome is saved with the job as it comes, so a retry sends only to those still due.
 */
import { createHash } from 'node:crypto';
import { defineCounter, type Counters } from '../../counters.ts';
import type { JobProcessor, JobQueue } from '../../ports/jobs.ts';
import type { EndpointVerdict, PushMessage, PushService, PushTarget } from '../../ports/push.ts';
import type { PushEndpoints } from '../../security/push-endpoints.ts';
import type { VapidKeys } from '../../security/vapid.ts';
import { deliveryAttempts, type EndedDelivery } from './queued-outbox.ts';
import { deliveryIdOf } from './transport.ts';
import { WebPushSender, type PushOutcome, type PushSubscriptionKeys } from './web-push.ts';

export const DELIVER_PUSH = 'deliver-push';
/** Subscriptions one job sends to. */
export const TARGETS_PER_JOB = 100;
/** Pushes one job has in flight at once. */
const PUSHES_AT_ONCE = 16;

export const pushesCounter = defineCounter({
  name: 'bidder_pushes_total',
  help: 'Push messages by kind and outcome: sent (2xx), retried (429, 5xx, no connection), failed (400, 403, 413, or out of tries or TTL), removed (404, 410: the subscription removed)',
  labelNames: ['kind', 'outcome'],
});

export interface PushSettings {
  vapid: VapidKeys;
  /** VAPID_SUBJECT; null: `mailto:` the house's contact address. */
  subject: string | null;
  endpoints: PushEndpoints;
  /** The wait before a temporary failure's first retry (DELIVERY_FIRST_RETRY_MS, as mail's), doubling after. */
  firstRetryMs: number;
}

/** What a deliver-push job holds: the message without its targets, and its share of them. */
export interface PushJobData {
  message: Omit<PushMessage, 'targets'>;
  targets: PushTarget[];
}

/** What the worker's jobs need of the features (app/runtime.ts wires them: the adapter imports none). */
export interface PushDeliveryDeps {
  /** A subscription as it is now (null: removed), with its member. */
  subscription(tenant: string, subscriptionId: string): Promise<(PushSubscriptionKeys & { memberId: number }) | null>;
  /** The push service said the subscription is gone: PushSubscriptionRemoved, reason `gone`. */
  removeGone(gone: { tenant: string; memberId: number; subscriptionId: string; endpoint: string; status: number }): Promise<void>;
  /** A push that ended undelivered, on the member's stream. */
  recordFailure(failure: EndedDelivery): Promise<void>;
  /** The house's contact address (the VAPID subject's `mailto:` when VAPID_SUBJECT is unset). */
  contactOf(tenant: string): Promise<string | null>;
  counters: Counters;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

type Ended = 'sent' | 'gone' | 'refused' | 'gave-up' | 'missing';

export class PushOutbox implements PushService {
  readonly publicKey: string;
  private readonly attempts: number;

  constructor(
    private readonly jobs: Pick<JobQueue, 'add'>,
    readonly settings: PushSettings,
  ) {
    this.publicKey = settings.vapid.publicKey;
    this.attempts = deliveryAttempts(settings.firstRetryMs);
  }

  checkEndpoint(endpoint: string): Promise<EndpointVerdict> {
    return this.settings.endpoints.check(endpoint);
  }

  async send(message: PushMessage): Promise<void> {
    const { targets, ...rest } = message;
    const sorted = [...targets].sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId));
    for (let i = 0; i < sorted.length; i += TARGETS_PER_JOB) {
      const share = sorted.slice(i, i + TARGETS_PER_JOB);
      // Keyed by the message and its share: handed over again (a job that planned it ran again), it is one job.
      const key = createHash('sha256')
        .update(share.map((t) => t.subscriptionId).join(','))
        .digest('hex')
        .slice(0, 16);
      const data: PushJobData = { message: rest, targets: share };
      await this.jobs.add(DELIVER_PUSH, data, {
        jobId: `push-${message.id}-${key}`,
        attempts: this.attempts,
        backoffMs: this.settings.firstRetryMs,
      });
    }
  }

  /** The processor of deliver-push jobs (the worker's). */
  processor(deps: PushDeliveryDeps): JobProcessor {
    const sender = new WebPushSender(this.settings.vapid, this.settings.endpoints);
    const subjectOf = async (tenant: string) =>
      this.settings.subject ?? `mailto:${(await deps.contactOf(tenant)) ?? `push@${tenant}.invalid`}`;
    return async (job) => {
      const { message, targets } = job.data as PushJobData;
      const done: Record<string, Ended> = { ...((job.progress as { done?: Record<string, Ended> } | null)?.done ?? {}) };
      const due = targets.filter((t) => !done[t.subscriptionId]);
      const ctx = { message, deps, sender, subject: await subjectOf(message.tenant), lastTry: job.attemptsMade >= this.attempts };
      let pending = 0;
      await inTurn(due, PUSHES_AT_ONCE, async (target) => {
        const ended = await pushOne(target, ctx).catch((error: unknown) => {
          deps.logger.warn({ tenant: message.tenant, messageId: message.id, err: String(error) }, 'push not handled, tried again later');
          return null;
        });
        if (ended === null) pending += 1;
        else {
          done[target.subscriptionId] = ended;
          await job.saveProgress({ done });
        }
      });
      if (pending > 0) throw new Error(`${pending} push(es) not delivered yet: tried again later`);
    };
  }
}

interface PushContext {
  message: PushJobData['message'];
  deps: PushDeliveryDeps;
  sender: WebPushSender;
  subject: string;
  lastTry: boolean;
}

/** One subscription's try: how it ended, or null when it is to be tried again. */
async function pushOne(target: PushTarget, ctx: PushContext): Promise<Ended | null> {
  const { message, deps } = ctx;
  const count = (outcome: string) => deps.counters.inc(pushesCounter, { kind: message.kind, outcome });
  const subscription = await deps.subscription(message.tenant, target.subscriptionId);
  if (!subscription || subscription.memberId !== target.memberId) return 'missing';
  const left = Math.floor((Date.parse(message.expiresAt) - Date.now()) / 1000);
  const outcome: PushOutcome =
    left <= 0
      ? { kind: 'refused', status: null, reason: 'its TTL passed before it could be delivered' }
      : await ctx.sender.send(
          subscription,
          target.payload,
          { ttl: Math.min(left, 86_400), urgency: message.urgency, topic: message.topic },
          ctx.subject,
        );
  const host = new URL(subscription.endpoint).host;
  const meta = { tenant: message.tenant, messageId: message.id, kind: message.kind, host, status: outcome.status };
  switch (outcome.kind) {
    case 'sent':
      count('sent');
      return 'sent';
    case 'gone':
      await deps.removeGone({
        tenant: message.tenant,
        memberId: target.memberId,
        subscriptionId: target.subscriptionId,
        endpoint: subscription.endpoint,
        status: outcome.status,
      });
      count('removed');
      deps.logger.info(meta, 'push subscription gone: removed');
      return 'gone';
    case 'temporary':
      if (!ctx.lastTry && left > 0) {
        count('retried');
        deps.logger.warn({ ...meta, reason: outcome.reason }, 'push not delivered yet, tried again later');
        return null;
      }
  }
  const reason = outcome.kind === 'refused' && left > 0 ? 'recipient-refused' : 'gave-up';
  count('failed');
  deps.logger.error(
    { ...meta, reason: outcome.reason },
    reason === 'gave-up' ? 'push not delivered, out of tries' : 'push refused, not tried again',
  );
  const deliveryId = deliveryIdOf({ tenant: message.tenant, id: `${message.id}-${target.subscriptionId}` });
  await deps.recordFailure({
    tenant: message.tenant,
    memberId: target.memberId,
    deliveryId,
    channel: 'push',
    kind: message.kind,
    reason,
    at: new Date().toISOString(),
  });
  return reason === 'gave-up' ? 'gave-up' : 'refused';
}

/** Runs `work` over the items, at most `limit` at once. */
async function inTurn<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
