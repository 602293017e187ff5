/**
 * Stored files (identity documents, generated PDFs). Production: a volume or MongoDB GridFS. Embedded:
 * DATA_DIR/files/. Keys are per tenant; a tenant can never read another tenant's file.
 */
export interface StoredFile {
  contentType: string;
  size: number;
  bytes: Buffer;
}

export interface FileStore {
  put(tenant: string, key: string, bytes: Buffer, contentType: string): Promise<void>;
  get(tenant: string, key: string): Promise<StoredFile | null>;
  delete(tenant: string, key: string): Promise<void>;
}
