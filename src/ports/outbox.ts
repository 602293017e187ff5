/**
 * Outgoing mail and SMS. Embedded: one file per message under DATA_DIR/outbox/. Production: SMTP and an SMS
 * gateway, each message sent by a background job (src/adapters/delivery/). `id` makes a send idempotent:
 * sending the same id twice delivers once.
 */
export interface OutgoingMessage {
  id: string;
  channel: 'mail' | 'sms';
  tenant: string;
  to: string;
  subject?: string;
  /** The text (a mail's text part, an SMS's whole). */
  body: string;
  /** A mail's HTML part (the same content as body); without it the mail is text only. */
  html?: string;
  replyTo?: string;
  /** What the message is, for counts and logs: `member-confirmation`, `password-reset`, `outbid`, `reminder`, `invoice` (its notice), `contact`, `phone-code`. */
  kind?: string;
  /** The language of subject and body (a mail's Content-Language). */
  language?: string;
  /** The member it is for, when it is a member's: a delivery that ends undelivered is told on their stream (MessageDeliveryFailed). */
  memberId?: number;
  /** The house that sends it: its name (the display name) and its own `Name <address>` (intake's `mailFrom`), when it has one. */
  sender?: { name: string; mailFrom?: string | null };
  /**
   * A notification mail's one-click unsubscribe link (RFC 8058): sent as `List-Unsubscribe: <url>` with
   * `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. Account mails (a confirmation, a reset key) have none.
   */
  unsubscribeUrl?: string;
}

export interface Outbox {
  send(message: OutgoingMessage): Promise<{ delivered: boolean }>;
}
