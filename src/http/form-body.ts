// Small HTML-form bodies (operations that declare `form`): `application/x-www-form-urlencoded` or
// `multipart/form-data` text fields, read whole (a few kilobytes at most) into `req.body` before the input is
// checked. A mailbox provider's one-click unsubscribe POSTs `List-Unsubscribe=One-Click` either way (RFC 8058
// says multipart SHOULD, urlencoded MAY).
import busboy from 'busboy';
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.ts';
import { hasBody } from './input.ts';
import { continueBody, declaredLength, refuseBody } from './request-body.ts';

export const FORM_MEDIA_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'] as const;
/** Fields a form may carry (taken or ignored). */
const MAX_FORM_FIELDS = 8;

/** Whether the request's body is one of the form media types. */
export const isFormBody = (req: Request) => FORM_MEDIA_TYPES.some((type) => req.is(type));

/**
 * The text fields of a form body, by name (undefined when there is no body): `415` for another media type or a
 * `Content-Encoding`, `413` beyond `maxBytes`, `400` for a file part, a field given twice or a malformed body.
 */
export async function readFormBody(req: Request, res: Response, maxBytes: number): Promise<Record<string, string> | undefined> {
  if (!hasBody(req)) return undefined;
  const types = FORM_MEDIA_TYPES.join(' or ');
  if (!isFormBody(req)) throw new UnsupportedMediaTypeError(`The request body must be ${types}.`);
  if ((req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity')
    throw new UnsupportedMediaTypeError(`The request body must be ${types}, without a Content-Encoding.`);
  const tooLarge = () => new PayloadTooLargeError(`The form body may be at most ${maxBytes} bytes.`);
  if ((declaredLength(req) ?? 0) > maxBytes) {
    refuseBody(req, res, maxBytes);
    throw tooLarge();
  }
  const bytes = await readAll(req, res, maxBytes, tooLarge);
  return req.is('multipart/form-data') ? multipartFields(req, bytes) : urlencodedFields(bytes);
}

/** The whole body, at most `maxBytes` (beyond: refused while the rest is read and dropped). */
function readAll(req: Request, res: Response, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  continueBody(req, res);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      refuseBody(req, res, maxBytes, size);
      reject(tooLarge());
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('close', () => !req.complete && reject(new ValidationError('The request body broke off before its end.')));
  });
}

const given = (values: Record<string, string>, name: string, value: string) => {
  if (name in values)
    throw new ValidationError('A form field is given twice.', [{ field: `body.${name.slice(0, 100)}`, message: 'must be given once' }]);
  if (Object.keys(values).length >= MAX_FORM_FIELDS) throw new ValidationError(`At most ${MAX_FORM_FIELDS} form fields may be sent.`);
  values[name] = value;
};

function urlencodedFields(bytes: Buffer): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) given(values, name, value);
  return values;
}

function multipartFields(req: Request, bytes: Buffer): Promise<Record<string, string>> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 0, fields: MAX_FORM_FIELDS, parts: MAX_FORM_FIELDS },
      defParamCharset: 'utf8',
    });
  } catch {
    return Promise.reject(new ValidationError('The multipart/form-data body has no valid boundary.'));
  }
  return new Promise((resolve, reject) => {
    const values: Record<string, string> = {};
    let failure: unknown = null;
    parser.on('field', (name, value) => {
      try {
        if (!failure) given(values, name, value);
      } catch (error) {
        failure = error;
      }
    });
    parser.on('file', (name, stream) => {
      failure ??= new ValidationError('A form takes text fields only.', [{ field: `body.${name.slice(0, 100)}`, message: 'not a file' }]);
      stream.resume();
    });
    parser.on('filesLimit', () => (failure ??= new ValidationError('A form takes text fields only.')));
    parser.on('fieldsLimit', () => (failure ??= new ValidationError(`At most ${MAX_FORM_FIELDS} form fields may be sent.`)));
    parser.on('partsLimit', () => (failure ??= new ValidationError(`At most ${MAX_FORM_FIELDS} form fields may be sent.`)));
    parser.on('error', () => reject(new ValidationError('The multipart/form-data body is malformed.')));
    parser.on('close', () => (failure ? reject(failure) : resolve(values)));
    Readable.from([bytes]).pipe(parser);
  });
}
