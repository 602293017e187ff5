/**
 * What the specs of private files look at: every folder and file under a folder with its permission bits, and
 * which of them another local user (`nobody`, through runuser) can open.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

export interface Entry {
  /** Relative to the folder walked; '.' is the folder itself. */
  path: string;
  kind: 'folder' | 'file' | 'other';
  /** The permission bits, e.g. '700'. */
  mode: string;
}

/** The folder itself and everything under it (symbolic links not followed). */
export function entriesUnder(root: string): Entry[] {
  const entries: Entry[] = [];
  const visit = (relative: string) => {
    const full = path.join(root, relative);
    const stat = fs.lstatSync(full);
    const kind = stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
    entries.push({ path: relative, kind, mode: (stat.mode & 0o7777).toString(8) });
    if (kind === 'folder') for (const name of fs.readdirSync(full).sort()) visit(relative === '.' ? name : `${relative}/${name}`);
  };
  visit('.');
  return entries;
}

/** The entries whose mode is not 0700 for a folder and 0600 for a file (an empty list when all are private). */
export function notPrivate(root: string): string[] {
  return entriesUnder(root)
    .filter((e) => (e.kind === 'folder' ? e.mode !== '700' : e.kind === 'file' ? e.mode !== '600' : true))
    .map((e) => `${e.path} (${e.kind} ${e.mode})`);
}

/** Whether `runuser` can run commands as `nobody` here (root, with util-linux). */
export function canRunAsNobody(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync('runuser', ['-u', 'nobody', '--', 'true'], { stdio: 'ignore' });
  return probe.status === 0;
}

/** The files and folders under `root` that user `nobody` can read (list, for a folder), each as its path relative to `root`. */
export function readableByNobody(root: string): string[] {
  const entries = entriesUnder(root).filter((e) => e.kind !== 'other');
  const script =
    'for f in "$@"; do if [ -d "$f" ]; then ls "$f" >/dev/null 2>&1 && echo "$f"; else cat "$f" >/dev/null 2>&1 && echo "$f"; fi; done; exit 0';
  const run = spawnSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', script, 'sh', ...entries.map((e) => path.join(root, e.path))], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`runuser: ${run.stderr}`);
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((file) => path.relative(root, file) || '.');
}
