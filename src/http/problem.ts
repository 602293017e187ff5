import type { NextFunction, Request, Response } from 'express';
import { AppError, StorageFullError, storageFullFrom, unavailableFrom, ValidationError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { StorageFaults } from '../storage-room.ts';
import { sendCompressed } from './send.ts';

/** Maps the router's own errors into the one hierarchy (request bodies are read by src/http/request-body.ts). */
function fromExpress(error: unknown): AppError | null {
  // Express's router answers a path parameter that is not valid percent-encoding with a URIError (status 400).
  if (error instanceof URIError) return new ValidationError('The request URL is not valid percent-encoding.');
  if ((error as { status?: unknown })?.status === 400) return new ValidationError('The request could not be read.');
  return null;
}

export function sendProblem(res: Response, error: AppError, requestId: string) {
  if (error.extra.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.extra.retryAfterSeconds));
  if (error.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  const body = Buffer.from(
    JSON.stringify({
      ...error.extra.extensions,
      type: error.type,
      title: error.title,
      status: error.status,
      detail: error.message,
      instance: `urn:request:${requestId}`,
      code: error.code,
      ...(error.messageKey ? { messageKey: error.messageKey } : {}),
      ...(error.extra.errors?.length ? { errors: error.extra.errors } : {}),
    }),
    'utf8',
  );
  res.status(error.status);
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  sendCompressed(res.req, res, body);
}

/**
 * The one error middleware: every error becomes application/problem+json; no stack traces leave. A write that
 * failed for want of room is told to `storage` (which logs the episode once) and answered 503 `storage-full`.
 */
export function problemMiddleware(logger: Logger, storage?: StorageFaults) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const requestId = String(res.locals.requestId ?? '');
    const full = error instanceof StorageFullError ? error : storageFullFrom(error);
    if (full) {
      storage?.refused(error, 'request');
      sendProblem(res, full, requestId);
      return;
    }
    const known = error instanceof AppError ? error : (fromExpress(error) ?? unavailableFrom(error));
    if (known) {
      if (known.status === 503 && !(error instanceof AppError))
        logger.warn({ reqId: requestId, err: error instanceof Error ? error.message : String(error) }, 'engine unreachable: answered 503');
      sendProblem(res, known, requestId);
      return;
    }
    logger.error(
      { reqId: requestId, err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) },
      'unhandled error',
    );
    if (res.headersSent) return;
    sendProblem(res, new AppError(500, 'Internal Server Error', 'An unexpected error occurred.'), requestId);
  };
}
