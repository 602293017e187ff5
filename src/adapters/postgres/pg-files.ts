/**
 * Stored files on PostgreSQL, so every machine reads what another stored: a file is a version of chunks (256 KiB
 * each, written as they arrive, never the whole file in memory) that its (tenant, key) row points to once the
 * upload ended; the swap and the old version's removal are one transaction. Reads stream the chunks one by one.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import pg from 'pg';
import { FileTooLargeError, type FileStore, type OpenedFile, type StoredFile } from '../../ports/files.ts';
import type { MigrationSteps } from './migrate.ts';
import { PgPart } from './pg-part.ts';
import { inTransaction, openPart } from './pool.ts';

export const FILE_STEPS: MigrationSteps = [
  (s) => `
    CREATE TABLE ${s}.files (
      tenant text NOT NULL,
      key text NOT NULL,
      version uuid NOT NULL,
      content_type text NOT NULL,
      size bigint NOT NULL,
      PRIMARY KEY (tenant, key)
    );
    CREATE TABLE ${s}.file_chunks (
      version uuid NOT NULL,
      seq integer NOT NULL,
      data bytea NOT NULL,
      created timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (version, seq)
    );`,
];

const CHUNK_BYTES = 256 * 1024;
/** Chunks of an upload that never finished (its process died) are removed after this long. */
const ABANDONED_AFTER = '1 day';

const checkTenant = (tenant: string) => {
  if (!/^[a-z0-9_][a-z0-9-]{0,62}$/.test(tenant)) throw new Error('invalid tenant');
};

export class PgFileStore extends PgPart implements FileStore {
  private constructor(pool: pg.Pool, owned: boolean, schema: string) {
    super(pool, owned, schema);
  }

  /** Connects, migrates the files' tables (schema default `bidder`) and removes abandoned uploads. */
  static async open(url: string | pg.Pool, options: { schema?: string } = {}): Promise<PgFileStore> {
    const schema = options.schema ?? 'bidder';
    const { pool, owned } = await openPart(url, 4, schema, 'files', FILE_STEPS);
    try {
      const store = new PgFileStore(pool, owned, schema);
      await pool.query(
        `DELETE FROM ${store.s}.file_chunks c WHERE c.created < now() - interval '${ABANDONED_AFTER}'
         AND NOT EXISTS (SELECT 1 FROM ${store.s}.files f WHERE f.version = c.version)`,
      );
      return store;
    } catch (error) {
      if (owned) await pool.end();
      throw error;
    }
  }

  async put(tenant: string, key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.putStream(tenant, key, Readable.from([bytes]), contentType, Number.MAX_SAFE_INTEGER);
  }

  async putStream(tenant: string, key: string, stream: Readable, contentType: string, maxBytes: number): Promise<{ size: number }> {
    checkTenant(tenant);
    const version = randomUUID();
    let size = 0;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const writeChunk = async (data: Buffer) => {
      await this.pool.query(`INSERT INTO ${this.s}.file_chunks (version, seq, data) VALUES ($1, $2, $3)`, [version, seq++, data]);
    };
    try {
      for await (const chunk of stream) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        size += buffer.length;
        if (size > maxBytes) throw new FileTooLargeError(maxBytes);
        pending.push(buffer);
        pendingBytes += buffer.length;
        while (pendingBytes >= CHUNK_BYTES) {
          const all = Buffer.concat(pending);
          await writeChunk(all.subarray(0, CHUNK_BYTES));
          pending = [all.subarray(CHUNK_BYTES)];
          pendingBytes = all.length - CHUNK_BYTES;
        }
      }
      if (pendingBytes > 0 || seq === 0) await writeChunk(Buffer.concat(pending));
      await this.swap(tenant, key, version, contentType, size);
      return { size };
    } catch (error) {
      stream.destroy();
      await this.pool.query(`DELETE FROM ${this.s}.file_chunks WHERE version = $1`, [version]).catch(() => {});
      throw error;
    }
  }

  /** Points the key at the new version and removes the version it replaces, in one transaction. */
  private async swap(tenant: string, key: string, version: string, contentType: string, size: number): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ version: string }>(
        `SELECT version FROM ${this.s}.files WHERE tenant = $1 AND key = $2 FOR UPDATE`,
        [tenant, key],
      );
      await client.query(
        `INSERT INTO ${this.s}.files (tenant, key, version, content_type, size) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant, key) DO UPDATE SET version = excluded.version, content_type = excluded.content_type, size = excluded.size`,
        [tenant, key, version, contentType, size],
      );
      if (rows[0]) await client.query(`DELETE FROM ${this.s}.file_chunks WHERE version = $1`, [rows[0].version]);
    });
  }

  async get(tenant: string, key: string): Promise<StoredFile | null> {
    const opened = await this.open(tenant, key);
    if (!opened) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
    return { contentType: opened.contentType, size: opened.size, bytes: Buffer.concat(chunks) };
  }

  async open(tenant: string, key: string): Promise<OpenedFile | null> {
    checkTenant(tenant);
    const { rows } = await this.pool.query<{ version: string; content_type: string; size: string }>(
      `SELECT version, content_type, size FROM ${this.s}.files WHERE tenant = $1 AND key = $2`,
      [tenant, key],
    );
    if (!rows[0]) return null;
    const { version, content_type: contentType } = rows[0];
    const size = Number(rows[0].size);
    const pool = this.pool;
    const s = this.s;
    // One chunk read at a time, as the reader asks for it; a file replaced meanwhile ends the stream with an error.
    async function* chunks() {
      let delivered = 0;
      for (let seq = 0; delivered < size || (size === 0 && seq === 0); seq++) {
        const { rows: found } = await pool.query<{ data: Buffer }>(`SELECT data FROM ${s}.file_chunks WHERE version = $1 AND seq = $2`, [
          version,
          seq,
        ]);
        if (!found[0]) throw new Error('the file was replaced or deleted while it was read');
        delivered += found[0].data.length;
        if (found[0].data.length > 0) yield found[0].data;
        if (size === 0) return;
      }
    }
    return { contentType, size, stream: Readable.from(chunks(), { objectMode: false }) };
  }

  async delete(tenant: string, key: string): Promise<void> {
    checkTenant(tenant);
    await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ version: string }>(
        `DELETE FROM ${this.s}.files WHERE tenant = $1 AND key = $2 RETURNING version`,
        [tenant, key],
      );
      if (rows[0]) await client.query(`DELETE FROM ${this.s}.file_chunks WHERE version = $1`, [rows[0].version]);
    });
  }
}
