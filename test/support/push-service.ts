// A push service of the specs' own on 127.0.0.1 (RFC 8030 §5): it hands out subscriptions as a browser's push
// manager would (an endpoint, a P-256 key pair and a 16-byte secret), and takes each push message POSTed to one: it
// checks the VAPID header (RFC 8292: an ES256 JWT whose `aud` is the endpoint's origin and whose `exp` is within 24
// hours, signed by the key `k` names), decrypts the body with the subscription's private key (RFC 8291 over RFC
// 8188's aes128gcm, node:crypto only) and keeps the payload with the headers. Answers can be scripted per
// subscription (429, 500, 410...) before the 201 it gives by default.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, randomUUID, verify, type ECDH } from 'node:crypto';

/** RFC 8188's aes128gcm body decrypted with RFC 8291's keys: the receiving user agent's private key and auth secret. */
export function decryptPush(body: Buffer, receiver: ECDH, authSecret: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20];
  const senderPublic = body.subarray(21, 21 + idLength);
  if (idLength !== 65) throw new Error(`keyid is ${idLength} bytes, not a P-256 point`);
  const ecdhSecret = receiver.computeSecret(senderPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), receiver.getPublicKey(), senderPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const records = body.subarray(21 + idLength);
  const plain: Buffer[] = [];
  for (let offset = 0, seq = 0; offset < records.length; offset += recordSize, seq += 1) {
    const record = records.subarray(offset, Math.min(offset + recordSize, records.length));
    // The record's sequence number XORed into the nonce as a 96-bit big-endian number.
    const iv = Buffer.from(nonce);
    for (let i = 0; i < 4; i += 1) iv[11 - i] ^= (seq >>> (8 * i)) & 0xff;
    const decipher = createDecipheriv('aes-128-gcm', cek, iv);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end -= 1;
    const last = offset + recordSize >= records.length;
    if (padded[end] !== (last ? 2 : 1)) throw new Error('bad padding delimiter');
    plain.push(padded.subarray(0, end));
  }
  return Buffer.concat(plain);
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
  /** The key the header names (`k`), base64url. */
  key: string;
}

/** The VAPID Authorization header checked (RFC 8292 §3): signature by `k`, `aud` the origin, `exp` in the next 24 hours. */
export function verifyVapid(authorization: string | undefined, origin: string, nowSeconds = Date.now() / 1000): VapidClaims {
  const match = /^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match) throw new Error(`not a vapid Authorization header: ${authorization}`);
  const [token, key] = [match[1], match[2]];
  const [header, claims, signature] = token.split('.');
  if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'ES256') throw new Error('the JWT is not ES256');
  const point = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const signed = Buffer.from(`${header}.${claims}`);
  if (!verify('sha256', signed, { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')))
    throw new Error('the VAPID signature does not verify');
  const { aud, exp, sub } = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Omit<VapidClaims, 'key'>;
  if (aud !== origin) throw new Error(`aud ${aud} is not the endpoint's origin ${origin}`);
  if (!(exp > nowSeconds && exp <= nowSeconds + 24 * 3600)) throw new Error(`exp ${exp} is not within 24 hours`);
  if (!/^(mailto:|https:)/.test(sub)) throw new Error(`sub ${sub} is neither mailto: nor https:`);
  return { aud, exp, sub, key };
}

export interface ReceivedPush {
  subscription: string;
  status: number;
  /** The decrypted payload, parsed (null when the answer was scripted to refuse it before reading). */
  payload: Record<string, unknown> | null;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  vapid: VapidClaims;
  at: number;
}

interface Held {
  receiver: ECDH;
  auth: Buffer;
  answers: number[];
}

export interface SpecPushService {
  origin: string;
  /** A browser's subscription at this service, as `JSON.stringify(pushSubscription)` gives it. */
  subscribe(): { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  /** The next answers to pushes to this endpoint, in order (a 201 after them). */
  answer(endpoint: string, ...statuses: number[]): void;
  /** Every push taken (a 2xx), in order, and every try (any status). */
  received: ReceivedPush[];
  tries: ReceivedPush[];
  /** What did not decrypt or verify (a spec expects none). */
  errors: string[];
  close(): Promise<void>;
}

export async function startPushService(options: { delayMs?: number } = {}): Promise<SpecPushService> {
  const held = new Map<string, Held>();
  const received: ReceivedPush[] = [];
  const tries: ReceivedPush[] = [];
  const errors: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = /^\/push\/([0-9a-f-]+)$/.exec(req.url ?? '')?.[1];
      const sub = id ? held.get(id) : undefined;
      const reply = (status: number) => setTimeout(() => res.writeHead(status).end(), options.delayMs ?? 0);
      if (!id || !sub) return reply(404);
      const status = sub.answers.shift() ?? 201;
      try {
        if (req.method !== 'POST' || req.headers['content-encoding'] !== 'aes128gcm') throw new Error('not an aes128gcm POST');
        const vapid = verifyVapid(req.headers.authorization, origin);
        const payload = JSON.parse(decryptPush(Buffer.concat(chunks), sub.receiver, sub.auth).toString('utf8')) as Record<string, unknown>;
        const push = {
          subscription: id,
          status,
          payload,
          ttl: Number(req.headers.ttl),
          urgency: req.headers.urgency as string | undefined,
          topic: req.headers.topic as string | undefined,
          vapid,
          at: Date.now(),
        };
        tries.push(push);
        if (status >= 200 && status < 300) received.push(push);
        reply(status);
      } catch (error) {
        errors.push(String(error));
        reply(400);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    subscribe() {
      const receiver = createECDH('prime256v1');
      receiver.generateKeys();
      const auth = randomBytes(16);
      const id = randomUUID();
      held.set(id, { receiver, auth, answers: [] });
      return {
        endpoint: `${origin}/push/${id}`,
        expirationTime: null,
        keys: { p256dh: receiver.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    answer(endpoint, ...statuses) {
      held.get(endpoint.split('/').at(-1)!)!.answers.push(...statuses);
    },
    received,
    tries,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
