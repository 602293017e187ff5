// `npm run backup -- DEST`: an online backup of DATA_DIR's event log, job queue, stored files, sent messages and
// secrets into DEST (new or empty, made private to the user who runs it), with a manifest signed with BACKUP_KEY
// when it is set; a progress bar on stderr, one JSON line on stdout.
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { progressBar } from '../../src/cli/progress.ts';
import { BackupRefusedError } from '../../src/backup/manifest.ts';
import { takeBackup } from '../../src/backup/take.ts';
import { backupKeyFrom } from '../../src/backup/signature.ts';

async function main() {
  const dest = process.argv[2];
  if (!dest || process.argv.length > 3) throw new BackupRefusedError('usage: npm run backup -- DEST (a new or empty folder)');
  const config = loadConfig();
  const elsewhere = [config.engines.eventStoreDb && 'EVENTSTOREDB_URL', config.engines.postgres && 'POSTGRES_URL'].filter(Boolean);
  if (elsewhere.length > 0)
    throw new BackupRefusedError(
      `with ${elsewhere.join(' and ')} the log is not in DATA_DIR: back it up with its own tools (docs/operations.md)`,
    );
  const key = backupKeyFrom(process.env);
  const started = Date.now();
  const shown: { bar?: ReturnType<typeof progressBar> } = {};
  const manifest = await takeBackup(config.dataDir, path.resolve(dest), {
    key,
    progress: (done, total) => {
      shown.bar ??= progressBar('backup (bytes)', total);
      shown.bar.update(done);
    },
  });
  shown.bar?.done();
  if (!key) process.stderr.write('backup: not signed (BACKUP_KEY is not set): restoring it will take --unsigned\n');
  const bytes = manifest.parts.reduce((sum, p) => sum + p.bytes, 0);
  const summary = {
    backup: path.resolve(dest),
    logPosition: manifest.logPosition,
    events: manifest.events,
    parts: manifest.parts.length,
    bytes,
    signed: manifest.signature !== undefined,
  };
  process.stdout.write(`${JSON.stringify({ ...summary, seconds: (Date.now() - started) / 1000 })}\n`);
}

main().catch((error) => {
  if (error instanceof BackupRefusedError || error instanceof ConfigError) {
    process.stderr.write(`backup: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`backup failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
