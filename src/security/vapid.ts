// The service's identity towards push services (RFC 8292, VAPID): a P-256 key pair, base64url as browsers take it
// (`pushManager.subscribe({ applicationServerKey })`), and the checks of the P-256 keys a browser's subscription
// carries (RFC 8291). Node's own crypto; the push messages themselves are encrypted by src/adapters/delivery/web-push.ts.
import { createECDH, ECDH, hkdfSync } from 'node:crypto';

export interface VapidKeys {
  /** The uncompressed P-256 point (65 bytes), base64url: what GET /v1/push/key answers. */
  publicKey: string;
  /** The private scalar (32 bytes), base64url: never leaves the process. */
  privateKey: string;
}

/** The order of P-256's group (SEC 2): a private key is a number from 1 to N − 1. */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The bytes of a base64url text (no padding, the alphabet of RFC 4648 §5), or null when it is not one. */
export function base64urlBytes(text: string): Buffer | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  return Buffer.from(text, 'base64url');
}

/** Whether bytes are an uncompressed point of P-256 (65 bytes, 0x04 first, on the curve). */
export function isP256Point(bytes: Buffer): boolean {
  if (bytes.length !== 65 || bytes[0] !== 0x04) return false;
  try {
    ECDH.convertKey(bytes, 'prime256v1');
    return true;
  } catch {
    return false;
  }
}

/** The public key of a private scalar, or null when the scalar is not a P-256 private key. */
export function publicKeyOf(privateKey: Buffer): Buffer | null {
  if (privateKey.length !== 32) return null;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(privateKey);
    return ecdh.getPublicKey();
  } catch {
    return null;
  }
}

/**
 * The key pair of a deployment that sets none: derived from the key ring's anchor, the secret every process on
 * every machine reads and no rotation changes (app/key-ring.ts), so it is made once, the same everywhere, with no
 * write and no race. FIPS 186-5 A.2.1's method: 64 bits more than the order's, reduced into 1 … N − 1.
 */
export function derivedVapidKeys(anchor: Buffer): VapidKeys {
  const bytes = Buffer.from(hkdfSync('sha256', anchor, Buffer.alloc(0), 'bidder-api/vapid-key', 40));
  const scalar = (BigInt(`0x${bytes.toString('hex')}`) % (N - 1n)) + 1n;
  const privateKey = Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex');
  return { publicKey: publicKeyOf(privateKey)!.toString('base64url'), privateKey: privateKey.toString('base64url') };
}
