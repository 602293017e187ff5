// src/http/compression.ts: the levels answers are compressed at, and that every one decodes to the answer's bytes.
import zlib from 'node:zlib';
import { expect } from 'chai';
import { encode, LARGE_ANSWER } from '../../src/http/compression.ts';

const brotli = (body: Buffer, quality: number) =>
  zlib.brotliCompressSync(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    },
  });

/** A JSON answer of about `bytes`, with text that compresses as a feed page's does. */
const answer = (bytes: number) => {
  const items = [];
  for (let i = 0; JSON.stringify(items).length < bytes; i++)
    items.push({ Id: i, Type: i % 3 ? 'BidPlaced' : 'LotCatalogued', Data: { title: `Lot ${i}, mässing`, amount: i * 137 } });
  return Buffer.from(JSON.stringify(items), 'utf8');
};

describe('compression levels', () => {
  const large = answer(LARGE_ANSWER + 10_000);
  const small = answer(72_000);

  it('compresses a large answer made per request at the fastest levels (brotli 1, gzip 1), decoding to its bytes', () => {
    const br = encode(large, 'br', true);
    const gzip = encode(large, 'gzip', true);
    expect(zlib.brotliDecompressSync(br).equals(large)).to.equal(true);
    expect(zlib.gunzipSync(gzip).equals(large)).to.equal(true);
    expect(br.equals(brotli(large, 1))).to.equal(true);
    expect(gzip.equals(zlib.gzipSync(large, { level: 1 }))).to.equal(true);
  });

  it('keeps brotli 4 and gzip 6 for smaller answers and for answers compressed once and kept (the cache, fixed documents)', () => {
    for (const [body, perRequest] of [
      [small, true],
      [large, false],
    ] as const) {
      expect(encode(body, 'br', perRequest).equals(brotli(body, 4))).to.equal(true);
      expect(encode(body, 'gzip', perRequest).equals(zlib.gzipSync(body, { level: 6 }))).to.equal(true);
    }
  });
});
