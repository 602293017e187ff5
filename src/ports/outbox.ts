/**
 * Outgoing mail and SMS. Production: SMTP / an SMS gateway. Embedded: one file per message under
 * DATA_DIR/outbox/. `id` makes a send idempotent: sending the same id twice delivers once.
 */
export interface OutgoingMessage {
  id: string;
  channel: 'mail' | 'sms';
  tenant: string;
  to: string;
  subject?: string;
  body: string;
  replyTo?: string;
}

export interface Outbox {
  send(message: OutgoingMessage): Promise<{ delivered: boolean }>;
}
