/**
 * The key ring: the secrets that sign the service's credentials (bearer tokens, stream tickets), each with an id
 * that every token names in its `kid` header, and the anchor, the one secret that is never rotated (the houses'
 * positions and the one-time keys derive from it: docs/operations.md "Secrets"). Kept where every process of a
 * deployment reads it: a file in DATA_DIR on the embedded default (one machine), a table beside the log on
 * PostgreSQL (several machines). Adding a key (a rotation) and retiring one are an operator's (`npm run keys`).
 */
export interface SigningKey {
  /** Unique in the ring, at most 64 characters of [A-Za-z0-9_-]: the `kid` of what it signs. */
  id: string;
  /** The HMAC secret as text (its UTF-8 bytes are the key), at least 32 bytes. */
  secret: string;
  /** When it was added (ISO 8601): of the keys not retired, the newest signs. */
  created: string;
  /** When it was retired (ISO 8601): from then on it neither signs nor verifies. */
  retired?: string;
}

export interface KeyRing {
  /** Never rotated: positions and one-time keys derive from it. */
  anchor: string;
  /** Oldest first. */
  keys: SigningKey[];
}

export interface KeyRingStore {
  /**
   * The ring as stored; when there is none yet, `initial()` is stored first, once: of several processes that
   * open a new store at once, one's ring is stored and every one of them gets that one.
   */
  open(initial: () => KeyRing): Promise<KeyRing>;
  /** The ring as stored now, or null when none was made yet. */
  read(): Promise<KeyRing | null>;
  /** Adds a key to the stored ring; false when a key of that id is there already. */
  add(key: SigningKey): Promise<boolean>;
  /** Marks a key retired at `at`; false when there is no such key, or it was retired already. */
  retire(id: string, at: string): Promise<boolean>;
  close(): Promise<void>;
}

/** What a key id may be: short, and safe in a JWT header, a log line and a file name. */
export const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Whether a value read back from a store is a key ring (a file edited by hand, a row written by another version). */
export function isKeyRing(value: unknown): value is KeyRing {
  if (typeof value !== 'object' || value === null) return false;
  const ring = value as Partial<KeyRing>;
  return (
    typeof ring.anchor === 'string' &&
    ring.anchor.length > 0 &&
    Array.isArray(ring.keys) &&
    ring.keys.every(
      (key: Partial<SigningKey>) =>
        typeof key === 'object' &&
        key !== null &&
        typeof key.id === 'string' &&
        KEY_ID.test(key.id) &&
        typeof key.secret === 'string' &&
        key.secret.length > 0 &&
        typeof key.created === 'string' &&
        (key.retired === undefined || typeof key.retired === 'string'),
    )
  );
}
