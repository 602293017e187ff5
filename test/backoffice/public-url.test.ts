// The URL rules of webhooks (BACKOFFICE.md "Webhooks"): public https only, no credentials, every resolved
// address public, checked at registration and again before each delivery.
import { expect } from 'chai';
import { isPublicAddress, PublicUrlGuard } from '../../src/security/public-url.ts';
import { expectProblem, startTestServer } from '../support/server.ts';

describe('the webhook URL rules', () => {
  it('tells public addresses from loopback, private, shared, link-local (cloud metadata), documentation, multicast and mapped ones', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(address), address).to.equal(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '192.0.2.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::10.0.0.1',
      'not-an-ip',
    ])
      expect(isPublicAddress(address), address).to.equal(false);
  });

  it('refuses other schemes, credentials, fragments and hosts that resolve to any address that is not public', async () => {
    const answers: Record<string, string[]> = {
      'public.example': ['93.184.216.34'],
      'mixed.example': ['93.184.216.34', '10.0.0.5'],
      'inside.example': ['192.168.0.10'],
    };
    const guard = new PublicUrlGuard(false, async (host) => {
      if (!answers[host]) throw new Error('ENOTFOUND');
      return answers[host].map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    });
    expect((await guard.check('https://public.example/hook')).ok).to.equal(true);
    for (const url of [
      'http://public.example/hook',
      'https://user:pw@public.example/hook',
      'https://public.example/hook#x',
      'https://mixed.example/hook',
      'https://inside.example/hook',
      'https://nowhere.example/hook',
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest/meta-data',
    ])
      expect((await guard.check(url)).ok, url).to.equal(false);
    // A host that turns private after registration is refused at the next check (each delivery checks).
    answers['public.example'] = ['127.0.0.1'];
    expect((await guard.check('https://public.example/hook')).ok).to.equal(false);
    // WEBHOOK_ALLOW_PRIVATE lifts scheme and address rules, never the credentials rule.
    const open = new PublicUrlGuard(true);
    expect((await open.check('http://127.0.0.1:9/hook')).ok).to.equal(true);
    expect((await open.check('http://u:p@127.0.0.1:9/hook')).ok).to.equal(false);
  });

  it('answers 400 problem+json to such URLs through the API when private addresses are not allowed (the default)', async () => {
    const server = await startTestServer();
    try {
      const headers = { Authorization: `Bearer ${server.credentials.backOfficeKeys.demo}` };
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'https://127.0.0.1/hook',
        'https://localhost/hook',
        'https://10.0.0.1/hook',
        'https://[::1]/x',
      ])
        expectProblem(await server.request('POST', '/backoffice/v1/webhooks', { apiKey: null, headers, body: { Url: url } }), 400);
      expect((await server.request('GET', '/backoffice/v1/webhooks', { apiKey: null, headers })).body).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });
});
