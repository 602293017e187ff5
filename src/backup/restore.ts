// Lays a backup down into a new DATA_DIR after checking its signature (BACKUP_KEY) and every part against its
// manifest; the first start there rebuilds the read models and the lot index from the restored log. What it lays
// down is private (folders 0700, files 0600) whatever the backup's own modes and the umask.
import fs from 'node:fs';
import path from 'node:path';
import { assertEmptyTarget, BackupRefusedError, makePrivateTarget, readManifest, sha256Of, type Manifest } from './manifest.ts';
import { checkSignature } from './signature.ts';
import type { BackupProgress } from './take.ts';
import { copyPrivateFileSync, makePrivateFolderSync } from '../private-files.ts';

export interface RestoreOptions {
  progress?: BackupProgress;
  /** BACKUP_KEY: a signed backup is checked with it; null: no backup can be authenticated. */
  key?: Buffer | null;
  /** The operator accepts a backup that cannot be authenticated (`--unsigned`): unsigned, or no key to check it. */
  acceptUnsigned?: boolean;
}

/**
 * Checks the backup in `src` whole, then copies it into `dataDir` (new or empty); answers its manifest and
 * whether BACKUP_KEY authenticated it.
 */
export async function restoreBackup(
  src: string,
  dataDir: string,
  options: RestoreOptions = {},
): Promise<{ manifest: Manifest; authenticated: boolean }> {
  const progress = options.progress ?? (() => {});
  const manifest = readManifest(src);
  const authenticated = checkSignature(src, manifest, options.key ?? null, options.acceptUnsigned ?? false);
  assertEmptyTarget(dataDir, 'DATA_DIR');
  if (!manifest.parts.some((p) => p.path === 'events.sqlite')) throw new BackupRefusedError(`${src} holds no event log (events.sqlite)`);
  const total = manifest.parts.reduce((sum, p) => sum + p.bytes, 0);
  let checked = 0;
  for (const part of manifest.parts) {
    const file = path.join(src, part.path);
    if (!fs.existsSync(file)) throw new BackupRefusedError(`${part.path} is missing from the backup ${src}`);
    const bytes = fs.statSync(file).size;
    if (bytes !== part.bytes)
      throw new BackupRefusedError(
        `${part.path} is ${bytes} bytes where the manifest says ${part.bytes}: the backup is truncated or damaged`,
      );
    if ((await sha256Of(file)) !== part.sha256)
      throw new BackupRefusedError(`${part.path} does not match its checksum in the manifest: the backup is damaged`);
    progress((checked += bytes / 2), total);
  }
  makePrivateTarget(dataDir, 'DATA_DIR');
  try {
    for (const part of manifest.parts) {
      const to = path.join(dataDir, part.path);
      makePrivateFolderSync(path.dirname(to));
      copyPrivateFileSync(path.join(src, part.path), to);
      // The copy, where no one else can reach it, is what was checked: a part changed since is refused.
      if ((await sha256Of(to)) !== part.sha256)
        throw new BackupRefusedError(`${part.path} changed in ${src} while it was restored: nothing was restored`);
      progress((checked += part.bytes / 2), total);
    }
  } catch (error) {
    for (const name of fs.readdirSync(dataDir)) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
    throw error;
  }
  return { manifest, authenticated };
}
