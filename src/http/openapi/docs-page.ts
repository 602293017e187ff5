// The Swagger UI reference pages (GET /docs and GET /docs/backoffice), each showing one of the two documents.
import { createHash } from 'node:crypto';

/** A reference page: its title and the document it shows. */
export interface DocsPage {
  title: string;
  documentUrl: string;
}

export const BIDDER_DOCS: DocsPage = { title: 'Bidder API reference', documentUrl: '/openapi.json' };
export const BACK_OFFICE_DOCS: DocsPage = { title: 'Bidder API: back office reference', documentUrl: '/backoffice/openapi.json' };

/** A page's HTML and the headers it is served with. */
export interface DocsPageAnswer {
  html: string;
  headers: Record<string, string>;
}

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * An interactive reference page (Swagger UI, served from the installed package; no CDN), with links between the
 * bidder API's page (/docs) and the back office's (/docs/backoffice). A caller types an Api-Key, a token or a
 * back-office key into it: Swagger UI keeps them in the page's memory only (`persistAuthorization: false`, never
 * localStorage), and the headers are those of /demo/ (examples/bidder-web/server.ts): scripts and styles of this
 * origin and the page's own two inline blocks (by hash), calls to this origin only, never framed.
 */
export function docsPage(page: DocsPage = BIDDER_DOCS): DocsPageAnswer {
  const style = 'nav.references { font-family: sans-serif; padding: 8px 20px }';
  const script =
    `window.ui = SwaggerUIBundle({ url: '${page.documentUrl}', dom_id: '#swagger-ui', deepLinking: true, ` +
    'persistAuthorization: false, tryItOutEnabled: true, validatorUrl: null });';
  const html = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${page.title}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>${style}</style>
</head>
<body>
  <nav class="references">References: <a href="/docs">bidder API</a> · <a href="/docs/backoffice">back office</a></nav>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>${script}</script>
</body>
</html>`;
  const csp =
    `default-src 'none'; script-src 'self' ${hashOf(script)}; style-src 'self' ${hashOf(style)}; img-src 'self' data:; ` +
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
  return {
    html,
    headers: {
      'Content-Security-Policy': csp,
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    },
  };
}
