/**
 * The ceilings of bench/run.ts: one Express 5 app on 127.0.0.1:$PORT sending a stored copy of the lot page
 * the service answered (BODY_FILE), the same bytes, so that a ratio to it never flatters the service. Runs
 * until SIGTERM/SIGINT.
 *
 *   GET /stored        the stored bytes
 *   GET /stored-gzip   the same answer gzip-compressed once at start (level 6, as the service's cache does)
 *   GET /hello         {"hello":"world"} (the classic hello-world, for reference)
 *
 * VARIANT says how Express sends them (bench/ceilings.ts compares them; docs/performance.md "The ceilings"):
 *   lean (default)  headers made once (Content-Type, Content-Encoding, Content-Length), res.writeHead + res.end,
 *                   Express's ETag and X-Powered-By off: the fastest way we found. The bench's ceiling.
 *   send            res.type('application/json').send(bytes) with Express's defaults: a weak ETag hashed from
 *                   the bytes on every request, X-Powered-By.
 *   send-noetag     the same res.send with Express's ETag and X-Powered-By off.
 *   json            res.json(the parsed answer): serialised on every request, as a handler without a cache.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import express, { type Request, type Response } from 'express';

const port = Number(process.env.PORT ?? 3101);
const variant = process.env.VARIANT ?? 'lean';
const file = process.env.BODY_FILE;
if (!file) throw new Error('BODY_FILE names the stored answer (JSON)');
if (!['lean', 'send', 'send-noetag', 'json'].includes(variant)) throw new Error(`unknown VARIANT ${variant}`);

const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
const bytes = Buffer.from(JSON.stringify(parsed));
const gzip = zlib.gzipSync(bytes, { level: 6 });
const hello = Buffer.from('{"hello":"world"}');

const app = express();
if (variant !== 'send') {
  app.disable('x-powered-by');
  app.set('etag', false);
}

type Handler = (req: Request, res: Response) => void;
function sender(body: Buffer, encoding: 'gzip' | null): Handler {
  switch (variant) {
    case 'lean': {
      const headers = [
        'Content-Type',
        'application/json; charset=utf-8',
        ...(encoding ? ['Content-Encoding', encoding] : []),
        'Content-Length',
        String(body.length),
      ];
      return (_req, res) => {
        res.writeHead(200, headers);
        res.end(body);
      };
    }
    case 'json':
      if (body === bytes) return (_req, res) => void res.json(parsed);
    // falls through: the compressed and hello answers are sent as bytes
    default:
      return (_req, res) => {
        if (encoding) res.setHeader('Content-Encoding', encoding);
        res.type('application/json').send(body);
      };
  }
}

app.get('/stored', sender(bytes, null));
app.get('/stored-gzip', sender(gzip, 'gzip'));
app.get('/hello', sender(hello, null));

const server = app.listen(port, '127.0.0.1', () => {
  process.stdout.write(`ceiling (${variant}) listening on 127.0.0.1:${port}\n`);
});
server.keepAliveTimeout = 65_000;
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
