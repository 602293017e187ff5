import busboy from 'busboy';
import type { Request, Response } from 'express';
import { PassThrough, Readable } from 'node:stream';
import type { z } from 'zod';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError, type FieldError } from '../errors.ts';
import { textProblem } from '../text/allowed-characters.ts';
import { textErrors } from '../text/text-errors.ts';
import { hasBody, invalidInput } from './input.ts';
import { continueBody, declaredLength, refuseBody } from './request-body.ts';

/**
 * `multipart/form-data` uploads (operations that declare `upload`): one file, streamed to whoever receives it,
 * and a few small text fields, read with hard limits. The shell lets such a body through unread; the handler
 * calls `readUpload`.
 */

/** The largest text field, in bytes. */
export const MAX_FIELD_BYTES = 1024;
/** Text fields (taken or ignored) a body may carry. */
export const MAX_FIELDS = 8;
/** Parts (files and fields) a body may carry. */
export const MAX_PARTS = 10;
/** Header lines of one part (Content-Disposition, Content-Type, ...). */
export const MAX_PART_HEADERS = 10;
/**
 * What a body may carry beyond its file: boundaries, part headers (busboy allows 16 KB a part) and fields.
 * A body longer than the file limit plus this is `413`, answered as soon as it is known (declared or sent), while
 * the rest is read and dropped (src/http/request-body.ts) so that the client reads the answer.
 */
export const ENVELOPE_BYTES = 256 * 1024;

export interface UploadInfo {
  /** The file name the client gave (its last path segment only), not sanitised. */
  fileName: string;
  /** The media type the client declared: informational only. */
  declaredType: string;
}

export interface UploadOptions<F extends z.ZodObject, T> {
  /** The name of the file part. */
  file: string;
  /** The text fields taken (others are ignored); validated once the body has been read. */
  fields: F;
  /** The largest file, in bytes (`413` beyond). */
  maxFileBytes: number;
  /**
   * Receives the file as it arrives. The stream fails with a PayloadTooLargeError when the file is larger than
   * `maxFileBytes`, and with another error when the request breaks off; `receive` must then leave nothing
   * behind and reject. A rejection with an AppError is the answer (the rest of the body is read and dropped).
   */
  receive(stream: Readable, info: UploadInfo): Promise<T>;
  /** Undoes what `receive` kept, when the request fails after the file was received (e.g. a bad field). */
  discard(received: T): Promise<void>;
}

export interface Upload<F, T> {
  fields: F;
  fileName: string;
  /** What `receive` answered. */
  received: T;
}

type Outcome<T> = { ok: true; value: T } | { ok: false };

/**
 * Reads an upload: exactly one file part named `options.file`, handed to `receive` as a stream (never held in
 * memory), and the text fields of `options.fields`. Any failure (`400` malformed or a bad field, `413` too
 * large, `415` not multipart, or what `receive` threw) is thrown only after whatever was received has been
 * discarded, so a rejected upload leaves nothing behind.
 */
