// The URL rules of outgoing calls to addresses a client chose (webhooks, BACKOFFICE.md): public https only, no
// credentials in the URL, and every address the host resolves to public, checked again at each connection.
import dns from 'node:dns';
import net from 'node:net';

/** Blocks of addresses that are not public: loopback, private, shared, link-local (cloud metadata), documentation, multicast, reserved. */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(address, prefix, 'ipv6');

/** Whether an IP address (v4 or v6, an IPv4-mapped or NAT64 one by the IPv4 address inside) is public. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const lower = address.toLowerCase();
  const embedded = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (embedded) return isPublicAddress(embedded[1]);
  const mappedHex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mappedHex) {
    const hi = parseInt(mappedHex[1], 16);
    const lo = parseInt(mappedHex[2], 16);
    return isPublicAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return !blocked.check(address, 'ipv6');
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
