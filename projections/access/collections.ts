import type { TenantScope } from '../../src/ports/read-models.ts';
import { API_KEYS, APPLICATIONS, SYSTEM, TENANTS, type ApiKeyDoc, type ApplicationDoc, type TenantDoc } from './projection.ts';

/**
 * Typed accessors of the access projection's collections (operator-level, under SYSTEM): the names are the
 * projection's own (projection.ts), each given its document type once, here.
 */

/** The operator's read models: tenants, Api-Keys and applications live under the reserved tenant SYSTEM. */
export const operatorScope = (documents: { forTenant(tenant: string): TenantScope }) => documents.forTenant(SYSTEM);

export const tenantsCollection = (system: TenantScope) => system.collection<TenantDoc>(TENANTS);
/** Api-Keys by the SHA-256 (hex) of their value. */
export const apiKeys = (system: TenantScope) => system.collection<ApiKeyDoc>(API_KEYS);
/** Registered applications by ClientId. */
export const applications = (system: TenantScope) => system.collection<ApplicationDoc>(APPLICATIONS);
