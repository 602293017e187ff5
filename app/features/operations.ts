import { service } from './index.ts';

/**
 * Every HTTP operation, feature by feature (app/features/index.ts). Order matters only where paths overlap:
 * /v1/lots/search before /v1/lots/{id}.
 */
export const operations = service.operations.filter((op) => op.route.auth !== 'backoffice');

/** The back office's operations (`/backoffice/v1`, BACKOFFICE.md): routed by the same shell, not in /openapi.json. */
export const backOfficeOperations = service.operations.filter((op) => op.route.auth === 'backoffice');
