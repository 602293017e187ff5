import type { Doc, DocumentStore, TenantScope } from '../../src/ports/read-models.ts';

/** The access projection's name (its checkpoint), for waits on it. */
export const ACCESS_PROJECTION = 'access';

/** The access projection's collections, their documents and typed accessors. Operator-level documents live under the reserved tenant `_system`. */
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
  /** The house's own sender of mail (`Name <address>`), when intake gave one; else MAIL_FROM's address under its name. */
  MailFrom?: string | null;
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

/** A back-office key of a tenant, by the SHA-256 (hex) of its value (a revoked one is deleted). */
export interface BackOfficeKeyDoc extends Doc {
  Tenant: string;
  KeyId: string;
  Name: string;
}

export const TENANTS = 'tenants';
export const BACKOFFICE_KEYS = 'backoffice_keys';
export const API_KEYS = 'api_keys';
export const APPLICATIONS = 'applications';
/** A tenant's settings (its languages, contact address, country...), as jobs and the credential checks read them. */
export const tenantSettings = (documents: DocumentStore, tenant: string) =>
  documents.forTenant(SYSTEM).collection<TenantDoc>(TENANTS).findById(tenant);

/** Who a house's mail is from: its name, and its own `Name <address>` when it has one (src/ports/outbox.ts). */
export const senderOf = (house: TenantDoc | null, tenant: string) => ({ name: house?.Name ?? tenant, mailFrom: house?.MailFrom ?? null });

/** The operator's read models: tenants, Api-Keys and applications live under the reserved tenant SYSTEM. */
export const operatorScope = (documents: { forTenant(tenant: string): TenantScope }) => documents.forTenant(SYSTEM);

export const tenantsCollection = (system: TenantScope) => system.collection<TenantDoc>(TENANTS);
/** Api-Keys by the SHA-256 (hex) of their value. */
export const apiKeys = (system: TenantScope) => system.collection<ApiKeyDoc>(API_KEYS);
/** Back-office keys by the SHA-256 (hex) of their value. */
export const backOfficeKeys = (system: TenantScope) => system.collection<BackOfficeKeyDoc>(BACKOFFICE_KEYS);
/** Registered applications by ClientId. */
export const applications = (system: TenantScope) => system.collection<ApplicationDoc>(APPLICATIONS);
