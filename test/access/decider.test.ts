/**
 * The access deciders: a tenant, an application and an Api-Key are whole records that catalogue intake sends
 * again and again (the same record appends nothing); a back-office key is issued, replaced and revoked.
 */
import {
  accessRecordDecider,
  backOfficeKeyDecider,
  type ApiKeyData,
  type ApplicationData,
  type BackOfficeKeyCommand,
  type TenantData,
} from '../../commands/access/decide.ts';
import type { AccessEvent } from '../../commands/access/events.ts';
import { spec } from '../support/decider.ts';

const hash = (c: string) => c.repeat(64);

describe('access record decider', () => {
  describe('a tenant', () => {
    const decider = accessRecordDecider<TenantData>('TenantConfigured');
    const tenant: TenantData = {
      tenant: 'demo',
      name: 'Demo Auctions',
      languages: ['en', 'nl'],
      defaultLanguage: 'en',
      currency: 'EUR',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'info@demo.example',
    };
    const configured = (data: TenantData): AccessEvent => ({ type: 'TenantConfigured', data });

    it('configures a tenant that has no record yet', () => {
      spec(decider)
        .given([])
        .when(tenant)
        .then([configured(tenant)]);
    });

    it('appends nothing when the same record is sent again', () => {
      spec(decider)
        .given([configured(tenant)])
        .when({ ...tenant, languages: ['en', 'nl'] })
        .thenNothingHappened();
    });

    it('replaces the record when a field changed, or a field was added', () => {
      spec(decider)
        .given([configured(tenant)])
        .when({ ...tenant, pageSize: 50 })
        .then([configured({ ...tenant, pageSize: 50 })]);
      spec(decider)
        .given([configured(tenant)])
        .when({ ...tenant, country: 'NL', vatRate: 21 })
        .then([configured({ ...tenant, country: 'NL', vatRate: 21 })]);
    });

    it('compares with the latest record only: an earlier record sent again replaces the latest', () => {
      spec(decider)
        .given([configured(tenant), configured({ ...tenant, pageSize: 50 })])
        .when(tenant)
        .then([configured(tenant)]);
      spec(decider)
        .given([configured(tenant), configured({ ...tenant, pageSize: 50 })])
        .when({ ...tenant, pageSize: 50 })
        .thenNothingHappened();
    });

    it('compares records as written, field order included: the same fields in another order append the record again', () => {
      const { contactEmail, ...rest } = tenant;
      const reordered: TenantData = { contactEmail, ...rest };
      spec(decider)
        .given([configured(tenant)])
        .when(reordered)
        .then([configured(reordered)]);
    });

    it("takes only the stream's own kind of record as its record", () => {
      spec(decider)
        .given([{ type: 'ApplicationRegistered', data: { tenant: 'demo', clientId: 'erp.client', name: 'ERP', secretHash: hash('e') } }])
        .when(tenant)
        .then([configured(tenant)]);
    });
  });

  describe('an application', () => {
    const decider = accessRecordDecider<ApplicationData>('ApplicationRegistered');
    const application: ApplicationData = { tenant: 'demo', clientId: 'erp.client', name: 'ERP', secretHash: hash('e') };
    const registered = (data: ApplicationData): AccessEvent => ({ type: 'ApplicationRegistered', data });

    it('registers an application that has no record yet', () => {
      spec(decider)
        .given([])
        .when(application)
        .then([registered(application)]);
    });

    it('appends nothing when the same application is sent again', () => {
      spec(decider)
        .given([registered(application)])
        .when({ ...application })
        .thenNothingHappened();
    });

    it('replaces the record when the secret or the name changed', () => {
      spec(decider)
        .given([registered(application)])
        .when({ ...application, secretHash: hash('f') })
        .then([registered({ ...application, secretHash: hash('f') })]);
      spec(decider)
        .given([registered(application)])
        .when({ ...application, name: 'ERP (new)' })
        .then([registered({ ...application, name: 'ERP (new)' })]);
    });
  });

  describe('an Api-Key', () => {
    const decider = accessRecordDecider<ApiKeyData>('ApiKeyIssued');
    const apiKey: ApiKeyData = { tenant: '_system', keyId: 'a'.repeat(16), keyHash: hash('a'), name: 'Web shop', tenants: ['demo'] };
    const issued = (data: ApiKeyData): AccessEvent => ({ type: 'ApiKeyIssued', data });

    it('issues an Api-Key that has no record yet', () => {
      spec(decider)
        .given([])
        .when(apiKey)
        .then([issued(apiKey)]);
    });

    it('appends nothing when the same Api-Key is sent again', () => {
      spec(decider)
        .given([issued(apiKey)])
        .when({ ...apiKey, tenants: ['demo'] })
        .thenNothingHappened();
    });

    it('replaces the record when its name or its tenants changed (tenants compared in their order)', () => {
      spec(decider)
        .given([issued(apiKey)])
        .when({ ...apiKey, tenants: ['demo', 'demo2'] })
        .then([issued({ ...apiKey, tenants: ['demo', 'demo2'] })]);
      spec(decider)
        .given([issued({ ...apiKey, tenants: ['demo', 'demo2'] })])
        .when({ ...apiKey, tenants: ['demo2', 'demo'] })
        .then([issued({ ...apiKey, tenants: ['demo2', 'demo'] })]);
      spec(decider)
        .given([issued(apiKey)])
        .when({ ...apiKey, name: 'Mobile app' })
        .then([issued({ ...apiKey, name: 'Mobile app' })]);
    });
  });
});

