// The token answer shape: its schema and the OpenAPI example. Used by the credentials and sessions queries.
import { z } from '../../src/http/schemas.ts';

export const tokenSchema = z
  .object({
    Token: z
      .string()
      .max(4096)
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      .openapi({ description: 'A JWT, for `Authorization: Bearer <Token>`. Treat it as opaque.' }),
    ExpiresAt: z.string().max(30).openapi({ format: 'date-time', description: 'When the token stops working.' }),
  })
  .openapi('TokenResponse');

export const tokenExample = {
  Token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZW5hbnQiOiJkZW1vIiwia2luZCI6ImFub255bW91cyJ9.c2lnbmF0dXJlLW9mLXRoZS1zZXJ2aWNl',
  ExpiresAt: '2026-11-22T18:00:00.000Z',
};
