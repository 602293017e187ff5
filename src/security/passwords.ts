import { randomBytes, scrypt as scryptCb, timingSafeEqual, createHash } from 'node:crypto';
import os from 'node:os';

/**
 * Password hashing with scrypt (node:crypto), N = 2^17, r = 8, p = 1, a 16-byte salt and a 32-byte key.
 * The parameters are stored in the hash (`scrypt$N$r$p$salt$key`), so they can be raised later without
 * invalidating stored hashes.
 */
const N = 2 ** 17;
const r = 8;
const p = 1;
const KEY_LENGTH = 32;

/**
 * scrypt runs on libuv's thread pool, but it is CPU- and memory-bound (128 MiB each, slow by design): four at
 * once on two cores starve the event loop's own core. At most one less than the cores run at once (at least
 * one); the others wait their turn, so a burst of sign-ins slows sign-ins, not the catalogue.
 */
const SCRYPT_CONCURRENCY = Math.max(1, os.availableParallelism() - 1);
let scryptRunning = 0;
const scryptQueue: Array<() => void> = [];

async function scrypt(password: string, salt: Buffer, n: number, rr: number, pp: number): Promise<Buffer> {
  if (scryptRunning >= SCRYPT_CONCURRENCY) await new Promise<void>((resolve) => scryptQueue.push(resolve));
  scryptRunning += 1;
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      scryptCb(password, salt, KEY_LENGTH, { N: n, r: rr, p: pp, maxmem: 256 * n * rr + 1024 * 1024 }, (err, key) =>
        err ? reject(err) : resolve(key),
      ),
    );
  } finally {
    scryptRunning -= 1;
    scryptQueue.shift()?.();
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash of a password nobody knows, verified when the email is unknown so both answers take as long. */
let decoy: Promise<string> | null = null;
function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(32).toString('base64url'));
  return decoy;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await decoyHash());
  const [scheme, n, rr, pp, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), Number(n), Number(rr), Number(pp));
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Api-Keys and client secrets are long random strings: a SHA-256 is enough to store and compare them. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
