/**
 * The service as operators run it: the real entry point (app/main.ts, or `npm start`) in a child process of
 * its own, on a DATA_DIR, answering over loopback. For what only shows across processes: a client and a server
 * that do not share an event loop, signals, pipes, several roles on one folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { readResponse, type TestResponse } from './server.ts';

export const SERVICE_API_KEY = 'service-test-key-0123456789';
export const SERVICE_PASSWORD = 'service-test-password';
/** OPERATOR_TOKEN of every spawned service but a `plain` one: /metrics and /readyz's details on PORT (`OPERATOR`). */
export const SERVICE_OPERATOR_TOKEN = 'service-test-operator-token-0123456789';
export const OPERATOR = { Authorization: `Bearer ${SERVICE_OPERATOR_TOKEN}` };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface ServiceProcess {
  role: string;
  port: number;
  base: string;
  child: ChildProcess;
  /** Standard output and error so far (empty when they are not read). */
  output(): string;
  /** How the process ended: its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServiceOptions {
  role?: string;
  port: number;
  dataDir: string;
  env?: Record<string, string>;
  /** `npm start` (as a user runs it) rather than node on app/main.ts. */
  npm?: boolean;
  /** In a process group of its own (signals to the group, as a supervisor sends them). */
  detached?: boolean;
  /**
   * Without ROLE and the demo credentials (only what `env` gives), as a user's shell starts it; still one
   * process, as every spawned service unless `env` sets API_PROCESSES (test/roles/api-processes.test.ts).
   */
  plain?: boolean;
  /** Started under this umask (a shell sets it, then runs the service), e.g. 0 to see the modes the service sets itself. */
  umask?: number;
}

export function startService(options: ServiceOptions): ServiceProcess {
  const role = options.role ?? 'all';
  let [command, args] = options.npm ? ['npm', ['start', '--silent']] : [process.execPath, ['--import', 'tsx', 'app/main.ts']];
  if (options.umask !== undefined)
    [command, args] = ['sh', ['-c', `umask ${options.umask.toString(8).padStart(3, '0')} && exec "$0" "$@"`, command, ...args]];
  const child = spawn(command, args, {
    env: {
      ...process.env,
      ...(options.plain
        ? {}
        : { ROLE: role, DEMO_API_KEY: SERVICE_API_KEY, DEMO_MEMBER_PASSWORD: SERVICE_PASSWORD, OPERATOR_TOKEN: SERVICE_OPERATOR_TOKEN }),
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      // One process whatever the machine's cores (`all` would fork API_PROCESSES=auto api processes).
      API_PROCESSES: '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { role, port: options.port, base: `http://127.0.0.1:${options.port}`, child, output: () => output, exited };
}

/** Waits until the process answers /readyz with 200 (or, given `printed`, shows that text in its output); fails at once when it exits. */
export async function ready(proc: ServiceProcess, timeoutMs = 90_000, printed?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exit: { code: number | null } | undefined;
  void proc.exited.then((e) => (exit = e));
  const answers = async () => {
    try {
      return (await fetch(`${proc.base}/readyz`)).status === 200;
    } catch {
      return false; // not listening yet
    }
  };
  while (Date.now() < deadline) {
    if (exit) throw new Error(`${proc.role} exited ${exit.code}: ${proc.output()}`);
    if (printed !== undefined ? proc.output().includes(printed) : await answers()) return;
    await sleep(100);
  }
  throw new Error(`${proc.role} not ready: ${proc.output()}`);
}

/** Resolves with how the process ended, or with null when it still runs after `ms`. */
export function exitWithin(proc: ServiceProcess, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null } | null> {
  return Promise.race([proc.exited, sleep(ms).then(() => null)]);
}

/** A JSON call with the test Api-Key (and a bearer token). */
export async function call(base: string, method: string, url: string, token: string | null, body?: unknown): Promise<TestResponse> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      'Api-Key': SERVICE_API_KEY,
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return readResponse(response);
}
/** The demo member's token, signed in through the process. */
export async function demoMemberToken(base: string, tenant = 'demo'): Promise<string> {
  const anonymous = await call(base, 'POST', '/v1/tokens/anonymous', null, { clientId: tenant });
  if (anonymous.status !== 200) throw new Error(`anonymous token: ${anonymous.status} ${anonymous.text}`);
  const session = await call(base, 'POST', '/v1/sessions', anonymous.body.Token, {
    Email: 'bidder@example.com',
    Password: SERVICE_PASSWORD,
  });
  if (session.status !== 200) throw new Error(`sign-in: ${session.status} ${session.text}`);
  return session.body.Token;
}

/** `n` consecutive free ports on 127.0.0.1 (METRICS_PORT and the api processes' after it). */
export async function freePortRun(n: number): Promise<number> {
  const bind = (port: number) =>
    new Promise<net.Server | null>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(null));
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  for (let tries = 0; tries < 50; tries++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const bound: net.Server[] = [];
    for (let i = 0; i < n; i++) {
      const server = await bind(base + i);
      if (!server) break;
      bound.push(server);
    }
    await Promise.all(bound.map((s) => new Promise((resolve) => s.close(resolve))));
    if (bound.length === n) return base;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

/** A call on a connection of its own: the cluster hands each connection to the next api process. */
export function fresh(
  port: number,
  method: string,
  url: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        agent: false,
        headers: {
          'Api-Key': SERVICE_API_KEY,
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Requests one process answered, by operation id (from its own /metrics). */
export async function answered(metricsPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const [, labels, value] of text.matchAll(/^bidder_http_requests_total\{([^}]*)\} (\d+)$/gm)) {
    const operation = /operation="([^"]*)"/.exec(labels)![1];
    if (operation !== 'none') counts.set(operation, (counts.get(operation) ?? 0) + Number(value));
  }
  return counts;
}
