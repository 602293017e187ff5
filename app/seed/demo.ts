import { DEFAULT_INCREMENTS } from '../../commands/bidding/rules.ts';
import fs from 'node:fs';
import type { EventLog } from '../../src/ports/event-log.ts';
import { type IntakeRecord, importLines, importRecord } from '../features/intake.ts';
import { randomSecret } from '../../src/security/passwords.ts';
import type { FileStore } from '../../src/ports/files.ts';
import { generateCatalogue, type AuctionPlan } from './generator.ts';
import { demoDocumentRecords } from './demo-documents.ts';
import { interfaceDictionary } from './interface-dictionary.ts';
import { demoMembersRecords } from './demo-members.ts';
import { demoProfileRecords } from './demo-profile.ts';
import { demoPhoneVerificationRecords } from './demo-phone-verification.ts';
import { demoRegistrationsRecords } from './demo-registrations.ts';
import { demoIdentityDocumentsRecords } from './demo-identity-documents.ts';
import { demoInvoicesRecords } from './demo-invoices.ts';
import { demoNotificationsRecords } from './demo-notifications.ts';
import { writePrivateFileSync } from '../../src/private-files.ts';
import { demoCostRulesRecords, withDemoCosts } from './demo-costs.ts';

export interface DemoCredentials {
  apiKey: string;
  memberEmail: string;
  memberPassword: string;
  clientId: string;
  clientSecret: string;
  /** The back-office key of each public demo tenant (`Authorization: Bearer <key>` on /backoffice/v1). */
  backOfficeKeys: { demo: string; demo2: string };
}

export const DEMO_TENANTS = ['demo', 'demo2', 'demo-closed'] as const;
export const DEMO_MEMBER_EMAIL = 'bidder@example.com';

/**
 * The demo credentials: from DEMO_API_KEY / DEMO_MEMBER_PASSWORD / DEMO_CLIENT_SECRET / DEMO_BACKOFFICE_KEY (tenant
 * demo) / DEMO2_BACKOFFICE_KEY (tenant demo2) when set, else random ones made at the first start and kept (mode 600)
 * in DATA_DIR/secrets/. `made`: some of them were made by this call (the start that prints them, app/main.ts).
 */
export function keptDemoCredentials(file: string, env: NodeJS.ProcessEnv = process.env): { credentials: DemoCredentials; made: boolean } {
  const stored: Partial<DemoCredentials> = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  let made = false;
  const make = (value: string) => {
    made = true;
    return value;
  };
  const credentials: DemoCredentials = {
    apiKey: env.DEMO_API_KEY || stored.apiKey || make(`demo-${randomSecret(18)}`),
    memberEmail: DEMO_MEMBER_EMAIL,
    memberPassword: stored.memberPassword || env.DEMO_MEMBER_PASSWORD || make(randomSecret(12)),
    clientId: 'demo-web',
    clientSecret: env.DEMO_CLIENT_SECRET || stored.clientSecret || make(randomSecret(24)),
    backOfficeKeys: {
      demo: env.DEMO_BACKOFFICE_KEY || stored.backOfficeKeys?.demo || make(`bo-${randomSecret(24)}`),
      demo2: env.DEMO2_BACKOFFICE_KEY || stored.backOfficeKeys?.demo2 || make(`bo-${randomSecret(24)}`),
    },
  };
  if (JSON.stringify(stored) !== JSON.stringify(credentials)) writePrivateFileSync(file, JSON.stringify(credentials, null, 2));
  return { credentials, made };
}

/** The demo credentials (keptDemoCredentials), made and kept when there are none yet. */
export function demoCredentials(file: string, env: NodeJS.ProcessEnv = process.env): DemoCredentials {
  return keptDemoCredentials(file, env).credentials;
}

/** The demo Api-Key kept by an earlier start (demoCredentials), without making one; null when none is kept yet. */
export function storedDemoApiKey(file: string): string | null {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DemoCredentials>).apiKey ?? null;
  } catch {
    return null;
  }
}

/**
 * The demo tenant's auctions: current (one live), upcoming and closed; two require accepted terms; the house
 * approves registrations for auction 3 by hand. The timed auction is apart (DEMO_TIMED_AUCTION).
 */
