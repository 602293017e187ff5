import { z } from '../../src/http/schemas.ts';

/** HTTP shapes the identity documents' command and query operations share. */

export const identityDocumentIdSchema = z
  .string()
  .max(36)
  .openapi({ format: 'uuid', description: "The document's id (a uuid).", example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' });
