/**
 * Signing keys with ids (src/security/signing-keys.ts): every token and stream ticket names its key in `kid`; a key
 * added to the ring by another process (a rotation) signs here once this process has read it, and verifies here at
 * once; a retired key verifies nothing, not even a token checked before; a token without kid is taken only by the
 * key that was the service's one secret before keys had ids. And what `npm run keys` may retire (key-rotation.ts).
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { FileKeyRing } from '../../src/adapters/embedded/file-key-ring.ts';
import { keyIdOf, newKeyRing, newSigningKey, ringKeys, singleKey, StoredSigningKeys } from '../../src/security/signing-keys.ts';
import { keyStatuses, retireRefusal } from '../../src/security/key-rotation.ts';
import { LONGEST_CREDENTIAL_SECONDS, TokenService } from '../../src/security/tokens.ts';
import type { KeyRing } from '../../src/ports/key-ring.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { PositionCodec } from '../../src/events/position.ts';
import { oneTimeKeySecret } from '../../src/security/keys.ts';
import { initialRing, openSigningKeys } from '../../app/key-ring.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kidOfToken = (token: string) => (jwt.decode(token, { complete: true })!.header as { kid?: string }).kid;

describe('signing keys with ids', function () {
  const dirs: string[] = [];
  const opened: StoredSigningKeys[] = [];
  after(() => {
    for (const keys of opened) keys.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A ring in a file of its own, and two processes' views of it (each reads it every 100 ms). */
  async function twoProcesses(initial: KeyRing = newKeyRing(new Date())) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signing-keys-'));
    dirs.push(dir);
    const store = new FileKeyRing(dir);
    const open = () => StoredSigningKeys.open(store, () => initial, { refreshMs: 100 });
    const [a, b] = [await open(), await open()];
    opened.push(a, b);
    return { store, a, b, tokensA: new TokenService(a), tokensB: new TokenService(b) };
  }

  it('names the signing key in every token and ticket, and another process of the ring verifies both', async () => {
    const { store, tokensA, tokensB } = await twoProcesses();
    const [key] = (await store.read())!.keys;
    const token = tokensA.issue('member', 'demo', '42').Token;
    expect(kidOfToken(token)).to.equal(key.id);
    const claims = await tokensB.verify(token);
    expect(claims).to.include({ sub: '42', tenant: 'demo', kind: 'member' });
    const { ticket } = tokensA.tickets.issue(claims!, 'a'.repeat(64), '/v1/me/stream');
    expect(kidOfToken(ticket)).to.equal(key.id);
    expect((await tokensB.tickets.verify(ticket))!.path).to.equal('/v1/me/stream');
  });

  it('after a rotation, signs with the new key once it has read it, and verifies the old and the new at once', async () => {
    const { store, a, tokensA, tokensB } = await twoProcesses();
    const old = tokensA.issue('member', 'demo', '1').Token;
    const added = newSigningKey(new Date(Date.now() + 1));
    await store.add(added);
    // B has not read the ring yet, but looks again at once for a kid it does not know.
    await a.reread();
    const fresh = tokensA.issue('member', 'demo', '2').Token;
    expect(kidOfToken(fresh)).to.equal(added.id);
    expect(await tokensB.verify(fresh)).to.include({ sub: '2' });
    expect(await tokensB.verify(old)).to.include({ sub: '1' });
    await sleep(250);
    expect(kidOfToken(tokensB.issue('anonymous', 'demo', 'x').Token)).to.equal(added.id);
  });

  it('verifies nothing a retired key signed once the ring is read again, not even a token checked before', async () => {
    const { store, b, tokensA, tokensB } = await twoProcesses();
    const [first] = (await store.read())!.keys;
    const old = tokensA.issue('member', 'demo', '1').Token;
    const ticket = tokensA.tickets.issue((await tokensB.verify(old))!, 'a'.repeat(64), '/v1/me/stream').ticket;
    await store.add(newSigningKey(new Date(Date.now() + 1)));
    await store.retire(first.id, new Date().toISOString());
    await b.reread();
    expect(await tokensB.verify(old)).to.equal(null);
    expect(await tokensB.tickets.verify(ticket)).to.equal(null);
  });

  it('refuses a token without kid, of an unknown kid, or of another key than its kid names', async () => {
    const { store, tokensB } = await twoProcesses();
    const [key] = (await store.read())!.keys;
    const claims = { iss: 'bidder-api', aud: 'bidder-api/v1', sub: '1', tenant: 'demo', kind: 'member', jti: 'j' };
    const sign = (secret: string, keyid?: string) =>
      jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: 600, ...(keyid === undefined ? {} : { keyid }) });
    expect(await tokensB.verify(sign(key.secret, key.id))).to.include({ sub: '1' });
    expect(await tokensB.verify(sign(key.secret))).to.equal(null);
    expect(await tokensB.verify(sign(key.secret, 'unknown-kid'))).to.equal(null);
    expect(await tokensB.verify(sign('another-secret-of-at-least-32-bytes-long', key.id))).to.equal(null);
    expect(await tokensB.verify(sign(key.secret, '../../etc/passwd'))).to.equal(null);
  });

  it("takes a token without kid by the ring's first key when the ring started from an earlier version's secret", async () => {
    const earlier = 'the-one-secret-of-an-earlier-version-0123456789';
    const { tokensB } = await twoProcesses(newKeyRing(new Date(), earlier));
    const before = jwt.sign({ iss: 'bidder-api', aud: 'bidder-api/v1', sub: '7', tenant: 'demo', kind: 'member', jti: 'j' }, earlier, {
      algorithm: 'HS256',
      expiresIn: 600,
    });
    expect(await tokensB.verify(before)).to.include({ sub: '7' });
    expect(kidOfToken(tokensB.issue('member', 'demo', '7').Token)).to.equal(keyIdOf(Buffer.from(earlier)));
  });

  it('signs with one fixed key for JWT_SECRET: its kid derived from it, the same in every process', async () => {
    const secret = Buffer.from('a-jwt-secret-of-the-spec-0123456789abcdef');
    const [one, two] = [new TokenService(singleKey(secret)), new TokenService(singleKey(secret))];
    const token = one.issue('anonymous', 'demo', 'a').Token;
    expect(kidOfToken(token)).to.equal(keyIdOf(secret));
    expect(await two.verify(token)).to.include({ sub: 'a' });
    expect(() => singleKey(Buffer.from('short'))).to.throw(/shorter than 32 bytes/);
  });

  it('keeps the keys last read when the ring cannot be read, and says so once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signing-keys-'));
    dirs.push(dir);
    const problems: string[] = [];
    const keys = await StoredSigningKeys.open(new FileKeyRing(dir), () => newKeyRing(new Date()), {
      refreshMs: 50,
      onProblem: (message) => problems.push(message),
    });
    opened.push(keys);
    const tokens = new TokenService(keys);
    const token = tokens.issue('member', 'demo', '1').Token;
    fs.writeFileSync(path.join(dir, 'keys.json'), 'not json');
    await sleep(300);
    expect(await new TokenService(keys).verify(token)).to.include({ sub: '1' });
    expect(problems).to.deep.equal(['the key ring cannot be read: the keys last read stay in force']);
  });

  describe('what may be retired', () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const hours = (n: number) => n * 3600_000;
    const t0 = Date.parse('2026-12-01T00:00:00Z');
    const ring: KeyRing = {
      anchor: 'x'.repeat(48),
      keys: [
        { id: 'old', secret: 's'.repeat(48), created: at(t0) },
        { id: 'mid', secret: 't'.repeat(48), created: at(t0 + hours(10)) },
        { id: 'new', secret: 'u'.repeat(48), created: at(t0 + hours(20)) },
      ],
    };

    it('tells which key signs and until when what the others signed may live (the longest credential lifetime after they stopped)', () => {
      const statuses = keyStatuses(ring);
      expect(statuses.map((s) => s.state)).to.deep.equal(['verifies', 'verifies', 'signs']);
      expect(Date.parse(statuses[0].until!)).to.be.above(t0 + hours(10) + LONGEST_CREDENTIAL_SECONDS * 1000);
      expect(Date.parse(statuses[0].until!)).to.be.below(t0 + hours(10) + LONGEST_CREDENTIAL_SECONDS * 1000 + 120_000);
      expect(Date.parse(statuses[1].until!)).to.be.above(t0 + hours(20) + LONGEST_CREDENTIAL_SECONDS * 1000);
    });

    it('refuses a key whose tokens may still be valid unless forced, the signing key unless forced, the last key ever', () => {
      const soon = new Date(t0 + hours(21));
      // old stopped signing when mid was added (10 h): its tokens may live until 18 h.
      expect(retireRefusal(ring, 'old', new Date(t0 + hours(17)), false)).to.match(/^tokens old signed may be valid until .* or --force$/);
      expect(retireRefusal(ring, 'old', new Date(t0 + hours(17)), true)).to.equal(null);
      expect(retireRefusal(ring, 'old', new Date(t0 + hours(19)), false)).to.equal(null);
      expect(retireRefusal(ring, 'mid', soon, false)).to.match(/^tokens mid signed may be valid until/);
      expect(retireRefusal(ring, 'new', soon, false)).to.match(/^new signs now: rotate first/);
      expect(retireRefusal(ring, 'new', soon, true)).to.equal(null);
      expect(retireRefusal(ring, 'nope', soon, true)).to.match(/^there is no key nope/);
      const lastOne: KeyRing = { ...ring, keys: ring.keys.map((k) => (k.id === 'new' ? k : { ...k, retired: at(t0 + hours(21)) })) };
      expect(retireRefusal(lastOne, 'new', soon, true)).to.match(/^new is the only key that signs/);
      expect(retireRefusal(lastOne, 'old', soon, true)).to.match(/^old was retired at/);
    });

    it('counts a key as signing again after the newer one was retired', () => {
      const back: KeyRing = { ...ring, keys: ring.keys.map((k) => (k.id === 'new' ? { ...k, retired: at(t0 + hours(30)) } : k)) };
      expect(keyStatuses(back).map((s) => s.state)).to.deep.equal(['verifies', 'signs', 'retired']);
      expect(retireRefusal(back, 'mid', new Date(t0 + hours(60)), false)).to.match(/^mid signs now/);
    });
  });

  describe('what a first start keeps of before', () => {
    const logger = createLogger({ level: 'silent' });
    const dataDirWith = (files: Record<string, string>) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signing-keys-before-'));
      dirs.push(dir);
      fs.mkdirSync(path.join(dir, 'secrets'));
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, 'secrets', name), text);
      return dir;
    };
    const earlier = 'the-jwt-key-an-earlier-version-made-0123456789abcdef';
    // Signed when a spec runs, not when the file loads: a whole run takes longer than the token lives.
    const kidless = () =>
      jwt.sign({ iss: 'bidder-api', aud: 'bidder-api/v1', sub: '9', tenant: 'demo', kind: 'member', jti: 'j' }, earlier, {
        algorithm: 'HS256',
        expiresIn: 600,
      });

    it("starts the ring from an earlier version's jwt.key: its tokens, positions and one-time keys stay good", async () => {
      const dataDir = dataDirWith({ 'jwt.key': `${earlier}\n` });
      const config = loadConfig({ DATA_DIR: dataDir });
      const processKeys = await openSigningKeys(config, new FileKeyRing(path.join(dataDir, 'secrets')), logger);
      try {
        expect(processKeys.anchor.toString()).to.equal(earlier);
        expect(await new TokenService(processKeys.keys).verify(kidless())).to.include({ sub: '9' });
        expect(new PositionCodec(processKeys.anchor).forTenant('demo').token(42)).to.equal(
          new PositionCodec(Buffer.from(earlier)).forTenant('demo').token(42),
        );
        expect(oneTimeKeySecret(processKeys.anchor)).to.deep.equal(oneTimeKeySecret(Buffer.from(earlier)));
      } finally {
        processKeys.close();
      }
    });

    it("starts a ring on PostgreSQL from this machine's keys.json, and a new one from random keys", () => {
      const ring = newKeyRing(new Date());
      const dataDir = dataDirWith({ 'keys.json': JSON.stringify(ring) });
      expect(initialRing(loadConfig({ DATA_DIR: dataDir, POSTGRES_URL: 'postgres://127.0.0.1/x' }))).to.deep.equal(ring);
      const fresh = initialRing(loadConfig({ DATA_DIR: dataDirWith({}) }));
      expect(fresh.keys).to.have.length(1);
      expect(fresh.anchor).to.not.equal(fresh.keys[0].secret);
      // No kid: a fresh ring takes no token without one.
      expect(ringKeys(fresh).verifies(undefined)).to.equal(false);
    });

    it('signs with JWT_SECRET alone when it is set, whatever the ring holds', async () => {
      const dataDir = dataDirWith({ 'jwt.key': earlier });
      const secret = 'a-jwt-secret-of-the-spec-0123456789abcdef';
      const processKeys = await openSigningKeys(
        loadConfig({ DATA_DIR: dataDir, JWT_SECRET: secret }),
        new FileKeyRing(path.join(dataDir, 'secrets')),
        logger,
      );
      expect(processKeys.anchor.toString()).to.equal(secret);
      expect(processKeys.keys.signer().id).to.equal(keyIdOf(Buffer.from(secret)));
      expect(fs.existsSync(path.join(dataDir, 'secrets', 'keys.json'))).to.equal(false);
    });
  });
});
