// A backup's signature: an HMAC-SHA256, with BACKUP_KEY, over its manifest (which names every part with its size
// and SHA-256), so restore can tell a backup this house made from one anyone edited and re-summed. A checksum
// alone proves that a copy is whole, not who made it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BackupRefusedError, SIGNATURE_ALGORITHM, type Manifest, type ManifestSignature } from './manifest.ts';

export const BACKUP_KEY_MIN_BYTES = 32;

/** BACKUP_KEY as bytes, null when unset; a key shorter than 32 bytes is refused. */
export function backupKeyFrom(env: NodeJS.ProcessEnv): Buffer | null {
  if (!env.BACKUP_KEY) return null;
  const key = Buffer.from(env.BACKUP_KEY, 'utf8');
  if (key.length < BACKUP_KEY_MIN_BYTES)
    throw new BackupRefusedError(
      `BACKUP_KEY must be at least ${BACKUP_KEY_MIN_BYTES} bytes (it has ${key.length}): e.g. openssl rand -base64 48`,
    );
  return key;
}

export function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key).update('bidder-backup key id').digest('hex').slice(0, 16);
}

/** What is signed: every field of the manifest but the signature, in a fixed order whatever the JSON's key order. */
function signedText(manifest: Manifest): string {
  const parts = manifest.parts.map((p) => [p.path, p.bytes, p.sha256]);
  return JSON.stringify([manifest.format, manifest.createdAt, manifest.logPosition, manifest.events, parts]);
}

export function signManifest(manifest: Manifest, key: Buffer): ManifestSignature {
  return {
    algorithm: SIGNATURE_ALGORITHM,
    keyId: keyIdOf(key),
    value: createHmac('sha256', key).update(signedText(manifest)).digest('hex'),
  };
}

/**
 * Checks a backup's signature before anything of it is trusted. Answers true when the key authenticates it, false
 * when it cannot be checked (unsigned, or no key) and the operator accepted that (`--unsigned`); refuses a
 * signature that does not match, and an unauthenticated backup without `--unsigned`.
 */
export function checkSignature(src: string, manifest: Manifest, key: Buffer | null, acceptUnsigned: boolean): boolean {
  const signature = manifest.signature;
  if (key && signature) {
    if (signature.keyId !== keyIdOf(key))
      throw new BackupRefusedError(
        `${src} was signed with another BACKUP_KEY (key id ${signature.keyId}, this one's is ${keyIdOf(key)}): set the key it was taken with`,
      );
    const expected = Buffer.from(signManifest(manifest, key).value, 'hex');
    const given = Buffer.from(signature.value, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new BackupRefusedError(`${src} does not match its signature: the manifest was changed after the backup was taken`);
    return true;
  }
  if (acceptUnsigned) return false;
  if (key)
    throw new BackupRefusedError(
      `${src} is not signed, so BACKUP_KEY cannot authenticate it: pass --unsigned to restore it anyway (its checksums show it is whole, not who made it)`,
    );
  if (signature)
    throw new BackupRefusedError(
      `${src} is signed but BACKUP_KEY is not set, so it cannot be checked: set BACKUP_KEY to the key it was taken with, or pass --unsigned to restore it unchecked`,
    );
  throw new BackupRefusedError(
    `${src} is not signed and BACKUP_KEY is not set: nothing authenticates it (its checksums show it is whole, not who made it); pass --unsigned to restore it anyway`,
  );
}
