// A consistent copy of what the embedded default cannot rebuild, taken while the service runs and writes: the
// event log and the job queue through SQLite's VACUUM INTO (one read transaction: writers go on beside it), the
// stored files, sent messages and secrets copied around it, and a manifest written last (signed with BACKUP_KEY).
// The backup is its user's alone, as DATA_DIR is: its folders 0700, every file 0600, whatever the umask.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  assertEmptyTarget,
  BackupRefusedError,
  FORMAT,
  filesUnder,
  MANIFEST,
  makePrivateTarget,
  sha256Of,
  type Manifest,
} from './manifest.ts';
import { signManifest } from './signature.ts';
import { copyPrivateFileSync, makePrivateFolderSync, privateDatabaseFile, writePrivateFileSync } from '../private-files.ts';

/** The folders of DATA_DIR copied file by file (each file is written whole, then renamed into place). */
const FOLDERS = ['secrets', 'files', 'outbox'];
/** The SQLite databases copied as one snapshot each; the event log last, so the job queue is never ahead of it. */
const DATABASES = ['jobs.sqlite', 'events.sqlite'];

const isTemporary = (relative: string) => /\.tmp-|\.tmp$/.test(path.basename(relative));

/** Copies the folders' files that `dest` lacks; answers how many bytes it copied. */
function copyFolders(dataDir: string, dest: string): number {
  let bytes = 0;
  for (const folder of FOLDERS)
    for (const relative of filesUnder(path.join(dataDir, folder))) {
      const to = path.join(dest, folder, relative);
      if (isTemporary(relative) || fs.existsSync(to)) continue;
      makePrivateFolderSync(path.dirname(to));
      try {
        copyPrivateFileSync(path.join(dataDir, folder, relative), to);
      } catch (error) {
        // Removed since it was listed (a document deleted meanwhile): the copy has what the log says.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      bytes += fs.statSync(to).size;
    }
  return bytes;
}

/**
 * One snapshot of a live SQLite database into `to` (VACUUM INTO reads in one transaction and blocks no writer in
 * WAL mode); `to` is made empty and 0600 first, which VACUUM INTO takes as its target.
 */
function snapshot(from: string, to: string): void {
  const db = new Database(from, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(privateDatabaseFile(to));
  } finally {
    db.close();
  }
}

export interface BackupProgress {
  (doneBytes: number, totalBytes: number): void;
}

/** Takes a backup of `dataDir` into `dest` (new or empty) and answers its manifest, signed when given BACKUP_KEY. */
export async function takeBackup(
  dataDir: string,
  dest: string,
  options: { progress?: BackupProgress; key?: Buffer | null } = {},
): Promise<Manifest> {
  const progress = options.progress ?? (() => {});
  const log = path.join(dataDir, 'events.sqlite');
  if (!fs.existsSync(log)) throw new BackupRefusedError(`${dataDir} holds no event log (events.sqlite): is DATA_DIR right?`);
  if (path.resolve(dest).startsWith(path.resolve(dataDir) + path.sep) || path.resolve(dest) === path.resolve(dataDir))
    throw new BackupRefusedError(`the backup ${dest} must be outside DATA_DIR ${dataDir}`);
  assertEmptyTarget(dest, 'the backup folder');
  makePrivateTarget(dest, 'the backup folder');

  const sizeOf = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
  const estimate =
    DATABASES.reduce((sum, name) => sum + sizeOf(path.join(dataDir, name)), 0) +
    FOLDERS.flatMap((folder) => filesUnder(path.join(dataDir, folder)).map((f) => sizeOf(path.join(dataDir, folder, f)))).reduce(
      (a, b) => a + b,
      0,
    );
  let done = 0;
  const advance = (bytes: number) => progress((done += bytes), Math.max(estimate, done));

  // Files first, then the databases, then the files again: a file the copied log names exists in the copy
  // (files are stored before the event that names them), and one removed meanwhile was copied before.
  advance(copyFolders(dataDir, dest));
  for (const name of DATABASES) {
    if (!fs.existsSync(path.join(dataDir, name))) continue;
    snapshot(path.join(dataDir, name), path.join(dest, name));
    advance(sizeOf(path.join(dest, name)));
  }
  advance(copyFolders(dataDir, dest));

  const copy = new Database(path.join(dest, 'events.sqlite'), { readonly: true });
  const head = copy.prepare('SELECT COALESCE(MAX(position), 0) AS position, COUNT(*) AS events FROM events').get() as {
    position: number;
    events: number;
  };
  copy.close();
  const parts = [];
  for (const relative of filesUnder(dest)) {
    const file = path.join(dest, relative);
    parts.push({ path: relative, bytes: fs.statSync(file).size, sha256: await sha256Of(file) });
  }
  const manifest: Manifest = {
    format: FORMAT,
    createdAt: new Date().toISOString(),
    logPosition: head.position,
    events: head.events,
    parts,
  };
  if (options.key) manifest.signature = signManifest(manifest, options.key);
  const temp = path.join(dest, `${MANIFEST}.tmp`);
  writePrivateFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`);
  fs.renameSync(temp, path.join(dest, MANIFEST));
  progress(done, done);
  return manifest;
}
