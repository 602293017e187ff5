/**
 * A JSON answer its handler serialised itself (e.g. around stored JSON passed on as it is): its UTF-8 bytes must be
 * what `JSON.stringify` of the schema's value would give. The shell sends it as any JSON answer (ETag, compression).
 */
export class JsonAnswer {
  constructor(readonly bytes: Buffer) {}
}

/** A handler's JSON answer as bytes: its own, or the value serialised. */
export const jsonBytes = (result: unknown): Buffer =>
  result instanceof JsonAnswer ? result.bytes : Buffer.from(JSON.stringify(result), 'utf8');
