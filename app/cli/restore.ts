// `npm run restore -- SRC DATA_DIR`: checks a backup against its manifest and lays it down into a new or empty
// DATA_DIR; the service's first start there rebuilds the read models and the lot index from the log.
import path from 'node:path';
import { progressBar } from '../../src/cli/progress.ts';
import { BackupRefusedError } from '../../src/backup/manifest.ts';
import { restoreBackup } from '../../src/backup/restore.ts';

async function main() {
  const [src, dataDir] = process.argv.slice(2);
  if (!src || !dataDir || process.argv.length > 4)
    throw new BackupRefusedError('usage: npm run restore -- SRC DATA_DIR (SRC a backup, DATA_DIR a new or empty folder)');
  const shown: { bar?: ReturnType<typeof progressBar> } = {};
  const manifest = await restoreBackup(path.resolve(src), path.resolve(dataDir), (done, total) => {
    shown.bar ??= progressBar('restore (bytes)', total);
    shown.bar.update(done);
  });
  shown.bar?.done();
  const summary = {
    restored: path.resolve(dataDir),
    logPosition: manifest.logPosition,
    events: manifest.events,
    takenAt: manifest.createdAt,
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
