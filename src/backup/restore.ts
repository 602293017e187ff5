// Lays a backup down into a new DATA_DIR after checking every part against its manifest; the first start there
// rebuilds the read models and the lot index from the restored log.
import fs from 'node:fs';
import path from 'node:path';
import { assertEmptyTarget, BackupRefusedError, readManifest, sha256Of, type Manifest } from './manifest.ts';
import type { BackupProgress } from './take.ts';

/** Checks the backup in `src` whole, then copies it into `dataDir` (new or empty); answers its manifest. */
export async function restoreBackup(src: string, dataDir: string, progress: BackupProgress = () => {}): Promise<Manifest> {
  const manifest = readManifest(src);
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
  fs.mkdirSync(dataDir, { recursive: true });
  for (const part of manifest.parts) {
    const to = path.join(dataDir, part.path);
    const secret = part.path.startsWith('secrets/');
    fs.mkdirSync(path.dirname(to), { recursive: true, mode: secret ? 0o700 : 0o755 });
    fs.copyFileSync(path.join(src, part.path), to);
    if (secret) fs.chmodSync(to, 0o600);
    progress((checked += part.bytes / 2), total);
  }
  return manifest;
}
