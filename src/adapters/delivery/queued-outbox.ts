/**
 * The network outbox: a message whose channel has a transport (SMTP, Twilio) becomes a background job of its
 * channel's name (`deliver-mail`, `deliver-sms`: channels.ts) keyed by its id, so a message sent twice is sent
 * once; another channel falls back to the embedded files. The job tries again after a temporary failure, from
 * `firstRetryMs` and doubling for at least six hours, and never after a permanent one. Once the server accepted
 * a message the job saves that with itself, so a later try of the same job (a failure after the send, a crash)
 * does not send it again.
 */
import type { Counters } from '../../counters.ts';
import { defineCounter } from '../../counters.ts';
import type { Job, JobProcessor, JobQueue } from '../../ports/jobs.ts';
import type { OutgoingMessage, Outbox } from '../../ports/outbox.ts';
import { safeOutboxId } from '../embedded/file-outbox.ts';
import { DeliveryError, type MessageTransport } from './transport.ts';
import { CHANNELS, deliveryJobName } from './channels.ts';

/** The one job name of every channel's deliveries before each had its own: still run, as before, where a transport is set. */
export const DELIVER_MESSAGE = 'deliver-message';

/** How long temporary failures are tried again, at least (PRODUCTION.md). */
export const RETRY_WINDOW_MS = 6 * 3600_000;

export const messagesCounter = defineCounter({
  name: 'bidder_messages_total',
  help: 'Mails and SMS handed to SMTP or the SMS gateway, by channel, kind and outcome (sent; retried: a temporary failure; failed: refused for good, or out of tries)',
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
      jobId: `deliver-${message.channel}-${safeOutboxId(message.id)}`,
      attempts: this.attempts,
      backoffMs: this.firstRetryMs,
    });
    return { delivered: added };
  }

  /** The processor of a delivery job, of any channel. */
  processor(deps: { logger: DeliveryLogger; counters: Counters }): JobProcessor {
    return (job) => deliver(job, this.transports, this.attempts, deps);
  }

  /** The worker's processors, by job name: the channels it has a transport for (the others' jobs wait), and DELIVER_MESSAGE. */
  processors(deps: { logger: DeliveryLogger; counters: Counters }): Record<string, JobProcessor> {
    const processor = this.processor(deps);
    const names = CHANNELS.filter((channel) => this.transports[channel]).map(deliveryJobName);
    return Object.fromEntries([...names, DELIVER_MESSAGE].map((name) => [name, processor]));
  }
}

interface DeliveryLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

interface Accepted {
  accepted: string;
  at: string;
}

/** One try of a delivery job. Logged by message id, kind and reply, never by address or text. */
async function deliver(job: Job, transports: Transports, attempts: number, deps: { logger: DeliveryLogger; counters: Counters }) {
  const message = job.data as OutgoingMessage;
  const labels = { channel: message.channel, kind: message.kind ?? 'other' };
  const meta = { tenant: message.tenant, messageId: message.id, ...labels, attempt: job.attemptsMade };
  const saved = job.progress as Accepted | null;
  if (saved?.accepted) {
    deps.logger.info({ ...meta, reply: saved.accepted }, 'message: accepted on an earlier try, not sent again');
    return;
  }
  const transport = transports[message.channel];
  if (!transport) throw new Error(`no transport for ${message.channel}`);
  let reply: string;
  try {
    ({ reply } = await transport.send(message));
  } catch (error) {
    const failure = error instanceof DeliveryError ? error : new DeliveryError(String(error), false, String(error));
    if (failure.permanent) {
      deps.counters.inc(messagesCounter, { ...labels, outcome: 'failed' });
      deps.logger.error({ ...meta, reply: failure.reply }, 'message refused, not tried again');
      return;
    }
    const last = job.attemptsMade >= attempts;
    deps.counters.inc(messagesCounter, { ...labels, outcome: last ? 'failed' : 'retried' });
    deps.logger.warn(
      { ...meta, reply: failure.reply },
      last ? 'message not delivered, out of tries' : 'message not delivered yet, tried again later',
    );
    throw failure;
  }
  // The window that remains: a crash between the server's reply and this write sends the message again, under the same Message-ID.
  await job.saveProgress({ accepted: reply, at: new Date().toISOString() } satisfies Accepted);
  deps.counters.inc(messagesCounter, { ...labels, outcome: 'sent' });
  deps.logger.info({ ...meta, reply }, 'message accepted');
}
