// The keys that sign and verify the service's credentials (bearer tokens, stream tickets), as this process last
// read them from the key ring (src/ports/key-ring.ts): the newest key not retired signs, every key not retired
// verifies what it signed, found by the `kid` in the token's header. The ring is read again every few seconds,
// and for a kid this process does not know yet (at most once a second): a key added by a rotation signs on one
// process as soon as that one has read it, and every other process verifies its tokens from then on.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { KEY_ID, type KeyRing, type KeyRingStore, type SigningKey } from '../ports/key-ring.ts';

/** How often a process reads the ring again: a key added or retired elsewhere takes effect here within this long. */
export const KEY_REFRESH_MS = 5000;
/**
 * A credential of a kid this process does not know waits for a read of the ring begun after it came: at once when
 * none was begun for this long, else when this long has passed since the last one (so made-up kids cost one read a
 * second at most, and such a request waits a second at most).
 */
const UNKNOWN_KID_REREAD_MS = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** The least a secret may hold (HS256 wants 256 bits). */
export const MIN_SECRET_BYTES = 32;

/** The key that signs now, prepared (a KeyObject: jsonwebtoken would try to parse a Buffer as a public key each time). */
export interface Signer {
  id: string;
  key: KeyObject;
}

export interface SigningKeys {
  /** The key that signs now: the newest one not retired. */
  signer(): Signer;
  /**
   * The key that verifies a credential of this `kid`, or null (unknown, retired). `undefined`: a credential from
   * before keys had ids, verified by the key that was the service's one secret then, while it is not retired.
   */
  verifier(kid: string | undefined): Promise<KeyObject | null>;
  /** Whether a key still verifies, as this process last read the ring (a credential checked before, checked again). */
  verifies(kid: string | undefined): boolean;
}

/** The id of a key, derived from its secret: the same JWT_SECRET gives the same id on every process. */
export function keyIdOf(secret: Buffer): string {
  return createHmac('sha256', secret).update('bidder-api/key-id').digest('base64url').slice(0, 12);
}

/** A new random key: 48 bytes as base64url text (64 characters), as the one secret of earlier versions was. */
export function newSigningKey(now: Date): SigningKey {
  const secret = randomBytes(48).toString('base64url');
  return { id: keyIdOf(Buffer.from(secret, 'utf8')), secret, created: now.toISOString() };
}

/**
 * A new ring: a random anchor and one random key; or, from the one secret of an earlier version (JWT_SECRET, or
 * DATA_DIR/secrets/jwt.key), that secret as both the anchor and the first key, so that what was issued with it
 * (tokens, positions, one-time keys waiting to be sent) stays good.
 */
export function newKeyRing(now: Date, from?: string): KeyRing {
  if (from) return { anchor: from, keys: [{ id: keyIdOf(Buffer.from(from, 'utf8')), secret: from, created: now.toISOString() }] };
  return { anchor: randomBytes(48).toString('base64url'), keys: [newSigningKey(now)] };
}

/** The `kid` of a JWT's header: undefined when it has none, null when the header is not one. */
export function kidOf(token: string): string | undefined | null {
  const end = token.indexOf('.');
  if (end <= 0 || end > 1024) return null;
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, end), 'base64url').toString('utf8'));
    if (typeof header !== 'object' || header === null) return null;
    const kid = (header as { kid?: unknown }).kid;
    if (kid === undefined) return undefined;
    return typeof kid === 'string' && KEY_ID.test(kid) ? kid : null;
  } catch {
    return null;
  }
}

interface Snapshot {
  signer: Signer;
  verifiers: Map<string, KeyObject>;
  /** The key whose secret is the anchor (the one secret of an earlier version): it verifies credentials without kid. */
  legacy: KeyObject | null;
  /** Ids of retired keys: refused without reading the ring again. */
  retired: Set<string>;
}

function prepared(secret: Buffer, id: string): KeyObject {
  if (secret.length < MIN_SECRET_BYTES) throw new Error(`the signing key ${id} is shorter than ${MIN_SECRET_BYTES} bytes`);
  return createSecretKey(secret);
}

/** What a ring signs and verifies with; an error when no key of it may sign. */
function snapshotOf(ring: KeyRing): Snapshot {
  const active = ring.keys.filter((key) => key.retired === undefined);
  if (active.length === 0) throw new Error('the key ring has no key that is not retired: npm run keys -- rotate');
  const verifiers = new Map(active.map((key) => [key.id, prepared(Buffer.from(key.secret, 'utf8'), key.id)]));
  // The newest signs; of two made in the same millisecond, the one added last.
  const newest = active.reduce((a, b) => (Date.parse(b.created) >= Date.parse(a.created) ? b : a));
  const legacy = active.find((key) => key.secret === ring.anchor);
  return {
    signer: { id: newest.id, key: verifiers.get(newest.id)! },
    verifiers,
    legacy: legacy ? verifiers.get(legacy.id)! : null,
    retired: new Set(ring.keys.filter((key) => key.retired !== undefined).map((key) => key.id)),
  };
}

