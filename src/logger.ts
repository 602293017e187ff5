import { pino } from 'pino';

export type Logger = pino.Logger;

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
    options.destination,
  );
}
