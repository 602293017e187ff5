import fs from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { FileStore, OpenedFile, StoredFile } from '../../ports/files.ts';

/**
 * Files under DATA_DIR/files/<tenant>/<sha256 of key>, with a small JSON sidecar for the content type.
 * Keys are hashed, so no key can climb out of its tenant's folder. Writes go to a temp file, then rename.
 */
export class FolderFileStore implements FileStore {
  constructor(private readonly dir: string) {}

  private paths(tenant: string, key: string) {
    if (!/^[a-z0-9_][a-z0-9-]{0,62}$/.test(tenant)) throw new Error('invalid tenant');
    const name = createHash('sha256').update(key).digest('hex');
    const folder = path.join(this.dir, tenant);
    return { folder, data: path.join(folder, name), meta: path.join(folder, `${name}.json`) };
  }

  async put(tenant: string, key: string, bytes: Buffer, contentType: string): Promise<void> {
    const p = this.paths(tenant, key);
    await fs.mkdir(p.folder, { recursive: true });
    const suffix = `.tmp-${randomBytes(6).toString('hex')}`;
    await fs.writeFile(p.data + suffix, bytes);
    await fs.writeFile(p.meta + suffix, JSON.stringify({ contentType, size: bytes.length }));
    await fs.rename(p.data + suffix, p.data);
    await fs.rename(p.meta + suffix, p.meta);
  }

  async get(tenant: string, key: string): Promise<StoredFile | null> {
    const p = this.paths(tenant, key);
    try {
      const [bytes, meta] = await Promise.all([fs.readFile(p.data), fs.readFile(p.meta, 'utf8')]);
      const { contentType } = JSON.parse(meta) as { contentType: string };
      return { bytes, contentType, size: bytes.length };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async open(tenant: string, key: string): Promise<OpenedFile | null> {
    const p = this.paths(tenant, key);
    try {
      // The file is opened before it is measured, so a concurrent replacement (a rename) cannot mix two versions.
      const handle = await fs.open(p.data, 'r');
      const [stat, meta] = await Promise.all([handle.stat(), fs.readFile(p.meta, 'utf8')]).catch(async (error) => {
        await handle.close();
        throw error;
      });
      const { contentType } = JSON.parse(meta) as { contentType: string };
      return { contentType, size: stat.size, stream: handle.createReadStream({ autoClose: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(tenant: string, key: string): Promise<void> {
    const p = this.paths(tenant, key);
    await fs.rm(p.data, { force: true });
    await fs.rm(p.meta, { force: true });
  }
}
