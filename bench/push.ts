/**
 * A sale's worth of pushes (PUSH.md): 5,000 members of a house of the bench's own, each with one push subscription
 * (a P-256 key pair of its own) at a push service of the bench's own on 127.0.0.1 that answers 201, all bidding on
 * one timed lot. The lot is then catalogued again to end 3 s later (back-office intake), and its close pushes `won`
 * to one member and `lost` to 4,999, each encrypted for its subscription. Measured: from the lot's end time to the
 * last of those 5,000 taken by the push service, the service's CPU (all its processes) over that time per push, and,
 * in this process, what the encryption and POST body of one push cost alone (the `web-push` package).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createECDH, randomBytes } from 'node:crypto';
import webpush from 'web-push';
import { hashPassword } from '../src/security/passwords.ts';
import { datasetEnv, type Dataset } from './dataset.ts';
import { memberTokens } from './bidding-fixture.ts';
import { cpuSecondsOfTree, runCli, say, sleep } from './processes.ts';
import type { ServiceClient } from './service-client.ts';

const TENANT = 'benchpush';
const API_KEY = 'bench-push-api-key-0123456789';
const BACKOFFICE_KEY = 'bench-push-backoffice-key-0123456789abcdef';
export const PUSH_MEMBERS = 5000;
/** Between two maxima: above the largest increment of the default table (10,000). */
const BID_STEP = 25_000;

export interface PushFixture {
  auctionId: number;
  lotId: number;
  members: number[];
}

export interface PushResult {
  subscriptions: number;
  bidders: number;
  /** From the lot's end time to the last won/lost push the push service took. */
  secondsToLast: number;
  /** From the lot's end time to the first. */
  secondsToFirst: number;
  pushes: number;
  pushesPerSecond: number;
  /** The service's CPU over that time, per push. */
  cpuMsPerPush: number;
  /** In this process: encrypting one payload for a subscription (ECDH, HKDF, AES-GCM). */
  encryptMsPerPush: number;
}

/** Imports the step's house, its Api-Key and back-office key, a timed auction with one lot, and 5,000 registered members. */
export async function importPushFixture(dataset: Dataset): Promise<PushFixture> {
  const run = Math.floor(Date.now() / 1000) % 100_000;
  const fixture: PushFixture = {
    auctionId: 2_000_000 + run,
    lotId: 200_000_000 + run,
    members: Array.from({ length: PUSH_MEMBERS }, (_, i) => 1_800_000_000 + (run % 20) * 10_000 + i),
  };
  const now = Date.now();
  const at = new Date(now).toISOString();
  const passwordHash = await hashPassword('bench push member');
  const records: unknown[] = [
    {
      kind: 'tenant',
      tenant: TENANT,
      name: 'Bench push house',
      languages: ['en', 'sv'],
      defaultLanguage: 'en',
      currency: 'EUR',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'push@bench.example',
      extensionWindowSeconds: 1,
    },
    { kind: 'apiKey', key: API_KEY, name: 'bench push', tenants: [TENANT] },
    { kind: 'backOfficeKey', tenant: TENANT, keyId: 'bench-push', name: 'bench push', key: BACKOFFICE_KEY },
    {
      kind: 'auction',
      tenant: TENANT,
      auctionId: fixture.auctionId,
      auctionType: 1,
      texts: { en: { title: `Bench push sale ${run}`, description: '' } },
      startTime: new Date(now - 3600_000).toISOString(),
      endTime: new Date(now + 6 * 3600_000).toISOString(),
      currency: 'EUR',
      requiresTermsAcceptance: false,
      bidding: 'timed',
    },
    lotRecord(fixture, new Date(now + 6 * 3600_000).toISOString()),
    ...fixture.members.flatMap((memberId, i) => [
      {
        kind: 'member',
        tenant: TENANT,
        memberId,
        email: `push-${memberId}@example.com`,
        passwordHash,
        firstName: 'Push',
        lastName: String(memberId),
        language: i % 2 === 0 ? 'en' : 'sv',
        signedUpAt: at,
        confirmed: true,
        roles: ['bidder'],
      },
      { kind: 'registrationDecision', tenant: TENANT, memberId, auctionId: fixture.auctionId, status: 'approved', at },
    ]),
  ];
  const r = await runCli(
    'app/cli/import.ts',
    ['-'],
    datasetEnv(dataset, { LOG_LEVEL: 'warn' }),
    records.map((x) => JSON.stringify(x)).join('\n') + '\n',
  );
  if (r.code !== 0) throw new Error(`importing the push fixture failed (${r.code}): ${r.stdout.slice(0, 2000)} ${r.stderr.slice(-2000)}`);
  return fixture;
}

