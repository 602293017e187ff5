import { pino } from 'pino';

export type Logger = pino.Logger;

/** Standard output gets log lines in writes of at least this many bytes (one write per ~30 request lines). */
const STDOUT_BATCH_BYTES = 4096;
/** ...and at least this often, so a quiet service's lines are not held back. */
const STDOUT_FLUSH_MS = 250;

/**
 * Standard output as pino writes it by default (sonic-boom, asynchronous), but in batches: under load one
 * write per line costs more than the line. A normal exit flushes what is held (pino's exit hook); a process
 * killed outright loses at most the last STDOUT_FLUSH_MS of lines.
 */
function batchedStdout(): pino.DestinationStream {
  // sonic-boom's periodicFlush (an unref'd timer); pino's types do not name it.
  return pino.destination({ dest: process.stdout.fd ?? 1, minLength: STDOUT_BATCH_BYTES, sync: false, periodicFlush: STDOUT_FLUSH_MS } as Parameters<typeof pino.destination>[0]);
}

/**
 * pino, with credentials redacted wherever they could appear in a log object. Request logs carry the
 * method, the path without its query values of secrets, the status and the request id; never a body.
 */
export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["api-key"]',
          'req.headers.cookie',
          '*.password',
          '*.Password',
          '*.token',
          '*.Token',
          '*.ClientSecret',
          '*.apiKey',
        ],
        censor: '[redacted]',
      },
      base: undefined,
    },
    options.destination ?? batchedStdout(),
  );
}

/**
 * The logger of the one line per answered request. Its fields are fixed and never secret (request id,
 * method, path, status, duration), so it skips redaction, which would cost several times the line itself.
 */
export function requestLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}
