/** The service as the bench starts it: its environment and Node.js flags, and a (re)start timed to /readyz 200. */
import fs from 'node:fs';
import { datasetEnv, type Dataset } from './dataset.ts';
import { opts } from './options.ts';
import { memoryOf, say, startProcess, waitFor200, type Memory, type Proc } from './processes.ts';
import { ServiceClient } from './service-client.ts';

/** The Node.js flags `npm start` runs the service with (package.json), so the bench measures the same process. */
const SERVICE_NODE_FLAGS = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start as string)
  .split(/\s+/)
  .filter((flag) => flag.startsWith('--max-old-space-size'));

function serviceEnv(dataset: Dataset, apiProcesses: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  // TRUST_PROXY: the accounts step sends each flow from its own address (X-Forwarded-For), as bidders behind a proxy.
  return datasetEnv(dataset, {
    // One process unless asked otherwise, so that every figure stays comparable with the figures in docs/performance.md.
    API_PROCESSES: apiProcesses,
    PORT: String(opts.port),
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    LOG_LEVEL: opts.logLevel,
    TRUST_PROXY: 'true',
    // The back-office step's webhooks go to a receiver on 127.0.0.1, and the push step's pushes to a push service there.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    PUSH_ENDPOINT_HOSTS: '127.0.0.1',
    PUSH_ALLOW_PRIVATE: 'true',
    ...extra,
  });
}

export function startService(
  name: string,
  dataset: Dataset,
  extraFlags: string[] = [],
  apiProcesses = '1',
  extraEnv: Record<string, string> = {},
): Proc {
  return startProcess(name, 'app/main.ts', serviceEnv(dataset, apiProcesses, extraEnv), [...SERVICE_NODE_FLAGS, ...extraFlags]);
}

export interface RestartResult {
  readySeconds: number;
  lotPageStatus: number;
  memoryAtReady: Memory | null;
}

export async function restart(name: string, dataset: Dataset): Promise<RestartResult & { proc: Proc }> {
  const proc = startService(name, dataset);
  const readyMs = await waitFor200(proc, `http://127.0.0.1:${opts.port}/readyz`, 5 * 60_000);
  const client = new ServiceClient(opts.port);
  const check = await client.call('GET', '/v1/lots?AuctionId=1&pageSize=20', { Authorization: `Bearer ${await client.anonymousToken()}` });
  say(`  ${name}: ready after ${(readyMs / 1000).toFixed(2)} s, lot page ${check.status}`);
  return { proc, readySeconds: readyMs / 1000, lotPageStatus: check.status, memoryAtReady: memoryOf(proc.pid) };
}
