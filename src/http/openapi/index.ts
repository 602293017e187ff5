// The OpenAPI 3.1 documents (GET /openapi.json: the bidder API; GET /backoffice/openapi.json: the back office's)
// and the Swagger UI pages, made from the operations' own declarations (routes, zod schemas, docs), so the
// reference cannot drift from what the service validates and answers. One generator makes both: a document's
// kind (DocumentKind) gives what differs (info, credentials, wording), the operations' kinds the rest.
export { buildBackOfficeOpenApiDocument, buildOpenApiDocument, checkGroups } from './document.ts';
export { BACK_OFFICE_DOCS, BIDDER_DOCS, docsPage, type DocsPage } from './docs-page.ts';
