/**
 * Folders and files only the user who runs the service may open: 0700 and 0600, for everything kept under
 * DATA_DIR and written by its tools (backups, restores, exports). The modes are given explicitly at creation,
 * so they hold whatever the umask (which can only take bits away); what a library creates itself is made
 * private beforehand (SQLite's database file, whose mode its -wal, -shm and -journal files take) or after.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from './config.ts';

export const PRIVATE_FOLDER = 0o700;
export const PRIVATE_FILE = 0o600;
/** The group's and other users' permission bits. */
const OPEN_TO_OTHERS = 0o077;

/** Makes `dir` and each missing folder above it, 0700. */
export function makePrivateFolderSync(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER });
}

export async function makePrivateFolder(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER });
}

/** Writes a file, 0600 when it is created (one that exists keeps its mode: DATA_DIR's were tightened at start). */
export function writePrivateFileSync(file: string, data: string | Uint8Array): void {
  fs.writeFileSync(file, data, { mode: PRIVATE_FILE });
}

export async function writePrivateFile(file: string, data: string | Uint8Array): Promise<void> {
  await fsp.writeFile(file, data, { mode: PRIVATE_FILE });
}

/** Opens a file with `flags` ('wx': a new one), 0600 when it is created. */
export function openPrivateFile(file: string, flags: string): Promise<fsp.FileHandle> {
  return fsp.open(file, flags, PRIVATE_FILE);
}

/** A write stream to a new file, 0600. */
export function privateWriteStream(file: string): fs.WriteStream {
  return fs.createWriteStream(file, { flags: 'wx', mode: PRIVATE_FILE });
}

/**
 * Copies `from` to `to` (which must not exist) and makes the copy 0600: the copy takes its source's mode, so it
 * is narrowed right after, inside a folder that is private already (no one else can reach it meanwhile).
 */
export function copyPrivateFileSync(from: string, to: string): void {
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(to, PRIVATE_FILE);
}

/**
 * A SQLite database file, created empty and 0600 when it does not exist (SQLite would create it 0644 less the
 * umask); SQLite gives the -wal, -shm and -journal files it makes beside it the mode of the database file.
 * Answers `file`, for `new Database(...)`; `:memory:` and `''` (temporary databases) are left alone.
 */
export function privateDatabaseFile(file: string): string {
  if (file === ':memory:' || file === '') return file;
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE));
  return file;
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/**
 * Makes DATA_DIR private before anything is opened in it: a new one is created 0700; in one that exists, the
 * folder and everything under it lose the group's and other users' permissions (one walk, symbolic links not
 * followed). Refuses, with a ConfigError of one line naming DATA_DIR and what to do, a DATA_DIR owned by another
 * user (who could open it to anyone, or change what it holds) and an entry it cannot tighten. Answers how many
 * entries it tightened. Where there are no owners and modes (Windows), it only creates the folder.
 */
export function makePrivateDataDir(dir: string): number {
  const uid = process.geteuid?.();
  if (uid === undefined) {
    makePrivateFolderSync(dir);
    return 0;
  }
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (!stat) {
    makePrivateFolderSync(dir);
    return 0;
  }
  if (!stat.isDirectory()) throw new ConfigError(`DATA_DIR ${dir} is not a folder`);
  if (stat.uid !== uid)
    throw new ConfigError(
      `DATA_DIR ${dir} is owned by uid ${stat.uid}, not by uid ${uid} who runs the service: its owner could open it to ` +
        `anyone or change what it holds; run the service as uid ${stat.uid}, or chown -R ${uid} ${dir}`,
    );
  let tightened = 0;
  const folders = [dir];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const isTop = folder === dir;
    const entry = isTop ? stat : lstatIfThere(folder);
    if (!entry) continue;
    if (tighten(dir, folder, entry)) tightened++;
    if (!entry.isDirectory()) continue;
    for (const name of readFolder(dir, folder)) {
      const child = path.join(folder, name);
      const childStat = lstatIfThere(child);
      if (!childStat) continue;
      if (childStat.isDirectory()) folders.push(child);
      else if (childStat.isFile() && tighten(dir, child, childStat)) tightened++;
    }
  }
  return tightened;
}

/** Removed meanwhile (another process of the folder deleting a temporary file): null. */
function lstatIfThere(file: string): fs.Stats | null {
  return fs.lstatSync(file, { throwIfNoEntry: false }) ?? null;
}

function readFolder(dir: string, folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw new ConfigError(`DATA_DIR ${dir}: cannot read ${folder} (${code}): run the service as the user who owns it`);
  }
}

/** Takes the group's and others' permissions off one entry; true when it had any. */
function tighten(dir: string, file: string, stat: fs.Stats): boolean {
  if ((stat.mode & OPEN_TO_OTHERS) === 0) return false;
  try {
    fs.chmodSync(file, stat.mode & PRIVATE_FOLDER);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    throw new ConfigError(
      `DATA_DIR ${dir}: ${file} is open to other users (mode ${octal(stat.mode)}, owner uid ${stat.uid}) and cannot be ` +
        `made private (${code}): run chmod -R go-rwx ${dir} as its owner, or chown -R ${process.geteuid?.()} ${dir}`,
    );
  }
  return true;
}
