// The URL rules of outgoing calls to addresses a client chose (webhooks, BACKOFFICE.md): public https only, no
// credentials in the URL, and every address the host resolves to public, checked again at each connection.
import dns from 'node:dns';
import net from 'node:net';

/**
 * IANA's special-purpose address registries (iana-ipv4-special-registry, iana-ipv6-special-registry), each block
 * with its "Globally Reachable" column (N/A counts as not reachable), plus multicast, which neither lists. The most
 * specific block that holds an address decides; an IPv4 address in none is public, an IPv6 one only inside global
 * unicast (2000::/3).
 */
const IPV4_SPECIAL: ReadonlyArray<readonly [string, number, boolean]> = [
  ['0.0.0.0', 8, false],
  ['0.0.0.0', 32, false],
  ['10.0.0.0', 8, false],
  ['100.64.0.0', 10, false],
  ['127.0.0.0', 8, false],
  ['169.254.0.0', 16, false],
  ['172.16.0.0', 12, false],
  ['192.0.0.0', 24, false],
  ['192.0.0.0', 29, false],
  ['192.0.0.8', 32, false],
  ['192.0.0.9', 32, true],
  ['192.0.0.10', 32, true],
  ['192.0.0.170', 32, false],
  ['192.0.0.171', 32, false],
  ['192.0.2.0', 24, false],
  ['192.31.196.0', 24, true],
  ['192.52.193.0', 24, true],
  ['192.88.99.0', 24, false],
  ['192.168.0.0', 16, false],
  ['192.175.48.0', 24, true],
  ['198.18.0.0', 15, false],
  ['198.51.100.0', 24, false],
  ['203.0.113.0', 24, false],
  ['224.0.0.0', 4, false],
  ['240.0.0.0', 4, false],
  ['255.255.255.255', 32, false],
];
const IPV6_SPECIAL: ReadonlyArray<readonly [string, number, boolean]> = [
  ['::', 128, false],
  ['::1', 128, false],
  ['64:ff9b:1::', 48, false],
  ['100::', 64, false],
  ['100:0:0:1::', 64, false],
  ['2001::', 23, false],
  ['2001::', 32, false],
  ['2001:1::1', 128, true],
  ['2001:1::2', 128, true],
  ['2001:1::3', 128, true],
  ['2001:2::', 48, false],
  ['2001:3::', 32, true],
  ['2001:4:112::', 48, true],
  ['2001:10::', 28, false],
  ['2001:20::', 28, true],
  ['2001:30::', 28, true],
  ['2001:db8::', 32, false],
  ['2620:4f:8000::', 48, true],
  ['3fff::', 20, false],
  ['5f00::', 16, false],
  ['fc00::', 7, false],
  ['fe80::', 10, false],
];

interface Block {
  network: bigint;
  prefix: number;
  reachable: boolean;
}
const blocks = (rows: ReadonlyArray<readonly [string, number, boolean]>, bits: number, parse: (a: string) => bigint | null) =>
  rows
    .map(([address, prefix, reachable]) => ({ network: parse(address)!, prefix, reachable, bits }))
    // Most specific first: the first block that holds an address decides.
    .sort((a, b) => b.prefix - a.prefix);
const within = (value: bigint, block: Block, bits: number) =>
  block.prefix === 0 || value >> BigInt(bits - block.prefix) === block.network >> BigInt(bits - block.prefix);

function ipv4Value(text: string): bigint | null {
  if (net.isIPv4(text) === false) return null;
  return text.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
}

