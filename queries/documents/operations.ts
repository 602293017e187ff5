// An auction's documents and a lot's documents, listed and downloaded (`GET /v1/auctions/{id}/documents`, its
// `/{documentId}`, `GET /v1/lots/{id}/documents/{fieldname}`), from the read models and the stored files; declared
// once (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation, type TenantContext, auctionInPath } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { FileAnswer } from '../../src/http/file-answer.ts';
import { NotFoundError } from '../../src/errors.ts';
import { documentFileKey, documentKinds } from '../../commands/documents/events.ts';
import { auctionDocuments, lotDocumentId, lotDocuments } from '../../projections/documents/index.ts';
import { findAuction } from '../../projections/catalogue/index.ts';
import { findLot } from '../lots/find.ts';
import { readDictionary } from '../translations/dictionary.ts';
import { renderFactsheetPdf } from './factsheet.ts';

/** A stored document's bytes, streamed from the file store. */
async function openStored(ctx: TenantContext, sha256: string) {
  const opened = await ctx.files.open(documentFileKey(sha256));
  if (!opened) {
    ctx.logger.error({ reqId: ctx.requestId, sha256 }, 'a published document has no stored bytes');
    throw new NotFoundError('The document is not available.');
  }
  return opened;
}

export const listAuctionDocuments = defineOperation({
  route: {
    number: 12,
    operationId: 'listAuctionDocuments',
    group: 'Auction documents',
    method: 'get',
    path: '/v1/auctions/{id}/documents',
    auth: 'anon',
  },
  docs: {
    summary: "An auction's documents: its terms, conditions and catalogue supplements",
    description:
      'Every document in every language; `Language` says which. The terms of sale are the ones with `Kind: "terms"`. `Size` is in bytes.',
    errors: [404],
    examples: {
      response: [{ Id: 1, Name: 'Terms of sale.pdf', Kind: 'terms', Language: 'en', ContentType: 'application/pdf', Size: 2143 }],
    },
  },
  input: { params: z.object({ id: idText('The auction id.') }) },
  output: {
    response: z
      .array(
        z.object({
          Id: z.number().int().min(1).max(2147483647),
          Name: z.string().max(200).openapi({ description: 'The file name.' }),
          Kind: z.enum(documentKinds),
          Language: z
            .string()
            .max(5)
            .regex(/^[a-z]{2}(-[A-Z]{2})?$/),
          // RFC 6838: a type and a subtype of at most 127 characters each.
          ContentType: z
            .string()
            .max(255)
            .regex(/^[a-z]+\/[a-z0-9.+-]+$/)
            .openapi({ description: 'The media type the download answers with.' }),
          Size: z
            .number()
            .int()
            .min(0)
            .max(100 * 1024 * 1024)
            .openapi({ description: 'Bytes (at most 100 MiB).' }),
        }),
      )
      // Every document of the auction in one answer: the service sets no smaller limit.
      .max(2147483647)
      .openapi('AuctionDocuments'),
  },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    await findAuction(ctx.db, params.id);
    const docs = await auctionDocuments(ctx.db).find({ AuctionId: params.id }, { sort: [['Id', 1]] });
    return docs.map((d) => ({ Id: d.Id, Name: d.Name, Kind: d.Kind, Language: d.Language, ContentType: d.ContentType, Size: d.Size }));
  },
});

export const downloadAuctionDocument = defineOperation({
  route: {
    number: 13,
    operationId: 'downloadAuctionDocument',
    group: 'Auction documents',
    method: 'get',
    path: '/v1/auctions/{id}/documents/{documentId}',
    auth: 'anon',
  },
  docs: {
    summary: 'Download one document of an auction',
    description:
      "The document's bytes with its content type, a `Content-Length` equal to its listed `Size`, and its name in `Content-Disposition`.",
    errors: [404],
  },
  input: { params: z.object({ id: idText('The auction id.'), documentId: idText('The document id, as the list gives it.') }) },
  output: { response: z.string().openapi({ format: 'binary' }), produces: ['application/pdf', 'application/octet-stream'] },
  cache: { catalogue: true, auction: auctionInPath },
  async handler({ params }, ctx) {
    await findAuction(ctx.db, params.id);
    const doc = await auctionDocuments(ctx.db).findById(String(params.documentId));
    if (!doc || doc.AuctionId !== params.id) throw new NotFoundError(`Auction ${params.id} has no document ${params.documentId}.`);
    return new FileAnswer({
      contentType: doc.ContentType,
      filename: doc.Name,
      language: doc.Language,
      disposition: 'attachment',
      etag: `"${doc.Sha256}"`,
      open: () => openStored(ctx, doc.Sha256),
    });
  },
});

const FIELDNAMES = ['factsheet', 'condition-report'] as const;

export const getLotDocument = defineOperation({
  route: {
    number: 19,
    operationId: 'getLotDocument',
    group: 'Lots',
    method: 'get',
    path: '/v1/lots/{id}/documents/{fieldname}',
    auth: 'anon',
  },
  docs: {
    summary: 'A document of a lot: its factsheet, or its condition report',
    description:
      '`factsheet`: a PDF of the lot (title, description, attributes, estimate, links to its images) in the negotiated language, made on first request and kept until the lot changes. ' +
      '`condition-report`: where the house published one. Any other fieldname, or one the lot does not have, is 404.',
    errors: [404],
  },
  input: {
    params: z.object({
      id: idText('The lot id.'),
      // Any fieldname the URL can carry: one the lot does not have is 404, however long.
      fieldname: z
        .string()
        .max(16384)
        .openapi({ description: 'Which document: `factsheet` or `condition-report`.', examples: [...FIELDNAMES] }),
    }),
  },
  output: { response: z.string().openapi({ format: 'binary' }), produces: ['application/pdf', 'application/octet-stream'] },
  cache: { catalogue: true },
  async handler({ params }, ctx) {
    const lot = await findLot(ctx.db, params.id);
    if (params.fieldname === 'factsheet') {
      const { language } = ctx;
      const fallback = ctx.tenant.DefaultLanguage;
      const dictionary = await readDictionary(ctx.db, language, fallback, ctx.tenant.Languages);
      const version = `${lot.Version ?? 0}-${dictionary.version}`;
      const family = `factsheets/${lot.Id}/${language}`;
      return new FileAnswer({
        contentType: 'application/pdf',
        filename: `${dictionary.t('link.factsheet', 'Factsheet')} ${lot.Id}.pdf`,
        disposition: 'inline',
        etag: `"factsheet-${lot.Id}-${language}-${version}"`,
        open: () =>
          ctx.generatedFiles.open({ key: `${family}/${version}.pdf`, family, contentType: 'application/pdf' }, () =>
            renderFactsheetPdf(lot, { language, fallback, houseName: ctx.tenant.Name, dictionary }),
          ),
      });
    }
    if (params.fieldname === 'condition-report') {
      const doc = await lotDocuments(ctx.db).findById(lotDocumentId(lot.Id, 'condition-report'));
      if (doc)
        return new FileAnswer({
          contentType: doc.ContentType,
          filename: doc.Name,
          language: doc.Language,
          disposition: 'inline',
          etag: `"${doc.Sha256}"`,
          open: () => openStored(ctx, doc.Sha256),
        });
    }
    throw new NotFoundError(`Lot ${params.id} has no document ${JSON.stringify(params.fieldname.slice(0, 64))}.`);
  },
});

export const documentsQueryOperations = [listAuctionDocuments, downloadAuctionDocument, getLotDocument];
