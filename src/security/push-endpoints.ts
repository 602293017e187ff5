// The endpoints the service POSTs push messages to (PUSH.md "Keys and settings"): a push endpoint is a URL a client
// chose, so the webhooks' rules apply (PublicUrlGuard: https, no credentials, every address public, checked again
// at each connection), and besides them only the listed push services' hosts, on port 443.
import type net from 'node:net';
import type { EndpointVerdict } from '../ports/push.ts';
import { PublicUrlGuard, type LookupAll } from './public-url.ts';

export class PushEndpoints {
  private readonly guard: PublicUrlGuard;

  /**
   * `hosts`: PUSH_ENDPOINT_HOSTS (a name allows its subdomains, an address only itself). `allowPrivate`
   * (PUSH_ALLOW_PRIVATE, tests only): plain http, any port, any address, on the listed hosts still.
   */
  constructor(
    private readonly hosts: readonly string[],
    readonly allowPrivate: boolean,
    lookupAll?: LookupAll,
  ) {
    this.guard = new PublicUrlGuard(allowPrivate, lookupAll);
  }

  /** Whether a host is one of the listed ones or under one of them. */
  listed(hostname: string): boolean {
    const host = hostname
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '');
    return this.hosts.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
  }

  /** The endpoint's form, host and port, then every address its host resolves to (unless private ones are allowed). */
  async check(endpoint: string): Promise<EndpointVerdict> {
    const form = this.guard.checkForm(endpoint);
    if (!form.ok) return form;
    if (!this.listed(form.url.hostname))
      return { ok: false, reason: `is not at a push service this house sends to (${form.url.hostname})` };
    if (!this.allowPrivate && form.url.port !== '') return { ok: false, reason: 'must use port 443' };
    return this.guard.check(endpoint);
  }

  /** The lookup of a connection to an endpoint: it goes only to an address the rules let through (no rebinding). */
  connectLookup(): net.LookupFunction {
    return this.guard.connectLookup();
  }
}
