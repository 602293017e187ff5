/**
 * Real peers of the network outbox for specs: an SMTP server (smtp-server, the server half of nodemailer's
 * project) whose mails are read with mailparser, and an HTTP server that implements Twilio's one Messages
 * endpoint as Twilio documents it (form body, basic auth, 201 JSON; 4xx with Twilio's `code`). Each answers
 * from a script the spec sets, so a spec can refuse, delay or accept a message.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface ArrivedMail {
  messageId: string;
  from: string;
  to: string;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string | null;
  headers: Map<string, unknown>;
  contentType: string;
  raw: string;
}

/** A reply the script gives to one message: accept (null) or refuse with an SMTP code. */
export type SmtpAnswer = null | { code: number; message: string };

export interface SmtpPeerOptions {
  /** The address it listens on and its URL names (default 127.0.0.1). */
  host?: string;
  /**
   * Asks for a login (AUTH PLAIN/LOGIN over the plain connection: it never offers STARTTLS): this one, or any with
   * `true`; without it, none is asked.
   */
  auth?: true | { user: string; pass: string };
}

export interface SmtpPeer {
  url: string;
  /** Accepted mails, in arrival order. */
  mails: ArrivedMail[];
  /** Every message the server was given, refused ones too (by Message-ID). */
  attempts: string[];
  /** Decides the answer to each message (default: accept); called once the data arrived. */
  answer: (mail: ArrivedMail, attempt: number) => SmtpAnswer;
  /** Called after an accepted message was answered 250. */
  onAccepted: (mail: ArrivedMail) => void;
  /** The user names that authenticated (AUTH, offered with `auth`), in order. */
  logins: string[];
  /** Logins the server refused (a wrong user or password). */
  loginsRefused: number;
  /** The answer to MAIL FROM (default: accept), given the sender's address. */
  answerMailFrom: (address: string) => SmtpAnswer;
  /** The answer to each RCPT TO (default: accept), given the recipient's address. */
  answerRcptTo: (address: string) => SmtpAnswer;
  waitForMails(count: number, timeoutMs?: number): Promise<ArrivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpPeer(options: SmtpPeerOptions = {}): Promise<SmtpPeer> {
  const host = options.host ?? '127.0.0.1';
  const peer: Omit<SmtpPeer, 'url' | 'close'> = {
    mails: [],
    attempts: [],
    logins: [],
    answer: () => null,
    onAccepted: () => {},
    answerMailFrom: () => null,
    answerRcptTo: () => null,
    loginsRefused: 0,
    waitForMails: (count, timeoutMs = 10_000) =>
      waitFor(() => (peer.mails.length >= count ? peer.mails : null), timeoutMs, `${count} mails`),
  };
  const refusal = (answer: SmtpAnswer) => {
    if (!answer) return null;
    const error = new Error(answer.message) as Error & { responseCode: number };
    error.responseCode = answer.code;
    return error;
  };
  const auth = options.auth;
  const server = new SMTPServer({
    authOptional: !auth,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    logger: false,
    onAuth(login, _session, callback) {
      if (auth === true || (auth && login.username === auth.user && login.password === auth.pass)) {
        peer.logins.push(login.username ?? '');
        return callback(null, { user: login.username });
      }
      peer.loginsRefused += 1;
      const error = new Error('5.7.8 Error: authentication failed') as Error & { responseCode: number };
      error.responseCode = 535;
      callback(error);
    },
    onMailFrom(address, _session, callback) {
      const error = refusal(peer.answerMailFrom(address.address));
      if (error) callback(error);
      else callback();
    },
    onRcptTo(address, _session, callback) {
      const error = refusal(peer.answerRcptTo(address.address));
      if (error) callback(error);
      else callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            const mail = arrived(parsed, raw);
            peer.attempts.push(mail.messageId);
            const answer = peer.answer(mail, peer.attempts.filter((id) => id === mail.messageId).length);
            if (answer) {
              const error = new Error(answer.message) as Error & { responseCode: number };
              error.responseCode = answer.code;
              return callback(error);
            }
            peer.mails.push(mail);
            callback(null, 'OK queued');
            setImmediate(() => peer.onAccepted(mail));
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(peer as SmtpPeer, {
    url: `smtp://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function arrived(parsed: ParsedMail, raw: string): ArrivedMail {
  const text = (value: { text: string } | Array<{ text: string }> | undefined) =>
    value === undefined ? '' : Array.isArray(value) ? value.map((v) => v.text).join(', ') : value.text;
  return {
    messageId: parsed.messageId ?? '',
    from: text(parsed.from),
    to: text(parsed.to),
    replyTo: parsed.replyTo ? text(parsed.replyTo) : null,
    subject: parsed.subject ?? '',
    text: (parsed.text ?? '').replace(/\n$/, ''),
    html: typeof parsed.html === 'string' ? parsed.html : null,
    headers: parsed.headers,
    contentType: /^content-type:\s*([^;\r\n]+)/im.exec(raw)?.[1] ?? '',
    raw,
  };
}

export interface ArrivedSms {
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  sid: string;
}

/** What the fake answers one request: 201 (null) or an error status with Twilio's error code. */
export type TwilioAnswer = null | { status: number; code: number; message: string };

export interface TwilioPeer {
  url: string;
  accountSid: string;
  authToken: string;
  messages: ArrivedSms[];
  /** Requests that were refused for their credentials or form. */
  refused: number;
  answer: (form: URLSearchParams, attempt: number) => TwilioAnswer;
  waitForMessages(count: number, timeoutMs?: number): Promise<ArrivedSms[]>;
  close(): Promise<void>;
}

export async function startTwilioPeer(): Promise<TwilioPeer> {
  const accountSid = `AC${'0123456789abcdef'.repeat(2)}`;
  const authToken = 'twilio-test-auth-token';
  let requests = 0;
  const peer: Omit<TwilioPeer, 'url' | 'close'> = {
    accountSid,
    authToken,
    messages: [],
    refused: 0,
    answer: () => null,
    waitForMessages: (count, timeoutMs = 10_000) =>
      waitFor(() => (peer.messages.length >= count ? peer.messages : null), timeoutMs, `${count} text messages`),
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
      // The account itself (GET), as a start-up check reads it.
      if (req.method === 'GET' && req.url === `/2010-04-01/Accounts/${accountSid}.json`) {
        if (req.headers.authorization !== expected) {
          peer.refused += 1;
          return json(res, 401, { code: 20003, message: 'Authenticate', status: 401 });
        }
        return json(res, 200, { sid: accountSid, status: 'active', type: 'Full' });
      }
      if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${accountSid}/Messages.json`) {
        peer.refused += 1;
        return json(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      }
      if (req.headers.authorization !== expected) {
        peer.refused += 1;
        return json(res, 401, { code: 20003, message: 'Authenticate', status: 401 });
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (!/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? '') || !form.get('To') || !form.get('Body')) {
        peer.refused += 1;
        return json(res, 400, { code: 21604, message: "A 'To' phone number is required.", status: 400 });
      }
      requests += 1;
      const answer = peer.answer(form, requests);
      if (answer) return json(res, answer.status, { code: answer.code, message: answer.message, status: answer.status });
      const sid = `SM${String(requests).padStart(32, '0')}`;
      peer.messages.push({
        to: form.get('To')!,
        from: form.get('From'),
        messagingServiceSid: form.get('MessagingServiceSid'),
        body: form.get('Body')!,
        sid,
      });
      json(res, 201, { sid, status: 'queued', to: form.get('To'), body: form.get('Body'), account_sid: accountSid });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(peer as TwilioPeer, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** An address of this machine that is not a loopback one (a LAN interface's), or null when it has none. */
export function nonLoopbackAddress(): string | null {
  for (const addresses of Object.values(os.networkInterfaces()))
    for (const a of addresses ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  return null;
}

async function waitFor<T>(check: () => T | null, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
