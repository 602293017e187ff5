import { Readable } from 'node:stream';

export interface FileBody {
  stream: Readable;
  /** Bytes, when known before sending (then Content-Length is set; otherwise the answer is chunked). */
  size?: number;
}

/**
 * A binary answer of an operation (a PDF, a spreadsheet, a stored document). The HTTP shell sends it with
 * its content type, `Content-Disposition` and `ETag`, answers `304` to a matching `If-None-Match` without
 * calling `open`, and streams the body.
 */
export class FileAnswer {
  constructor(
    readonly init: {
      contentType: string;
      /** The file name offered to the user agent. */
      filename: string;
      disposition?: 'inline' | 'attachment';
      /** The language of the file's content (a stored document's own), when not the negotiated one. */
      language?: string;
      /** Identifies this representation; cheap to compute (a version or a content hash, not the bytes). */
      etag: string;
      /** Produces the body; called only when the answer is not a 304. */
      open: () => Promise<FileBody>;
    },
  ) {}

  static bytes(bytes: Buffer): FileBody {
    return { stream: Readable.from([bytes]), size: bytes.length };
  }
}

/** `attachment; filename="..."; filename*=UTF-8''...` (RFC 6266), safe for any name. */
export function contentDisposition(disposition: 'inline' | 'attachment', filename: string): string {
  const ascii =
    filename
      .normalize('NFKD')
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/["\\]/g, '')
      .trim() || 'download';
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
