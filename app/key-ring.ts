// Where the signing keys live in each shape, and what a process signs and verifies with (docs/operations.md
// "Secrets"): JWT_SECRET, one fixed key, when it is set; else the key ring of the store every process of the
// deployment reads: PostgreSQL's tables with POSTGRES_URL (processes on several machines), else
// DATA_DIR/secrets/keys.json (one machine, or a volume every role shares).
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import { isKeyRing, type KeyRing, type KeyRingStore } from '../src/ports/key-ring.ts';
import { FileKeyRing } from '../src/adapters/embedded/file-key-ring.ts';
import { newKeyRing, singleKey, StoredSigningKeys, type SigningKeys } from '../src/security/signing-keys.ts';

/** The ring's store: with POSTGRES_URL its tables (on the process's `pool`, or a pool of its own), else the file in DATA_DIR. */
export async function openKeyRingStore(config: Config, pool: pg.Pool | null = null): Promise<{ store: KeyRingStore; describe: string }> {
  const { postgres, postgresSchema } = config.engines;
  if (postgres) {
    const { PgKeyRing } = await import('../src/adapters/postgres/pg-key-ring.ts');
    const store = await PgKeyRing.open(pool ?? postgres, { schema: postgresSchema });
    return { store, describe: `PostgreSQL (schema ${postgresSchema}, tables signing_keys and key_anchor)` };
  }
  const store = new FileKeyRing(path.join(config.dataDir, 'secrets'));
  return { store, describe: `file ${store.file}` };
}

/** The one secret of earlier versions (DATA_DIR/secrets/jwt.key), when it is there. */
function earlierSecret(config: Config): string | undefined {
  try {
    return fs.readFileSync(path.join(config.dataDir, 'secrets', 'jwt.key'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** This machine's own ring (DATA_DIR/secrets/keys.json), when a ring is made elsewhere (PostgreSQL) and it has one. */
function localRing(config: Config): KeyRing | undefined {
  try {
    const ring: unknown = JSON.parse(fs.readFileSync(path.join(config.dataDir, 'secrets', 'keys.json'), 'utf8'));
    return isKeyRing(ring) ? ring : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ring a store starts with, keeping what was issued before where there was something: from JWT_SECRET (`npm
 * run keys -- init` with it set), this machine's ring (a house moving to PostgreSQL), its jwt.key, or random.
 */
export function initialRing(config: Config): KeyRing {
  if (config.jwtSecret) return newKeyRing(new Date(), config.jwtSecret);
  return (config.engines.postgres ? localRing(config) : undefined) ?? newKeyRing(new Date(), earlierSecret(config));
}

export interface ProcessKeys {
  keys: SigningKeys;
  /** The never-rotated secret: the houses' positions and the one-time keys derive from it. */
  anchor: Buffer;
  /** Stops following the ring. */
  close(): void;
}

/** What this process signs and verifies with: JWT_SECRET alone when set, else the store's ring (made on first use). */
export async function openSigningKeys(config: Config, store: KeyRingStore, logger: Logger): Promise<ProcessKeys> {
  if (config.jwtSecret) {
    const secret = Buffer.from(config.jwtSecret, 'utf8');
    return { keys: singleKey(secret), anchor: secret, close() {} };
  }
  const keys = await StoredSigningKeys.open(store, () => initialRing(config), {
    onProblem: (message, error) => logger.warn({ err: error }, message),
  });
  return { keys, anchor: keys.anchor, close: () => keys.close() };
}

/** The anchor alone, for the tools that give positions (export, project): JWT_SECRET, or the store's ring. */
export async function anchorOf(config: Config, store: KeyRingStore): Promise<Buffer> {
  if (config.jwtSecret) return Buffer.from(config.jwtSecret, 'utf8');
  return Buffer.from((await store.open(() => initialRing(config))).anchor, 'utf8');
}
