/**
 * SMS through Twilio's Messages API (PRODUCTION.md "SMS through a gateway"): one form-encoded POST with basic
 * auth. 201 is sent. Whose fault a failure is (classifyTwilio): 429 and 5xx are temporary; 401, 403, 404 (the
 * account, its token or the URL), a sender Twilio refuses and no connection are the set-up's (the channel is
 * down, every text kept); an invalid or refused number (`21211`, `21614`, …) and any other 4xx end that text.
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
  private readonly base: string;
  private readonly endpoint: string;

  constructor(private readonly options: TwilioOptions) {
    this.base = options.apiUrl.replace(/\/+$/, '');
    this.endpoint = `${this.base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
    this.describe = `Twilio ${new URL(this.base).host}`;
  }

  /** The start-up check: one GET of the account (its SID and token). */
  async verify(): Promise<void> {
    const url = `${this.base}/2010-04-01/Accounts/${encodeURIComponent(this.options.accountSid)}.json`;
    const response = await this.call(url, { method: 'GET' });
    if (response.status === 200) return;
    throw classifyTwilio(response.status, await bodyOf(response));
  }

  async send(message: OutgoingMessage): Promise<{ reply: string }> {
    const form = new URLSearchParams({ To: message.to, Body: message.body });
    form.set(/^MG[0-9a-f]{32}$/i.test(this.options.from) ? 'MessagingServiceSid' : 'From', this.options.from);
    const response = await this.call(this.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const body = await bodyOf(response);
    if (response.status === 201 || response.status === 200) return { reply: `${response.status} ${String(body.sid ?? '')}`.trim() };
    throw classifyTwilio(response.status, body);
  }

  /** One request with the account's basic auth; no answer at all is a set-up failure (the channel is down). */
  private async call(url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<Response> {
    try {
      return await fetch(url, {
        ...init,
        headers: {
          Authorization: `Basic ${Buffer.from(`${this.options.accountSid}:${this.options.authToken}`).toString('base64')}`,
          Accept: 'application/json',
          ...init.headers,
        },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      const reply = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new DeliveryError('setup', { about: 'Twilio unreachable', reply });
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface TwilioBody {
  sid?: unknown;
  code?: unknown;
  message?: unknown;
}

async function bodyOf(response: Response): Promise<TwilioBody> {
  const text = await response.text().catch(() => '');
  try {
    return JSON.parse(text) as TwilioBody;
  } catch {
    return {}; // Not JSON (a proxy's page): the status decides alone.
  }
}

/** Twilio's codes of a number that cannot get this text: invalid, not a mobile, or not reachable. */
const INVALID_NUMBER = new Set([21211, 21214, 21217, 21401, 21407, 21421, 21614]);
const REFUSED_NUMBER = new Set([21408, 21610, 21612, 21635, 30003, 30004, 30005, 30006]);
/** Codes about the sender (`TWILIO_FROM`): the set-up's. */
const SENDER_REFUSED = new Set([21212, 21603, 21606, 21659, 21660, 21661, 21703, 21704]);

export function classifyTwilio(status: number, body: TwilioBody): DeliveryError {
  const code = typeof body.code === 'number' ? body.code : null;
  const reply = [status, code !== null ? `code ${code}` : null, typeof body.message === 'string' ? body.message : null]
    .filter((part) => part !== null)
    .join(' ');
  if (status === 429 || status >= 500) return new DeliveryError('temporary', { about: 'Twilio try failed', reply });
  if (status === 401 || status === 403) return new DeliveryError('setup', { about: 'Twilio credentials refused', reply });
  if (status === 404) return new DeliveryError('setup', { about: 'Twilio account or URL not found', reply });
  if (code !== null && SENDER_REFUSED.has(code)) return new DeliveryError('setup', { about: 'Twilio sender refused', reply });
  if (code !== null && INVALID_NUMBER.has(code))
    return new DeliveryError('recipient', { about: 'Twilio refused the number', reply, reason: 'invalid-number' });
  if (code !== null && REFUSED_NUMBER.has(code))
    return new DeliveryError('recipient', { about: 'Twilio refused the number', reply, reason: 'recipient-refused' });
  // Any other 4xx is about this text (its body, its number): it ends, the channel stays up.
  if (status >= 400 && status < 500)
    return new DeliveryError('recipient', { about: 'Twilio refused the text', reply, reason: 'recipient-refused' });
  return new DeliveryError('temporary', { about: 'Twilio try failed', reply });
}
