// The specs' own push service (test/support/push-service.ts) is checked before it judges the service: its decryption
// against RFC 8291's example (§5 and Appendix A), and its VAPID check against headers made by the web-push package.
import { createECDH } from 'node:crypto';
import { expect } from 'chai';
import webpush from 'web-push';
import { decryptPush, verifyVapid } from '../support/push-service.ts';

const b64 = (text: string) => Buffer.from(text, 'base64url');

describe("the specs' push service", () => {
  it("decrypts RFC 8291's example with the user agent's private key and auth secret", () => {
    const receiver = createECDH('prime256v1');
    receiver.setPrivateKey(b64('q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94'));
    expect(receiver.getPublicKey().toString('base64url')).to.equal(
      'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
    );
    const body = b64(
      'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_y' +
        'l95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
    );
    expect(decryptPush(body, receiver, b64('BTBZMqHH6r4Tts7J_aSIgg')).toString()).to.equal('When I grow up, I want to be a watermelon');
    const tampered = Buffer.from(body);
    tampered[tampered.length - 1] ^= 1;
    expect(() => decryptPush(tampered, receiver, b64('BTBZMqHH6r4Tts7J_aSIgg'))).to.throw();
  });

  it('decrypts what the web-push package encrypts for a fresh subscription', () => {
    const receiver = createECDH('prime256v1');
    receiver.generateKeys();
    const auth = Buffer.alloc(16, 7);
    const text = JSON.stringify({ type: 'outbid', body: 'Föremål 12 – 1 234,00 kr' });
    const { cipherText } = webpush.encrypt(receiver.getPublicKey().toString('base64url'), auth.toString('base64url'), text, 'aes128gcm');
    expect(decryptPush(cipherText, receiver, auth).toString()).to.equal(text);
  });

  it('takes a VAPID header whose JWT is signed by its key, for the origin, expiring within 24 hours; refuses any other', () => {
    const keys = webpush.generateVAPIDKeys();
    const origin = 'https://fcm.googleapis.com';
    const header = (aud: string, exp?: number) =>
      webpush.getVapidHeaders(aud, 'mailto:push@house.example', keys.publicKey, keys.privateKey, 'aes128gcm', exp).Authorization;
    const claims = verifyVapid(header(origin), origin);
    expect(claims).to.include({ aud: origin, sub: 'mailto:push@house.example', key: keys.publicKey });
    expect(() => verifyVapid(header('https://push.example'), origin)).to.throw(/aud/);
    const now = Date.now() / 1000;
    expect(() => verifyVapid(header(origin, Math.floor(now + 3600)), origin, now + 7200)).to.throw(/exp/);
    const other = webpush.generateVAPIDKeys();
    expect(() => verifyVapid(header(origin).replace(keys.publicKey, other.publicKey), origin)).to.throw(/signature/);
    expect(() => verifyVapid('WebPush abc', origin)).to.throw(/vapid/);
  });
});
