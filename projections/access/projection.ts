import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { accessEvents } from '../../commands/access/events.ts';
import {
  ACCESS_PROJECTION,
  API_KEYS,
  APPLICATIONS,
  BACKOFFICE_KEYS,
  SYSTEM,
  TENANTS,
  type ApiKeyDoc,
  type ApplicationDoc,
  type BackOfficeKeyDoc,
  type TenantDoc,
} from './collections.ts';

/** Tenants, Api-Keys (by SHA-256) and applications: what credentials are checked against. */
export const accessProjection = defineDocumentProjection({
  name: ACCESS_PROJECTION,
  events: [accessEvents],
  handles: ['TenantConfigured', 'ApiKeyIssued', 'ApplicationRegistered', 'BackOfficeKeyIssued', 'BackOfficeKeyRevoked'],
  collections: [
    { name: TENANTS },
    { name: API_KEYS, privateIds: true },
    { name: APPLICATIONS, private: ['SecretHash'] },
    { name: BACKOFFICE_KEYS, private: ['KeyId'], privateIds: true },
  ],
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
          ...(d.mailFrom ? { MailFrom: d.mailFrom } : {}),
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
      case 'BackOfficeKeyIssued': {
        const d = event.data;
        await uow.update<BackOfficeKeyDoc>(BACKOFFICE_KEYS, SYSTEM, d.keyHash, () => ({ Tenant: d.tenant, KeyId: d.keyId, Name: d.name }));
        return;
      }
      case 'BackOfficeKeyRevoked': {
        await uow.update<BackOfficeKeyDoc>(BACKOFFICE_KEYS, SYSTEM, event.data.keyHash, () => null);
        return;
      }
    }
  },
});
