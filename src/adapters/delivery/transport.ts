/**
 * What the network outbox hands a message to (SMTP, Twilio), and how a transport says that a try failed: a
 * temporary failure is tried again, a permanent one (an SMTP 5xx, Twilio's 4xx but 429) never.
 */
import { createHash } from 'node:crypto';
import type { OutgoingMessage } from '../../ports/outbox.ts';

export interface MessageTransport {
  /** Sends one message; answers the server's reply (`250 2.0.0 OK queued`, `201 SM…`) or throws a DeliveryError. */
  send(message: OutgoingMessage): Promise<{ reply: string }>;
  /** What it sends to, for the start-up log (no credentials). */
  describe: string;
  close(): Promise<void>;
}

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** True when trying again cannot help: the server refused the message itself. */
    readonly permanent: boolean,
    /** The server's reply, or the connection error. */
    readonly reply: string,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** The `Message-ID` of a message: the same for every try, derived from the house and the message's own id. */
export function messageIdHeader(message: Pick<OutgoingMessage, 'tenant' | 'id'>, domain: string): string {
  const digest = createHash('sha256').update(`${message.tenant}\0${message.id}`, 'utf8').digest('hex').slice(0, 32);
  return `<${digest}@${domain}>`;
}
