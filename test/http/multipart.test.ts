/**
 * src/http/multipart.ts: uploads read with hard limits, the file streamed to its receiver, and nothing kept
 * of a failed upload.
 */
import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { AppError, ConflictError, PayloadTooLargeError } from '../../src/errors.ts';
import { MAX_FIELD_BYTES, MAX_FIELDS, peek, readUpload } from '../../src/http/multipart.ts';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('multipart uploads (src/http/multipart.ts)', () => {
  describe('peek', () => {
    it('gives the first bytes and a stream of all of it, for a long stream of many chunks', async () => {
      const chunks = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000, i));
      const { head, stream } = await peek(Readable.from(chunks), 4100);
      expect(head).to.have.length(4100);
      expect(head[4099]).to.equal(4);
      expect((await collect(stream)).equals(Buffer.concat(chunks))).to.equal(true);
    });

    it('gives all of a stream shorter than asked, and nothing of an empty one', async () => {
      const short = await peek(Readable.from([Buffer.from('%PDF')]), 4100);
      expect(short.head.toString()).to.equal('%PDF');
      expect((await collect(short.stream)).toString()).to.equal('%PDF');
      const empty = await peek(Readable.from([]), 4100);
      expect(empty.head).to.have.length(0);
      expect(await collect(empty.stream)).to.have.length(0);
    });

    it('passes on an error of the stream after the head', async () => {
      let i = 0;
      const failing = new Readable({
        read() {
          if (i++ < 3) this.push(Buffer.alloc(3000));
          else setTimeout(() => this.destroy(new Error('broke off')), 20);
        },
      });
      const { stream } = await peek(failing, 4100);
      const error = await collect(stream).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).to.equal('broke off');
    });
  });

  describe('readUpload', () => {
    let server: Server;
    let base: string;
    const kept = new Map<string, Buffer>();
    const discarded: string[] = [];
    let n = 0;

    before(async () => {
      const app = express();
      app.post('/upload', async (req, res) => {
        try {
          const upload = await readUpload(req, res, {
            file: 'file',
            fields: z.object({ Kind: z.enum(['a', 'b']), Note: z.string().max(MAX_FIELD_BYTES).optional() }),
            maxFileBytes: 1000,
            async receive(stream, info) {
              if (info.fileName === 'conflict.bin') throw new ConflictError('watchlist-full', 'not now');
              const key = `k${++n}`;
              kept.set(key, await collect(stream));
              return key;
            },
            async discard(key) {
              kept.delete(key);
              discarded.push(key);
            },
          });
          res.json({ fields: upload.fields, fileName: upload.fileName, size: kept.get(upload.received)!.length });
        } catch (error) {
          const status = error instanceof AppError ? error.status : 500;
          res.status(status).json({ status, detail: (error as Error).message, errors: (error as AppError).extra?.errors });
        }
      });
      server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const post = async (form: FormData) => {
      const response = await fetch(`${base}/upload`, { method: 'POST', body: form });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const form = (fields: Array<[string, string]>, files: Array<[string, Buffer, string]>) => {
      const f = new FormData();
      for (const [name, value] of fields) f.append(name, value);
      for (const [name, bytes, fileName] of files) f.append(name, new Blob([new Uint8Array(bytes)]), fileName);
      return f;
    };

    it('streams the file to its receiver and answers the validated fields (unknown ones ignored)', async () => {
      const response = await post(
        form(
          [
            ['Kind', 'a'],
            ['Extra', 'x'],
          ],
          [['file', Buffer.alloc(1000, 1), 'x.bin']],
        ),
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body).to.deep.equal({ fields: { Kind: 'a' }, fileName: 'x.bin', size: 1000 });
    });

    it('fails the stream of a file over the limit with a PayloadTooLargeError (413), and keeps nothing', async () => {
      const before = kept.size;
      const response = await post(form([['Kind', 'a']], [['file', Buffer.alloc(1001), 'x.bin']]));
      expect(response.status).to.equal(413);
      expect(kept.size).to.equal(before);
      expect(new PayloadTooLargeError().status).to.equal(413);
    });

    it('discards a received file when a field is bad, missing, too long or given twice', async () => {
      for (const fields of [
        [['Kind', 'c']],
        [],
        [
          ['Kind', 'a'],
          ['Note', 'n'.repeat(MAX_FIELD_BYTES + 1)],
        ],
        [
          ['Kind', 'a'],
          ['Kind', 'b'],
        ],
      ] as Array<Array<[string, string]>>) {
        discarded.length = 0;
        const before = kept.size;
        const response = await post(form(fields, [['file', Buffer.alloc(10), 'x.bin']]));
        expect(response.status, JSON.stringify(response.body)).to.equal(400);
        expect(discarded, JSON.stringify(fields)).to.have.length(1);
        expect(kept.size).to.equal(before);
      }
    });

    it('answers what the receiver threw, after reading the whole body', async () => {
      const response = await post(form([['Kind', 'a']], [['file', Buffer.alloc(900), 'conflict.bin']]));
      expect(response.status).to.equal(409);
      expect(response.body.detail).to.equal('not now');
    });

    it(`answers 400 for more than ${MAX_FIELDS} text fields`, async () => {
      const fields = Array.from({ length: MAX_FIELDS + 1 }, (_, i) => [`f${i}`, 'v'] as [string, string]);
      const response = await post(form([['Kind', 'a'], ...fields], [['file', Buffer.alloc(10), 'x.bin']]));
      expect(response.status).to.equal(400);
    });
  });
});
