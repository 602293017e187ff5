/**
 * A small file system of a spec's own, to fill: a tmpfs mounted on a temp folder (as root; a spec run otherwise says
 * it skipped), a file written into it until it refuses a byte more, and the unmount, bounded in time.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Mounts a tmpfs of `size` (`64m`) on a new temp folder; null (and why, printed as mocha prints a skip) when it cannot. */
export function mountTmpfs(size: string, prefix = 'bidder-tmpfs-'): string | null {
  if (process.getuid?.() !== 0) {
    console.log('      (not root: no tmpfs can be mounted; skipped)');
    return null;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch (error) {
    fs.rmdirSync(dir);
    console.log(`      (mount -t tmpfs refused: ${String((error as Error).message).split('\n')[0]}; skipped)`);
    return null;
  }
}

/** Writes `file` until its file system refuses a byte more: big chunks, then a block at a time. Answers the bytes written. */
export function fillToLastBlock(file: string): number {
  const fd = fs.openSync(file, 'a');
  let written = 0;
  try {
    for (const size of [1024 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) written += fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

/**
 * Unmounts the tmpfs and removes its folder: tried again for up to 10 s while the files of a process just stopped
 * are let go, then lazily (the kernel lets go of it once the last file is closed).
 */
export async function unmountTmpfs(dir: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(200)) {
    try {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      fs.rmdirSync(dir);
      return;
    } catch {
      // busy: a file still open
    }
  }
  execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  fs.rmdirSync(dir);
}
