import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { checkContinue } from './request-body.ts';
import type { ProblemCode } from '../problem-codes.ts';

/** Statuses Node's HTTP parser gives its errors (the ones it would answer itself with an empty body). */
function statusOf(code: string | undefined): { status: number; title: string; detail: string; problemCode: ProblemCode } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        title: 'Request Header Fields Too Large',
        detail: 'The request line and headers may be at most 16 KB.',
        problemCode: 'headers-too-large',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, title: 'Payload Too Large', detail: 'The chunk extensions are too large.', problemCode: 'too-large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, title: 'Request Timeout', detail: 'The request was not received in time.', problemCode: 'request-timeout' };
    default:
      return { status: 400, title: 'Bad Request', detail: 'The request is not valid HTTP/1.1.', problemCode: 'validation-failed' };
  }
}

/**
 * Errors raised by Node's HTTP parser before Express sees the request (a 16 KB URL, a malformed request
 * line) answered as problem+json, like every other error, where the socket can still be written.
 */
export function problemOnClientError(error: Error & { code?: string }, socket: Socket) {
  // Node's own rule: answer unless the response of the request in progress has started (an earlier answer on
  // a kept-alive connection does not count).
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || current?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, title, detail, problemCode } = statusOf(error.code);
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: `urn:bidder-api:problem:${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
    title,
    status,
    detail,
    instance: `urn:request:${requestId}`,
    code: problemCode,
  });
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** Starts the HTTP server of an app with the service's timeouts and parser-error answers. */
export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    // A whole request (a 10 MiB identity document on a slow line included) within 2 minutes; headers within 66 s.
    server.requestTimeout = 120_000;
    server.on('clientError', problemOnClientError);
    // `Expect: 100-continue`: the body is asked for only by the code that reads it (src/http/request-body.ts).
    server.on('checkContinue', checkContinue(server));
  });
}
