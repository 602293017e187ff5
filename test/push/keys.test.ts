// The VAPID keys (PUSH.md "Keys and settings", operation 65): the environment's pair, checked at start with one line
// that names the variable; else one derived from the key ring's anchor, the same after a restart and in every
// process (test/roles/signing-keys.test.ts: two processes on PostgreSQL).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createECDH } from 'node:crypto';
import { expect } from 'chai';
import { ConfigError, DEFAULT_PUSH_HOSTS, loadConfig } from '../../src/config.ts';
import { derivedVapidKeys, isP256Point, publicKeyOf } from '../../src/security/vapid.ts';
import { expectProblem, startTestServer } from '../support/server.ts';

function keyPair() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { privateKey: ecdh.getPrivateKey().toString('base64url'), publicKey: ecdh.getPublicKey().toString('base64url') };
}

const configError = (env: Record<string, string>) => {
  try {
    loadConfig({ SEED_DEMO: 'false', ...env });
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
};

describe('push: the VAPID keys', function () {
  this.timeout(120_000);

  it('refuses a half pair, a key that is not P-256, a pair that does not match, a bad subject or host list: one line naming the variable, never the key', () => {
    const pair = keyPair();
    const other = keyPair();
    const cases: Array<[Record<string, string>, string]> = [
      [{ VAPID_PRIVATE_KEY: pair.privateKey }, 'VAPID_PRIVATE_KEY is set without VAPID_PUBLIC_KEY'],
      [{ VAPID_PUBLIC_KEY: pair.publicKey }, 'VAPID_PUBLIC_KEY is set without VAPID_PRIVATE_KEY'],
      [{ VAPID_PRIVATE_KEY: 'not+base64url/', VAPID_PUBLIC_KEY: pair.publicKey }, 'VAPID_PRIVATE_KEY must be'],
      [{ VAPID_PRIVATE_KEY: Buffer.alloc(32).toString('base64url'), VAPID_PUBLIC_KEY: pair.publicKey }, 'VAPID_PRIVATE_KEY must be'],
      [{ VAPID_PRIVATE_KEY: pair.privateKey, VAPID_PUBLIC_KEY: pair.publicKey.slice(0, 40) }, 'VAPID_PUBLIC_KEY must be'],
      [
        { VAPID_PRIVATE_KEY: pair.privateKey, VAPID_PUBLIC_KEY: other.publicKey },
        'VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY',
      ],
      [{ VAPID_SUBJECT: 'house@example.com' }, 'VAPID_SUBJECT must be'],
      [{ VAPID_SUBJECT: 'http://example.com/contact' }, 'VAPID_SUBJECT must be'],
      [{ PUSH_ENDPOINT_HOSTS: 'fcm.googleapis.com, https://push.example' }, 'PUSH_ENDPOINT_HOSTS must be'],
    ];
    for (const [env, expected] of cases) {
      const message = configError(env);
      expect(message, JSON.stringify(env)).to.contain(expected);
      expect(message).to.not.contain('\n');
      for (const secret of [pair.privateKey, other.privateKey]) expect(message).to.not.contain(secret);
    }
  });

  it('takes a matching pair and a mailto: or https: subject; by default the public push services, https only', () => {
    const pair = keyPair();
    const config = loadConfig({
      SEED_DEMO: 'false',
      VAPID_PRIVATE_KEY: pair.privateKey,
      VAPID_PUBLIC_KEY: pair.publicKey,
      VAPID_SUBJECT: 'mailto:push@house.example',
    });
    expect(config.push).to.deep.equal({
      vapid: pair,
      subject: 'mailto:push@house.example',
      endpointHosts: DEFAULT_PUSH_HOSTS,
      allowPrivate: false,
    });
    const tests = loadConfig({
      SEED_DEMO: 'false',
      VAPID_SUBJECT: 'https://house.example/contact',
      PUSH_ENDPOINT_HOSTS: '127.0.0.1, .Push.Example',
      PUSH_ALLOW_PRIVATE: 'true',
    });
    expect(tests.push).to.deep.include({ vapid: null, endpointHosts: ['127.0.0.1', 'push.example'], allowPrivate: true });
  });

  it('derives one valid P-256 pair from an anchor: the same for the same anchor, another for another', () => {
    const anchor = Buffer.from('an anchor of the key ring, never rotated: 0123456789');
    const keys = derivedVapidKeys(anchor);
    expect(derivedVapidKeys(Buffer.from(anchor))).to.deep.equal(keys);
    expect(isP256Point(Buffer.from(keys.publicKey, 'base64url'))).to.equal(true);
    expect(publicKeyOf(Buffer.from(keys.privateKey, 'base64url'))!.toString('base64url')).to.equal(keys.publicKey);
    expect(derivedVapidKeys(Buffer.from('another anchor of another deployment 0123456789')).publicKey).to.not.equal(keys.publicKey);
  });

  it('answers GET /v1/push/key to any token of the house, the same after a restart on the same data folder', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-push-keys-'));
    try {
      const server = await startTestServer({ dataDir });
      let key: string;
      try {
        const anonymous = await server.request('GET', '/v1/push/key', { token: await server.anonymousToken() });
        expect(anonymous.status, anonymous.text).to.equal(200);
        key = anonymous.body.PublicKey;
        expect(isP256Point(Buffer.from(key, 'base64url'))).to.equal(true);
        const member = await server.request('GET', '/v1/push/key', { token: await server.memberToken() });
        expect(member.body).to.deep.equal({ PublicKey: key });
        expectProblem(await server.request('GET', '/v1/push/key'), 401, 'token-invalid');
      } finally {
        await server.close();
      }
      const again = await startTestServer({ dataDir, seed: false });
      try {
        const answer = await again.request('GET', '/v1/push/key', { token: await again.anonymousToken() });
        expect(answer.body).to.deep.equal({ PublicKey: key });
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("answers the environment's public key when VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set", async () => {
    const pair = keyPair();
    const server = await startTestServer({ env: { VAPID_PRIVATE_KEY: pair.privateKey, VAPID_PUBLIC_KEY: pair.publicKey } });
    try {
      const answer = await server.request('GET', '/v1/push/key', { token: await server.anonymousToken() });
      expect(answer.body).to.deep.equal({ PublicKey: pair.publicKey });
      expect(answer.text).to.not.contain(pair.privateKey);
    } finally {
      await server.close();
    }
  });
});
