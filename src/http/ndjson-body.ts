// An `application/x-ndjson` request body read whole (it is hashed for Idempotency-Key before any line is taken),
// at most its limit; a larger one is a 413 that the client, still sending, can read (request-body.ts).
import type { Request, Response } from 'express';
import { PayloadTooLargeError, RequestTimeoutError, UnsupportedMediaTypeError } from '../errors.ts';
import { continueBody, declaredLength, refuseBody } from './request-body.ts';

/** The slowest body taken: in every `perMs` at least `bytes` of it (or what was left of it) arrive. */
export interface UploadFloor {
  bytes: number;
  perMs: number;
}

/**
 * Reads the body whole, at most `maxBytes`. With a floor, a body that arrives slower is ended: 408, and the
 * connection is closed after the answer (a client that trickles bytes holds nothing for long).
 */
export async function readNdjsonBody(req: Request, res: Response, maxBytes: number, floor?: UploadFloor): Promise<Buffer> {
  const tooLarge = () => new PayloadTooLargeError(`The body may be at most ${maxBytes / (1024 * 1024)} MiB.`);
  if (!req.is('application/x-ndjson')) {
    refuseBody(req, res, maxBytes);
    throw new UnsupportedMediaTypeError('The request body must be application/x-ndjson: one JSON record a line.');
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    refuseBody(req, res, maxBytes);
    throw new UnsupportedMediaTypeError('The intake body is taken without Content-Encoding.');
  }
  const declared = declaredLength(req);
  if (declared !== null && declared > maxBytes) {
    refuseBody(req, res, maxBytes);
    throw tooLarge();
  }
  continueBody(req, res);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Bytes at the start of the current window of the floor.
    let windowStart = 0;
    const slow = floor
      ? setInterval(() => {
          const expected = declared === null ? floor.bytes : Math.min(floor.bytes, declared - windowStart);
          if (size - windowStart >= expected) {
            windowStart = size;
            return;
          }
          cleanup();
          res.setHeader('Connection', 'close');
          res.once('finish', () => req.socket.destroy());
          reject(
            new RequestTimeoutError(
              `The body arrived slower than ${floor.bytes / 1024} KiB in ${floor.perMs / 1000} s; it was not taken. Send it again at a steadier pace.`,
            ),
          );
        }, floor.perMs)
      : null;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        refuseBody(req, res, maxBytes, size);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      if (slow) clearInterval(slow);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