/** The 128 bits of an IPv6 address (a trailing dotted quad included); null for anything else, a zone index too. */
function ipv6Value(text: string): bigint | null {
  if (!net.isIPv6(text) || text.includes('%')) return null;
  let s = text.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    s = `${s.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') : [s, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const first = groups(head);
  const last = tail === null ? [] : groups(tail);
  const all = tail === null ? first : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return all.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

const V4 = blocks(IPV4_SPECIAL, 32, ipv4Value);
const V6 = blocks(IPV6_SPECIAL, 128, ipv6Value);
const GLOBAL_UNICAST = { network: 0x2n << 124n, prefix: 3, reachable: true };

function ipv4Public(value: bigint): boolean {
  return V4.find((block) => within(value, block, 32))?.reachable ?? true;
}

/** The IPv4 address an IPv6 one carries, for the forms that carry one; undefined for the others. */
function embeddedIpv4(value: bigint): bigint | undefined {
  const low32 = value & 0xffffffffn;
  const high96 = value >> 32n;
  if (high96 === 0xffffn) return low32; // ::ffff:0:0/96, IPv4-mapped
  if (high96 === 0xffff0000n) return low32; // ::ffff:0:0:0/96, IPv4-translated (RFC 2765)
  if (high96 === 0n && low32 > 1n) return low32; // ::/96, IPv4-compatible (deprecated); :: and ::1 are the registry's
  if (high96 === 0x64ff9b0000000000000000n) return low32; // 64:ff9b::/96, NAT64 (RFC 6052)
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffffffffn; // 2002::/16, 6to4 (RFC 3056)
  return undefined;
}

/**
 * Whether an IP address is globally reachable: by IANA's special-purpose registries of its family, and for an
 * IPv6 form that carries an IPv4 address (mapped, compatible, translated, NAT64, 6to4) by that IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = ipv4Value(address);
  if (v4 !== null) return ipv4Public(v4);
  const v6 = ipv6Value(address);
  if (v6 === null) return false;
  const inner = embeddedIpv4(v6);
  if (inner !== undefined) return ipv4Public(inner);
  const block = V6.find((b) => within(v6, b, 128));
  if (block) return block.reachable;
  return within(v6, { ...GLOBAL_UNICAST }, 128);
}

export type LookupAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Why a URL is refused, in a sentence a client can act on; null when it may be called. */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Checks URLs clients give for outgoing calls. `allowPrivate` (WEBHOOK_ALLOW_PRIVATE, development and tests)
 * lifts the scheme and address rules; credentials in the URL stay refused.
 */
export class PublicUrlGuard {
  constructor(
    readonly allowPrivate: boolean,
    private readonly lookupAll: LookupAll = systemLookup,
  ) {}

  /** The URL's form: absolute, https (or http when private is allowed), without user or password, at most 2,000 characters. */
  checkForm(text: string): UrlVerdict {
    if (text.length > 2000) return { ok: false, reason: 'is longer than 2,000 characters' };
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return { ok: false, reason: 'is not an absolute URL' };
    }
    if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry a user or password' };
    const schemes = this.allowPrivate ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) return { ok: false, reason: this.allowPrivate ? 'must be http or https' : 'must be https' };
    if (url.hash !== '') return { ok: false, reason: 'must not have a fragment' };
    return { ok: true, url };
  }

  /** The form, and every address the host resolves to public (unless private is allowed). */
  async check(text: string): Promise<UrlVerdict> {
    const form = this.checkForm(text);
    if (!form.ok || this.allowPrivate) return form;
    const host = form.url.hostname.replace(/^\[|\]$/g, '');
    let addresses: Array<{ address: string }>;
    try {
      addresses = net.isIP(host) ? [{ address: host }] : await this.lookupAll(host);
    } catch {
      return { ok: false, reason: `has a host that does not resolve (${host})` };
    }
    if (addresses.length === 0) return { ok: false, reason: `has a host that does not resolve (${host})` };
    const closed = addresses.find((a) => !isPublicAddress(a.address));
    if (closed) return { ok: false, reason: `resolves to an address that is not public (${closed.address})` };
    return form;
  }

  /**
   * A `lookup` for http.request that resolves as dns.lookup does and fails on an address that is not public,
   * so the connection goes only to an address that was checked (no rebinding between check and connect).
   */
  connectLookup(): net.LookupFunction {
    const allowPrivate = this.allowPrivate;
    return (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(error, []);
        const list = addresses as dns.LookupAddress[];
        const closed = allowPrivate ? undefined : list.find((a) => !isPublicAddress(a.address));
        const refused = closed ? Object.assign(new Error(`address ${closed.address} is not public`), { code: 'EADDRNOTPUBLIC' }) : null;
        if (options.all) (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(refused, refused ? [] : list);
        else (callback as (e: Error | null, a: string, f: number) => void)(refused, list[0]?.address ?? '', list[0]?.family ?? 4);
      });
    };
  }
}
