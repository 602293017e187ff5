import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { chooseEncoding, COMPRESS_THRESHOLD, encode } from './compression.ts';
import { contentDisposition, type FileAnswer } from './file-answer.ts';
import type { CachedResponse, ResponseCache } from './response-cache.ts';

/**
 * RFC 9110 §13.1.2: a GET or HEAD whose If-None-Match names the current representation (weak comparison)
 * is answered 304. Evaluated whatever the request's Cache-Control says (fetch sends `no-cache` with
 * conditional requests).
 */
export function notModified(req: Request, etag: string): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !ifNoneMatch) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const wanted = opaque(etag);
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((t) => opaque(t) === wanted);
}

export function addVary(res: Response, value: string) {
  const current = res.getHeader('Vary');
  res.setHeader('Vary', current ? `${current}, ${value}` : value);
}

/** Compressed copies of a body, kept beside it. */
export interface EncodedCopies {
  gzip?: Buffer;
  br?: Buffer;
}

/**
 * A JSON answer: `200` with a weak ETag, or `304`; compressed (br or gzip) when it is over 1 KB and the
 * request allows it. A cached answer keeps its compressed bytes, so a cache hit costs no compression.
 */
export function sendBody(
  req: Request,
  res: Response,
  body: Buffer,
  etag: string,
  /** Where compressed copies are kept: a cache entry (accounted by its cache), or any long-lived holder. */
  keep?: { entry: EncodedCopies; cache?: ResponseCache },
  contentType = 'application/json; charset=utf-8',
) {
  res.setHeader('ETag', etag);
  if (body.length > COMPRESS_THRESHOLD) addVary(res, 'Accept-Encoding');
  if (notModified(req, etag)) {
    res.status(304).end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  sendCompressed(req, res, body, keep);
}

/**
 * Ends the answer with the body, compressed when it is over 1 KB and the request allows it (the caller has
 * set the status and type; Vary is added here). A `keep` holder reuses and keeps the compressed copies.
 */
export function sendCompressed(req: Request, res: Response, body: Buffer, keep?: { entry: EncodedCopies; cache?: ResponseCache }) {
  let bytes = body;
  if (body.length > COMPRESS_THRESHOLD) {
    if (!String(res.getHeader('Vary') ?? '').includes('Accept-Encoding')) addVary(res, 'Accept-Encoding');
    const encoding = chooseEncoding(req.headers['accept-encoding']);
    if (encoding !== 'identity') {
      let encoded = keep?.entry[encoding];
      if (!encoded) {
        encoded = encode(body, encoding, !keep);
        if (keep?.cache) keep.cache.addEncoding(keep.entry as CachedResponse, encoding, encoded);
        else if (keep) keep.entry[encoding] = encoded;
      }
      bytes = encoded;
      res.setHeader('Content-Encoding', encoding);
    }
  }
  res.setHeader('Content-Length', bytes.length);
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/** A binary answer: `304` without producing it, else its bytes streamed with their headers. */
export async function sendFile(req: Request, res: Response, answer: FileAnswer) {
  const { init } = answer;
  res.setHeader('ETag', init.etag);
  if (notModified(req, init.etag)) {
    res.status(304).end();
    return;
  }
  const body = await init.open();
  res.statusCode = 200;
  res.setHeader('Content-Type', init.contentType);
  res.setHeader('Content-Disposition', contentDisposition(init.disposition ?? 'attachment', init.filename));
  if (init.language) res.setHeader('Content-Language', init.language);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (body.size !== undefined) res.setHeader('Content-Length', body.size);
  if (req.method === 'HEAD') {
    body.stream.destroy();
    res.end();
    return;
  }
  await pipeline(body.stream, res);
}
