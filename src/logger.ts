import { pino } from 'pino';
import { BatchedOutput } from './log-output.ts';

export type Logger = pino.Logger;

/** Standard output gets log lines in writes of at least this many bytes (one write per ~30 request lines). */
const STDOUT_BATCH_BYTES = 4096;
/** ...and at least this often, so a quiet service's lines are not held back. */
const STDOUT_FLUSH_MS = 250;
/** Lines waiting for a standard output that does not keep up, at most; beyond, lines are dropped and counted. */
const STDOUT_MAX_PENDING_BYTES = 16 * 1024 * 1024;

let stdout: BatchedOutput | null = null;

/**
 * Standard output in batches (src/log-output.ts), one per process, shared by every logger: under load one
 * write per line costs more than the line. At exit what is held is handed to standard output without waiting
 * (a reader that left or stopped reading never holds the exit); a graceful stop drains it first (drainLogs).
 */
function batchedStdout(): BatchedOutput {
  if (stdout) return stdout;
  const output = new BatchedOutput(process.stdout, {
    minBytes: STDOUT_BATCH_BYTES,
    flushMs: STDOUT_FLUSH_MS,
    maxPendingBytes: STDOUT_MAX_PENDING_BYTES,
  });
  process.once('exit', () => {
    output.flush();
    output.close();
  });
  return (stdout = output);
}

/**
 * Waits until the log lines written so far have left for standard output, at most `timeoutMs` (false when
 * its reader did not take them in time), and says how many lines a slow reader made the service drop.
 */
export async function drainLogs(timeoutMs: number): Promise<{ drained: boolean; dropped: number }> {
  if (!stdout) return { drained: true, dropped: 0 };
  return { drained: await stdout.drain(timeoutMs), dropped: stdout.dropped };
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
