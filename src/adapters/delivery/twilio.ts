/**
 * SMS through Twilio's Messages API (PRODUCTION.md "SMS through a gateway"): one form-encoded POST with basic
 * auth. 201 is sent; 429, a 5xx, a time-out or no connection are temporary; another 4xx (Twilio's `code`, e.g.
 * 21211 for an invalid number) is permanent.
 */
import type { OutgoingMessage } from '../../ports/outbox.ts';
import { DeliveryError, type MessageTransport } from './transport.ts';

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  /** A sender number, or a messaging service's id (`MG…`). */
  from: string;
  /** https://api.twilio.com unless a test or a proxy names another. */
  apiUrl: string;
  timeoutMs?: number;
}

export class TwilioSms implements MessageTransport {
  readonly describe: string;
  private readonly endpoint: string;

  constructor(private readonly options: TwilioOptions) {
    const base = options.apiUrl.replace(/\/+$/, '');
    this.endpoint = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
    this.describe = `Twilio ${new URL(base).host}`;
  }

  async send(message: OutgoingMessage): Promise<{ reply: string }> {
    const form = new URLSearchParams({ To: message.to, Body: message.body });
    form.set(/^MG[0-9a-f]{32}$/i.test(this.options.from) ? 'MessagingServiceSid' : 'From', this.options.from);
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from(`${this.options.accountSid}:${this.options.authToken}`).toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: form.toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      const reply = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new DeliveryError(`Twilio unreachable: ${reply}`, false, reply);
    }
    const text = await response.text().catch(() => '');
    let body: { sid?: unknown; code?: unknown; message?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // Not JSON (a proxy's page): the status decides alone.
    }
    if (response.status === 201 || response.status === 200) return { reply: `${response.status} ${String(body.sid ?? '')}`.trim() };
    const reply = [
      response.status,
      body.code !== undefined ? `code ${String(body.code)}` : null,
      typeof body.message === 'string' ? body.message : null,
    ]
      .filter((part) => part !== null)
      .join(' ');
    const permanent = response.status >= 400 && response.status < 500 && response.status !== 429;
    throw new DeliveryError(`Twilio ${permanent ? 'refused' : 'failed'}: ${reply}`, permanent, reply);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
