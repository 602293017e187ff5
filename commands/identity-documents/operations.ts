// Identity-document uploads and removals (`POST /v1/me/identity-documents`, `DELETE /v1/me/identity-documents/{id}`):
// the member's files for the house to check, decided on the member's document stream; declared once
// (defineOperation) for routing, validation and the OpenAPI document.
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { peek, readUpload } from '../../src/http/multipart.ts';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../src/errors.ts';
import { FileTooLargeError } from '../../src/ports/files.ts';
import { identityDocuments } from '../../projections/identity-documents/index.ts';
import {
  identityDocumentFileKey,
  identityDocumentsStreamId,
  identityDocumentTypes,
  MAX_IDENTITY_DOCUMENT_BYTES,
  MAX_IDENTITY_DOCUMENTS,
  type IdentityDocumentContentType,
} from './events.ts';
import { IdentityDocumentLimitError, identityDocumentsDecider } from './decide.ts';
import { sanitiseFileName } from './file-name.ts';
import { identityDocumentIdSchema } from './dto.ts';

/** Bytes read before the type of a file is decided (file-type's own sample size). */
const SNIFF_BYTES = 4100;

/** The type of a file from its first bytes: PDF, JPEG or PNG (an animated PNG is a PNG), else null. */
export async function identityDocumentContentType(head: Buffer): Promise<IdentityDocumentContentType | null> {
  const type = await fileTypeFromBuffer(head);
  switch (type?.mime) {
    case 'application/pdf':
      return 'application/pdf';
    case 'image/jpeg':
      return 'image/jpeg';
    case 'image/png':
    case 'image/apng':
      return 'image/png';
    default:
      return null;
  }
}

async function* hashing(source: AsyncIterable<Buffer>, hash: Hash) {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

const uploadFields = z.object({
  DocumentType: z.enum(identityDocumentTypes).openapi({ description: 'What the document is.' }),
});

export const uploadIdentityDocument = defineOperation({
  route: {
    number: 44,
    operationId: 'uploadIdentityDocument',
    group: 'Identity documents',
    method: 'post',
    path: '/v1/me/identity-documents',
    auth: 'member',
  },
  docs: {
    summary: 'Upload an identity document for the auction house to check',
    description:
      'A `multipart/form-data` body with one file part `file` and the field `DocumentType`. The file must be a PDF, JPEG or PNG, ' +
      'which is decided from its bytes (its name and declared type do not count): anything else is `415`. At most 10 MiB (`413`). ' +
      'A missing or second file, or a missing or unknown `DocumentType`, is `400`. A member holds at most 10 documents (`409`; remove one first). ' +
      'The document starts `pending` until the house decides. Its file is kept private: it is listed to its owner only and never served back. ' +
      'Nothing is kept of a refused upload.',
    errors: [409],
    problems: ['identity-document-limit-reached'],
    examples: { response: { Id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' } },
  },
  input: {
    upload: {
      file: 'file',
      fields: uploadFields,
      maxBytes: MAX_IDENTITY_DOCUMENT_BYTES,
      description: 'The document (`file`: a PDF, JPEG or PNG of at most 10 MiB, with its file name) and its `DocumentType`.',
    },
  },
  output: { response: z.object({ Id: identityDocumentIdSchema }).openapi('IdentityDocumentReceipt') },
  async handler(_input, ctx) {
    const tenant = ctx.tenant.Tenant;
    const memberId = ctx.member.Id;
    const files = ctx.files;
    const documentId = randomUUID();
    const key = identityDocumentFileKey(memberId, documentId);
    const upload = await readUpload(ctx.req, ctx.res, {
      file: 'file',
      fields: uploadFields,
      maxFileBytes: MAX_IDENTITY_DOCUMENT_BYTES,
      async receive(stream) {
        // A member at the limit is answered before any byte is stored (the decider checks again, on the stream).
        if ((await identityDocuments(ctx.db).countDocuments({ MemberId: memberId })) >= MAX_IDENTITY_DOCUMENTS)
          throw new IdentityDocumentLimitError();
        const { head, stream: whole } = await peek(stream, SNIFF_BYTES);
        if (head.length === 0) throw new ValidationError('The file is empty.', [{ field: 'body.file', message: 'must not be empty' }]);
        const contentType = await identityDocumentContentType(head);
        if (!contentType) throw new UnsupportedMediaTypeError('The file must be a PDF, JPEG or PNG; its content is none of these.');
        const hash = createHash('sha256');
        try {
          const { size } = await files.putStream(key, Readable.from(hashing(whole, hash)), contentType, MAX_IDENTITY_DOCUMENT_BYTES);
          return { contentType, size, sha256: hash.digest('hex') };
        } catch (error) {
          throw error instanceof FileTooLargeError
            ? new PayloadTooLargeError(`The file may be at most ${MAX_IDENTITY_DOCUMENT_BYTES} bytes.`)
            : error;
        }
      },
      discard: () => files.delete(key),
    });
    const { contentType, size, sha256 } = upload.received;
    try {
      await ctx.commands.run(
        identityDocumentsStreamId(tenant, memberId),
        identityDocumentsDecider,
        {
          type: 'UploadIdentityDocument',
          tenant,
          memberId,
          documentId,
          documentType: upload.fields.DocumentType,
          fileName: sanitiseFileName(upload.fileName, contentType),
          contentType,
          size,
          sha256,
          at: ctx.now.toISOString(),
        },
        { readYourWrites: true },
      );
    } catch (error) {
      // Refused (the limit, reached meanwhile by a parallel upload) or not stored: its file goes too.
      await files.delete(key);
      throw error;
    }
    return { Id: documentId };
  },
});

export const removeIdentityDocument = defineOperation({
  route: {
    number: 46,
    operationId: 'removeIdentityDocument',
    group: 'Identity documents',
    method: 'delete',
    path: '/v1/me/identity-documents/{id}',
    auth: 'member',
  },
  docs: {
    summary: "Remove one of the caller's identity documents",
    description:
      "Removes the document from the caller's list at once; its file is deleted from storage shortly after. " +
      "An id that is not a uuid is `400`; a document that does not exist, is another member's, or was already removed is `404`.",
    errors: [404],
    examples: { response: { Id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', Removed: true } },
  },
  input: { params: z.object({ id: z.uuid().max(36).openapi({ description: "The document's id, as upload answered it." }) }) },
  output: { response: z.object({ Id: identityDocumentIdSchema, Removed: z.literal(true) }).openapi('IdentityDocumentRemoval') },
  async handler({ params }, ctx) {
    const documentId = params.id.toLowerCase();
    await ctx.commands.run(
      identityDocumentsStreamId(ctx.tenant.Tenant, ctx.member.Id),
      identityDocumentsDecider,
      { type: 'RemoveIdentityDocument', tenant: ctx.tenant.Tenant, memberId: ctx.member.Id, documentId, at: ctx.now.toISOString() },
      { readYourWrites: true },
    );
    return { Id: documentId, Removed: true as const };
  },
});

export const identityDocumentsCommandOperations = [uploadIdentityDocument, removeIdentityDocument];
