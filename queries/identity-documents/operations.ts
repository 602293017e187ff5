// The caller's identity documents and the house's decisions on them (`GET /v1/me/identity-documents`), read from
// the read models; declared once (defineOperation) for routing, validation and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { identityDocuments } from '../../projections/identity-documents/index.ts';
import {
  identityDocumentContentTypes,
  identityDocumentTypes,
  MAX_IDENTITY_DOCUMENT_BYTES,
  MAX_FILE_NAME_LENGTH,
  MAX_IDENTITY_DOCUMENTS,
} from '../../commands/identity-documents/events.ts';
import { identityDocumentIdSchema } from '../../commands/identity-documents/dto.ts';

const identityDocument = z
  .object({
    Id: identityDocumentIdSchema,
    DocumentType: z.enum(identityDocumentTypes),
    FileName: z
      .string()
      .min(1)
      .max(MAX_FILE_NAME_LENGTH)
      .openapi({ description: 'The name the file was uploaded with, without any path, at most 200 characters.' }),
    ContentType: z.enum(identityDocumentContentTypes).openapi({ description: 'The type of the file, as decided from its bytes.' }),
    Size: z.number().int().min(1).max(MAX_IDENTITY_DOCUMENT_BYTES).openapi({ description: 'In bytes.' }),
    UploadedAt: z.string().max(30).openapi({ format: 'date-time' }),
    Status: z.enum(['pending', 'approved', 'rejected']).openapi({ description: '`pending` until the auction house decides.' }),
  })
  .openapi('IdentityDocument');

export const listIdentityDocuments = defineOperation({
  route: {
    number: 45,
    operationId: 'listIdentityDocuments',
    group: 'Identity documents',
    method: 'get',
    path: '/v1/me/identity-documents',
    auth: 'member',
  },
  docs: {
    summary: "The caller's identity documents and what the auction house decided about each",
    description: 'Oldest upload first; at most 10. The files themselves are never served back.',
    examples: {
      response: [
        {
          Id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
          DocumentType: 'passport',
          FileName: 'passport.pdf',
          ContentType: 'application/pdf',
          Size: 245_120,
          UploadedAt: '2026-11-21T12:00:00.000Z',
          Status: 'pending',
        },
      ],
    },
  },
  output: { response: z.array(identityDocument).max(MAX_IDENTITY_DOCUMENTS).openapi('IdentityDocumentList') },
  async handler(_input, ctx) {
    const docs = await identityDocuments(ctx.db).find(
      { MemberId: ctx.member.Id },
      {
        sort: [
          ['UploadedAt', 1],
          ['_id', 1],
        ],
        limit: MAX_IDENTITY_DOCUMENTS,
      },
    );
    return docs.map((d) => ({
      Id: d.Id,
      DocumentType: d.DocumentType,
      FileName: d.FileName,
      ContentType: d.ContentType,
      Size: d.Size,
      UploadedAt: d.UploadedAt,
      Status: d.Status,
    }));
  },
});

export const identityDocumentsQueryOperations = [listIdentityDocuments];
