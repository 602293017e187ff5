// Secret values printed in this service's own files (README.md, docs/, the compose files), now or in earlier
// versions: anyone can read them, so the service takes none of them as a secret (src/config.ts `secret`).
// test/security/published-secrets.test.ts finds every example value of a secret in those files and checks it is here.

export const PUBLISHED_SECRETS: readonly string[] = [
  // JWT_SECRET's default in docker-compose.yml and docker-compose.postgres.yml before they required it.
  'change-me-to-a-long-random-secret',
  // POSTGRES_PASSWORD's default in docker-compose.postgres.yml before it was required.
  'change-me',
  // TYPESENSE_API_KEY's and TYPESENSE_SEARCH_API_KEY's defaults in docker-compose.yml before they were required.
  'dev-typesense-key',
  'dev-typesense-search-key',
  // The password of README's example POSTGRES_URL (postgres://bidder:secret@…).
  'secret',
];

/** Whether `value` is one of the published examples (spaces around it ignored). */
export function isPublishedSecret(value: string): boolean {
  return PUBLISHED_SECRETS.includes(value.trim());
}
