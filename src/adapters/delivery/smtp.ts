/**
 * Mail over SMTP with nodemailer (PRODUCTION.md "Mail over SMTP"): on `smtp://`, STARTTLS before the password
 * or a mail is sent when `requireTLS` (any host but a loopback one, src/config.ts), else when the server offers
 * it; TLS from the first byte on `smtps://`; a few pooled connections. Each mail is text and HTML
 * (multipart/alternative), from the house (its own `mailFrom`, else MAIL_FROM's address under its name),
 * with a Message-ID that is the same on every try.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { OutgoingMessage } from '../../ports/outbox.ts';
import { parseMailbox, type Mailbox } from '../../text/mailbox.ts';
import { DeliveryError, messageIdHeader, type MessageTransport } from './transport.ts';

export interface SmtpOptions {
  /** `smtp://[user:password@]host:port` or `smtps://…`. */
  url: string;
  /** MAIL_FROM, parsed. */
  from: Mailbox;
  /** STARTTLS or nothing: a server that does not offer it gets neither the password nor a mail. */
  requireTLS?: boolean;
  /** Connecting, the greeting and each reply: a server that hangs is a temporary failure after this long. */
  timeoutMs?: number;
}

export class SmtpTransport implements MessageTransport {
  readonly describe: string;
  private readonly transporter: Transporter;

  constructor(private readonly options: SmtpOptions) {
    const url = new URL(options.url);
    this.describe = `SMTP ${url.protocol}//${url.host}`;
    const timeout = options.timeoutMs ?? 30_000;
    this.transporter = nodemailer.createTransport({
      url: options.url,
      // SMTP_URL's own `?requireTLS=` wins over this (nodemailer reads the URL last); config derives this from it.
      requireTLS: options.requireTLS ?? false,
      pool: true,
      maxConnections: 2,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
    });
  }

  async send(message: OutgoingMessage): Promise<{ reply: string }> {
    const from = this.fromOf(message);
    try {
      const info = await this.transporter.sendMail({
        from: { name: from.name ?? '', address: from.address },
        to: message.to,
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
        subject: message.subject ?? '',
        text: message.body,
        ...(message.html ? { html: message.html } : {}),
        messageId: messageIdHeader(message, from.address.split('@')[1]),
        date: new Date(),
        headers: {
          'Auto-Submitted': 'auto-generated',
          ...(message.language ? { 'Content-Language': message.language } : {}),
          ...(message.unsubscribeUrl ? unsubscribeHeaders(message.unsubscribeUrl) : {}),
        },
      });
      return { reply: String(info.response ?? '250') };
    } catch (error) {
      throw classifySmtp(error, from.address);
    }
  }

  async verify(): Promise<void> {
    try {
      await this.transporter.verify();
    } catch (error) {
      throw classifySmtp(error);
    }
  }

  close(): Promise<void> {
    this.transporter.close();
    return Promise.resolve();
  }

  senderOf(message: OutgoingMessage): string {
    return this.fromOf(message).address;
  }

  /** The house's own address when it has one, else MAIL_FROM's address under the house's name. */
  private fromOf(message: OutgoingMessage): Mailbox {
    const own = message.sender?.mailFrom ? parseMailbox(message.sender.mailFrom) : null;
    if (own) return { name: own.name ?? message.sender?.name ?? null, address: own.address };
    return { name: message.sender?.name ?? this.options.from.name, address: this.options.from.address };
  }
}

/** RFC 8058's one-click unsubscribe: the link, and that a POST of `List-Unsubscribe=One-Click` to it suffices. */
function unsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

const TLS_HINT = 'TLS is required off loopback (SMTP_URL ?requireTLS=false sends in the clear)';
const CERTIFICATE_HINT = 'the certificate is verified unless SMTP_URL says ?tls.rejectUnauthorized=false';

