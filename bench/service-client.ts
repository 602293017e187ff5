/** The bench as a client of the service: JSON calls with the bench's Api-Key, tokens, binary downloads. */
import { API_KEY } from './dataset.ts';

export class ServiceClient {
  constructor(readonly port: number) {}

  url(p: string) {
    return `http://127.0.0.1:${this.port}${p}`;
  }

  async call(method: string, p: string, headers: Record<string, string>, body?: unknown) {
    const res = await fetch(this.url(p), {
      method,
      headers: { 'Api-Key': API_KEY, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json, text };
  }

  async anonymousToken(): Promise<string> {
    const r = await this.call('POST', '/v1/tokens/anonymous', {}, { clientId: 'demo' });
    if (r.status !== 200) throw new Error(`anonymous token: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.Token;
  }

  async memberToken(anon: string, email: string, password: string): Promise<string> {
    const r = await this.call('POST', '/v1/sessions', { Authorization: `Bearer ${anon}` }, { Email: email, Password: password });
    if (r.status !== 200) throw new Error(`sign-in as ${email}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.Token;
  }

  /** A binary GET: status, bytes and the time to the last byte. */
  async download(p: string, headers: Record<string, string>) {
    const started = performance.now();
    const res = await fetch(this.url(p), { headers: { 'Api-Key': API_KEY, ...headers }, signal: AbortSignal.timeout(60_000) });
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, bytes, ms: performance.now() - started, contentType: res.headers.get('content-type') ?? '' };
  }
}
