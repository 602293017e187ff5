/**
 * The timed-bidding bench's fixture (bench/bidding.ts): a timed auction of its own in tenant demo and a house of its
 * own for the storm (extension window 5 s), imported through the intake CLI before the service starts; member tokens
 * signed with the service's own secret (500 scrypt sign-ins would take minutes); the bids the loads send.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AutocannonRequest } from 'autocannon';
import { hashPassword } from '../src/security/passwords.ts';
import { TokenService } from '../src/security/tokens.ts';
import { ringKeys } from '../src/security/signing-keys.ts';
import type { KeyRing } from '../src/ports/key-ring.ts';
import { datasetEnv, type Dataset } from './dataset.ts';
import { runCli } from './processes.ts';

export const STORM_TENANT = 'benchstorm';
export const STORM_API_KEY = 'bench-storm-api-key-0123456789';
export const STORM_BACKOFFICE_KEY = 'bench-storm-backoffice-key-0123456789abcdef';
export const STORM_WINDOW_SECONDS = 5;
export const MEMBERS = 50;
export const STORM_MEMBERS = 500;
export const SPREAD_LOTS = 1000;
export const MAX_ROUNDS = 10;
/** Between two maxima on one lot: above the demo table's largest increment (2,500). */
export const STEP = 5000;
export const START = 10_000;

/** What one run imports: ids of its own, so runs never meet. */
export interface BiddingFixture {
  auctionId: number;
  spreadLots: number[];
  hotLots: number[];
  streamLot: number;
  members: number[];
  stormAuctionId: number;
  stormLotId: number;
  stormMembers: number[];
}

/** Imports the run's timed auction, lots, members and registrations (the service stopped). */
export async function importBiddingFixture(dataset: Dataset): Promise<BiddingFixture> {
  const run = Math.floor(Date.now() / 1000) % 100_000;
  const auctionId = 1_000_000 + run;
  const lotBase = 100_000_000 + run * 2_000;
  const fixture: BiddingFixture = {
    auctionId,
    spreadLots: Array.from({ length: SPREAD_LOTS }, (_, i) => lotBase + i),
    hotLots: Array.from({ length: MAX_ROUNDS }, (_, i) => lotBase + SPREAD_LOTS + i),
    streamLot: lotBase + SPREAD_LOTS + MAX_ROUNDS,
    members: Array.from({ length: MEMBERS }, (_, i) => 1_500_000_000 + run * 1_000 + i),
    stormAuctionId: auctionId,
    stormLotId: lotBase + SPREAD_LOTS + MAX_ROUNDS + 1,
    stormMembers: Array.from({ length: STORM_MEMBERS }, (_, i) => 1_500_000_000 + run * 1_000 + MEMBERS + i),
  };
  const now = Date.now();
  const at = new Date(now).toISOString();
  const passwordHash = await hashPassword('bench timed bidding member');
  const auction = (tenant: string) => ({
    kind: 'auction',
    tenant,
    auctionId,
    auctionType: 1,
    texts: { en: { title: `Bench timed sale ${run}`, description: 'Timed bidding under load.' } },
    startTime: new Date(now - 3600_000).toISOString(),
    endTime: new Date(now + 6 * 3600_000).toISOString(),
    currency: 'EUR',
    requiresTermsAcceptance: false,
    bidding: 'timed',
  });
  const lot = (tenant: string, lotId: number, n: number) =>
    lotRecord(tenant, auctionId, lotId, n + 1, `Bench lot ${n + 1}`, new Date(now + 6 * 3600_000).toISOString());
  const member = (tenant: string, memberId: number) => [
    {
      kind: 'member',
      tenant,
      memberId,
      email: `timed-${memberId}@example.com`,
      passwordHash,
      firstName: 'Timed',
      lastName: String(memberId),
      language: 'en',
      signedUpAt: at,
      confirmed: true,
      roles: ['bidder'],
    },
    { kind: 'registrationDecision', tenant, memberId, auctionId, status: 'approved', at },
  ];
  const records: unknown[] = [
    {
      kind: 'tenant',
      tenant: STORM_TENANT,
      name: 'Bench storm house',
      languages: ['en'],
      defaultLanguage: 'en',
      currency: 'EUR',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'storm@example.com',
      extensionWindowSeconds: STORM_WINDOW_SECONDS,
    },
    { kind: 'apiKey', key: STORM_API_KEY, name: 'bench storm', tenants: [STORM_TENANT] },
    { kind: 'backOfficeKey', tenant: STORM_TENANT, keyId: 'bench-storm', name: 'bench storm', key: STORM_BACKOFFICE_KEY },
    auction('demo'),
    auction(STORM_TENANT),
    ...[...fixture.spreadLots, ...fixture.hotLots, fixture.streamLot].map((id, n) => lot('demo', id, n)),
    ...fixture.members.flatMap((id) => member('demo', id)),
    ...fixture.stormMembers.flatMap((id) => member(STORM_TENANT, id)),
  ];
  const r = await runCli(
    'app/cli/import.ts',
    ['-'],
    datasetEnv(dataset, { LOG_LEVEL: 'warn' }),
    records.map((x) => JSON.stringify(x)).join('\n') + '\n',
  );
  if (r.code !== 0)
    throw new Error(`importing the bidding fixture failed (${r.code}): ${r.stdout.slice(0, 2000)} ${r.stderr.slice(-2000)}`);
  return fixture;
}

/** An intake `lot` record of a timed lot starting at START. */
export function lotRecord(tenant: string, auctionId: number, lotId: number, lotNumber: number, title: string, endTime: string) {
  return {
    kind: 'lot',
    tenant,
    lotId,
    auctionId,
    lotNumber,
    categoryId: null,
    texts: { en: { title, description: 'A lot bid on by the bench.' } },
    attributes: [],
    images: [],
    hotLot: false,
    vatFree: false,
    currency: 'EUR',
    startingPrice: START,
    estimateLow: null,
    estimateHigh: null,
    endTime,
    combiId: null,
    ownerId: null,
  };
}

/** Member tokens signed with the service's own key (its key ring, read from its DATA_DIR once it has started). */
export function memberTokens(dataset: Dataset, tenant: string, members: number[]): string[] {
  const ring = JSON.parse(fs.readFileSync(path.join(dataset.dataDir, 'secrets', 'keys.json'), 'utf8')) as KeyRing;
  const tokens = new TokenService(ringKeys(ring));
  return members.map((id) => tokens.issue('member', tenant, String(id)).Token);
}

export const bidBody = (lotId: number, amount: number) => JSON.stringify({ LotId: lotId, MaxAmount: amount });

/** Request n: member n mod 50 on `lotOf(n)`, each lot's maxima rising by STEP in the order the requests are made. */
export function bidRequests(tokens: string[], lotOf: (n: number) => number): AutocannonRequest[] {
  let n = 0;
  const sent = new Map<number, number>();
  return [
    {
      method: 'POST',
      setupRequest: (req) => {
        const i = n++;
        const lotId = lotOf(i);
        const count = (sent.get(lotId) ?? 0) + 1;
        sent.set(lotId, count);
        return {
          ...req,
          method: 'POST',
          path: '/v1/me/bids',
          headers: { ...req.headers, Authorization: `Bearer ${tokens[(i * 7) % tokens.length]}` },
          body: bidBody(lotId, START + count * STEP),
        };
      },
    },
  ];
}
