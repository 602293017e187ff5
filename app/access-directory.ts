// The AccessDirectory of the HTTP shell (src/http/access-directory.ts) over the access and members read models: an
// adapter that joins a port of the core to two features' read models, so it lives with the wiring (app/), not in a feature.
import type { DocumentStore } from '../src/ports/read-models.ts';
import type { EventLog } from '../src/ports/event-log.ts';
import { apiKeyStreamId, backOfficeKeyStreamId, tenantStreamId } from '../commands/access/events.ts';
import { memberStreamId } from '../commands/members/events.ts';
import type { AccessDirectory } from '../src/http/access-directory.ts';
import {
  ACCESS_PROJECTION,
  apiKeys,
  applications,
  backOfficeKeys,
  operatorScope,
  tenantsCollection,
  type TenantDoc,
} from '../projections/access/index.ts';
import { MEMBERS_PROJECTION, memberAccounts, type MemberDoc } from '../projections/members/index.ts';

/**
 * The HTTP shell's AccessDirectory over the read models: Api-Keys, tenants and applications from the access
 * projection, members from the members projection. Passed to buildApp by the composition root, with the
 * projections' versions, so that a record is read again once it may have changed, and only then.
 */
export function accessDirectory(
  documents: DocumentStore,
  /** Where the access and members projections stand (cache versions), when the composition root can tell. */
  versions: { access?: () => string | null; members?: () => string | null } = {},
  /**
   * The log, for the direct check of a back-office key: its stream's last event must still issue this value, so
   * that a key revoked (or replaced) is refused as soon as its intake record returns, before the projection.
   */
  log?: Pick<EventLog, 'readStream'>,
): AccessDirectory {
  const system = operatorScope(documents);
  return {
    ...(versions.access ? { accessVersion: versions.access } : {}),
    ...(versions.members ? { membersVersion: versions.members } : {}),
    async apiKey(hash) {
      const doc = await apiKeys(system).findById(hash);
      return doc ? { keyId: doc.KeyId, tenants: doc.Tenants } : null;
    },
    async backOfficeKey(hash) {
      const doc = await backOfficeKeys(system).findById(hash);
      if (!doc) return null;
      if (log) {
        const streamId = backOfficeKeyStreamId(doc.Tenant, doc.KeyId);
        const stream = await log.readStream(streamId);
        const last = stream.at(-1);
        if (!last || last.type !== 'BackOfficeKeyIssued' || last.data.keyHash !== hash) return null;
        // Nothing after the issue this check read: the key holds (an index seek that finds no row).
        const unchanged = async () => (await log.readStream(streamId, { fromRevision: last.revision + 1 })).length === 0;
        return { tenant: doc.Tenant, keyId: doc.KeyId, unchanged };
      }
      return { tenant: doc.Tenant, keyId: doc.KeyId };
    },
    tenant: (id) => tenantsCollection(system).findById(id),
    member: (tenant, memberId) => memberAccounts(documents.forTenant(tenant)).findById(memberId),
    application: (clientId) => applications(system).findById(clientId),
    credentialSources: ({ keyId, tenant, memberId }) => ({
      streams: [apiKeyStreamId(keyId), tenantStreamId(tenant), ...(memberId === null ? [] : [memberStreamId(tenant, Number(memberId))])],
      types: REVOKING_TYPES,
    }),
  };
}

/**
 * The events that change what a caller is checked against, with the read model each is checked in: an Api-Key issued
 * again (for other tenants) and a house's settings (its public access) in the access projection's, a member's
 * password reset (its sessions ended) and removal in the members projection's.
 */
const REVOKING_TYPES: Record<string, string[]> = {
  ApiKeyIssued: [ACCESS_PROJECTION],
  TenantConfigured: [ACCESS_PROJECTION],
  MemberPasswordChanged: [MEMBERS_PROJECTION],
  MemberRemoved: [MEMBERS_PROJECTION],
};

/*
 * Handlers see the whole tenant and member documents this directory returns (`ctx.tenant.Currency`,
 * `ctx.member.Email`): the shell's records, which name only what the shell reads, are widened to them here.
 */
declare module '../src/http/access-directory.ts' {
  interface Tenant extends TenantDoc {}
  interface Member extends MemberDoc {}
}
