/**
 * The baseline of bench/run.ts: an Express 5 hello-world (GET / answers {"hello":"world"}), with Express's
 * defaults, on 127.0.0.1:$PORT. Runs until SIGTERM/SIGINT.
 */
import express from 'express';

const port = Number(process.env.PORT ?? 3101);
const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(port, '127.0.0.1', () => {
  process.stdout.write(`hello-world listening on 127.0.0.1:${port}\n`);
});
server.keepAliveTimeout = 65_000;
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
