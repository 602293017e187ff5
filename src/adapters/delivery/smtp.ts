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
      throw classify(error);
    }
  }

  close(): Promise<void> {
    this.transporter.close();
    return Promise.resolve();
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

/**
 * An SMTP 5xx reply is permanent; a 4xx, a refused or dropped connection, a time-out are temporary, and so is
 * TLS that could not be set up (nodemailer's `ETLS`: the server's reply to STARTTLS is no verdict on the mail).
 */
function classify(error: unknown): DeliveryError {
  const e = error as { responseCode?: number; response?: string; code?: string; message?: string };
  if (e.code === 'ETLS') {
    const refused = e.response !== undefined && !/^2/.test(e.response);
    const what = refused ? `the server does not offer STARTTLS (${e.response})` : `TLS could not be set up (${e.message ?? ''})`;
    const reply = `ETLS ${what}: neither the password nor the mail was sent; ${refused ? TLS_HINT : CERTIFICATE_HINT}`;
    return new DeliveryError(`SMTP failed: ${reply}`, false, reply);
  }
  const reply = e.response ?? [e.code, e.message].filter(Boolean).join(' ');
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  const permanent = code !== null && code >= 500 && code < 600;
  return new DeliveryError(`SMTP ${permanent ? 'refused' : 'failed'}: ${reply}`, permanent, reply);
}
