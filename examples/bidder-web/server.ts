// The reference bidder front end (examples/bidder-web) as pages the service serves at /demo/: the HTML with a small
// config (where the API answers, the demo's Api-Key, the house), the TypeScript bundled by esbuild on first request
// and kept (compiled: the bundle `npm run build` made), and the style sheet. The page itself talks to the public API
// only, through clients/typescript.
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response, type Router } from 'express';
import { build } from 'esbuild';

export interface BidderWebOptions {
  /** The house the page shows (its `clientId` for an anonymous token). */
  tenant: string;
  /** The Api-Key the page sends (it identifies the application; not a secret); null while none is known. */
  apiKey: () => string | null;
  /** Where the page calls the API (another origin, e.g. `https://api.example.com`); null: the page's own origin. */
  apiUrl: string | null;
  /** Origins the house's lot images are served from (the page's CSP allows images from them); none: links only. */
  imageOrigins?: string[];
}

/** The page's injected settings, as src/config.ts reads them. */
export interface BidderWebConfig {
  baseUrl: string | null;
  apiKey: string;
  tenant: string;
  imageOrigins: string[];
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** An answer made once: its bytes and ETag. */
interface Asset {
  body: Buffer;
  etag: string;
}
const asset = (body: Buffer): Asset => ({ body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });

/** What `npm run build` bundles beside the compiled server (which has no TypeScript to bundle): the page's code and its service worker. */
export const BROWSER_CODE = {
  'app.js': { entry: './src/main.ts', format: 'esm' },
  'sw.js': { entry: './src/sw.ts', format: 'iife' },
} as const;
export type BrowserFile = keyof typeof BROWSER_CODE;

/** A browser file from its TypeScript: the page's code as one ES module, the service worker as a classic script. */
export async function bundleBrowserCode(file: BrowserFile = 'app.js'): Promise<Uint8Array> {
  const { entry, format } = BROWSER_CODE[file];
  const result = await build({
    entryPoints: [here(entry)],
    bundle: true,
    format,
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].contents;
}

/** A browser file (made once per process, on the first request that asks for it; compiled: the prebuilt one). */
async function bundle(file: BrowserFile): Promise<Asset> {
  const prebuilt = here(`./${file}`);
  if (!import.meta.url.endsWith('.ts') && fs.existsSync(prebuilt)) return asset(fs.readFileSync(prebuilt));
  return asset(Buffer.from(await bundleBrowserCode(file)));
}

function send(req: Request, res: Response, content: Asset, type: string) {
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', content.etag);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.headers['if-none-match'] === content.etag) res.status(304).end();
  else res.end(content.body);
}

/** The pages, for `app.use('/demo', bidderWeb(...))`. */
export function bidderWeb(options: BidderWebOptions): Router {
  const router = express.Router();
  const template = fs.readFileSync(here('./index.html'), 'utf8');
  const styles = asset(fs.readFileSync(here('./styles.css')));
  let script: Promise<Asset> | null = null;
  let worker: Promise<Asset> | null = null;
  const connectTo = options.apiUrl ? new URL(options.apiUrl).origin : null;
  const imageOrigins = options.imageOrigins ?? [];
  const imageSources = ["'self'", 'data:', ...imageOrigins].join(' ');

  router.get('/', (req, res) => {
    // Relative asset URLs need the trailing slash: /demo answers with a redirect to /demo/.
    if (!req.originalUrl.split('?')[0].endsWith('/')) {
      res.redirect(301, `${req.baseUrl}/`);
      return;
    }
    const apiKey = options.apiKey();
    if (!apiKey) {
      res.status(503).type('text/plain').send('The demo Api-Key is not known yet: start the service with the demo data (npm start).');
      return;
    }
    const config: BidderWebConfig = { baseUrl: options.apiUrl, apiKey, tenant: options.tenant, imageOrigins };
    // JSON in a data block (never run): `<` escaped so no text can close the element.
    const html = template.replace('{{config}}', JSON.stringify(config).replace(/</g, '\\u003c'));
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${imageSources}; connect-src 'self'${connectTo ? ` ${connectTo}` : ''}; ` +
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    res.setHeader('Referrer-Policy', 'no-referrer');
    send(req, res, asset(Buffer.from(html, 'utf8')), 'text/html; charset=utf-8');
  });
  router.get('/app.css', (req, res) => send(req, res, styles, 'text/css; charset=utf-8'));
  router.get('/app.js', async (req, res, next) => {
    script ??= bundle('app.js');
    try {
      send(req, res, await script, 'text/javascript; charset=utf-8');
    } catch (error) {
      script = null;
      next(error);
    }
  });
  // The service worker of the page's pushes, at the page's own path so that its scope is the page's (`/demo/`).
  router.get('/sw.js', async (req, res, next) => {
    worker ??= bundle('sw.js');
    try {
      send(req, res, await worker, 'text/javascript; charset=utf-8');
    } catch (error) {
      worker = null;
      next(error);
    }
  });
  return router;
}