export const DEMO_AUCTIONS: AuctionPlan[] = [
  {
    id: 1,
    title: { en: 'Spring Design Sale', sv: 'Vårens designauktion', de: 'Frühjahrs-Designauktion' },
    startsIn: -72,
    endsIn: 24 * 10,
    lots: 400,
    requiresTerms: false,
  },
  {
    id: 2,
    title: { en: 'Live Fine Art Evening', sv: 'Levande konstafton', de: 'Live-Kunstabend' },
    startsIn: -2,
    endsIn: 6,
    lots: 200,
    requiresTerms: true,
    live: true,
  },
  {
    id: 3,
    title: { en: 'Summer Classics', sv: 'Sommarklassiker', de: 'Sommerklassiker' },
    startsIn: 24 * 7,
    endsIn: 24 * 21,
    lots: 250,
    requiresTerms: false,
    manualApproval: true,
  },
  {
    id: 4,
    title: { en: 'Winter Silver and Jewellery', sv: 'Vinterns silver och smycken', de: 'Winter: Silber und Schmuck' },
    startsIn: -24 * 40,
    endsIn: -24 * 30,
    lots: 250,
    requiresTerms: false,
  },
  {
    id: 5,
    title: { en: "Collectors' Week", sv: 'Samlarveckan', de: 'Sammlerwoche' },
    startsIn: 24 * 3,
    endsIn: 24 * 12,
    lots: 120,
    requiresTerms: true,
  },
];

/**
 * The demo tenant's auction in `timed` mode (API.md "Demo data"): current, no terms, registrations approved at
 * once, lots open for days, a reserve on every third lot; its lots are numbered from DEMO_TIMED_FIRST_LOT.
 */
export const DEMO_TIMED_AUCTION: AuctionPlan = {
  id: 10,
  title: { en: 'Timed Online Sale', sv: 'Nätauktion med sluttid', de: 'Online-Auktion mit Endzeit' },
  startsIn: -24,
  endsIn: 24 * 5,
  lots: 60,
  requiresTerms: false,
  timed: true,
};
export const DEMO_TIMED_FIRST_LOT = 2001;

/** Lots of the demo tenant with a condition report. */
export const DEMO_CONDITION_REPORT_LOTS = [1, 2, 3, 12, 401, 402, 851];

/** Every record of the demo data, for a given "now" (auction times are relative to it). */
export function* demoRecords(credentials: DemoCredentials, now: Date): Generator<IntakeRecord> {
  yield* demoTenantRecords();
  yield { kind: 'apiKey', key: credentials.apiKey, name: 'demo', tenants: [...DEMO_TENANTS] };
  yield* backOfficeKeyRecords(credentials);
  yield {
    kind: 'application',
    tenant: 'demo',
    clientId: credentials.clientId,
    name: 'Demo website',
    clientSecret: credentials.clientSecret,
  };
  yield* demoCatalogueRecords(now);
  for (const language of ['en', 'sv', 'de'] as const)
    yield { kind: 'translations', tenant: 'demo', language, entries: interfaceDictionary[language] };
  yield { kind: 'translations', tenant: 'demo2', language: 'en', entries: interfaceDictionary.en };
  yield* demoMemberRecords(credentials, now);
}

/** The demo houses: `demo` (three languages, timed bidding's settings), `demo2` and the closed `demo-closed`. */
function* demoTenantRecords(): Generator<IntakeRecord> {
  yield {
    kind: 'tenant',
    tenant: 'demo',
    name: 'Demo Auctions',
    languages: ['en', 'sv', 'de'],
    defaultLanguage: 'en',
    currency: 'EUR',
    pageSize: 20,
    publicAccess: true,
    contactEmail: 'contact@demo.example.com',
    country: 'NL',
    vatRate: 21,
    increments: [...DEFAULT_INCREMENTS],
    extensionWindowSeconds: 120,
  };
  yield {
    kind: 'tenant',
    tenant: 'demo2',
    name: 'Second Demo House',
    languages: ['en'],
    defaultLanguage: 'en',
    currency: 'SEK',
    pageSize: 20,
    publicAccess: true,
    contactEmail: 'contact@demo2.example.com',
    country: 'SE',
    vatRate: 25,
  };
  yield {
    kind: 'tenant',
    tenant: 'demo-closed',
    name: 'Closed Demo House',
    languages: ['en'],
    defaultLanguage: 'en',
    currency: 'EUR',
    pageSize: 20,
    publicAccess: false,
    contactEmail: 'contact@closed.example.com',
  };
}

