import { expect } from 'chai';
import type { FileStore } from '../../src/ports/files.ts';

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
  });
}