export async function readUpload<F extends z.ZodObject, T>(
  req: Request,
  res: Response,
  options: UploadOptions<F, T>,
): Promise<Upload<z.output<F>, T>> {
  const bb = openParser(req, res, options);
  const fieldNames = Object.keys(options.fields.shape);
  const cap = options.maxFileBytes + ENVELOPE_BYTES;
  const tooLarge = () => new PayloadTooLargeError(`The file may be at most ${options.maxFileBytes} bytes.`);

  return new Promise((resolve, reject) => {
    const read: PartsRead<T> = { failure: null, file: null, values: {}, fieldErrors: [] };
    let total = 0;
    let finished = false;
    const fail = (error: unknown) => {
      read.failure ??= error;
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= cap || finished) return;
      // More than any acceptable body: answered at once, while the rest is read and dropped (bounded).
      fail(tooLarge());
      req.unpipe(bb);
      refuseBody(req, res, cap, total);
      read.file?.stream.destroy(tooLarge());
      void finish();
    };
    const onClose = () => {
      if (req.complete || finished) return;
      fail(new ValidationError('The upload broke off before its end.'));
      read.file?.stream.destroy(new Error('the request broke off'));
      void finish();
    };
    async function finish() {
      if (finished) return;
      finished = true;
      req.off('data', onData);
      req.off('close', onClose);
      const outcome = read.file ? await read.file.outcome : null;
      try {
        const settled = settle(options, read, outcome);
        if ('error' in settled) {
          if (outcome?.ok) await options.discard(outcome.value);
          reject(settled.error);
        } else resolve(settled.upload);
      } catch (error) {
        reject(error);
      }
    }
    bb.on('file', (name, stream, info) => takeFile(options, read, fail, tooLarge, { name, stream, info }));
    bb.on('field', (name, value, info) => takeField(options.file, fieldNames, read, { name, value, info }));
    bb.on('filesLimit', () =>
      fail(new ValidationError('Exactly one file may be sent.', [{ field: `body.${options.file}`, message: 'one file only' }])),
    );
    bb.on('fieldsLimit', () => fail(new ValidationError(`At most ${MAX_FIELDS} text fields may be sent.`)));
    bb.on('partsLimit', () => fail(new ValidationError(`At most ${MAX_PARTS} parts may be sent.`)));
    bb.on('error', () => {
      fail(new ValidationError('The multipart/form-data body is malformed.'));
      read.file?.stream.destroy(new Error('malformed body'));
      // Unpiped by the error: the rest of the body is read (and counted) before the answer.
      if (req.readableEnded) void finish();
      else {
        req.once('end', () => void finish());
        req.resume();
      }
    });
    bb.on('close', () => {
      if (!bb.errored) void finish();
    });
    req.on('data', onData);
    req.on('close', onClose);
    req.on('error', () => undefined); // followed by 'close', handled there
    continueBody(req, res);
    req.pipe(bb);
  });
}

/** What the parts of a body left, as they are read: the first failure, the file, the text fields. */
interface PartsRead<T> {
  failure: unknown;
  file: { info: UploadInfo; stream: PassThrough; outcome: Promise<Outcome<T>> } | null;
  values: Record<string, string>;
  fieldErrors: FieldError[];
}

/** The parser of a request that may carry an upload; refuses one without a body, not multipart, or declared too large. */
function openParser(req: Request, res: Response, options: UploadOptions<z.ZodObject, unknown>): busboy.Busboy {
  if (!hasBody(req))
    throw new ValidationError('A multipart/form-data body with the file and its fields is required.', [
      { field: `body.${options.file}`, message: 'required' },
      ...Object.keys(options.fields.shape).map((name) => ({ field: `body.${name}`, message: 'required' })),
    ]);
  if (!req.is('multipart/form-data')) throw new UnsupportedMediaTypeError('The request body must be multipart/form-data.');
  const cap = options.maxFileBytes + ENVELOPE_BYTES;
  if ((declaredLength(req) ?? 0) > cap) {
    // Not worth reading: answered at once, without `100 Continue`, or while the rest is read and dropped.
    refuseBody(req, res, cap);
    throw new PayloadTooLargeError(`The file may be at most ${options.maxFileBytes} bytes.`);
  }
  try {
    return busboy({
      headers: req.headers,
      // busboy reports a limit when a value *reaches* it: one byte more than allowed.
      limits: {
        fileSize: options.maxFileBytes + 1,
        files: 1,
        fields: MAX_FIELDS,
        fieldSize: MAX_FIELD_BYTES + 1,
        fieldNameSize: 100,
        parts: MAX_PARTS,
        headerPairs: MAX_PART_HEADERS,
      },
      preservePath: false,
      defParamCharset: 'utf8',
    });
  } catch {
    throw new ValidationError('The multipart/form-data body has no valid boundary.');
  }
}

