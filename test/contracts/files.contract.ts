import { expect } from 'chai';
import { Readable } from 'node:stream';
import { FileTooLargeError, type FileStore } from '../../src/ports/files.ts';

/** A stream of `count` chunks of `size` bytes (value i % 256 for the i-th), then an error when `fail` is given. */
function chunks(count: number, size: number, fail?: Error): Readable {
  let i = 0;
  return new Readable({
    read() {
      if (i < count) this.push(Buffer.alloc(size, i++ % 256));
      else if (fail) this.destroy(fail);
      else this.push(null);
    },
  });
}

/** What every file store must do (the data folder now; a volume or GridFS later). */
export function fileStoreContract(name: string, makeStore: () => Promise<FileStore>) {
  describe(`FileStore contract: ${name}`, () => {
    it('gives back the bytes and content type that were put', async () => {
      const store = await makeStore();
      await store.put('t1', 'docs/a.pdf', Buffer.from('%PDF-1.7 test'), 'application/pdf');
      const file = await store.get('t1', 'docs/a.pdf');
      expect(file?.bytes.toString()).to.equal('%PDF-1.7 test');
      expect(file?.contentType).to.equal('application/pdf');
      expect(file?.size).to.equal(13);
    });

    it('opens a file as a stream with its size and content type, and answers null for an absent one', async () => {
      const store = await makeStore();
      const bytes = Buffer.alloc(300_000, 7);
      await store.put('t1', 'big.bin', bytes, 'application/octet-stream');
      const opened = await store.open('t1', 'big.bin');
      expect(opened?.size).to.equal(300_000);
      expect(opened?.contentType).to.equal('application/octet-stream');
      const chunks: Buffer[] = [];
      for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(bytes)).to.equal(true);
      expect(await store.open('t1', 'absent')).to.equal(null);
      expect(await store.open('t2', 'big.bin')).to.equal(null);
    });

    it('keeps tenants apart: the same key of another tenant is absent', async () => {
      const store = await makeStore();
      await store.put('t1', 'same-key', Buffer.from('one'), 'text/plain');
      expect(await store.get('t2', 'same-key')).to.equal(null);
    });

    it('replaces a file put again under its key, and deletes it (twice is fine)', async () => {
      const store = await makeStore();
      await store.put('t1', 'k', Buffer.from('old'), 'text/plain');
      await store.put('t1', 'k', Buffer.from('new'), 'image/png');
      expect((await store.get('t1', 'k'))?.contentType).to.equal('image/png');
      await store.delete('t1', 'k');
      await store.delete('t1', 'k');
      expect(await store.get('t1', 'k')).to.equal(null);
    });

    it('cannot be led out of the tenant by a key with ../ in it', async () => {
      const store = await makeStore();
      await store.put('t1', '../../t2/x', Buffer.from('x'), 'text/plain');
      expect(await store.get('t2', 'x')).to.equal(null);
      expect((await store.get('t1', '../../t2/x'))?.bytes.toString()).to.equal('x');
    });

    it('stores a stream under its key once it has ended, and says how many bytes it stored', async () => {
      const store = await makeStore();
      const result = await store.putStream('t1', 'uploads/1', chunks(40, 64 * 1024), 'image/png', 40 * 64 * 1024);
      expect(result).to.deep.equal({ size: 40 * 64 * 1024 });
      const file = await store.get('t1', 'uploads/1');
      expect(file?.contentType).to.equal('image/png');
      expect(file?.size).to.equal(40 * 64 * 1024);
      expect(file!.bytes[64 * 1024 * 39]).to.equal(39);
      expect((await store.open('t1', 'uploads/1'))?.size).to.equal(40 * 64 * 1024);
    });

    it('stores nothing from a stream larger than maxBytes (FileTooLargeError), and keeps the file already under the key', async () => {
      const store = await makeStore();
      const error = await store.putStream('t1', 'uploads/2', chunks(3, 1000), 'application/pdf', 2999).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(FileTooLargeError);
      expect(await store.get('t1', 'uploads/2')).to.equal(null);
      await store.put('t1', 'uploads/2', Buffer.from('kept'), 'text/plain');
      await store.putStream('t1', 'uploads/2', chunks(3, 1000), 'application/pdf', 2999).catch(() => undefined);
      expect((await store.get('t1', 'uploads/2'))?.bytes.toString()).to.equal('kept');
      expect((await store.putStream('t1', 'uploads/3', chunks(3, 1000), 'application/pdf', 3000)).size).to.equal(3000);
    });

    it('stores nothing from a stream that fails half way (a client that broke off), and rejects with its error', async () => {
      const store = await makeStore();
      const broken = new Error('aborted');
      const error = await store.putStream('t1', 'uploads/4', chunks(5, 1000, broken), 'image/jpeg', 10_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.equal(broken);
      expect(await store.get('t1', 'uploads/4')).to.equal(null);
      const early = new Readable({ read() {} });
      const put = store.putStream('t1', 'uploads/5', early, 'image/jpeg', 10_000);
      early.destroy(broken);
      expect(
        await put.then(
          () => null,
          (e: unknown) => e,
        ),
      ).to.equal(broken);
      expect(await store.get('t1', 'uploads/5')).to.equal(null);
    });

    it('keeps tenants apart for streamed files too', async () => {
      const store = await makeStore();
      await store.putStream('t1', 'uploads/6', Readable.from([Buffer.from('mine')]), 'text/plain', 100);
      expect(await store.get('t2', 'uploads/6')).to.equal(null);
      expect((await store.get('t1', 'uploads/6'))?.bytes.toString()).to.equal('mine');
    });
  });
}