const lookup = (snapshot: Snapshot, kid: string | undefined) =>
  kid === undefined ? snapshot.legacy : (snapshot.verifiers.get(kid) ?? null);

/** Keys that never change. */
function fixed(snapshot: Snapshot): SigningKeys {
  return {
    signer: () => snapshot.signer,
    verifier: async (kid) => lookup(snapshot, kid),
    verifies: (kid) => lookup(snapshot, kid) !== null,
  };
}

/** One fixed key (JWT_SECRET, and specs): its id derived from it, and credentials without kid taken as its own. */
export function singleKey(secret: Buffer): SigningKeys {
  const id = keyIdOf(secret);
  const key = prepared(secret, id);
  return fixed({ signer: { id, key }, verifiers: new Map([[id, key]]), legacy: key, retired: new Set() });
}

/** A ring's keys as they stand, not followed: for a tool or a spec that reads a ring once. */
export function ringKeys(ring: KeyRing): SigningKeys {
  return fixed(snapshotOf(ring));
}

/** The ring of a store, read again every `refreshMs` and for a kid not known yet; stopped by `close()`. */
export class StoredSigningKeys implements SigningKeys {
  private snapshot: Snapshot;
  private seen: string;
  /** When the last read of the ring began. */
  private readStarted = Date.now();
  private reading: Promise<void> | null = null;
  private pause: Promise<void> | null = null;
  private failing = false;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly store: KeyRingStore,
    ring: KeyRing,
    refreshMs: number,
    private readonly onProblem: (message: string, error?: unknown) => void,
  ) {
    this.snapshot = snapshotOf(ring);
    this.seen = JSON.stringify(ring.keys);
    this.anchor = Buffer.from(ring.anchor, 'utf8');
    this.timer = setInterval(() => void this.reread(), refreshMs);
    this.timer.unref();
  }

  /** The ring's never-rotated secret, from which positions and one-time keys derive. */
  readonly anchor: Buffer;

  /** The store's ring (made with `initial()` when there is none yet), followed from now on. */
  static async open(
    store: KeyRingStore,
    initial: () => KeyRing,
    options: { refreshMs?: number; onProblem?: (message: string, error?: unknown) => void } = {},
  ): Promise<StoredSigningKeys> {
    return new StoredSigningKeys(store, await store.open(initial), options.refreshMs ?? KEY_REFRESH_MS, options.onProblem ?? (() => {}));
  }

  signer(): Signer {
    return this.snapshot.signer;
  }

  async verifier(kid: string | undefined): Promise<KeyObject | null> {
    const known = lookup(this.snapshot, kid);
    if (known || kid === undefined || this.snapshot.retired.has(kid)) return known;
    // A key added since the last read (a rotation another process has read first): a read begun from now on finds it.
    await this.readSince(Date.now());
    return lookup(this.snapshot, kid);
  }

  verifies(kid: string | undefined): boolean {
    return lookup(this.snapshot, kid) !== null;
  }

  /** Reads the ring again (one read at a time); a ring that cannot be read or used leaves the last one in force. */
  reread(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = null));
    return this.reading;
  }

  /** Waits for a read begun at `since` or later, beginning one at most once a second (a stranger's made-up kids). */
  private async readSince(since: number): Promise<void> {
    while (this.readStarted < since) {
      const wait = this.readStarted + UNKNOWN_KID_REREAD_MS - Date.now();
      if (this.reading) await this.reading;
      else if (wait > 0) await (this.pause ??= sleep(wait).finally(() => (this.pause = null)));
      else await this.reread();
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async read(): Promise<void> {
    this.readStarted = Date.now();
    try {
      const ring = await this.store.read();
      if (!ring) throw new Error('the key ring is gone from its store');
      const text = JSON.stringify(ring.keys);
      if (text !== this.seen) {
        this.snapshot = snapshotOf(ring);
        this.seen = text;
      }
      if (this.failing) this.onProblem('the key ring is read again');
      this.failing = false;
    } catch (error) {
      // Once per episode: the keys last read go on signing and verifying meanwhile.
      if (!this.failing) this.onProblem('the key ring cannot be read: the keys last read stay in force', error);
      this.failing = true;
    }
  }
}
