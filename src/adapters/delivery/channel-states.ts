/**
 * Whether each channel (mail, SMS) of the worker can send, as its last tries tell (PRODUCTION.md "Deliveries an
 * operator can trust"). A set-up failure makes the channel *down*: one error line says why, once per episode; its
 * messages are held, without a word to the server, until the next probe, when one message tries again (the waits
 * double from DELIVERY_FIRST_RETRY_MS up to MAX_DOWN_WAIT_MS). Any answer about a message (sent, or refused for its
 * recipient) makes it up again, and the held messages follow. A sender the server refuses (a house's own
 * `mailFrom`) is down alone, the same way: that sender's messages wait, every other sender's go out.
 */
import type { Channel } from './channels.ts';
import { maskPersonalData } from './mask.ts';
import type { DeliveryError } from './transport.ts';

/** The longest wait between two probes of a channel that is down: a fixed setting is noticed within it. */
export const MAX_DOWN_WAIT_MS = 5 * 60_000;

/** A channel, as src/adapters/delivery/channels.ts names them. */
export type ChannelName = Channel;

export interface ChannelStatus {
  state: 'up' | 'down';
  /** Down: what the set-up failure is about (`SMTP authentication refused`), and since when. */
  about?: string;
  since?: string;
  /** Senders (a house's own `mailFrom`) the server refuses while the channel is up: their messages wait. */
  sendersDown?: number;
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

/** What is down: a whole channel, or one sender of it. */
type Scope = string;
const senderScope = (channel: ChannelName, sender: string): Scope => `${channel} sender ${sender.toLowerCase()}`;

export class ChannelStates {
  private readonly down = new Map<Scope, Down>();

  constructor(
    private readonly channels: readonly ChannelName[],
    private readonly firstRetryMs: number,
    private readonly logger: ChannelLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Before a try: null to go ahead (the channel and its sender are up, or this try is a probe), else how long to hold
   * the message.
   */
  hold(channel: ChannelName, sender: string | null): number | null {
    const held = this.holdScope(channel);
    if (held !== null || sender === null) return held;
    return this.holdScope(senderScope(channel, sender));
  }

  private holdScope(scope: Scope): number | null {
    const down = this.down.get(scope);
    if (!down) return null;
    if (down.probing) return Math.min(this.firstRetryMs, this.wait(down.failures));
    const now = this.now();
    if (now < down.nextProbeAt) return down.nextProbeAt - now;
    down.probing = true;
    return null;
  }

  /**
   * After a set-up failure: the channel is down, or only the sender the server refused (logged when it was up), and
   * how long this message waits.
   */
  failed(channel: ChannelName, error: DeliveryError): number {
    const now = this.now();
    const scope = error.sender ? senderScope(channel, error.sender) : channel;
    let down = this.down.get(scope);
    if (!down) {
      down = { about: error.about, since: now, failures: 0, nextProbeAt: now, probing: false };
      this.down.set(scope, down);
      const what = error.sender ? `${channel} from ${maskPersonalData(error.sender)}` : `${channel} channel`;
      this.logger.error(
        { channel, reply: error.reply },
        `${what} down: ${error.about}; its messages are kept and tried again until it is fixed`,
      );
    }
    down.failures += 1;
    down.probing = false;
    const wait = this.wait(down.failures);
    down.nextProbeAt = now + wait;
    return wait;
  }

  /** After an answer about a message (sent, or refused for its recipient): the channel and this sender work. */
  up(channel: ChannelName, sender: string | null): void {
    for (const scope of sender === null ? [channel] : [channel, senderScope(channel, sender)]) {
      const down = this.down.get(scope);
      if (!down) continue;
      this.down.delete(scope);
      const seconds = Math.round((this.now() - down.since) / 1000);
      const what = scope === channel ? `${channel} channel` : `${channel} from ${maskPersonalData(sender!)}`;
      this.logger.info({ channel, downSeconds: seconds }, `${what} up again: its held messages go out`);
    }
  }

  /** Each channel up or down; `senders`: how many of its senders the server refuses (their messages wait). */
  status(): Record<string, ChannelStatus> {
    const status: Record<string, ChannelStatus> = {};
    for (const channel of this.channels) {
      const down = this.down.get(channel);
      const senders = [...this.down.keys()].filter((scope) => scope.startsWith(`${channel} sender `)).length;
      status[channel] = {
        ...(down ? { state: 'down' as const, about: down.about, since: new Date(down.since).toISOString() } : { state: 'up' as const }),
        ...(senders > 0 ? { sendersDown: senders } : {}),
      };
    }
    return status;
  }

  private wait(failures: number): number {
    return Math.min(this.firstRetryMs * 2 ** Math.max(0, failures - 1), Math.max(MAX_DOWN_WAIT_MS, this.firstRetryMs));
  }
}
