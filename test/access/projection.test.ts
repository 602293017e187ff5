import { accessReadModels } from '../../projections/access/index.ts';
import type { AccessEvent } from '../../commands/access/events.ts';
import { givenEvents } from '../support/projection-spec.ts';

/** The access projection keeps every tenant's settings under the operator's tenant: it is not tenant-scoped. */
const OPERATOR = { tenantScoped: false };

const configured = (tenant: string, data: Partial<Extract<AccessEvent, { type: 'TenantConfigured' }>['data']> = {}): AccessEvent => ({
  type: 'TenantConfigured',
  data: {
    tenant,
    name: 'Demo Auctions',
    languages: ['en', 'nl'],
    defaultLanguage: 'en',
    currency: 'EUR',
    pageSize: 20,
    publicAccess: true,
    contactEmail: 'info@demo.example',
    ...data,
  },
});
const tenantDoc = (tenant: string, fields: Record<string, unknown> = {}) => ({
  _id: tenant,
  Tenant: tenant,
  Name: 'Demo Auctions',
  Languages: ['en', 'nl'],
  DefaultLanguage: 'en',
  Currency: 'EUR',
  PageSize: 20,
  PublicAccess: true,
  ContactEmail: 'info@demo.example',
  Country: null,
  VatRate: null,
  ...fields,
});
const KEY_HASH = 'c0ffee'.repeat(10) + 'c0ff';

describe('access projection', () => {
  it("keeps each tenant's settings under the operator's tenant, without a country or VAT rate until they are configured", async () => {
    await givenEvents(configured('demo'), configured('demo2', { name: 'Demo Two', currency: 'SEK', country: 'SE', vatRate: 25 }))
      .whenProjected(accessReadModels, OPERATOR)
      .thenDocuments('tenants', '_system', [
        tenantDoc('demo'),
        tenantDoc('demo2', { Name: 'Demo Two', Currency: 'SEK', Country: 'SE', VatRate: 25 }),
      ]);
  });

  it("replaces a tenant's settings when it is configured again", async () => {
    await givenEvents(
      configured('demo'),
      configured('demo', { languages: ['de'], defaultLanguage: 'de', pageSize: 50, publicAccess: false }),
    )
      .whenProjected(accessReadModels, OPERATOR)
      .thenDocuments('tenants', '_system', [
        tenantDoc('demo', { Languages: ['de'], DefaultLanguage: 'de', PageSize: 50, PublicAccess: false }),
      ]);
  });

  it('keeps an Api-Key by its SHA-256 with the tenants it serves, and an application by its ClientId', async () => {
    await givenEvents<AccessEvent>(
      {
        type: 'ApiKeyIssued',
        data: { tenant: '_system', keyId: '0123456789abcdef', keyHash: KEY_HASH, name: 'Front end', tenants: ['demo', 'demo2'] },
      },
      {
        type: 'ApplicationRegistered',
        data: { tenant: 'demo', clientId: 'demo-web', name: 'Demo web shop', secretHash: 'sha256-of-the-secret' },
      },
    )
      .whenProjected(accessReadModels, OPERATOR)
      .thenDocuments('api_keys', '_system', [{ _id: KEY_HASH, KeyId: '0123456789abcdef', Name: 'Front end', Tenants: ['demo', 'demo2'] }])
      .thenDocuments('applications', '_system', [
        { _id: 'demo-web', ClientId: 'demo-web', Tenant: 'demo', Name: 'Demo web shop', SecretHash: 'sha256-of-the-secret' },
      ]);
  });
});
