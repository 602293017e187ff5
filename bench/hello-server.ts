/**
 * The baseline of bench/run.ts: an Express 5 hello-world (GET / answers {"hello":"world"}), with Express's
 * defaults, on 127.0.0.1:$PORT. Runs until SIGTERM/SIGINT.
 *
 * With BODY_FILE (a JSON file), GET /stored answers res.json(the parsed file) as well: the ceiling of an
 * endpoint that had its answer ready in memory and only serialises and sends it (same bytes as the service);
 * GET /stored-bytes sends the same answer already serialised (a cache of response bytes).
 */
import fs from 'node:fs';
import express from 'express';

const port = Number(process.env.PORT ?? 3101);
const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
if (process.env.BODY_FILE) {
  const stored: unknown = JSON.parse(fs.readFileSync(process.env.BODY_FILE, 'utf8'));
  app.get('/stored', (_req, res) => {
    res.json(stored);
  });
  // The same answer already serialised (a response cache holding bytes): Express only sends them.
  const bytes = Buffer.from(JSON.stringify(stored));
  app.get('/stored-bytes', (_req, res) => {
    res.type('application/json').send(bytes);
  });
}
const server = app.listen(port, '127.0.0.1', () => {
  process.stdout.write(`hello-world listening on 127.0.0.1:${port}\n`);
});
server.keepAliveTimeout = 65_000;
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