describe('back-office key decider', () => {
  const key = { tenant: 'demo', keyId: 'erp-sync', keyHash: hash('1'), name: 'ERP sync' };
  const issue = (overrides: Partial<typeof key> = {}): BackOfficeKeyCommand => ({ type: 'issue', ...key, ...overrides });
  const revoke: BackOfficeKeyCommand = { type: 'revoke', tenant: 'demo', keyId: 'erp-sync' };
  const issued = (overrides: Partial<typeof key> = {}): AccessEvent => ({ type: 'BackOfficeKeyIssued', data: { ...key, ...overrides } });
  const revoked = (keyHash = key.keyHash): AccessEvent => ({
    type: 'BackOfficeKeyRevoked',
    data: { tenant: 'demo', keyId: 'erp-sync', keyHash },
  });

  describe('issue', () => {
    it('issues a key that has no record yet', () => {
      spec(backOfficeKeyDecider).given([]).when(issue()).then([issued()]);
    });

    it('appends nothing when the same value and name are issued again', () => {
      spec(backOfficeKeyDecider).given([issued()]).when(issue()).thenNothingHappened();
    });

    it('replaces the value of an issued key (the old value stops working)', () => {
      spec(backOfficeKeyDecider)
        .given([issued()])
        .when(issue({ keyHash: hash('2') }))
        .then([issued({ keyHash: hash('2') })]);
    });

    it('issues the key again when only its name changed', () => {
      spec(backOfficeKeyDecider)
        .given([issued()])
        .when(issue({ name: 'ERP nightly sync' }))
        .then([issued({ name: 'ERP nightly sync' })]);
    });

    it('issues a revoked key again, with the same value too', () => {
      spec(backOfficeKeyDecider).given([issued(), revoked()]).when(issue()).then([issued()]);
      spec(backOfficeKeyDecider)
        .given([issued(), revoked()])
        .when(issue({ keyHash: hash('2') }))
        .then([issued({ keyHash: hash('2') })]);
    });
  });

  describe('revoke', () => {
    it('revokes an issued key, naming the value it revokes', () => {
      spec(backOfficeKeyDecider).given([issued()]).when(revoke).then([revoked()]);
    });

    it('revokes the value the key holds now after it was replaced', () => {
      spec(backOfficeKeyDecider)
        .given([issued(), issued({ keyHash: hash('2') })])
        .when(revoke)
        .then([revoked(hash('2'))]);
    });

    it('appends nothing for a key that was never issued', () => {
      spec(backOfficeKeyDecider).given([]).when(revoke).thenNothingHappened();
    });

    it('appends nothing for a key that is revoked already', () => {
      spec(backOfficeKeyDecider).given([issued(), revoked()]).when(revoke).thenNothingHappened();
    });

    it('revokes a key that was issued again after its revocation', () => {
      spec(backOfficeKeyDecider)
        .given([issued(), revoked(), issued({ keyHash: hash('2') })])
        .when(revoke)
        .then([revoked(hash('2'))]);
    });
  });
});
