// The key ring on the embedded default: DATA_DIR/secrets/keys.json (0600), which every process on the data folder
// reads. It is only ever replaced whole (a new file renamed over it), so a reader never sees half of one; it is
// created by a link that fails when another process linked its own first; changes are made under a lock file.
// Both temporaries are named `.tmp-…`, which backups leave out.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { isKeyRing, type KeyRing, type KeyRingStore, type SigningKey } from '../../ports/key-ring.ts';
import { makePrivateFolder, openPrivateFile, writePrivateFile } from '../../private-files.ts';

/** A lock older than this was left by a process that died while it held it. */
const STALE_LOCK_MS = 30_000;
/** How long a change waits for another one's lock before it gives up. */
const LOCK_WAIT_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

export class FileKeyRing implements KeyRingStore {
  readonly file: string;

  constructor(private readonly dir: string) {
    this.file = path.join(dir, 'keys.json');
  }

  async open(initial: () => KeyRing): Promise<KeyRing> {
    const found = await this.read();
    if (found) return found;
    await makePrivateFolder(this.dir);
    const temp = this.tempName();
    await writePrivateFile(temp, serialise(initial()));
    try {
      await fsp.link(temp, this.file);
    } catch (error) {
      if (code(error) !== 'EEXIST') throw error;
    } finally {
      await fsp.unlink(temp);
    }
    return (await this.read())!;
  }

  async read(): Promise<KeyRing | null> {
    let text: string;
    try {
      text = await fsp.readFile(this.file, 'utf8');
    } catch (error) {
      if (code(error) === 'ENOENT') return null;
      throw error;
    }
    let ring: unknown;
    try {
      ring = JSON.parse(text);
    } catch {
      ring = null;
    }
    if (!isKeyRing(ring)) throw new Error(`${this.file} is not a key ring (edited by hand?): restore it from a backup`);
    return ring;
  }

  add(key: SigningKey): Promise<boolean> {
    return this.change((ring) => {
      if (ring.keys.some((k) => k.id === key.id)) return false;
      ring.keys.push(key);
      return true;
    });
  }

  retire(id: string, at: string): Promise<boolean> {
    return this.change((ring) => {
      const key = ring.keys.find((k) => k.id === id);
      if (!key || key.retired !== undefined) return false;
      key.retired = at;
      return true;
    });
  }

  async close(): Promise<void> {}

  /** Reads, changes and replaces the ring under the lock; `edit` answers whether it changed anything. */
  private async change(edit: (ring: KeyRing) => boolean): Promise<boolean> {
    const release = await this.lock();
    try {
      const ring = await this.read();
      if (!ring) throw new Error(`${this.file} does not exist: start the service or run npm run keys -- init first`);
      if (!edit(ring)) return false;
      const temp = this.tempName();
      await writePrivateFile(temp, serialise(ring));
      await fsp.rename(temp, this.file);
      return true;
    } finally {
      await release();
    }
  }

  private async lock(): Promise<() => Promise<void>> {
    const file = `${this.file}.tmp-lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const handle = await openPrivateFile(file, 'wx');
        await handle.close();
        return () => fsp.unlink(file).catch(() => {});
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
      }
      const stat = await fsp.stat(file).catch(() => null);
      if (stat && Date.now() - stat.mtimeMs > STALE_LOCK_MS) await fsp.unlink(file).catch(() => {});
      else if (Date.now() > deadline) throw new Error(`${file} is held by another change of the key ring: try again`);
      else await sleep(20);
    }
  }

  private tempName(): string {
    return `${this.file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  }
}

const serialise = (ring: KeyRing) => `${JSON.stringify(ring, null, 2)}\n`;
