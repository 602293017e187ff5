/**
 * The network outbox: a message whose channel has a transport (SMTP, Twilio) becomes a background job of its
 * channel's name (`deliver-mail`, `deliver-sms`: channels.ts) keyed by its id, so a message sent twice is sent once; another channel falls back to the embedded files. Whose fault a
 * failed try is decides what follows (transport.ts): a temporary failure is tried again, from `firstRetryMs` and
 * doubling for at least six hours; a set-up failure makes the channel down (channel-states.ts) and the message waits,
 * its tries untouched, for as long as it takes; a recipient's refusal, or temporary failures out of tries, end
 * the job `failed` and tell the member's stream (`recordFailure`). Once the server accepted a message the job
 * saves that with itself, so a later try of the same job (a failure after the send, a crash) does not send it again.
 */
import type { Counters } from '../../counters.ts';
import { defineCounter } from '../../counters.ts';
import {
  JobDeferred,
  JobFailedForGood,
  type Job,
  type JobProcessor,
  type JobQueue,
  type JobRecord,
  type JobState,
} from '../../ports/jobs.ts';
import type { OutgoingMessage, Outbox } from '../../ports/outbox.ts';
import { safeOutboxId } from '../embedded/file-outbox.ts';
import { CHANNELS, deliveryJobName } from './channels.ts';
import { ChannelStates, type ChannelName, type ChannelStatus } from './channel-states.ts';
import { DeliveryError, deliveryIdOf, type MessageTransport } from './transport.ts';

/** The one job name of every channel's deliveries before each had its own: still run, as before, where a transport is set. */
export const DELIVER_MESSAGE = 'deliver-message';

/** Every job name a delivery may have: each channel's, and the one of every channel's before (still run). */
export const DELIVERY_JOB_NAMES: readonly string[] = [...CHANNELS.map(deliveryJobName), DELIVER_MESSAGE];

/** Delivery jobs of every name in these states, the newest first, at most `limit` (the operator's tools). */
export async function listDeliveries(jobs: Pick<JobQueue, 'list'>, states: readonly JobState[], limit = 1000): Promise<JobRecord[]> {
  const found = await Promise.all(DELIVERY_JOB_NAMES.map((name) => jobs.list(name, states, limit)));
  return found
    .flat()
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .slice(0, limit);
}

/** How long temporary failures are tried again, at least (PRODUCTION.md). */
export const RETRY_WINDOW_MS = 6 * 3600_000;

export const messagesCounter = defineCounter({
  name: 'bidder_messages_total',
  help: 'Mails and SMS handed to SMTP or the SMS gateway, by channel, kind and outcome (sent; retried: a temporary failure; failed: refused for its recipient, or out of tries). Tries held while a channel is down are not counted.',
  labelNames: ['channel', 'kind', 'outcome'],
});

/** Tries of a delivery: enough doubling waits from the first retry's to cover RETRY_WINDOW_MS. */
export function deliveryAttempts(firstRetryMs: number): number {
  let waited = 0;
  let attempts = 1;
  while (waited < RETRY_WINDOW_MS) {
    waited += firstRetryMs * 2 ** (attempts - 1);
    attempts += 1;
  }
  return attempts;
}

export type Transports = Partial<Record<OutgoingMessage['channel'], MessageTransport>>;

export class QueuedOutbox implements Outbox {
  private readonly attempts: number;
  private states: ChannelStates | null = null;

  constructor(
    private readonly jobs: Pick<JobQueue, 'add'>,
    private readonly transports: Transports,
    private readonly fallback: Outbox,
    private readonly firstRetryMs: number,
  ) {
    this.attempts = deliveryAttempts(firstRetryMs);
  }

  async send(message: OutgoingMessage): Promise<{ delivered: boolean }> {
    if (!this.transports[message.channel]) return this.fallback.send(message);
    if (typeof message.id !== 'string' || message.id === '') throw new TypeError('QueuedOutbox: message.id is required');
    for (const field of ['tenant', 'to', 'body'] as const)
      if (typeof message[field] !== 'string') throw new TypeError(`QueuedOutbox: message.${field} must be a string`);
    const { added } = await this.jobs.add(deliveryJobName(message.channel), message, {
      jobId: deliveryJobId(message),
      attempts: this.attempts,
      backoffMs: this.firstRetryMs,
    });
    return { delivered: added };
  }

  /** The processor of a delivery job, of any channel (one for all: the channels' states are the worker's). */
  processor(deps: DeliveryDeps): JobProcessor {
    const states = this.channelStates(deps.logger);
    return (job) => deliver(job, { transports: this.transports, attempts: this.attempts, states, retryMs: this.firstRetryMs, ...deps });
  }

  /** Up or down, per channel with a transport, as this process's tries tell (the worker's /readyz and /metrics). */
  channels(): Partial<Record<ChannelName, ChannelStatus>> {
    return this.states?.status() ?? Object.fromEntries(this.configured().map((channel) => [channel, { state: 'up' as const }]));
  }

  /**
   * The start-up check of every channel (SMTP's connection and login, Twilio's account): a set-up failure makes the
   * channel down at once, logged as a try's would be; it never stops the start.
   */
  async verify(logger: DeliveryLogger): Promise<void> {
    const states = this.channelStates(logger);
    await Promise.all(
      this.configured().map(async (channel) => {
        try {
          await this.transports[channel]!.verify();
          logger.info({ channel, server: this.transports[channel]!.describe }, `${channel} channel checked at start: it answers`);
        } catch (error) {
          const failure = asDeliveryError(error);
          if (failure.kind === 'setup') states.failed(channel, failure);
          else logger.warn({ channel, reply: failure.reply }, `${channel} channel check at start failed: ${failure.about}`);
        }
      }),
    );
  }

