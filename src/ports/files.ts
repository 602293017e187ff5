import type { Readable } from 'node:stream';

/**
 * Stored files (identity documents, generated PDFs). Production: a volume or MongoDB GridFS. Embedded:
 * DATA_DIR/files/. Keys are per tenant; a tenant can never read another tenant's file.
 */
export interface StoredFile {
  contentType: string;
  size: number;
  bytes: Buffer;
}

/** A stored file opened for streaming (downloads of any size without holding them in memory). */
export interface OpenedFile {
  contentType: string;
  size: number;
  stream: Readable;
}

export interface FileStore {
  put(tenant: string, key: string, bytes: Buffer, contentType: string): Promise<void>;
  get(tenant: string, key: string): Promise<StoredFile | null>;
  /** The file as a stream, or null when absent. */
  open(tenant: string, key: string): Promise<OpenedFile | null>;
  delete(tenant: string, key: string): Promise<void>;
}
