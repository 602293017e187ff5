import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { holdsLines } from '../../src/text/holds-lines.ts';
import type { EventLog } from '../../src/ports/event-log.ts';
import type { FileStore } from '../../src/ports/files.ts';
import { runCommand } from '../../src/command-runner.ts';
import type { CommandResult } from '../../src/decider.ts';
import { defineIntakeKind, type IntakeKind } from '../../src/intake-kind.ts';
import { languageCode, positiveId, tenantId } from '../../src/events/define.ts';
import { auctionDocumentDecider, conditionReportDecider } from './decide.ts';
import { auctionDocumentStreamId, conditionReportStreamId, documentFileKey, documentKinds } from './events.ts';

/** Largest document accepted through intake. */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

/**
 * A document's bytes in an intake record: `file`, a path relative to the NDJSON file (it must stay inside
 * that folder), or `base64`.
 */
const content = {
  contentType: z
    .string()
    .max(255)
    .regex(/^[a-z]+\/[a-z0-9.+-]+$/, 'a media type such as application/pdf'),
  file: z.string().min(1).max(1000).optional(),
  // Base64 as MIME writes it may be wrapped in lines.
  base64: holdsLines(z.string().max(Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4)).optional(),
};
const oneSource = (r: { file?: string; base64?: string }) => (r.file === undefined) !== (r.base64 === undefined);
const oneSourceMessage = { message: 'give the bytes as exactly one of file or base64', path: ['file'] };

export const auctionDocumentRecord = z
  .object({
    kind: z.literal('auctionDocument'),
    tenant: tenantId,
    auctionId: positiveId,
    documentId: positiveId,
    name: z.string().min(1).max(200),
    documentKind: z.enum(documentKinds),
    language: languageCode,
    ...content,
  })
  .refine(oneSource, oneSourceMessage);

export const auctionDocumentRemovedRecord = z.object({
  kind: z.literal('auctionDocumentRemoved'),
  tenant: tenantId,
  documentId: positiveId,
});

export const conditionReportRecord = z
  .object({
    kind: z.literal('conditionReport'),
    tenant: tenantId,
    lotId: positiveId,
    name: z.string().min(1).max(200).default('condition-report.pdf'),
    language: languageCode,
    ...content,
  })
  .refine(oneSource, oneSourceMessage);

export type DocumentRecord =
  z.infer<typeof auctionDocumentRecord> | z.infer<typeof auctionDocumentRemovedRecord> | z.infer<typeof conditionReportRecord>;

export interface DocumentIntakeDeps {
  log: EventLog;
  files?: FileStore;
  /** The folder of the NDJSON file: `file` paths are relative to it. */
  baseDir?: string;
  now?: () => Date;
  correlationId?: string;
}

async function readBytes(record: { file?: string; base64?: string }, baseDir: string | undefined): Promise<Buffer> {
  let bytes: Buffer;
  if (record.base64 !== undefined) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(record.base64)) throw new Error('base64: not valid base64');
    bytes = Buffer.from(record.base64, 'base64');
  } else {
    if (!baseDir) throw new Error('file: a path needs the NDJSON file it is relative to (use base64 on standard input)');
    const outside = new Error('file: must be a relative path inside the folder of the NDJSON file');
    if (path.isAbsolute(record.file!)) throw outside;
    // Links are followed before the check, so a symbolic link cannot lead out of the folder either.
    const folder = await fs.realpath(baseDir);
    const resolved = await fs.realpath(path.resolve(folder, record.file!)).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT' ? new Error(`file: ${record.file} does not exist`) : error;
    });
    if (!resolved.startsWith(folder + path.sep)) throw outside;
    bytes = await fs.readFile(resolved);
  }
  if (bytes.length > MAX_DOCUMENT_BYTES) throw new Error(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return bytes;
}

/** Stores the bytes (content-addressed) and returns how the event refers to them. */
async function store(deps: DocumentIntakeDeps, tenant: string, record: { file?: string; base64?: string; contentType: string }) {
  if (!deps.files) throw new Error('document records need the file store (run them through npm run import)');
  const bytes = await readBytes(record, deps.baseDir);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const stored = await deps.files.open(tenant, documentFileKey(sha256));
  if (stored && stored.contentType === record.contentType) stored.stream.destroy();
  else {
    stored?.stream.destroy();
    await deps.files.put(tenant, documentFileKey(sha256), bytes, record.contentType);
  }
  return { contentType: record.contentType, size: bytes.length, sha256 };
}

/** Applies a document record as a command on its stream. */
export async function importDocumentRecord(deps: DocumentIntakeDeps, record: DocumentRecord): Promise<CommandResult> {
  const at = (deps.now ?? (() => new Date()))().toISOString();
  const options = { correlationId: deps.correlationId };
  switch (record.kind) {
    case 'auctionDocument': {
      const file = await store(deps, record.tenant, record);
      return runCommand(
        deps.log,
        auctionDocumentStreamId(record.tenant, record.documentId),
        auctionDocumentDecider,
        {
          type: 'PublishAuctionDocument',
          data: {
            tenant: record.tenant,
            documentId: record.documentId,
            auctionId: record.auctionId,
            name: record.name,
            kind: record.documentKind,
            language: record.language,
            ...file,
            at,
          },
        },
        options,
      );
    }
    case 'auctionDocumentRemoved':
      return runCommand(
        deps.log,
        auctionDocumentStreamId(record.tenant, record.documentId),
        auctionDocumentDecider,
        { type: 'RemoveAuctionDocument', tenant: record.tenant, documentId: record.documentId, at },
        options,
      );
    case 'conditionReport': {
      const file = await store(deps, record.tenant, record);
      return runCommand(
        deps.log,
        conditionReportStreamId(record.tenant, record.lotId),
        conditionReportDecider,
        { tenant: record.tenant, lotId: record.lotId, name: record.name, language: record.language, ...file, at },
        options,
      );
    }
  }
}

/** NDJSON intake kinds of documents (docs/intake.md): auction documents, their removal, condition reports. */
export const documentsIntake: IntakeKind[] = [
  defineIntakeKind('auctionDocument', auctionDocumentRecord, (deps, record) => importDocumentRecord(deps, record)),
  defineIntakeKind('auctionDocumentRemoved', auctionDocumentRemovedRecord, (deps, record) => importDocumentRecord(deps, record)),
  defineIntakeKind('conditionReport', conditionReportRecord, (deps, record) => importDocumentRecord(deps, record)),
];
