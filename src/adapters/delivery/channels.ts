/**
 * Each channel's deliveries are jobs of a name of their own (`deliver-mail`, `deliver-sms`), and a worker runs
 * only the names of the channels it has a transport for. So when SMTP_URL (or Twilio's variables) is removed,
 * the messages already queued for it wait in the queue with their tries unspent until a worker starts with the
 * setting again, and new ones go to the outbox folder; the worker says so at its start and in /readyz.
 */
import type { DeliveryConfig } from '../../config.ts';
import type { ChannelStatus } from './channel-states.ts';
import type { JobQueue } from '../../ports/jobs.ts';
import type { OutgoingMessage } from '../../ports/outbox.ts';

export type Channel = OutgoingMessage['channel'];
export const CHANNELS: readonly Channel[] = ['mail', 'sms'];

/** The job name of a channel's deliveries. */
export const deliveryJobName = (channel: Channel) => `deliver-${channel}`;

const TRANSPORT: Record<Channel, { via: string; setting: string }> = {
  mail: { via: 'smtp', setting: 'SMTP_URL' },
  sms: { via: 'twilio', setting: 'TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM' },
};

/**
 * Where a channel's messages go in this process; without a transport, how many queued for one wait for it; with
 * one, whether it is up or down (channel-states.ts: a refused password, a sender the server refuses).
 */
export interface ChannelReport extends Partial<ChannelStatus> {
  via: string;
  /** Messages queued for the transport this process lacks (absent when none). */
  queued?: number;
  /** The setting they wait for. */
  waitsFor?: string;
}

/** The channels that have a transport under these settings. */
export function configuredChannels(delivery: Pick<DeliveryConfig, 'smtp' | 'twilio'>): Channel[] {
  return CHANNELS.filter((channel) => (channel === 'mail' ? delivery.smtp : delivery.twilio) !== null);
}

export type DeliveryReport = Record<Channel, ChannelReport>;

/**
 * Each channel's report (/readyz `deliveries`), counting the queued messages of those without a transport; `states`:
 * the up or down of those with one, as this process's tries tell (none in a process that does not send).
 */
export async function deliveryReport(
  jobs: Pick<JobQueue, 'unfinished'>,
  configured: Channel[],
  states: Partial<Record<Channel, ChannelStatus>> = {},
): Promise<DeliveryReport> {
  const report = {} as DeliveryReport;
  for (const channel of CHANNELS) {
    if (configured.includes(channel)) {
      report[channel] = { via: TRANSPORT[channel].via, ...states[channel] };
      continue;
    }
    const queued = await jobs.unfinished(deliveryJobName(channel));
    report[channel] = queued > 0 ? { via: 'outbox-folder', queued, waitsFor: TRANSPORT[channel].setting } : { via: 'outbox-folder' };
  }
  return report;
}

/** The start's lines about deliveries: TLS settings that weaken mail, and messages left waiting for a transport. */
export async function deliveryStartNotes(
  jobs: Pick<JobQueue, 'unfinished'>,
  delivery: Pick<DeliveryConfig, 'smtp' | 'twilio'>,
): Promise<Array<{ channel: Channel; queued?: number; text: string }>> {
  const notes: Array<{ channel: Channel; queued?: number; text: string }> = (delivery.smtp?.warnings ?? []).map((text) => ({
    channel: 'mail' as const,
    text,
  }));
  const report = await deliveryReport(jobs, configuredChannels(delivery));
  for (const channel of CHANNELS) {
    const { queued, waitsFor } = report[channel];
    if (queued)
      notes.push({
        channel,
        queued,
        text: `${channel}: ${queued} message(s) queued for ${TRANSPORT[channel].via} wait until a worker starts with ${waitsFor}; new ${channel} goes to the outbox folder`,
      });
  }
  return notes;
}
