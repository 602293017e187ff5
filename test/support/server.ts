import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http, { type Server } from 'node:http';
import { createRuntime, type Runtime } from '../../app/runtime.ts';
import { listen } from '../../src/http/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { demoCredentials, seedDemo, type DemoCredentials } from '../../app/seed/demo.ts';
import { PROBLEM_CODES, type ProblemCode } from '../../src/problem-codes.ts';
import { recordProblem } from './problem-codes.ts';

export const TEST_PASSWORD = 'correct horse battery staple';
/** The operator's token every test server has (OPERATOR_TOKEN) unless its env sets another: /metrics and /readyz's details. */
export const TEST_OPERATOR_TOKEN = 'test-operator-token-0123456789-abcdefghij';

export interface TestServer {
  base: string;
  dataDir: string;
  runtime: Runtime;
  credentials: DemoCredentials;
  /** OPERATOR_TOKEN: sent as the bearer token, it reads /metrics and /readyz's details (`{ apiKey: null, token: server.operatorToken }`). */
  operatorToken: string;
  /** A fixed "now" the demo data was generated against (the service's clock is the real one). */
  seededAt: Date;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  anonymousToken(tenant?: string): Promise<string>;
  /** The demo member's token of a tenant (signed in once, then cached). */
  memberToken(tenant?: string): Promise<string>;
  /**
   * A member token issued by the service's own token service, without a sign-in (scrypt is slow; sign-in
   * itself is specified in test/sessions/http.test.ts).
   */
  issueMemberToken(tenant: string, memberId: number): string;
  /**
   * A GET with node:http, which leaves the answer as sent: fetch decompresses bodies and adds
   * `Cache-Control: no-cache` to conditional requests. `token: null` sends none; `apiKey: null` no Api-Key.
   */
  rawGet(
    path: string,
    options?: { token?: string | null; apiKey?: string | null; headers?: Record<string, string>; agent?: http.Agent },
  ): Promise<RawResponse>;
  /** Every event of the log (for "then it appended ..." assertions). */
  events(): Promise<Array<{ type: string; data: Record<string, unknown>; streamId: string }>>;
  close(): Promise<void>;
}

export interface RequestOptions {
  token?: string | null;
  apiKey?: string | null;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
  /** The bytes as UTF-8 text. */
  body: string;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** What startTestServer takes: seed the demo data (default yes), a DATA_DIR of the spec's, env, log lines kept, a clock. */
type TestServerOptions = { seed?: boolean; dataDir?: string; env?: Record<string, string>; logLines?: string[]; now?: () => Date };

/**
 * A real service on a random port, on a fresh DATA_DIR seeded with the demo data, exactly as `npm start`
 * builds it. Tests talk to it over HTTP.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { dataDir, env, runtime, credentials, seededAt } = await seededRuntime(options);
  const server: Server = await listen(runtime.app, 0, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const request = requester(base, credentials);

  const anonymous = new Map<string, string>();
  const members = new Map<string, string>();
  const testServer: TestServer = {
    base,
    dataDir,
    runtime,
    credentials,
    operatorToken: env.OPERATOR_TOKEN,
    seededAt,
    request,
    async anonymousToken(tenant = 'demo') {
      if (!anonymous.has(tenant)) {
        const r = await request('POST', '/v1/tokens/anonymous', { body: { clientId: tenant } });
        if (r.status !== 200) throw new Error(`anonymous token for ${tenant}: ${r.status} ${r.text}`);
        anonymous.set(tenant, r.body.Token);
      }
      return anonymous.get(tenant)!;
    },
    async memberToken(tenant = 'demo') {
      if (!members.has(tenant)) {
        const r = await request('POST', '/v1/sessions', {
          token: await testServer.anonymousToken(tenant),
          body: { Email: credentials.memberEmail, Password: TEST_PASSWORD },
        });
        if (r.status !== 200) throw new Error(`member token for ${tenant}: ${r.status} ${r.text}`);
        members.set(tenant, r.body.Token);
      }
      return members.get(tenant)!;
    },
    rawGet: rawGetter(base, credentials),
    issueMemberToken(tenant, memberId) {
      return runtime.services.tokens.issue('member', tenant, String(memberId)).Token;
    },
    events: () => allEvents(runtime),
    close: () => closeTestServer(server, runtime, options.dataDir ? null : dataDir),
  };
  return testServer;
}

/** The service as `npm start` builds it, on its DATA_DIR, with the demo data seeded and projected unless told not to. */
async function seededRuntime(options: TestServerOptions) {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-api-test-'));
  // The lot index in process unless a spec asks for its thread (SEARCH_THREAD): a thread takes about 0.3 s to start,
  // and the search specs and the spawned services run it.
  const env = { SEARCH_THREAD: 'false', OPERATOR_TOKEN: TEST_OPERATOR_TOKEN, ...options.env, DATA_DIR: dataDir };
  const config = { ...loadConfig(env), searchFlushIntervalMs: 0 };
  const logger = options.logLines
    ? createLogger({ level: 'debug', destination: { write: (line: string) => void options.logLines!.push(line) } })
    : createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const runtime = await createRuntime(config, logger, { now: options.now });
  const credentials = demoCredentials(path.join(dataDir, 'secrets', 'demo-credentials.json'), {
    DEMO_API_KEY: 'test-api-key-0123456789',
    DEMO_MEMBER_PASSWORD: TEST_PASSWORD,
    DEMO_CLIENT_SECRET: 'test-client-secret-0123456789',
    DEMO_BACKOFFICE_KEY: 'test-backoffice-key-demo-0123456789',
    DEMO2_BACKOFFICE_KEY: 'test-backoffice-key-demo2-0123456789',
  });
  const seededAt = new Date();
  if (options.seed !== false) {
    await seedDemo(runtime.services, credentials, seededAt);
    await runtime.services.projector.catchUp();
    // The jobs the seed's records add (planning the timed auction's closes) are done before a spec starts. Bounded:
    // a job delayed past it (a timed lot's close) is not the seed's to wait for.
    await runtime.services.jobs.whenIdle(3000).catch(() => undefined);
  }
  return { dataDir, env, runtime, credentials, seededAt };
}

/** TestServer.request: a fetch with the demo Api-Key unless told otherwise, its problem answers recorded. */
function requester(base: string, credentials: DemoCredentials): TestServer['request'] {
  return async (method: string, urlPath: string, o: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const apiKey = o.apiKey === undefined ? credentials.apiKey : o.apiKey;
    if (apiKey !== null) headers['Api-Key'] = apiKey;
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    let body: string | Buffer | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await readResponse(await fetch(base + urlPath, { method, headers, body: body as BodyInit | undefined }));
    recordProblem(method, urlPath, response.status, response.body);
    return response;
  };
}

/** TestServer.rawGet: a GET with node:http, its answer's bytes as sent. */
function rawGetter(base: string, credentials: DemoCredentials): TestServer['rawGet'] {
  return (urlPath, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const apiKey = o.apiKey === undefined ? credentials.apiKey : o.apiKey;
    if (apiKey !== null) headers['Api-Key'] = apiKey;
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    return new Promise<RawResponse>((resolve, reject) => {
      const request = http.get(base + urlPath, { headers, agent: o.agent ?? false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: response.statusCode!, headers: response.headers, bytes, body: bytes.toString('utf8') });
        });
        response.on('error', reject);
      });
      request.on('error', reject);
    });
  };
}

