/**
 * What the network outbox hands a message to (SMTP, Twilio), and how a transport says whose fault a failed try
 * was (PRODUCTION.md "Deliveries an operator can trust"): `temporary` (a 4xx, Twilio's 429 or 5xx) is tried again;
 * `setup` (the service's own settings or the server as a whole: a password refused, a sender refused, no
 * connection) makes the channel down and keeps every message; `recipient` (this one address or number refused)
 * ends this one message.
 */
import { createHash } from 'node:crypto';
import type { OutgoingMessage } from '../../ports/outbox.ts';
import { maskPersonalData } from './mask.ts';

export interface MessageTransport {
  /** Sends one message; answers the server's reply (`250 2.0.0 OK queued`, `201 SM…`) or throws a DeliveryError. */
  send(message: OutgoingMessage): Promise<{ reply: string }>;
  /** The sender a message goes out as, when the server may refuse one sender and not another (SMTP's MAIL FROM). */
  senderOf?(message: OutgoingMessage): string;
  /** Checks the connection and the credentials without sending (the start-up check); throws a DeliveryError. */
  verify(): Promise<void>;
  /** What it sends to, for the start-up log (no credentials). */
  describe: string;
  close(): Promise<void>;
}

export type FailureKind = 'temporary' | 'setup' | 'recipient';

/** Why a message to one recipient ended (MessageDeliveryFailed's `reason`, with `gave-up`). */
export type RecipientReason = 'recipient-refused' | 'invalid-number';

export class DeliveryError extends Error {
  /** The server's reply, or the connection error, with addresses and numbers masked. */
  readonly reply: string;
  /** What a `setup` failure is about, in a few words (`authentication refused`): the log line and /readyz say it. */
  readonly about: string;
  readonly reason: RecipientReason | null;
  /** A set-up failure about one sender (the server refused this `From`): only that sender's messages wait. */
  sender: string | null = null;

  constructor(
    readonly kind: FailureKind,
    what: { about: string; reply: string; reason?: RecipientReason },
  ) {
    const reply = maskPersonalData(what.reply);
    super(`${what.about}: ${reply}`);
    this.name = 'DeliveryError';
    this.reply = reply;
    this.about = what.about;
    this.reason = kind === 'recipient' ? (what.reason ?? 'recipient-refused') : null;
  }
}

/**
 * A message's delivery id: 32 hex digits of the SHA-256 of the house and the message's own id, the same for every
 * try. Its `Message-ID` is built of it, MessageDeliveryFailed names it, and the operator retries by it.
 */
export function deliveryIdOf(message: Pick<OutgoingMessage, 'tenant' | 'id'>): string {
  return createHash('sha256').update(`${message.tenant}\0${message.id}`, 'utf8').digest('hex').slice(0, 32);
}

/** The `Message-ID` of a message: the same for every try, derived from the house and the message's own id. */
export function messageIdHeader(message: Pick<OutgoingMessage, 'tenant' | 'id'>, domain: string): string {
  return `<${deliveryIdOf(message)}@${domain}>`;
}
