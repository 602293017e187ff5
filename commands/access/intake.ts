import { z } from 'zod';
import { runCommand } from '../../src/command-runner.ts';
import { tenantId } from '../../src/events/define.ts';
import { defineIntakeKind, type IntakeKind } from '../../src/intake-kind.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { accessRecordDecider, type ApiKeyData, type ApplicationData, type TenantData } from './decide.ts';
import { ApplicationRegistered, TenantConfigured, apiKeyStreamId, applicationStreamId, tenantStreamId } from './events.ts';

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
export type AccessRecord = z.infer<typeof tenantRecord> | z.infer<typeof applicationRecord> | z.infer<typeof apiKeyRecord>;

export const accessIntake: IntakeKind[] = [
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
];
