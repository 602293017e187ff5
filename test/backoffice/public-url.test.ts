// The URL rules of webhooks (BACKOFFICE.md "Webhooks"): public https only, no credentials, every resolved
// address public, checked at registration and again before each delivery.
import { expect } from 'chai';
import { isPublicAddress, PublicUrlGuard } from '../../src/security/public-url.ts';
import { expectProblem, startTestServer } from '../support/server.ts';

/**
 * IANA's special-purpose address registries, as published (iana-ipv4-special-registry and
 * iana-ipv6-special-registry, "Globally Reachable"; N/A taken as not reachable), with multicast, which neither
 * lists: [block, name, globally reachable]. Forms that carry an IPv4 address are decided by it (below).
 */
const IPV4_REGISTRY: Array<[string, string, boolean]> = [
  ['0.0.0.0/8', '"This network"', false],
  ['0.0.0.0/32', '"This host on this network"', false],
  ['10.0.0.0/8', 'Private-Use', false],
  ['100.64.0.0/10', 'Shared Address Space', false],
  ['127.0.0.0/8', 'Loopback', false],
  ['169.254.0.0/16', 'Link Local', false],
  ['172.16.0.0/12', 'Private-Use', false],
  ['192.0.0.0/24', 'IETF Protocol Assignments', false],
  ['192.0.0.0/29', 'IPv4 Service Continuity Prefix', false],
  ['192.0.0.8/32', 'IPv4 dummy address', false],
  ['192.0.0.9/32', 'Port Control Protocol Anycast', true],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', true],
  ['192.0.0.170/32', 'NAT64/DNS64 Discovery', false],
  ['192.0.0.171/32', 'NAT64/DNS64 Discovery', false],
  ['192.0.2.0/24', 'Documentation (TEST-NET-1)', false],
  ['192.31.196.0/24', 'AS112-v4', true],
  ['192.52.193.0/24', 'AMT', true],
  ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', false],
  ['192.168.0.0/16', 'Private-Use', false],
  ['192.175.48.0/24', 'Direct Delegation AS112 Service', true],
  ['198.18.0.0/15', 'Benchmarking', false],
  ['198.51.100.0/24', 'Documentation (TEST-NET-2)', false],
  ['203.0.113.0/24', 'Documentation (TEST-NET-3)', false],
  ['224.0.0.0/4', 'Multicast (not in the registry)', false],
  ['240.0.0.0/4', 'Reserved', false],
  ['255.255.255.255/32', 'Limited Broadcast', false],
];
const IPV6_REGISTRY: Array<[string, string, boolean]> = [
  ['::1/128', 'Loopback Address', false],
  ['::/128', 'Unspecified Address', false],
  ['64:ff9b:1::/48', 'IPv4-IPv6 Translat.', false],
  ['100::/64', 'Discard-Only Address Block', false],
  ['100:0:0:1::/64', 'Dummy IPv6 Prefix', false],
  ['2001::/23', 'IETF Protocol Assignments', false],
  ['2001::/32', 'TEREDO', false],
  ['2001:1::1/128', 'Port Control Protocol Anycast', true],
  ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast', true],
  ['2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast', true],
  ['2001:2::/48', 'Benchmarking', false],
  ['2001:3::/32', 'AMT', true],
  ['2001:4:112::/48', 'AS112-v6', true],
  ['2001:10::/28', 'Deprecated (previously ORCHID)', false],
  ['2001:20::/28', 'ORCHIDv2', true],
  ['2001:30::/28', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', true],
  ['2001:db8::/32', 'Documentation', false],
  ['2620:4f:8000::/48', 'Direct Delegation AS112 Service', true],
  ['3fff::/20', 'Documentation', false],
  ['5f00::/16', 'Segment Routing (SRv6) SIDs', false],
  ['fc00::/7', 'Unique-Local', false],
  ['fe80::/10', 'Link-Local Unicast', false],
  ['fec0::/10', 'Site-Local (deprecated, not in the registry)', false],
  ['ff00::/8', 'Multicast (not in the registry)', false],
];

/** The first and last address of a block, as text. */
function ends(block: string): [string, string] {
  const [address, prefixText] = block.split('/');
  const prefix = Number(prefixText);
  if (address.includes('.')) {
    const value = address.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    const size = 2 ** (32 - prefix);
    const text = (v: number) => [24, 16, 8, 0].map((shift) => Math.floor(v / 2 ** shift) % 256).join('.');
    return [text(value), text(value + size - 1)];
  }
  const [head, tail = ''] = address.split('::');
  const part = (p: string) => (p === '' ? [] : p.split(':'));
  const groups = [...part(head), ...Array<string>(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  const value = groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
  const last = value | ((1n << BigInt(128 - prefix)) - 1n);
  const text = (v: bigint) => Array.from({ length: 8 }, (_, i) => ((v >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
  return [text(value), text(last)];
}

/** Every IPv6 form that carries an IPv4 address: mapped (dotted and hex), translated, compatible, NAT64, 6to4. */
function carriers(ipv4: string): string[] {
  const [a, b, c, d] = ipv4.split('.').map(Number);
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  return [
    `::ffff:${ipv4}`,
    `::ffff:${hi}:${lo}`,
    `::ffff:0:${ipv4}`,
    `::ffff:0:${hi}:${lo}`,
    `::${ipv4}`,
    `64:ff9b::${ipv4}`,
    `2002:${hi}:${lo}::1`,
  ];
}

describe('the webhook URL rules', () => {
  it("decides every address by IANA's special-purpose registries, and an IPv6 form that carries an IPv4 address by that address", () => {
    const wrong: string[] = [];
    const check = (address: string, expected: boolean, why: string) => {
      if (isPublicAddress(address) !== expected) wrong.push(`${address} (${why}): expected ${expected ? 'public' : 'refused'}`);
    };
    for (const [block, name, reachable] of [...IPV4_REGISTRY, ...IPV6_REGISTRY])
      for (const address of ends(block)) check(address, reachable, `${block} ${name}`);
    for (const [block, name, reachable] of IPV4_REGISTRY)
      for (const ipv4 of ends(block)) for (const form of carriers(ipv4)) check(form, reachable, `carries ${ipv4}, ${block} ${name}`);
    // Outside every block: public IPv4, global unicast IPv6, and those carried.
    for (const address of [
      '8.8.8.8',
      '93.184.216.34',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:82a::200e',
      ...carriers('8.8.8.8'),
    ])
      check(address, true, 'public');
    // Outside global unicast (2000::/3) and not a form that carries an IPv4 address; a zone index; not an address.
    for (const address of ['4000::1', '1::1', 'fe80::1%eth0', '::ffff:127.0.0.1%1', 'not-an-ip', '', '2001:db8::g'])
      check(address, false, 'not a global unicast address');
    expect(wrong).to.deep.equal([]);
  });

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