/** TLS that could not be set up: the channel is down (neither the password nor a mail was sent), the reply says why. */
function tlsFailed(e: { response?: string; message?: string }): DeliveryError {
  const refused = e.response !== undefined && !/^2/.test(e.response);
  const what = refused ? `the server does not offer STARTTLS (${e.response})` : `TLS could not be set up (${e.message ?? ''})`;
  const reply = `ETLS ${what}: neither the password nor the mail was sent; ${refused ? TLS_HINT : CERTIFICATE_HINT}`;
  return new DeliveryError('setup', { about: 'SMTP TLS failed', reply });
}

/** Replies that say the server does not relay for this sender (a missing or refused login), on any command. */
const RELAY_REFUSED = /relay(ing)? (access )?(denied|not permitted|refused)|not permitted to relay|unable to relay|relay not permitted/i;
/** Replies that refuse the sender, on any command (Postfix says so at RCPT TO: its restrictions wait for it). */
const SENDER_REFUSED = /sender address rejected|sender (address )?(is )?(not allowed|refused|denied)|not owned by (the )?user/i;

/**
 * Whose fault a failed SMTP try was (PRODUCTION.md "Deliveries an operator can trust"):
 * - the service's set-up: authentication refused (`530`, `534`, `535`, nodemailer's EAUTH), the sender refused (a
 *   `5xx` to MAIL FROM, or a reply that says so), a refusal to relay, and no connection, TLS or greeting at all (a
 *   server that does not offer STARTTLS where TLS is required, a certificate refused: nodemailer's `ETLS`);
 * - one recipient: a `5xx` to RCPT TO or to the message (DATA), or an address nodemailer cannot use;
 * - temporary: any `4xx` (with a `5xx` to anything else, tried again as before).
 */
export function classifySmtp(error: unknown, sender: string | null = null): DeliveryError {
  const e = error as { responseCode?: number; response?: string; code?: string; command?: string; message?: string };
  if (e.code === 'ETLS') return tlsFailed(e);
  const reply = e.response ?? [e.code, e.message].filter(Boolean).join(' ');
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  const command = e.command ?? '';
  const setup = (about: string) => new DeliveryError('setup', { about, reply });
  if (code !== null && code >= 400 && code < 500) return new DeliveryError('temporary', { about: 'SMTP try failed', reply });
  if (e.code === 'EAUTH' || e.code === 'ENOAUTH' || code === 530 || code === 534 || code === 535 || command.startsWith('AUTH'))
    return setup('SMTP authentication refused');
  // The sender refused: this sender only (a house's own `mailFrom`); its mail waits, every other sender's goes out.
  const ofSender = (failure: DeliveryError) => Object.assign(failure, { sender });
  if (code !== null && SENDER_REFUSED.test(reply)) return ofSender(setup('SMTP sender refused'));
  if (code !== null && RELAY_REFUSED.test(reply))
    return command === 'MAIL FROM' ? ofSender(setup('SMTP relay refused for this sender')) : setup('SMTP relay refused');
  if (command === 'MAIL FROM' && code !== null) return ofSender(setup('SMTP sender refused'));
  if (code !== null && code >= 500 && (command === 'RCPT TO' || command === 'DATA'))
    return new DeliveryError('recipient', { about: 'SMTP recipient refused', reply, reason: 'recipient-refused' });
  // Refused by nodemailer before the server saw it: an address it cannot use, a message too large.
  if (code === null && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE'))
    return new DeliveryError('recipient', { about: 'message refused before sending', reply, reason: 'recipient-refused' });
  if (e.code === 'ETLS' || e.code === 'EREQUIRETLS' || /certificate|tls|ssl/i.test(reply)) return setup('SMTP TLS failed');
  if (code === null) return setup('SMTP server unreachable');
  if (command === 'CONN' || command === 'EHLO' || command === 'HELO') return setup('SMTP server refused the session');
  return new DeliveryError('temporary', { about: 'SMTP try failed', reply });
}
