import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { AppError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.ts';

/**
 * Request bodies as browsers and `fetch` can be told "too large": a body over its limit is answered `413` and
 * the rest of it is read and dropped (up to discardBound) so that the client, still sending, reads the answer
 * instead of a reset connection; a client that waits for `100 Continue` is refused without it, so it never sends.
 */

const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * The HTTP server's `checkContinue` listener: the request goes on without `100 Continue`, which the code that
 * reads the body sends (continueBody). An answer given without reading it (401, 413, 415, ...) closes the
 * connection, whose body the client has not sent.
 */
export function checkContinue(server: Server) {
  return (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req);
    res.setHeader('Connection', 'close');
    server.emit('request', req, res);
  };
}

/** Lets a client that waits for `100 Continue` send its body: called just before the body is read. */
export function continueBody(req: IncomingMessage, res: ServerResponse): void {
  if (!awaitingContinue.delete(req)) return;
  res.removeHeader('Connection');
  res.writeContinue();
}

/** How much of a refused body is read and dropped before the connection is closed: twice its limit, at least 1 MiB. */
export function discardBound(limitBytes: number): number {
  return Math.max(2 * limitBytes, 1024 * 1024);
}

/** The body's declared length in bytes (Content-Length), or null when it is sent in chunks. */
export function declaredLength(req: IncomingMessage): number | null {
  const value = req.headers['content-length'];
  return value === undefined ? null : Number(value);
}

/**
 * A body over `limitBytes` whose answer is about to be sent: the client has not sent it (it waits for `100
 * Continue`: the connection closes after the answer), or its rest is read and dropped while the whole body
 * stays within discardBound (then the connection is closed under it), so the client reads the answer.
 * `received` is what was read of it already.
 */
export function refuseBody(req: IncomingMessage, res: ServerResponse, limitBytes: number, received = 0): void {
  if (awaitingContinue.has(req) || req.readableEnded) return;
  const bound = discardBound(limitBytes);
  const declared = declaredLength(req);
  if (declared !== null && declared > bound) {
    // Not worth reading: the answer goes out, then the connection closes.
    res.setHeader('Connection', 'close');
    return;
  }
  let total = received;
  req.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (total > bound) req.socket.destroy();
  });
  req.resume();
}

/** The JSON body limit of every operation that takes JSON. */
export const JSON_BODY_LIMIT = 64 * 1024;

const decoders: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * Reads an `application/json` body into `req.body` (at most `limitBytes` once decoded; UTF-8; an object or an
 * array), or answers `400`, `413` or `415` without leaving the client unable to read the answer.
 */
export function jsonBody(limitBytes = JSON_BODY_LIMIT) {
  const tooLarge = () => new PayloadTooLargeError(`The JSON body may be at most ${limitBytes / 1024} kB.`);
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('application/json') && !req.is('application/*+json')) return next();
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    const decoder = encoding === 'identity' ? null : decoders[encoding];
    const fail = (error: AppError, received = 0) => {
      refuseBody(req, res, limitBytes, received);
      next(error);
    };
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
      return fail(new UnsupportedMediaTypeError('The request body must be UTF-8 JSON.'));
    if (decoder === undefined)
      return fail(
        new UnsupportedMediaTypeError(`The Content-Encoding "${encoding.slice(0, 40)}" is not supported (identity, gzip, deflate or br).`),
      );
    const declared = declaredLength(req);
    if (decoder === null && declared !== null && declared > limitBytes) return fail(tooLarge());

    continueBody(req, res);
    const source: Readable = decoder ? (req.pipe(decoder()) as unknown as Readable) : req;
    const chunks: Buffer[] = [];
    let size = 0;
    let raw = 0;
    let done = false;
    const finish = (error: AppError | null) => {
      if (done) return;
      done = true;
      req.off('data', countRaw);
      source.off('data', onData);
      source.off('end', onEnd);
      if (decoder) req.unpipe(source as unknown as NodeJS.WritableStream);
      if (error) return fail(error, raw);
      // An empty body (`Content-Length: 0`, or no chunk) is no body.
      if (size === 0) return next();
      const text = Buffer.concat(chunks, size).toString('utf8');
      if (!/^[\s]*[[{]/.test(text))
        return next(new ValidationError('The request body is not valid JSON: an object or an array is expected.'));
      try {
        req.body = JSON.parse(text);
      } catch {
        return next(new ValidationError('The request body is not valid JSON.'));
      }
      next();
    };
    const countRaw = (chunk: Buffer) => (raw += chunk.length);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) finish(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    req.on('data', countRaw);
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', () =>
      finish(
        decoder
          ? new ValidationError(`The request body is not valid ${encoding} data.`)
          : new ValidationError('The request body could not be read.'),
      ),
    );
    const broken = () => finish(new ValidationError('The request body could not be read: it broke off before its end.'));
    req.on('error', broken);
    req.on('close', () => !req.complete && broken());
  };
}
