import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { problemSchema } from './schemas.ts';
import type { Operation } from './operation.ts';

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed or invalid input (problem+json with an `errors` array naming each bad field).',
  401: 'Missing, invalid or expired Api-Key or token, or a member operation without a member token.',
  403: 'The caller may not do this.',
  404: 'Absent, or not visible to the token\'s tenant.',
  409: 'Conflict.',
  413: 'Body too large.',
  415: 'Unsupported content type.',
  429: 'Rate limited; see Retry-After.',
};

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate the requests. */
export function buildOpenApiDocument(operations: Operation[]) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'Api-Key' });
  registry.registerComponent('securitySchemes', 'Bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.register('Problem', problemSchema);

  for (const op of [...operations].sort((a, b) => a.number - b.number)) {
    const statuses = new Set<number>([401, ...(op.errors ?? [])]);
    if (op.params || op.query || op.body) statuses.add(400);
    if (op.body) statuses.add(413).add(415);
    const responses: Record<string, object> = {
      200: { description: 'Success.', content: { 'application/json': { schema: op.response } } },
    };
    for (const status of [...statuses].sort()) {
      responses[status] = {
        description: STATUS_TEXT[status] ?? 'Error.',
        content: { 'application/problem+json': { schema: problemSchema } },
      };
    }
    registry.registerPath({
      method: op.method,
      path: op.path,
      operationId: op.operationId,
      tags: [op.group],
      summary: op.summary,
      description: [
        op.description,
        `Operation ${op.number} of API.md. Credentials: ${
          op.auth === 'open' ? 'Api-Key only' : op.auth === 'anon' ? 'Api-Key and any token of the tenant' : 'Api-Key and a member token'
        }.${op.query ? ' Query parameter names are case-insensitive.' : ''}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
      security: op.auth === 'open' ? [{ ApiKey: [] }] : [{ ApiKey: [], Bearer: [] }],
      request: {
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(op.body
          ? { body: { required: !op.bodyOptional, content: { 'application/json': { schema: op.body } } } }
          : {}),
      },
      responses,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Bidder API',
      version: '1.0.0',
      description:
        'The bidder-facing auction API. Every /v1 route needs the `Api-Key` header; tokens go in `Authorization: Bearer`. ' +
        'JSON bodies use PascalCase names; errors are application/problem+json; money is in minor units beside a Currency.',
    },
    servers: [{ url: '/' }],
  });
}

/** An interactive reference page (Swagger UI, served from the installed package; no CDN). */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Bidder API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true, tryItOutEnabled: true });
  </script>
</body>
</html>`;
}
