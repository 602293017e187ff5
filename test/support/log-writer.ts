/**
 * A process that logs as the service does (src/logger.ts) and then exits, for the specs of standard output:
 * `LINES` lines of about 200 bytes, a wait of `WAIT_MS` (its reader may leave meanwhile), one more line, then
 * `process.exit(0)`, after a graceful drain of at most `DRAIN_MS` when that is set.
 */
import { createLogger, drainLogs } from '../../src/logger.ts';

const logger = createLogger({ level: 'info' });
const lines = Number(process.env.LINES ?? 1);
for (let i = 0; i < lines; i++) logger.info({ i, padding: 'x'.repeat(160) }, 'line');
await new Promise((resolve) => setTimeout(resolve, Number(process.env.WAIT_MS ?? 0)));
logger.info('the last line');
if (process.env.DRAIN_MS) await drainLogs(Number(process.env.DRAIN_MS));
process.exit(0);