  private configured(): ChannelName[] {
    return CHANNELS.filter((channel) => this.transports[channel]);
  }

  private channelStates(logger: DeliveryLogger): ChannelStates {
    return (this.states ??= new ChannelStates(this.configured(), this.firstRetryMs, logger));
  }

  /** The worker's processors, by job name: the channels it has a transport for (the others' jobs wait), and DELIVER_MESSAGE. */
  processors(deps: DeliveryDeps): Record<string, JobProcessor> {
    const processor = this.processor(deps);
    const names = this.configured().map(deliveryJobName);
    return Object.fromEntries([...names, DELIVER_MESSAGE].map((name) => [name, processor]));
  }
}

/** The job of a message: one per channel and message id. */
export const deliveryJobId = (message: Pick<OutgoingMessage, 'channel' | 'id'>) => `deliver-${message.channel}-${safeOutboxId(message.id)}`;

interface DeliveryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A message to a member that ended undelivered, as the member's stream records it (commands/members/deliveries.ts). */
export interface EndedDelivery {
  tenant: string;
  memberId: number;
  deliveryId: string;
  channel: OutgoingMessage['channel'] | 'push';
  kind: string | undefined;
  reason: RefusedReason;
  at: string;
}

export interface DeliveryDeps {
  logger: DeliveryLogger;
  counters: Counters;
  /** Records an ended delivery on the member's stream (absent: logged and counted only). */
  recordFailure?: (failure: EndedDelivery) => Promise<void>;
}

type RefusedReason = 'recipient-refused' | 'invalid-number' | 'gave-up';

/** What a delivery job saves with itself: the server's acceptance, or how it ended undelivered. */
interface Saved {
  accepted?: string;
  refused?: { reason: RefusedReason; at: string };
  at?: string;
}

interface Context extends DeliveryDeps {
  transports: Transports;
  attempts: number;
  states: ChannelStates;
  retryMs: number;
}

const asDeliveryError = (error: unknown) =>
  error instanceof DeliveryError ? error : new DeliveryError('temporary', { about: 'try failed', reply: String(error) });

/** One try of a delivery job. Logged by message id, kind and reply (addresses and numbers masked), never by address or text. */
async function deliver(job: Job, ctx: Context) {
  const message = job.data as OutgoingMessage;
  const labels = { channel: message.channel, kind: message.kind ?? 'other' };
  const meta = { tenant: message.tenant, messageId: message.id, ...labels, attempt: job.attemptsMade };
  const saved = job.progress as Saved | null;
  if (saved?.accepted) {
    ctx.logger.info({ ...meta, reply: saved.accepted }, 'message: accepted on an earlier try, not sent again');
    return;
  }
  // Ended on an earlier run that stopped before the job did: its record is made (once), nothing is sent.
  if (saved?.refused) return end(job, ctx, saved.refused, `${saved.refused.reason} on an earlier try`);
  const transport = ctx.transports[message.channel];
  if (!transport) throw new Error(`no transport for ${message.channel}`);
  const sender = transport.senderOf?.(message) ?? null;
  const held = ctx.states.hold(message.channel, sender);
  if (held !== null) throw new JobDeferred(held, `the ${message.channel} channel is down`);
  let reply: string;
  try {
    ({ reply } = await transport.send(message));
  } catch (error) {
    const failure = asDeliveryError(error);
    if (failure.kind === 'setup') throw new JobDeferred(ctx.states.failed(message.channel, failure), failure.message);
    ctx.states.up(message.channel, sender);
    const last = failure.kind === 'recipient' || job.attemptsMade >= ctx.attempts;
    ctx.counters.inc(messagesCounter, { ...labels, outcome: last ? 'failed' : 'retried' });
    if (!last) {
      ctx.logger.warn({ ...meta, reply: failure.reply }, 'message not delivered yet, tried again later');
      throw failure;
    }
    const refused = { reason: failure.reason ?? ('gave-up' as const), at: new Date().toISOString() };
    ctx.logger.error(
      { ...meta, reply: failure.reply, reason: refused.reason },
      failure.kind === 'recipient' ? 'message refused, not tried again' : 'message not delivered, out of tries',
    );
    await job.saveProgress({ refused } satisfies Saved);
    return end(job, ctx, refused, failure.message);
  }
  ctx.states.up(message.channel, sender);
  // The window that remains: a crash between the server's reply and this write sends the message again, under the same Message-ID.
  await job.saveProgress({ accepted: reply, at: new Date().toISOString() } satisfies Saved);
  ctx.counters.inc(messagesCounter, { ...labels, outcome: 'sent' });
  ctx.logger.info({ ...meta, reply }, 'message accepted');
}

/** Ends a delivery undelivered: the member's stream is told (when the message is a member's), and the job fails for good. */
async function end(job: Job, ctx: Context, refused: NonNullable<Saved['refused']>, why: string): Promise<never> {
  const message = job.data as OutgoingMessage;
  if (message.memberId !== undefined && ctx.recordFailure) {
    const failure = { deliveryId: deliveryIdOf(message), channel: message.channel, kind: message.kind, ...refused };
    try {
      await ctx.recordFailure({ tenant: message.tenant, memberId: message.memberId, ...failure });
    } catch (error) {
      // The log did not take it (unavailable, full): the job runs again to record it, its tries untouched, nothing sent.
      throw new JobDeferred(ctx.retryMs, `recording the failed delivery failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new JobFailedForGood(why);
}
