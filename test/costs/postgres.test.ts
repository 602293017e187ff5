/**
 * The cost estimate on PostgreSQL's read models (its rules in `jsonb`, the lot's cost fields beside it): example 1 of
 * COSTS.md to the cent, as on the embedded default. Skipped when no PostgreSQL answers at POSTGRES_TEST_URL (default:
 * the local one).
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { importLines, importRecord } from '../../app/features/intake.ts';
import { demoRecords } from '../../app/seed/demo.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { COSTS_MD_RULES } from './demo-rules.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function postgresAnswers(): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: URL, max: 1, connectionTimeoutMillis: 2000 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await pool.end();
  }
}

describe('the cost estimate on PostgreSQL', function () {
  this.timeout(180_000);
  const schema = `bidder_costs_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  let server: TestServer;

  before(async function () {
    if (!(await postgresAnswers())) {
      console.log(`      (no PostgreSQL at ${URL}: skipped)`);
      this.skip();
    }
    server = await startTestServer({ seed: false, env: { POSTGRES_URL: URL, POSTGRES_SCHEMA: schema } });
    // The demo houses and their keys only, then the rules, a live auction and a lot of it.
    const { log } = server.runtime.services;
    for (const record of demoRecords(server.credentials, new Date())) {
      if (!['tenant', 'apiKey', 'backOfficeKey', 'application'].includes(record.kind)) break;
      await importRecord(log, record);
    }
    const { tenant: _tenant, ...rules } = COSTS_MD_RULES;
    const end = new Date(Date.now() + 86_400_000).toISOString();
    const texts = { en: { title: 'Oak chair', description: '' } };
    const report = await importLines(
      log,
      [
        { kind: 'costRules', tenant: 'demo', ...rules },
        {
          kind: 'auction',
          tenant: 'demo',
          auctionId: 2,
          auctionType: 2,
          texts,
          startTime: new Date().toISOString(),
          endTime: end,
          currency: 'EUR',
          requiresTermsAcceptance: false,
          premiumSchedule: 'standard',
        },
        { kind: 'live', tenant: 'demo', auctionId: 2, isLive: true, currentLotId: null, at: new Date().toISOString() },
        {
          kind: 'lot',
          tenant: 'demo',
          lotId: 401,
          auctionId: 2,
          lotNumber: 1,
          categoryId: null,
          texts,
          attributes: [],
          images: [],
          hotLot: false,
          vatFree: false,
          currency: 'EUR',
          startingPrice: 50000,
          estimateLow: null,
          estimateHigh: null,
          endTime: end,
          combiId: null,
          ownerId: null,
          shippingClass: 'parcel-m',
        },
      ].map((r) => JSON.stringify(r)),
    );
    expect(report.errors).to.deep.equal([]);
    await server.runtime.services.projector.catchUp();
  });
  after(async () => {
    await server?.close();
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
  });

  it('answers example 1 to the cent', async () => {
    const token = await server.anonymousToken();
    const answer = await server.request('GET', '/v1/lots/401/cost-estimate?amount=123400&country=DE', { token });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.include({ VatScheme: 'margin', Channel: 'live', Total: 170573, RulesVersion: '2026-12-01' });
    expect(answer.body.Lines.map((l: { Code: string; Amount: number }) => [l.Code, l.Amount])).to.deep.equal([
      ['hammer', 123400],
      ['premium', 38822],
      ['fee:live', 4479],
      ['shipping', 3872],
    ]);
  });
});
