import { z } from 'zod';
import { runCommand } from '../../src/command-runner.ts';
import { tenantId } from '../../src/events/define.ts';
import { defineIntakeKind, operatorKinds, type IntakeKind } from '../../src/intake-kind.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { accessRecordDecider, backOfficeKeyDecider, type ApiKeyData, type ApplicationData, type TenantData } from './decide.ts';
import {
  ApplicationRegistered,
  TenantConfigured,
  apiKeyStreamId,
  applicationStreamId,
  backOfficeKeyId,
  backOfficeKeyStreamId,
  tenantStreamId,
} from './events.ts';

/** Catalogue intake records of access (docs/intake.md): tenants, applications (with their secret) and Api-Keys. */
export const tenantRecord = z.object({ kind: z.literal('tenant') }).extend(TenantConfigured.schema.shape);
export const applicationRecord = z
  .object({ kind: z.literal('application'), clientSecret: z.string().min(16).max(200) })
  .extend(ApplicationRegistered.schema.omit({ secretHash: true }).shape);
export const apiKeyRecord = z.object({
  kind: z.literal('apiKey'),
  key: z.string().min(16).max(200),
  name: z.string().min(1).max(200),
  tenants: z.array(tenantId).min(1),
});
/** A back-office key's value: sent as `Authorization: Bearer <key>`, so of the characters a bearer credential may hold. */
export const backOfficeKeyValue = z.string().regex(/^[A-Za-z0-9._~+/=-]{24,200}$/, 'a key is 24 to 200 letters, digits or ._~+/=-');
export const backOfficeKeyRecord = z.object({
  kind: z.literal('backOfficeKey'),
  tenant: tenantId,
  keyId: backOfficeKeyId,
  name: z.string().min(1).max(200),
  key: backOfficeKeyValue,
});
export const backOfficeKeyRevokedRecord = z.object({ kind: z.literal('backOfficeKeyRevoked'), tenant: tenantId, keyId: backOfficeKeyId });
export type AccessRecord =
  | z.infer<typeof tenantRecord>
  | z.infer<typeof applicationRecord>
  | z.infer<typeof apiKeyRecord>
  | z.infer<typeof backOfficeKeyRecord>
  | z.infer<typeof backOfficeKeyRevokedRecord>;

/** Every access kind is the operator's: a house's back office cannot send them (BACKOFFICE.md "Intake over HTTP"). */
export const accessIntake: IntakeKind[] = operatorKinds([
  defineIntakeKind('tenant', tenantRecord, (deps, { kind: _k, ...data }) =>
    runCommand(deps.log, tenantStreamId(data.tenant), accessRecordDecider<TenantData>('TenantConfigured'), data, {
      correlationId: deps.correlationId,
    }),
  ),
  defineIntakeKind('application', applicationRecord, (deps, { kind: _k, clientSecret, ...rest }) => {
    const data: ApplicationData = { ...rest, secretHash: sha256(clientSecret) };
    return runCommand(deps.log, applicationStreamId(data.clientId), accessRecordDecider<ApplicationData>('ApplicationRegistered'), data, {
      correlationId: deps.correlationId,
    });
  }),
  defineIntakeKind('apiKey', apiKeyRecord, (deps, record) => {
    const keyHash = sha256(record.key);
    const data: ApiKeyData = { tenant: '_system', keyId: keyHash.slice(0, 16), keyHash, name: record.name, tenants: record.tenants };
    return runCommand(deps.log, apiKeyStreamId(data.keyId), accessRecordDecider<ApiKeyData>('ApiKeyIssued'), data, {
      correlationId: deps.correlationId,
    });
  }),
  defineIntakeKind('backOfficeKey', backOfficeKeyRecord, (deps, { tenant, keyId, name, key }) =>
    runCommand(
      deps.log,
      backOfficeKeyStreamId(tenant, keyId),
      backOfficeKeyDecider,
      { type: 'issue', tenant, keyId, keyHash: sha256(key), name },
      { correlationId: deps.correlationId },
    ),
  ),
  defineIntakeKind('backOfficeKeyRevoked', backOfficeKeyRevokedRecord, (deps, { tenant, keyId }) =>
    runCommand(
      deps.log,
      backOfficeKeyStreamId(tenant, keyId),
      backOfficeKeyDecider,
      { type: 'revoke', tenant, keyId },
      {
        correlationId: deps.correlationId,
      },
    ),
  ),
]);
