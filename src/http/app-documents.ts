// What buildApp (app.ts) serves beside the operations: the two OpenAPI documents, the reference pages and their
// assets, and the pages app/ composes (the reference front end at /demo).
import express, { type Express, type RequestHandler, type Response } from 'express';
import compression from 'compression';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Operation } from './operation.ts';
import { BACK_OFFICE_DOCS, buildBackOfficeOpenApiDocument, buildOpenApiDocument, docsPage } from './openapi/index.ts';
import { weakEtag } from './response-cache.ts';
import { sendBody, type EncodedCopies } from './send.ts';

/** Serves the documents, the reference pages and the pages beside the API. */
export function serveDocuments(app: Express, operations: Operation[], pages: Array<{ path: string; handler: RequestHandler }>): void {
  /** A fixed answer (a document, a page): its ETag and compressed copies made once. */
  const serveFixed = (route: string, text: string, contentType?: string, headers: Record<string, string> = {}) => {
    const body = Buffer.from(text, 'utf8');
    const answer: EncodedCopies & { body: Buffer; etag: string } = { body, etag: weakEtag(body) };
    app.get(route, (req, res) => {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      sendBody(req, res, answer.body, answer.etag, { entry: answer }, contentType);
    });
  };
  // The bidder API's document, and the back office's: each has only its own operations.
  const isBackOffice = (op: Operation) => op.route.auth === 'backoffice';
  serveFixed('/openapi.json', JSON.stringify(buildOpenApiDocument(operations.filter((op) => !isBackOffice(op)))));
  serveFixed('/backoffice/openapi.json', JSON.stringify(buildBackOfficeOpenApiDocument(operations.filter(isBackOffice))));
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const nosniff = (res: Response) => res.setHeader('X-Content-Type-Options', 'nosniff');
  app.use(
    '/docs/assets',
    compression({ threshold: 1024 }),
    express.static(swaggerDir, { index: false, maxAge: '1h', setHeaders: nosniff }),
  );
  // The reference pages, where callers type credentials: a CSP of their own, never framed, nothing kept (docs-page.ts).
  for (const [route, page] of [
    ['/docs', docsPage()],
    ['/docs/backoffice', docsPage(BACK_OFFICE_DOCS)],
  ] as const)
    serveFixed(route, page.html, 'text/html; charset=utf-8', page.headers);
  for (const page of pages) app.use(page.path, compression({ threshold: 1024 }), page.handler);
}
