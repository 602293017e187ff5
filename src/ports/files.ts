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

/** `putStream` was given more bytes than it may store; nothing was stored. */
export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the file is larger than ${maxBytes} bytes`);
    this.name = 'FileTooLargeError';
  }
}

export interface FileStore {
  put(tenant: string, key: string, bytes: Buffer, contentType: string): Promise<void>;
  /**
   * Stores a stream (an upload) without holding it in memory: the file appears under its key, complete, only
   * once the stream has ended. When the stream fails (an error, the client broke off) or brings more than
   * `maxBytes` (FileTooLargeError), nothing is stored, a file already under the key is kept, and the promise
   * rejects. Resolves with the number of bytes stored.
   */
  putStream(tenant: string, key: string, stream: Readable, contentType: string, maxBytes: number): Promise<{ size: number }>;
  get(tenant: string, key: string): Promise<StoredFile | null>;
  /** The file as a stream, or null when absent. */
  open(tenant: string, key: string): Promise<OpenedFile | null>;
  delete(tenant: string, key: string): Promise<void>;
}
