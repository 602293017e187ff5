import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createRuntime } from '../runtime.ts';
import { importLines } from '../features/intake.ts';

/**
 * Catalogue intake from the command line: `npm run import -- FILE.ndjson` (or `-` for standard input).
 * Appends events to the log in DATA_DIR; a running service's projectors pick them up. Exit code 1 when
 * a line was rejected (the others are imported); the report goes to stdout as JSON.
 */
async function main() {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: npm run import -- FILE.ndjson|-\n');
    process.exit(2);
  }
  const config = loadConfig();
  const logger = createLogger({ level: 'warn' });
  // Appends only: the lot index is opened as a replica (never written), so a running service keeps its own.
  const runtime = await createRuntime(config, logger, { background: false, role: 'api' });
  const input = file === '-' ? process.stdin : fs.createReadStream(file, 'utf8');
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  const started = Date.now();
  const report = await importLines(
    runtime.services.log,
    lines,
    (r) => process.stderr.write(`\rimported ${r.records} records, ${r.appended} events`),
    // Document bytes go to the file store; `file` paths are relative to the NDJSON file.
    { files: runtime.services.files, baseDir: file === '-' ? undefined : path.dirname(path.resolve(file)) },
  );
  process.stderr.write('\n');
  await runtime.close();
  process.stdout.write(
    JSON.stringify({ ...report, errors: report.errors.slice(0, 100), seconds: (Date.now() - started) / 1000 }, null, 2) + '\n',
  );
  process.exit(report.errors.length ? 1 : 0);
}

main().catch((error) => {
  process.stderr.write(`import failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