/** The demo houses' catalogues: `demo`'s auctions with their costs, its timed auction, and `demo2`'s one auction. */
function* demoCatalogueRecords(now: Date): Generator<IntakeRecord> {
  // The house's cost rules before its lots, which name its shipping classes (app/seed/demo-costs.ts).
  yield* demoCostRulesRecords();
  for (const record of generateCatalogue({
    tenant: 'demo',
    languages: ['en', 'sv', 'de'],
    currency: 'EUR',
    now,
    seed: 42,
    consignerId: 1,
    consignedEvery: 40,
    combination: { combiId: 1, lotIds: [201, 202, 203] },
    auctions: DEMO_AUCTIONS,
  }))
    yield withDemoCosts(record);
  // The same categories again (their records are equal: nothing is appended), then the timed auction's lots.
  for (const record of generateCatalogue({
    tenant: 'demo',
    languages: ['en', 'sv', 'de'],
    currency: 'EUR',
    now,
    seed: 43,
    firstLotId: DEMO_TIMED_FIRST_LOT,
    auctions: [DEMO_TIMED_AUCTION],
  }))
    yield withDemoCosts(record);
  yield* generateCatalogue({
    tenant: 'demo2',
    languages: ['en'],
    currency: 'SEK',
    now,
    seed: 7,
    consignerId: 1,
    consignedEvery: 10,
    auctions: [{ id: 1, title: { en: 'Nordic Modern', sv: '', de: '' }, startsIn: -24, endsIn: 24 * 5, lots: 60, requiresTerms: false }],
  });
}

/** The demo bidder, a member of `demo` and `demo2`. */
function* demoMemberRecords(credentials: DemoCredentials, now: Date): Generator<IntakeRecord> {
  const ago = (days: number) => new Date(now.getTime() - days * 86400_000).toISOString();
  for (const tenant of ['demo', 'demo2'] as const) {
    yield {
      kind: 'member',
      tenant,
      memberId: 1,
      email: DEMO_MEMBER_EMAIL,
      password: credentials.memberPassword,
      firstName: 'Demo',
      lastName: 'Bidder',
      language: 'en',
      phone: '+46700000001',
      signedUpAt: ago(100),
      confirmed: true,
      roles: ['bidder', 'consigner'],
    };
  }
}

/**
 * The demo records of the bidder's-account features (registrations, identity documents, invoices, ...), after
 * the catalogue and the members they refer to.
 */
export function* demoAccountRecords(now: Date): Generator<{ kind: string } & Record<string, unknown>> {
  yield* demoMembersRecords(now);
  yield* demoProfileRecords(now);
  yield* demoPhoneVerificationRecords(now);
  yield* demoRegistrationsRecords(now);
  yield* demoIdentityDocumentsRecords(now);
  yield* demoInvoicesRecords(now);
  yield* demoNotificationsRecords(now);
}

/** The demo back-office keys' records: one key (`demo`) for each public demo tenant. */
function backOfficeKeyRecords(credentials: DemoCredentials) {
  return (['demo', 'demo2'] as const).map((tenant) => ({
    kind: 'backOfficeKey' as const,
    tenant,
    keyId: 'demo',
    name: 'demo back office',
    key: credentials.backOfficeKeys[tenant],
  }));
}

/** Seeds an empty log; on a non-empty one only makes sure the current demo Api-Key and back-office keys are issued. */
export async function seedDemo({ log, files }: { log: EventLog; files: FileStore }, credentials: DemoCredentials, now = new Date()) {
  if ((await log.headPosition()) > 0) {
    let { position } = await importRecord(log, { kind: 'apiKey', key: credentials.apiKey, name: 'demo', tenants: [...DEMO_TENANTS] });
    for (const record of backOfficeKeyRecords(credentials)) position = Math.max(position, (await importRecord(log, record)).position);
    return { seeded: false, position };
  }
  const documents = await demoDocumentRecords(DEMO_AUCTIONS, DEMO_CONDITION_REPORT_LOTS);
  const lines = (function* () {
    for (const record of demoRecords(credentials, now)) yield JSON.stringify(record);
    for (const record of documents) yield JSON.stringify(record);
    for (const record of demoAccountRecords(now)) yield JSON.stringify(record);
  })();
  const report = await importLines(log, lines, undefined, { files });
  if (report.errors.length) throw new Error(`demo seed failed: ${JSON.stringify(report.errors.slice(0, 3))}`);
  return { seeded: true, position: report.position };
}
