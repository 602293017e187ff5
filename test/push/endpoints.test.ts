// The endpoints the service POSTs pushes to (PUSH.md "Keys and settings"): only the listed push services' hosts
// (and their subdomains), https on port 443, every address public (the webhooks' checks, src/security/public-url.ts);
// PUSH_ALLOW_PRIVATE lifts scheme, port and address rules but not the host list.
import { expect } from 'chai';
import { DEFAULT_PUSH_HOSTS } from '../../src/config.ts';
import { PushEndpoints } from '../../src/security/push-endpoints.ts';

const addresses: Record<string, string[]> = {
  'fcm.googleapis.com': ['142.250.74.42', '2a00:1450:400f:80c::200a'],
  'updates.push.services.mozilla.com': ['34.117.65.55'],
  'web.push.apple.com': ['17.253.144.10'],
  'rebound.push.apple.com': ['17.253.144.10', '127.0.0.1'],
  'wns2-par02p.notify.windows.com': ['::ffff:10.1.2.3'],
};
const lookup = async (host: string) => (addresses[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('push endpoints', () => {
  const rules = new PushEndpoints(DEFAULT_PUSH_HOSTS, false, lookup);

  it("takes https on 443 at the public push services' hosts and their subdomains", async () => {
    for (const url of [
      'https://fcm.googleapis.com/fcm/send/abc:APA91b',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAAA',
      'https://web.push.apple.com/QGuQyavXutnMbTX2',
      'https://FCM.googleapis.com:443/fcm/send/x',
    ])
      expect(await rules.check(url), url).to.include({ ok: true });
  });

  it('refuses another host, http, another port, credentials, and a host that resolves to an address that is not public', async () => {
    const refused: Array<[string, string]> = [
      ['https://push.example.com/x', 'is not at a push service'],
      ['https://googleapis.com.evil.example/x', 'is not at a push service'],
      ['https://evilfcm.googleapis.com.example/x', 'is not at a push service'],
      ['http://fcm.googleapis.com/fcm/send/x', 'must be https'],
      ['https://fcm.googleapis.com:8443/fcm/send/x', 'port 443'],
      ['https://user:secret@fcm.googleapis.com/x', 'user or password'],
      ['https://rebound.push.apple.com/x', 'not public (127.0.0.1)'],
      ['https://wns2-par02p.notify.windows.com/w/?token=x', 'not public'],
      ['https://nowhere.push.apple.com/x', 'does not resolve'],
      ['https://127.0.0.1/push', 'is not at a push service'],
    ];
    for (const [url, reason] of refused) {
      const verdict = await rules.check(url);
      expect(verdict.ok, url).to.equal(false);
      expect(verdict.ok ? '' : verdict.reason, url).to.contain(reason);
    }
  });

  it('allows http, any port and private addresses with PUSH_ALLOW_PRIVATE, on the listed hosts only', async () => {
    const tests = new PushEndpoints(['127.0.0.1', 'localhost'], true, lookup);
    expect(await tests.check('http://127.0.0.1:8123/push/1')).to.include({ ok: true });
    expect(await tests.check('http://localhost:8123/push/1')).to.include({ ok: true });
    expect(await tests.check('http://10.0.0.1:8123/push/1')).to.include({ ok: false });
    expect(await tests.check('https://fcm.googleapis.com/fcm/send/x')).to.include({ ok: false });
  });
});