/** Every event of the runtime's log, read in batches. */
async function allEvents(runtime: Runtime) {
  const all = [];
  let from = 0;
  for (;;) {
    const batch = await runtime.services.log.readAll({ fromPosition: from, maxCount: 10_000 });
    if (!batch.length) break;
    all.push(...batch);
    from = batch[batch.length - 1].position;
  }
  return all;
}

/** Stops the server and the runtime; removes the DATA_DIR when the test server made it (`ownDataDir`). */
async function closeTestServer(server: Server, runtime: Runtime, ownDataDir: string | null) {
  // Answers under way finish; a socket that connected and never sent a request (Node's fetch may leave one after
  // an aborted stream) would hold close() until the headers time-out, so what is left is cut after a second.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const cut = setTimeout(() => server.closeAllConnections(), 1000);
  await closed;
  clearTimeout(cut);
  server.closeAllConnections();
  await runtime.close();
  if (ownDataDir) fs.rmSync(ownDataDir, { recursive: true, force: true });
}

/** A fetch answer read whole: its text, and its body parsed when it is JSON. */
export async function readResponse(response: Response): Promise<TestResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/**
 * Asserts a problem+json answer with the given status, a `code` of the catalogue of that status (the given one, when
 * given) and the catalogue's `messageKey` for it; returns the parsed problem.
 */
export function expectProblem(response: TestResponse, status: number, code?: ProblemCode) {
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${response.text}`);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) throw new Error(`expected problem+json, got ${type}`);
  const body = response.body;
  for (const field of ['type', 'title', 'status', 'detail'])
    if (!(field in body)) throw new Error(`problem without ${field}: ${response.text}`);
  if (body.status !== status) throw new Error(`problem status ${body.status} != ${status}`);
  const info = (PROBLEM_CODES as Record<string, { status: number; messageKey?: string }>)[body.code];
  if (!info || info.status !== status)
    throw new Error(`problem code ${JSON.stringify(body.code)} is not one of ${status}: ${response.text}`);
  if (code !== undefined && body.code !== code) throw new Error(`expected code ${code}, got ${body.code}: ${response.text}`);
  if (body.messageKey !== info.messageKey) throw new Error(`messageKey ${body.messageKey} != ${info.messageKey}: ${response.text}`);
  if (/\bat\s+\S+\s+\(|node_modules|\.ts:\d+/.test(response.text)) throw new Error(`problem leaks internals: ${response.text}`);
  return body;
}
