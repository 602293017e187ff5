import { createHmac, createHash, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * One-time keys and codes (email confirmation, password reset, phone verification), derived from a random
 * id with a server secret: key = HMAC-SHA256(secret, purpose, id). A command draws the id from a CSPRNG
 * (`newId`) and records only the key's SHA-256; the background job that mails or texts the key derives it
 * again from the id, so neither the event log nor the job queue ever holds a usable key, and a retried job
 * sends the same key. Without the secret, the id (which the log carries) tells nothing about the key.
 */
export class OneTimeKeys {
  constructor(private readonly secret: Buffer) {
    if (secret.length < 32) throw new Error('the one-time key secret must be at least 32 bytes');
  }

  /** A fresh, unguessable id (a v4 UUID from the CSPRNG). */
  newId(): string {
    return randomUUID();
  }

  private mac(purpose: string, id: string): Buffer {
    return createHmac('sha256', this.secret).update(`${purpose}\u0000${id}`).digest();
  }

  /** A key to paste or follow from a mail: 32 URL-safe characters (192 bits). */
  key(purpose: string, id: string): string {
    return this.mac(purpose, id).subarray(0, 24).toString('base64url');
  }

  /** A 6-digit code for an SMS. */
  code(purpose: string, id: string): string {
    return String(this.mac(purpose, id).readUInt32BE(0) % 1_000_000).padStart(6, '0');
  }

  /** What is stored of a key or code. */
  static hash(value: string): string {
    return createHash('sha256').update(value, 'utf8').digest('hex');
  }

  /** Compares a presented key or code with a stored hash in constant time. */
  static matches(presented: string, storedHash: string): boolean {
    const a = Buffer.from(OneTimeKeys.hash(presented), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/**
 * The one-time key secret, derived from the key ring's anchor (src/ports/key-ring.ts), which every process of a
 * deployment reads and no rotation changes: a job sends the key whose hash the command recorded, on any machine.
 */
export function oneTimeKeySecret(anchor: Buffer): Buffer {
  return createHmac('sha256', anchor).update('bidder-api/one-time-keys').digest();
}
