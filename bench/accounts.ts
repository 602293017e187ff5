/**
 * `npm run bench -- --only accounts`: scrypt alone in this process (sequential and 8 asked at once), then
 * sign-up + confirmation (the key read from the outbox, as a person would) + sign-in as a flow, 4 flows at
 * once for --duration s, each flow from its own client address (the service runs with TRUST_PROXY=true and
 * the bench sends X-Forwarded-For, as a proxy in front of many bidders would); meanwhile the lot page at 10
 * connections, against the same load measured alone just before: the event loop's responsiveness while
 * scrypt runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { API_KEY } from './dataset.ts';
import { lotPageRequests } from './loads.ts';
import { say, sleep } from './processes.ts';
import type { ServiceClient } from './service-client.ts';
import { fmt, median } from './stats.ts';

export interface AccountsResult {
  /** The service's own hashPassword: one at a time, and 8 asked at once (it runs cores − 1 at a time). */
  scrypt: { sequentialMedianMs: number; parallel4PerSecond: number };
  flows: { completed: number; failed: number; seconds: number; perSecond: number; medianMs: number; p90Ms: number; failures: string[] };
  lotPageAlone: { rps: number; p50: number; p99: number };
  lotPageDuringFlows: { rps: number; p50: number; p99: number };
}

/** The newest confirmation key mailed to an address, from the outbox files (new files only, polled). */
function outboxReader(dir: string) {
  const seen = new Set<string>();
  const keys = new Map<string, string>();
  return async (email: string, timeoutMs = 15_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = keys.get(email);
      if (found) return found;
      for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
        if (seen.has(name) || !name.startsWith('mail-')) continue;
        seen.add(name);
        try {
          const mail = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { To: string; Subject: string | null; Body: string };
          const key = mail.Body.split('\n')
            .map((l) => l.trim())
            .find((l) => /^[A-Za-z0-9_-]{32}$/.test(l));
          if (key && /confirm/i.test(mail.Subject ?? '')) keys.set(mail.To, key);
        } catch {
          seen.delete(name); // half written: read it again next time
        }
      }
      if (Date.now() > deadline) throw new Error(`no confirmation mail for ${email} within ${timeoutMs} ms`);
      await sleep(20);
    }
  };
}

export async function accounts(client: ServiceClient, anon: string, duration: number, dataDir: string): Promise<AccountsResult> {
  const scrypt = await scryptAlone();
  const lotLoad = (label: string) =>
    autocannon({
      url: client.url('/'),
      connections: 10,
      duration: duration,
      headers: { 'Api-Key': API_KEY, Authorization: `Bearer ${anon}` },
      requests: lotPageRequests(),
    }).then((r) => {
      const out = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
      say(`  lot page at 10 connections, ${label}: ${fmt(out.rps)} req/s, p50 ${out.p50} ms, p99 ${out.p99} ms`);
      return out;
    });
  const lotPageAlone = await lotLoad('alone');

  const mailKey = outboxReader(path.join(dataDir, 'outbox'));
  const run = `${Date.now().toString(36)}`;
  let n = 0;
  const times: number[] = [];
  const failures: string[] = [];
  const deadline = performance.now() + duration * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        const started = performance.now();
        await signUpFlow(client, anon, mailKey, `flow-${run}-`, n++);
        times.push(performance.now() - started);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  say(`accounts: sign-up + confirmation + sign-in flows, 4 at once for ${duration} s, with the lot page load beside them`);
  const flowsStarted = performance.now();
  const [lotPageDuringFlows] = await Promise.all([lotLoad('during the flows'), Promise.all(Array.from({ length: 4 }, worker))]);
  const seconds = (performance.now() - flowsStarted) / 1000;
  const sorted = [...times].sort((a, b) => a - b);
  const flows = {
    completed: times.length,
    failed: failures.length,
    seconds,
    perSecond: times.length / seconds,
    medianMs: median(times),
    p90Ms: sorted[Math.floor(sorted.length * 0.9)] ?? NaN,
    failures: failures.slice(0, 5),
  };
  say(
    `  ${flows.completed} flows in ${seconds.toFixed(1)} s: ${fmt(flows.perSecond, 1)}/s, median ${fmt(flows.medianMs)} ms, p90 ${fmt(flows.p90Ms)} ms, ${flows.failed} failed`,
  );
  return { scrypt, flows, lotPageAlone, lotPageDuringFlows };
}

/** The service's own hashPassword in this process: five one at a time, then 8 asked at once. */
async function scryptAlone(): Promise<AccountsResult['scrypt']> {
  const { hashPassword } = await import('../src/security/passwords.ts');
  say('accounts: scrypt (N=2^17, r=8, p=1) in this process');
  const sequential: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await hashPassword(`bench-password-${i}`);
    sequential.push(performance.now() - started);
  }
  const parallelStarted = performance.now();
  await Promise.all(Array.from({ length: 8 }, (_, i) => hashPassword(`bench-parallel-${i}`)));
  const parallel4PerSecond = 8 / ((performance.now() - parallelStarted) / 1000);
  say(
    `  one hash ${fmt(median(sequential))} ms; ${fmt(parallel4PerSecond, 1)} hashes/s for 8 asked at once (the service runs cores − 1 = ${Math.max(1, os.availableParallelism() - 1)} at a time)`,
  );
  return { sequentialMedianMs: median(sequential), parallel4PerSecond };
}

/** Flow i: sign-up, confirmation with the key mailed, sign-in, from a client address of its own. */
async function signUpFlow(client: ServiceClient, anon: string, mailKey: (email: string) => Promise<string>, prefix: string, i: number) {
  const email = `${prefix}${i}@example.com`;
  const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const headers = { Authorization: `Bearer ${anon}`, 'X-Forwarded-For': address };
  const password = `flow-password-${i}-long`;
  const signUp = await client.call('POST', '/v1/members', headers, {
    Email: email,
    Password: password,
    FirstName: 'Flow',
    LastName: `Bidder ${i}`,
    Language: 'en',
  });
  if (signUp.status !== 200) throw new Error(`sign-up ${signUp.status} ${JSON.stringify(signUp.body).slice(0, 200)}`);
  const key = await mailKey(email);
  const confirm = await client.call('POST', '/v1/members/confirmation', headers, { Email: email, Key: key });
  if (confirm.status !== 200) throw new Error(`confirmation ${confirm.status} ${JSON.stringify(confirm.body).slice(0, 200)}`);
  const signIn = await client.call('POST', '/v1/sessions', headers, { Email: email, Password: password });
  if (signIn.status !== 200) throw new Error(`sign-in ${signIn.status} ${JSON.stringify(signIn.body).slice(0, 200)}`);
}
