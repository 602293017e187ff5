// A backup's manifest (manifest.json, written last): what it holds, each part's size and SHA-256, the log's last
// position in it and, with BACKUP_KEY, its signature (signature.ts); restore checks the signature and every part
// against it before laying anything down.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { makePrivateFolderSync, PRIVATE_FOLDER } from '../private-files.ts';

export const MANIFEST = 'manifest.json';
export const FORMAT = 'bidder-backup/1';
export const SIGNATURE_ALGORITHM = 'HMAC-SHA256';

export interface BackupPart {
  /** Relative to the backup's folder (and to DATA_DIR once restored), with `/` separators. */
  path: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof FORMAT;
  createdAt: string;
  /** The last position of the event log in the backup (0: an empty log): every write acknowledged before the backup began is at or below it. */
  logPosition: number;
  events: number;
  parts: BackupPart[];
  /** With BACKUP_KEY: an HMAC over every field above (signature.ts). */
  signature?: ManifestSignature;
}

export interface ManifestSignature {
  algorithm: typeof SIGNATURE_ALGORITHM;
  /** Which key signed (an HMAC of a fixed text, never the key): tells "another key" from "changed" when restoring. */
  keyId: string;
  /** Hex HMAC-SHA256 of the manifest's signed text. */
  value: string;
}

/** Bad input or a backup that does not check out: the CLIs print its message as one line and exit 2. */
export class BackupRefusedError extends Error {}

export async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every regular file under `dir`, relative to it with `/` separators, sorted. */
export function filesUnder(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) return filesUnder(path.join(dir, entry.name), relative);
      return entry.isFile() ? [relative] : [];
    })
    .sort();
}

/** A folder that does not exist or holds nothing may be written into; anything else is refused. */
export function assertEmptyTarget(dir: string, what: string): void {
  if (!fs.existsSync(dir)) return;
  if (!fs.statSync(dir).isDirectory()) throw new BackupRefusedError(`${what} ${dir} is not a folder`);
  if (fs.readdirSync(dir).length > 0) throw new BackupRefusedError(`${what} ${dir} is not empty: give a new or empty folder`);
}

/** Makes the (new or empty) target folder, 0700 even when it was given open to others. */
export function makePrivateTarget(dir: string, what: string): void {
  makePrivateFolderSync(dir);
  try {
    fs.chmodSync(dir, PRIVATE_FOLDER);
  } catch (error) {
    throw new BackupRefusedError(
      `${what} ${dir} cannot be made private (${(error as NodeJS.ErrnoException).code}): give a folder of your own`,
    );
  }
}

/** The manifest of a backup folder, checked for shape (not yet its parts). */
export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST);
  if (!fs.existsSync(file)) throw new BackupRefusedError(`${dir} is not a complete backup: it has no ${MANIFEST}`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  } catch {
    throw new BackupRefusedError(`${file} is not JSON: the backup is damaged`);
  }
  const partsOk =
    Array.isArray(manifest?.parts) &&
    manifest.parts.every(
      (p) =>
        typeof p?.path === 'string' &&
        !p.path.split('/').includes('..') &&
        !path.isAbsolute(p.path) &&
        Number.isInteger(p.bytes) &&
        /^[0-9a-f]{64}$/.test(p.sha256),
    );
  const signature = manifest?.signature;
  const signatureOk =
    signature === undefined ||
    (signature?.algorithm === SIGNATURE_ALGORITHM && /^[0-9a-f]{16}$/.test(signature.keyId) && /^[0-9a-f]{64}$/.test(signature.value));
  const fieldsOk = typeof manifest?.createdAt === 'string' && Number.isInteger(manifest.logPosition) && Number.isInteger(manifest.events);
  if (manifest?.format !== FORMAT || !partsOk || !signatureOk || !fieldsOk)
    throw new BackupRefusedError(`${file} is not a ${FORMAT} manifest`);
  return manifest;
}
