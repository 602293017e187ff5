// `npm run restore -- SRC DATA_DIR [--unsigned]`: checks a backup's signature (BACKUP_KEY) and every part against
// its manifest, and lays it down into a new or empty DATA_DIR, private to the user who runs it; the service's first
// start there rebuilds the read models and the lot index from the log. A backup that cannot be authenticated (not
// signed, or no BACKUP_KEY to check it) is restored only with --unsigned.
import path from 'node:path';
import { progressBar } from '../../src/cli/progress.ts';
import { BackupRefusedError } from '../../src/backup/manifest.ts';
import { restoreBackup } from '../../src/backup/restore.ts';
import { backupKeyFrom } from '../../src/backup/signature.ts';

const USAGE =
  'usage: npm run restore -- SRC DATA_DIR [--unsigned] (SRC a backup, DATA_DIR a new or empty folder; ' +
  '--unsigned: restore a backup that BACKUP_KEY cannot authenticate)';

async function main() {
  const args = process.argv.slice(2);
  const acceptUnsigned = args.includes('--unsigned');
  const [src, dataDir, ...rest] = args.filter((arg) => arg !== '--unsigned');
  if (!src || !dataDir || rest.length > 0 || src.startsWith('--') || dataDir.startsWith('--')) throw new BackupRefusedError(USAGE);
  const key = backupKeyFrom(process.env);
  const shown: { bar?: ReturnType<typeof progressBar> } = {};
  const { manifest, authenticated } = await restoreBackup(path.resolve(src), path.resolve(dataDir), {
    key,
    acceptUnsigned,
    progress: (done, total) => {
      shown.bar ??= progressBar('restore (bytes)', total);
      shown.bar.update(done);
    },
  });
  shown.bar?.done();
  if (!authenticated) process.stderr.write('restore: --unsigned: the backup was restored without being authenticated\n');
  const summary = {
    restored: path.resolve(dataDir),
    logPosition: manifest.logPosition,
    events: manifest.events,
    takenAt: manifest.createdAt,
    authenticated,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

main().catch((error) => {
  if (error instanceof BackupRefusedError) {
    process.stderr.write(`restore: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`restore failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
