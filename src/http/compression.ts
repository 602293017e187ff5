import zlib from 'node:zlib';

export type Encoding = 'br' | 'gzip' | 'identity';

/** Answers at or below this size are sent as they are (compression would not pay for its headers). */
export const COMPRESS_THRESHOLD = 1024;
/**
 * An answer made per request and larger than this (a feed page of 1,000 events: about 700 KiB) is compressed at the
 * fastest levels: at the usual ones its compression costs about as much as making it, for 15-20 % fewer bytes.
 */
export const LARGE_ANSWER = 256 * 1024;

const negotiated = new Map<string, Encoding>();

/**
 * The encoding to answer with, from `Accept-Encoding` (RFC 9110 §12.5.3, with q-values): `br` when it is
 * accepted at least as much as `gzip`, else `gzip`, else the bytes as they are.
 */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  let choice = negotiated.get(acceptEncoding);
  if (choice) return choice;
  let br: number | undefined;
  let gzip: number | undefined;
  let star: number | undefined;
  for (const part of acceptEncoding.split(',').slice(0, 20)) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    const w = Number.isFinite(weight) ? weight : 0;
    if (name === 'br') br = w;
    else if (name === 'gzip' || name === 'x-gzip') gzip = w;
    else if (name === '*') star = w;
  }
  br ??= star ?? 0;
  gzip ??= star ?? 0;
  choice = br > 0 && br >= gzip ? 'br' : gzip > 0 ? 'gzip' : 'identity';
  if (negotiated.size > 200) negotiated.clear();
  negotiated.set(acceptEncoding, choice);
  return choice;
}

/**
 * Compresses a JSON answer. Levels are chosen for answers made per request (a 72 KB lot page: about 1 ms,
 * 6 KB); cached answers are compressed once and keep their bytes. A large one made per request: the fastest levels.
 */
export function encode(body: Buffer, encoding: Exclude<Encoding, 'identity'>, perRequest = false): Buffer {
  const fastest = perRequest && body.length > LARGE_ANSWER;
  return encoding === 'br'
    ? zlib.brotliCompressSync(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: fastest ? 1 : 4,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        },
      })
    : zlib.gzipSync(body, { level: fastest ? 1 : 6 });
}
