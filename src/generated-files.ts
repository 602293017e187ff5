import { Readable } from 'node:stream';
import type { FileStore, OpenedFile } from './ports/files.ts';
import type { StorageFaults } from './storage-room.ts';

/**
 * Files made from read models on first request (catalogue PDFs, lot factsheets), kept in the FileStore under
 * a key that names their version, so a changed catalogue gets a new file and an unchanged one is made once.
 * Single-flight: concurrent first requests for one key in this process wait for one generation and share
 * its bytes. A file that cannot be kept for want of room (a full disk, told to `storage`) is served all the same:
 * the request is a read, and the next one makes it again.
 */
export class GeneratedFiles {
  private readonly inflight = new Map<string, Promise<Buffer>>();
  private made = 0;

  constructor(
    private readonly files: FileStore,
    private readonly storage: StorageFaults | null = null,
  ) {}

  /** How many files this process has generated (for tests and metrics). */
  get generated(): number {
    return this.made;
  }

  /**
   * The file under `key`, generated first when it is not stored yet. Files of one `family` (the catalogue
   * of one auction in one language) replace each other: storing a new version deletes the previous one.
   */
  async open(
    tenant: string,
    file: { key: string; family: string; contentType: string },
    generate: () => Promise<Buffer>,
  ): Promise<OpenedFile> {
    const existing = await this.files.open(tenant, file.key);
    if (existing) return existing;
    const flightKey = `${tenant}\u0000${file.key}`;
    let flight = this.inflight.get(flightKey);
    if (!flight) {
      flight = (async () => {
        try {
          // Stored meanwhile by a flight that ended between our look and this one?
          const stored = await this.files.get(tenant, file.key);
          if (stored) return stored.bytes;
          const bytes = await generate();
          this.made += 1;
          try {
            await this.files.put(tenant, file.key, bytes, file.contentType);
            await this.replacePrevious(tenant, file.family, file.key);
          } catch (error) {
            if (!this.storage?.refused(error, 'request')) throw error;
          }
          return bytes;
        } finally {
          this.inflight.delete(flightKey);
        }
      })();
      this.inflight.set(flightKey, flight);
    }
    const bytes = await flight;
    return { contentType: file.contentType, size: bytes.length, stream: Readable.from([bytes]) };
  }

  /** Deletes the family's previous version, and remembers this one as the latest. */
  private async replacePrevious(tenant: string, family: string, key: string) {
    const marker = `${family}#latest`;
    const previous = (await this.files.get(tenant, marker))?.bytes.toString('utf8');
    if (previous === key) return;
    await this.files.put(tenant, marker, Buffer.from(key, 'utf8'), 'text/plain');
    if (previous) await this.files.delete(tenant, previous);
  }
}