function lotRecord(fixture: PushFixture, endTime: string) {
  return {
    kind: 'lot',
    tenant: TENANT,
    lotId: fixture.lotId,
    auctionId: fixture.auctionId,
    lotNumber: 1,
    categoryId: null,
    texts: {
      en: { title: 'A lot 5,000 bidders want', description: '' },
      sv: { title: 'Ett rop 5 000 budgivare vill ha', description: '' },
    },
    attributes: [],
    images: [],
    hotLot: true,
    vatFree: false,
    currency: 'EUR',
    startingPrice: 1000,
    estimateLow: null,
    estimateHigh: null,
    endTime,
    combiId: null,
    ownerId: null,
  };
}

/** The bench's push service: takes every POST with 201 and notes when each came and its Topic (which is not encrypted). */
async function startPushService() {
  const taken: Array<{ topic: string; at: number }> = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      taken.push({ topic: String(req.headers.topic ?? ''), at: Date.now() });
      res.writeHead(201).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, taken, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** Runs `work` over 0 … n−1, `limit` at a time. */
async function inTurn(n: number, limit: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

export async function pushBench(client: ServiceClient, dataset: Dataset, fixture: PushFixture, pid: number): Promise<PushResult> {
  const pushService = await startPushService();
  try {
    const tokens = memberTokens(dataset, TENANT, fixture.members);
    const call = (i: number, method: string, p: string, body: unknown) =>
      client.call(method, p, { 'Api-Key': API_KEY, Authorization: `Bearer ${tokens[i]}` }, body);
    let subscribed = 0;
    await inTurn(PUSH_MEMBERS, 20, async (i) => {
      const browser = createECDH('prime256v1');
      browser.generateKeys();
      const keys = { p256dh: browser.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
      const r = await call(i, 'PUT', '/v1/me/push-subscriptions', {
        endpoint: `${pushService.origin}/push/${i}`,
        expirationTime: null,
        keys,
      });
      if (r.status === 200) subscribed += 1;
    });
    say(`  push: ${subscribed} subscriptions; ${PUSH_MEMBERS} bids on one lot, each above the last`);
    // Each bid above every one sent before it (far above the largest increment); one that arrived after a higher one
    // is refused as too low and sent again higher.
    let bidders = 0;
    let amount = 1000;
    await inTurn(PUSH_MEMBERS, 8, async (i) => {
      for (let tries = 0; tries < 5; tries++) {
        const r = await call(i, 'POST', '/v1/me/bids', { LotId: fixture.lotId, MaxAmount: (amount += BID_STEP) });
        if (r.status === 200) return void (bidders += 1);
      }
    });
    // The outbid pushes of the bidding go out first: the close is measured on a quiet service.
    let seen = -1;
    while (seen !== pushService.taken.length) {
      seen = pushService.taken.length;
      await sleep(2000);
    }
    const end = Date.now() + 3000;
    const intake = await fetch(client.url('/backoffice/v1/intake'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${BACKOFFICE_KEY}`, 'Content-Type': 'application/x-ndjson' },
      body: JSON.stringify(lotRecord(fixture, new Date(end).toISOString())) + '\n',
    });
    if (intake.status !== 200) throw new Error(`the lot's new end time: ${intake.status} ${await intake.text()}`);
    await sleep(end - Date.now());
    const cpu0 = cpuSecondsOfTree(pid);
    const settled = () => pushService.taken.filter((t) => /^(won|lost)-/.test(t.topic));
    const deadline = Date.now() + 10 * 60_000;
    while (settled().length < bidders && Date.now() < deadline) await sleep(200);
    const cpu1 = cpuSecondsOfTree(pid);
    const closes = settled();
    const last = Math.max(...closes.map((t) => t.at));
    const first = Math.min(...closes.map((t) => t.at));
    return {
      subscriptions: subscribed,
      bidders,
      secondsToLast: (last - end) / 1000,
      secondsToFirst: (first - end) / 1000,
      pushes: closes.length,
      pushesPerSecond: closes.length / ((last - end) / 1000),
      cpuMsPerPush: ((cpu1 - cpu0) * 1000) / closes.length,
      encryptMsPerPush: encryptCost(),
    };
  } finally {
    await pushService.close();
  }
}

/** Milliseconds of this process's CPU to encrypt one payload of a push for a subscription (web-push's aes128gcm). */
function encryptCost(): number {
  const browser = createECDH('prime256v1');
  browser.generateKeys();
  const [p256dh, auth] = [browser.getPublicKey().toString('base64url'), randomBytes(16).toString('base64url')];
  const payload = JSON.stringify({
    type: 'lost',
    title: 'Lot 1 has closed',
    body: 'A lot 5,000 bidders want: another bidder won it.',
    lotId: 1,
  });
  const n = 2000;
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) webpush.encrypt(p256dh, auth, payload, 'aes128gcm');
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}
