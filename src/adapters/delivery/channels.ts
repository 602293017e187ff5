/**
 * Whether each channel (mail, SMS) of the worker can send, as its last tries tell (PRODUCTION.md "Deliveries an
 * operator can trust"). A set-up failure makes the channel *down*: one error line says why, once per episode; its
 * messages are held, without a word to the server, until the next probe, when one message tries again (the waits
 * double from DELIVERY_FIRST_RETRY_MS up to MAX_DOWN_WAIT_MS). Any answer about a message (sent, or refused for its
 * recipient) makes it up again, and the held messages follow.
 */
import type { DeliveryError } from './transport.ts';

/** The longest wait between two probes of a channel that is down: a fixed setting is noticed within it. */
export const MAX_DOWN_WAIT_MS = 5 * 60_000;

export type ChannelName = 'mail' | 'sms';

export interface ChannelStatus {
  state: 'up' | 'down';
  /** Down: what the set-up failure is about (`SMTP authentication refused`), and since when. */
  about?: string;
  since?: string;
}

interface Down {
  about: string;
  since: number;
  failures: number;
  nextProbeAt: number;
  probing: boolean;
}

interface ChannelLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export class ChannelStates {
  private readonly down = new Map<ChannelName, Down>();

  constructor(
    private readonly channels: readonly ChannelName[],
    private readonly firstRetryMs: number,
    private readonly logger: ChannelLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Before a try: null to go ahead (the channel is up, or this try is its probe), else how long to hold the message. */
  hold(channel: ChannelName): number | null {
    const down = this.down.get(channel);
    if (!down) return null;
    if (down.probing) return Math.min(this.firstRetryMs, this.wait(down.failures));
    const now = this.now();
    if (now < down.nextProbeAt) return down.nextProbeAt - now;
    down.probing = true;
    return null;
  }

  /** After a set-up failure: the channel is down (logged when it was up), and how long this message waits. */
  failed(channel: ChannelName, error: DeliveryError): number {
    const now = this.now();
    let down = this.down.get(channel);
    if (!down) {
      down = { about: error.about, since: now, failures: 0, nextProbeAt: now, probing: false };
      this.down.set(channel, down);
      this.logger.error(
        { channel, reply: error.reply },
        `${channel} channel down: ${error.about}; its messages are kept and tried again until it is fixed`,
      );
    }
    down.failures += 1;
    down.probing = false;
    const wait = this.wait(down.failures);
    down.nextProbeAt = now + wait;
    return wait;
  }

  /** After an answer about a message (sent, or refused for its recipient): the channel works. */
  up(channel: ChannelName): void {
    const down = this.down.get(channel);
    if (!down) return;
    this.down.delete(channel);
    const seconds = Math.round((this.now() - down.since) / 1000);
    this.logger.info({ channel, downSeconds: seconds }, `${channel} channel up again: its held messages go out`);
  }

  status(): Record<string, ChannelStatus> {
    const status: Record<string, ChannelStatus> = {};
    for (const channel of this.channels) {
      const down = this.down.get(channel);
      status[channel] = down ? { state: 'down', about: down.about, since: new Date(down.since).toISOString() } : { state: 'up' };
    }
    return status;
  }

  private wait(failures: number): number {
    return Math.min(this.firstRetryMs * 2 ** Math.max(0, failures - 1), Math.max(MAX_DOWN_WAIT_MS, this.firstRetryMs));
  }
}
