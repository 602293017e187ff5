// The Swagger UI reference pages (GET /docs and GET /docs/backoffice), each showing one of the two documents.

/** A reference page: its title and the document it shows. */
export interface DocsPage {
  title: string;
  documentUrl: string;
}

export const BIDDER_DOCS: DocsPage = { title: 'Bidder API reference', documentUrl: '/openapi.json' };
export const BACK_OFFICE_DOCS: DocsPage = { title: 'Bidder API: back office reference', documentUrl: '/backoffice/openapi.json' };

/**
 * An interactive reference page (Swagger UI, served from the installed package; no CDN), with links between the
 * bidder API's page (/docs) and the back office's (/docs/backoffice).
 */
export function docsPage(page: DocsPage = BIDDER_DOCS): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${page.title}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <nav style="font-family: sans-serif; padding: 8px 20px">References: <a href="/docs">bidder API</a> · <a href="/docs/backoffice">back office</a></nav>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '${page.documentUrl}', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true, tryItOutEnabled: true });
  </script>
</body>
</html>`;
}
