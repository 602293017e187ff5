import { service } from './index.ts';

/**
 * Every HTTP operation, feature by feature (app/features/index.ts). Order matters only where paths overlap:
 * /v1/lots/search before /v1/lots/{id}.
 */
export const operations = service.operations;
