import { z } from 'zod';
import { defineEvent, defineEvents, languageCode, tenantId, type EventsOf } from '../../src/events/define.ts';
import { parseMailbox } from '../../src/text/mailbox.ts';

/*
 * Access: the auction houses (tenants), their applications and the operator's Api-Keys, as catalogue intake
 * brings them (docs/intake.md). The access projection (projections/access) is what credentials are checked against.
 */

export const TenantConfigured = defineEvent({
  type: 'TenantConfigured',
  version: 1,
  stream: 'tenant-{tenant}',
  operator: true,
  description:
    'Catalogue intake: an auction house (tenant) was configured: its languages, currency, page size, public access and contact address; `country` (ISO 3166-1 alpha-2) and `vatRate` (percent) were added compatibly for VAT decisions and invoices; `increments` (`[{from, increment}]`, ascending from 0, minor units) and `extensionWindowSeconds` for timed bidding; `mailFrom` (`Name <address>`), the sender of its mail.',
  schema: z.object({
    tenant: tenantId,
    name: z.string().min(1).max(200),
    languages: z.array(languageCode).min(1).max(50),
    defaultLanguage: languageCode,
    currency: z.string().regex(/^[A-Z]{3}$/),
    pageSize: z.number().int().min(1).max(100),
    publicAccess: z.boolean(),
    contactEmail: z.email().max(320),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .optional(),
    vatRate: z.number().min(0).max(100).optional(),
    increments: z
      .array(z.object({ from: z.number().int().min(0).max(1_000_000_000), increment: z.number().int().min(1).max(1_000_000_000) }))
      .min(1)
      .max(100)
      .refine((rows) => rows[0].from === 0 && rows.every((row, i) => i === 0 || row.from > rows[i - 1].from), {
        message: 'increments start from 0 and ascend',
      })
      .optional(),
    extensionWindowSeconds: z.number().int().min(0).max(3600).optional(),
    mailFrom: z
      .string()
      .max(320)
      .refine((value) => parseMailbox(value) !== null, 'Name <address> or an address')
      .optional(),
  }),
});

export const ApplicationRegistered = defineEvent({
  type: 'ApplicationRegistered',
  version: 1,
  stream: 'application-{clientId}',
  private: ['secretHash'],
  operator: true,
  description:
    'Catalogue intake: an application of a tenant may obtain application tokens with its ClientId and secret (only a SHA-256 of the high-entropy secret is kept).',
  schema: z.object({
    tenant: tenantId,
    clientId: z.string().regex(/^[A-Za-z0-9._-]{3,100}$/),
    name: z.string().min(1).max(200),
    secretHash: z.string().min(1),
  }),
});

export const ApiKeyIssued = defineEvent({
  type: 'ApiKeyIssued',
  version: 1,
  stream: 'apikey-{keyId}',
  private: ['keyId', 'keyHash'],
  operator: true,
  description:
    'Catalogue intake (operator): an Api-Key was issued to a consumer, for the listed tenants. Only its SHA-256 is kept. Tenant is `_system`.',
  schema: z.object({
    tenant: z.literal('_system'),
    keyId: z.string().regex(/^[a-f0-9]{16}$/),
    keyHash: z.string().regex(/^[a-f0-9]{64}$/),
    name: z.string().min(1).max(200),
    tenants: z.array(tenantId).min(1),
  }),
});

/** A back-office key's id, as the operator names it within the tenant. */
export const backOfficeKeyId = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/);

export const BackOfficeKeyIssued = defineEvent({
  type: 'BackOfficeKeyIssued',
  version: 1,
  stream: 'backofficekey-{tenant}-{keyId}',
  private: ['keyHash'],
  operator: true,
  description:
    'Catalogue intake (operator): a back-office key of the tenant (`Authorization: Bearer <key>` on `/backoffice/v1`) was issued, or its value replaced. Only its SHA-256 is kept.',
  schema: z.object({
    tenant: tenantId,
    keyId: backOfficeKeyId,
    keyHash: z.string().regex(/^[a-f0-9]{64}$/),
    name: z.string().min(1).max(200),
  }),
});

export const BackOfficeKeyRevoked = defineEvent({
  type: 'BackOfficeKeyRevoked',
  version: 1,
  stream: 'backofficekey-{tenant}-{keyId}',
  private: ['keyHash'],
  operator: true,
  description: 'Catalogue intake (operator): a back-office key was revoked; it is refused (401) from then on.',
  schema: z.object({
    tenant: tenantId,
    keyId: backOfficeKeyId,
    /** The SHA-256 of the value revoked (what the key's read model is found by). */
    keyHash: z.string().regex(/^[a-f0-9]{64}$/),
  }),
});

export const accessEvents = defineEvents([
  TenantConfigured,
  ApplicationRegistered,
  ApiKeyIssued,
  BackOfficeKeyIssued,
  BackOfficeKeyRevoked,
]);

/** The streams of access records: one per tenant, application and Api-Key. */
export const tenantStreamId = (tenant: string) => `tenant-${tenant}`;
export const applicationStreamId = (clientId: string) => `application-${clientId}`;
export const apiKeyStreamId = (keyId: string) => `apikey-${keyId}`;
export const backOfficeKeyStreamId = (tenant: string, keyId: string) => `backofficekey-${tenant}-${keyId}`;

export type AccessEvent = EventsOf<typeof accessEvents>;
