import { z } from 'zod';
import type { EventLog } from '../../src/ports/event-log.ts';
import { runCommand } from '../../src/command-runner.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { memberDecider } from '../members/decide.ts';
import { importMember, memberRecord } from '../members/intake.ts';
import { memberStreamId } from '../members/events.ts';
import {
  ApplicationRegistered,
  AuctionCatalogued,
  BidPlaced,
  CategoryCatalogued,
  LotCatalogued,
  TenantConfigured,
  apiKeyStreamId,
  applicationStreamId,
  auctionStreamId,
  categoryStreamId,
  lotStreamId,
  tenantStreamId,
} from './events.ts';
import { auctionDecider, lotDecider, recordDecider, type ApiKeyData, type ApplicationData, type CategoryData, type TenantData } from './decide.ts';
import { isoDateTime, positiveId, tenantId } from '../../src/events/define.ts';
import type { FileStore } from '../../src/ports/files.ts';
import {
  auctionDocumentRecord,
  auctionDocumentRemovedRecord,
  conditionReportRecord,
  importDocumentRecord,
} from '../documents/intake.ts';
import { InterfaceTranslationsPublished, translationsStreamId } from '../translations/events.ts';
import { translationsDecider } from '../translations/decide.ts';

/**
 * Catalogue intake: the system-to-system interface the seed says is not /v1. One NDJSON record per line,
 * each with a `kind`; every record becomes a command on its stream, so the import appends events and
 * nothing else. Re-importing a record that did not change appends nothing. See docs/intake.md.
 */

export const intakeRecord = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tenant') }).extend(TenantConfigured.schema.shape),
  z.object({ kind: z.literal('application'), clientSecret: z.string().min(16).max(200) }).extend(
    ApplicationRegistered.schema.omit({ secretHash: true }).shape,
  ),
  z.object({
    kind: z.literal('apiKey'),
    key: z.string().min(16).max(200),
    name: z.string().min(1).max(200),
    tenants: z.array(tenantId).min(1),
  }),
  z.object({ kind: z.literal('auction') }).extend(AuctionCatalogued.schema.shape),
  z.object({ kind: z.literal('category') }).extend(CategoryCatalogued.schema.shape),
  z.object({ kind: z.literal('lot') }).extend(LotCatalogued.schema.shape),
  z.object({ kind: z.literal('bid') }).extend(BidPlaced.schema.shape),
  z.object({ kind: z.literal('lotClosed'), tenant: tenantId, lotId: positiveId, closedAt: isoDateTime }),
  z.object({
    kind: z.literal('live'),
    tenant: tenantId,
    auctionId: positiveId,
    isLive: z.boolean(),
    currentLotId: positiveId.nullable(),
    at: isoDateTime,
    startsAt: isoDateTime.nullable().optional(),
  }),
  auctionDocumentRecord,
  auctionDocumentRemovedRecord,
  conditionReportRecord,
  z.object({ kind: z.literal('translations') }).extend(InterfaceTranslationsPublished.schema.shape),
  memberRecord,
  z.object({ kind: z.literal('memberRemoved'), tenant: tenantId, memberId: positiveId, at: isoDateTime }),
]);
export type IntakeRecord = z.infer<typeof intakeRecord>;

export interface ImportReport {
  records: number;
  appended: number;
  unchanged: number;
  /** Last global position appended (for read-your-writes waits). */
  position: number;
  errors: Array<{ line: number; message: string }>;
}

export interface ImportOptions {
  correlationId?: string;
  /** Where document bytes go (document and condition-report records need it). */
  files?: FileStore;
  /** The folder of the NDJSON file: document `file` paths are relative to it. */
  baseDir?: string;
}

/** Applies one record as a command; returns how many events it appended and the position. */
export async function importRecord(log: EventLog, record: IntakeRecord, importOptions: ImportOptions = {}) {
  const { correlationId } = importOptions;
  const options = { correlationId };
  switch (record.kind) {
    case 'tenant': {
      const { kind: _k, ...data } = record;
      return runCommand(log, tenantStreamId(data.tenant), recordDecider<TenantData>('TenantConfigured'), data, options);
    }
    case 'application': {
      const { kind: _k, clientSecret, ...rest } = record;
      const data: ApplicationData = { ...rest, secretHash: sha256(clientSecret) };
      return runCommand(log, applicationStreamId(data.clientId), recordDecider<ApplicationData>('ApplicationRegistered'), data, options);
    }
    case 'apiKey': {
      const keyHash = sha256(record.key);
      const data: ApiKeyData = { tenant: '_system', keyId: keyHash.slice(0, 16), keyHash, name: record.name, tenants: record.tenants };
      return runCommand(log, apiKeyStreamId(data.keyId), recordDecider<ApiKeyData>('ApiKeyIssued'), data, options);
    }
    case 'category': {
      const { kind: _k, ...data } = record;
      return runCommand(log, categoryStreamId(data.tenant, data.categoryId), recordDecider<CategoryData>('CategoryCatalogued'), data, options);
    }
    case 'auction': {
      const { kind: _k, ...data } = record;
      return runCommand(log, auctionStreamId(data.tenant, data.auctionId), auctionDecider, { type: 'CatalogueAuction', data }, options);
    }
    case 'live': {
      const { kind: _k, ...data } = record;
      return runCommand(log, auctionStreamId(data.tenant, data.auctionId), auctionDecider, { type: 'ChangeLiveStatus', ...data }, options);
    }
    case 'lot': {
      const { kind: _k, ...data } = record;
      return runCommand(log, lotStreamId(data.tenant, data.lotId), lotDecider, { type: 'CatalogueLot', data }, options);
    }
    case 'bid': {
      const { kind: _k, ...data } = record;
      return runCommand(log, lotStreamId(data.tenant, data.lotId), lotDecider, { type: 'PlaceBid', ...data }, options);
    }
    case 'lotClosed': {
      const { kind: _k, ...data } = record;
      return runCommand(log, lotStreamId(data.tenant, data.lotId), lotDecider, { type: 'CloseLot', ...data }, options);
    }
    case 'member':
      // The members feature claims the address too, as a sign-up does.
      return importMember({ log, correlationId }, record);
    case 'memberRemoved':
      return runCommand(log, memberStreamId(record.tenant, record.memberId), memberDecider, { type: 'RemoveMember', ...record }, options);
    case 'auctionDocument':
    case 'auctionDocumentRemoved':
    case 'conditionReport':
      return importDocumentRecord({ log, files: importOptions.files, baseDir: importOptions.baseDir, correlationId }, record);
    case 'translations': {
      const { kind: _k, ...data } = record;
      return runCommand(log, translationsStreamId(data.tenant, data.language), translationsDecider, data, options);
    }
  }
}