/** A file part: the one named `options.file` is streamed to `receive`; any other is read and dropped. */
function takeFile<T>(
  options: UploadOptions<z.ZodObject, T>,
  read: PartsRead<T>,
  fail: (error: unknown) => void,
  tooLarge: () => Error,
  part: { name: string; stream: Readable; info: { filename?: string; mimeType: string } },
): void {
  const { name, stream, info } = part;
  if (read.failure || read.file || name !== options.file) {
    if (!read.failure && !read.file)
      fail(
        new ValidationError(`Unexpected file part "${name.slice(0, 100)}".`, [
          { field: `body.${name.slice(0, 100)}`, message: `only the file part "${options.file}" is taken` },
        ]),
      );
    stream.resume();
    return;
  }
  const out = new PassThrough();
  const uploadInfo: UploadInfo = { fileName: info.filename ?? '', declaredType: info.mimeType };
  stream.on('limit', () => {
    fail(tooLarge());
    out.destroy(tooLarge());
  });
  // Whatever happens to the receiving side, busboy's stream is read to its end, so the body goes on (unpiped
  // first: the pipe's own unpipe on close would pause it again after a resume).
  out.on('close', () => {
    stream.unpipe(out);
    stream.resume();
  });
  stream.on('error', (error) => out.destroy(error));
  stream.pipe(out);
  const outcome = options.receive(out, uploadInfo).then(
    (value): Outcome<T> => ({ ok: true, value }),
    (error: unknown): Outcome<T> => {
      fail(error);
      out.destroy();
      return { ok: false };
    },
  );
  read.file = { info: uploadInfo, stream: out, outcome };
}

/** A text field: kept when it is one of the fields taken, reported when it is too long, given twice or names the file. */
function takeField(
  fileName: string,
  fieldNames: string[],
  read: PartsRead<unknown>,
  part: { name: string; value: string; info: { nameTruncated: boolean; valueTruncated: boolean } },
): void {
  const { name, value, info } = part;
  if (name === fileName) {
    read.fieldErrors.push({ field: `body.${name}`, message: 'must be a file part (with a filename), not a text field' });
    return;
  }
  if (info.nameTruncated || info.valueTruncated) {
    read.fieldErrors.push({ field: `body.${name.slice(0, 100)}`, message: `at most ${MAX_FIELD_BYTES} bytes` });
    return;
  }
  if (!fieldNames.includes(name)) return;
  if (name in read.values) read.fieldErrors.push({ field: `body.${name}`, message: 'must be given once' });
  else read.values[name] = value;
}

/** The upload once the body is read, or the error it answers (the first failure, else every bad field). */
function settle<F extends z.ZodObject, T>(
  options: UploadOptions<F, T>,
  read: PartsRead<T>,
  outcome: Outcome<T> | null,
): { upload: Upload<z.output<F>, T> } | { error: unknown } {
  if (read.failure) return { error: read.failure };
  const { file, values } = read;
  const parsed = options.fields.safeParse(values);
  const errors = [...read.fieldErrors];
  // The texts taken (the fields and the file's name), by the one rule of src/text/allowed-characters.ts.
  const badTexts = textErrors(options.fields, values, 'body');
  const nameProblem = file && textProblem(file.info.fileName);
  if (nameProblem) badTexts.push({ field: `body.${options.file}`, message: `its file name ${nameProblem}` });
  // A field already reported (too long, given twice) is not reported again by the schema.
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = ['body', ...issue.path.map(String)].join('.');
      if (!errors.some((e) => e.field === field)) errors.push({ field, message: issue.message });
    }
  if (!file && !errors.some((e) => e.field === `body.${options.file}`))
    errors.push({ field: `body.${options.file}`, message: 'required: one file part (with a filename)' });
  if (badTexts.length || errors.length || !parsed.success || !outcome?.ok || !file)
    return {
      error:
        invalidInput(badTexts, errors, 'The upload has invalid values.') ?? new ValidationError('The upload has invalid values.', errors),
    };
  return { upload: { fields: parsed.data, fileName: file.info.fileName, received: outcome.value } };
}

/**
 * The first `bytes` bytes of a stream (fewer when it is shorter), and a stream of all of it: for a decision
 * on the content (its type) before the rest is read.
 */
export async function peek(source: Readable, bytes: number): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let length = 0;
  let ended = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* all() {
    try {
      if (head.length) yield head;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
  return { head: head.subarray(0, bytes), stream: Readable.from(all(), { objectMode: false }) };
}
