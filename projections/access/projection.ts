import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import type { Doc, DocumentStore } from '../../src/ports/read-models.ts';

/** Operator-level documents live under the reserved tenant `_system`. */
export const SYSTEM = '_system';

export interface TenantDoc extends Doc {
  Tenant: string;
  Name: string;
  Languages: string[];
  DefaultLanguage: string;
  Currency: string;
  PageSize: number;
  PublicAccess: boolean;
  ContactEmail: string;
  /** ISO 3166-1 alpha-2 of the house's country (its VAT country), when configured. */
  Country: string | null;
  /** The VAT rate of the house's sales, in percent, when configured. */
  VatRate: number | null;
}

export interface ApiKeyDoc extends Doc {
  KeyId: string;
  Name: string;
  Tenants: string[];
}

export interface ApplicationDoc extends Doc {
  ClientId: string;
  Tenant: string;
  Name: string;
  SecretHash: string;
}

export const TENANTS = 'tenants';
export const API_KEYS = 'api_keys';
export const APPLICATIONS = 'applications';
/** A tenant's settings (its languages, contact address, country...), as jobs and the credential checks read them. */
export const tenantSettings = (documents: DocumentStore, tenant: string) => documents.forTenant(SYSTEM).collection<TenantDoc>(TENANTS).findById(tenant);

/** Tenants, Api-Keys (by SHA-256) and applications: what credentials are checked against. */
export const accessProjection = defineDocumentProjection({
  name: 'access',
  events: [catalogueEvents],
  handles: ['TenantConfigured', 'ApiKeyIssued', 'ApplicationRegistered'],
  collections: [{ name: TENANTS }, { name: API_KEYS }, { name: APPLICATIONS }],
  async apply(event, uow) {
    switch (event.type) {
      case 'TenantConfigured': {
        const d = event.data;
        await uow.update<TenantDoc>(TENANTS, SYSTEM, d.tenant, () => ({
          Tenant: d.tenant,
          Name: d.name,
          Languages: d.languages,
          DefaultLanguage: d.defaultLanguage,
          Currency: d.currency,
          PageSize: d.pageSize,
          PublicAccess: d.publicAccess,
          ContactEmail: d.contactEmail,
          Country: d.country ?? null,
          VatRate: d.vatRate ?? null,
        }));
        return;
      }
      case 'ApiKeyIssued': {
        const d = event.data;
        await uow.update<ApiKeyDoc>(API_KEYS, SYSTEM, d.keyHash, () => ({ KeyId: d.keyId, Name: d.name, Tenants: d.tenants }));
        return;
      }
      case 'ApplicationRegistered': {
        const d = event.data;
        await uow.update<ApplicationDoc>(APPLICATIONS, SYSTEM, d.clientId, () => ({
          ClientId: d.clientId,
          Tenant: d.tenant,
          Name: d.name,
          SecretHash: d.secretHash,
        }));
        return;
      }
    }
  },
});
