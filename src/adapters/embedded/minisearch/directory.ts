/**
 * The index's folder on disk: `manifest.json` and one `<hash>.<generation>.part` file per partition.
 *
 * A reader only ever trusts the manifest: it lists the partition files of its generation and the
 * checkpoints as they were when that flush started, so the partitions are at least as new as the
 * checkpoints beside them. Every file is written to a temp file, fsynced and renamed; the manifest last.
 * Files the manifest does not list (a crashed flush's leftovers, temp files, older generations) are
 * deleted on open and after each committed flush.
 */
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { open as openFile, readdir, rename, unlink } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { SearchCollectionSpec } from '../../../ports/search.ts';
import { openPrivateFile } from '../../../private-files.ts';

const MANIFEST = 'manifest.json';
const PART_SUFFIX = '.part';
const MANIFEST_FORMAT = 1;

export interface Manifest {
  format: number;
  generation: number;
  checkpoints: Record<string, number>;
  collections: Array<{
    spec: SearchCollectionSpec;
    /**
     * The partition field the files were written with. Absent in manifests written while it was part of
     * the spec (`spec.partitionField`), which is read instead.
     */
    partitionField?: string | null;
    partitions: Array<{ tenant: string; value: string; file: string; documents: number }>;
  }>;
}

/** The partition field a manifest entry was written with, in either shape. */
export function manifestPartitionField(entry: Manifest['collections'][number]): string | null {
  if (entry.partitionField !== undefined) return entry.partitionField;
  return (entry.spec as SearchCollectionSpec & { partitionField?: string }).partitionField ?? null;
}

export class SnapshotDirectory {
  constructor(readonly dir: string) {}

  /** A new manifest of this generation (to fill in and commit). */
  newManifest(generation: number, checkpoints: Record<string, number>): Manifest {
    return { format: MANIFEST_FORMAT, generation, checkpoints, collections: [] };
  }

  /**
   * The committed manifest, or null when there is none; one that cannot be read or has an unknown format
   * is reported and ignored (the index starts empty).
   */
  readManifest(onError: (error: unknown) => void): Manifest | null {
    let manifest: Manifest;
    try {
      manifest = JSON.parse(readFileSync(join(this.dir, MANIFEST), 'utf8')) as Manifest;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        onError(new Error(`search index: unreadable manifest in ${this.dir}, starting empty`, { cause: e }));
      }
      return null;
    }
    if (manifest.format !== MANIFEST_FORMAT) {
      onError(new Error(`search index: unknown manifest format ${manifest.format}, starting empty`));
      return null;
    }
    return manifest;
  }

  readPartition(file: string): Buffer {
    return readFileSync(join(this.dir, file));
  }

  /** Deletes (synchronously, at open) partition and temp files that `listed` does not name. */
  removeLeftovers(listed: Set<string>): void {
    for (const name of readdirSync(this.dir)) {
      if (name === MANIFEST || listed.has(name)) continue;
      if (name.endsWith(PART_SUFFIX) || name.includes('.tmp-')) {
        try {
          unlinkSync(join(this.dir, name));
        } catch {
          // ignore
        }
      }
    }
  }

  /** The file name of a partition written in this generation. */
  partitionFile(collection: string, tenant: string, value: string, generation: number): string {
    const hash = createHash('sha256').update(`${collection}\u0000${tenant}\u0000${value}`).digest('hex').slice(0, 24);
    return `${hash}.${generation}${PART_SUFFIX}`;
  }

  writePartition(file: string, chunks: Buffer[]): Promise<void> {
    return writeAtomic(join(this.dir, file), chunks);
  }

  /** Makes the written partition files durable, then the manifest that lists them. */
  async commit(manifest: Manifest): Promise<void> {
    await fsyncDir(this.dir);
    await writeAtomic(join(this.dir, MANIFEST), [JSON.stringify(manifest)]);
    await fsyncDir(this.dir);
  }

  /** Deletes the partition files of older generations that `listed` no longer names. */
  async removeUnlisted(listed: Set<string>): Promise<void> {
    for (const name of await readdir(this.dir)) {
      if (name.endsWith(PART_SUFFIX) && !listed.has(name)) await unlink(join(this.dir, name)).catch(() => undefined);
    }
  }
}

async function writeAtomic(file: string, chunks: Array<Buffer | string>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fh = await openPrivateFile(tmp, 'wx');
  try {
    for (const c of chunks) await fh.writeFile(c);
    await fh.sync();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  await rename(tmp, file);
}

async function fsyncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await openFile(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms cannot fsync a directory; the renames are still atomic.
  } finally {
    await fh?.close();
  }
}
