import fs from 'node:fs';
import { buildOpenApiDocument } from '../../src/http/openapi/index.ts';
import { operations } from '../features/operations.ts';
import { renderClientSchema, SCHEMA_FILE } from '../../clients/typescript/scripts/render-schema.ts';

/** `npm run client:generate`: writes the typed client's schema from the bidder API's OpenAPI document (GET /openapi.json). */
const text = await renderClientSchema(buildOpenApiDocument(operations));
fs.writeFileSync(new URL(`../../${SCHEMA_FILE}`, import.meta.url), text);
process.stdout.write(`${SCHEMA_FILE} written\n`);
