import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash, randomBytes } from 'node:crypto';
import { FileTooLargeError, type FileStore, type OpenedFile, type StoredFile } from '../../ports/files.ts';
import type { DataFolderRoom } from '../../storage-room.ts';
import { makePrivateFolder, privateWriteStream, writePrivateFile } from '../../private-files.ts';

/**
 * Files under DATA_DIR/files/<tenant>/<sha256 of key>, with a small JSON sidecar for the content type.
 * Keys are hashed, so no key can climb out of its tenant's folder. Writes go to a temp file, then rename; a
 * write that fails (no room) removes its temp files. While the data folder has no room (`room`), writes are
 * refused before they start. Folders are 0700 and files 0600 (src/private-files.ts).
 */
export class FolderFileStore implements FileStore {
  constructor(
    private readonly dir: string,
    private readonly room: DataFolderRoom | null = null,
  ) {}

  private paths(tenant: string, key: string) {
    if (!/^[a-z0-9_][a-z0-9-]{0,62}$/.test(tenant)) throw new Error('invalid tenant');
    const name = createHash('sha256').update(key).digest('hex');
    const folder = path.join(this.dir, tenant);
    return { folder, data: path.join(folder, name), meta: path.join(folder, `${name}.json`) };
  }

  async put(tenant: string, key: string, bytes: Buffer, contentType: string): Promise<void> {
    const p = this.paths(tenant, key);
    this.room?.assertRoom();
    await makePrivateFolder(p.folder);
    const suffix = `.tmp-${randomBytes(6).toString('hex')}`;
    try {
      await writePrivateFile(p.data + suffix, bytes);
      await writePrivateFile(p.meta + suffix, JSON.stringify({ contentType, size: bytes.length }));
    } catch (error) {
      await Promise.all([fs.rm(p.data + suffix, { force: true }), fs.rm(p.meta + suffix, { force: true })]);
      throw error;
    }
    await fs.rename(p.data + suffix, p.data);
    await fs.rename(p.meta + suffix, p.meta);
  }

  async putStream(tenant: string, key: string, stream: Readable, contentType: string, maxBytes: number): Promise<{ size: number }> {
    const p = this.paths(tenant, key);
    // The stream may fail while the folder is made: its error is kept (not thrown unheard) and ends the put.
    let early: unknown = null;
    const onEarlyError = (error: unknown) => {
      early ??= error;
    };
    stream.on('error', onEarlyError);
    const suffix = `.tmp-${randomBytes(6).toString('hex')}`;
    let size = 0;
    try {
      this.room?.assertRoom();
      await makePrivateFolder(p.folder);
      if (early) throw early;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > maxBytes) callback(new FileTooLargeError(maxBytes));
          else callback(null, chunk);
        },
      });
      // The bytes go to a temp file, renamed into place only once the stream has ended well.
      await pipeline(stream, limit, privateWriteStream(p.data + suffix));
      await writePrivateFile(p.meta + suffix, JSON.stringify({ contentType, size }));
      await fs.rename(p.data + suffix, p.data);
      await fs.rename(p.meta + suffix, p.meta);
      return { size };
    } catch (error) {
      await Promise.all([fs.rm(p.data + suffix, { force: true }), fs.rm(p.meta + suffix, { force: true })]);
      throw error;
    } finally {
      stream.off('error', onEarlyError);
    }
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
