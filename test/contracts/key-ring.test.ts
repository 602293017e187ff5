/**
 * The key ring's contract on the embedded default (DATA_DIR/secrets/keys.json), and what only the file promises:
 * it is private whatever the umask, no temporary is left behind, a file that is not a ring is refused by name, and a
 * lock left by a process that died does not stop the next change for good.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileKeyRing } from '../../src/adapters/embedded/file-key-ring.ts';
import { newKeyRing, newSigningKey } from '../../src/security/signing-keys.ts';
import { entriesUnder } from '../support/file-modes.ts';
import { keyRingStoreContract } from './key-ring.contract.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-ring-'));
  dirs.push(dir);
  return dir;
};

describe('the key ring in a file', function () {
  after(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  keyRingStoreContract('FileKeyRing', async () => {
    const secrets = path.join(tempDir(), 'secrets');
    return async () => new FileKeyRing(secrets);
  });

  it('writes keys.json 0600 in a 0700 folder under umask 000, and leaves no temporary behind', async () => {
    const dataDir = tempDir();
    const before = process.umask(0);
    try {
      const store = new FileKeyRing(path.join(dataDir, 'secrets'));
      await store.open(() => newKeyRing(new Date()));
      await store.add(newSigningKey(new Date()));
      await store.retire((await store.read())!.keys[0].id, new Date().toISOString());
    } finally {
      process.umask(before);
    }
    expect(entriesUnder(path.join(dataDir, 'secrets'))).to.deep.equal([
      { path: '.', kind: 'folder', mode: '700' },
      { path: 'keys.json', kind: 'file', mode: '600' },
    ]);
  });

  it('refuses, naming it, a keys.json that is not a key ring', async () => {
    const secrets = path.join(tempDir(), 'secrets');
    fs.mkdirSync(secrets);
    fs.writeFileSync(path.join(secrets, 'keys.json'), '{"anchor":"x","keys":[{"id":"a b"}]}');
    const store = new FileKeyRing(secrets);
    let failure: Error | null = null;
    await store.read().catch((error: Error) => (failure = error));
    expect(failure!.message).to.include(path.join(secrets, 'keys.json')).and.include('is not a key ring');
  });

  it('takes over a lock left by a process that died (older than 30 s), and waits for one that is held', async () => {
    const secrets = path.join(tempDir(), 'secrets');
    const store = new FileKeyRing(secrets);
    await store.open(() => newKeyRing(new Date()));
    const lock = path.join(secrets, 'keys.json.tmp-lock');
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    expect(await store.add(newSigningKey(new Date()))).to.equal(true);
    expect(fs.existsSync(lock)).to.equal(false);

    fs.writeFileSync(lock, '');
    const adding = store.add(newSigningKey(new Date()));
    await new Promise((resolve) => setTimeout(resolve, 200));
    fs.unlinkSync(lock);
    expect(await adding).to.equal(true);
    expect((await store.read())!.keys).to.have.length(3);
  });
});
