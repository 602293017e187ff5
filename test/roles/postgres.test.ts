/**
 * The PostgreSQL shape (PRODUCTION.md "PostgreSQL"): with POSTGRES_URL, the log, the read models, the stored files
 * and the leases are on PostgreSQL, so a second process on a data folder of its own (another machine) serves the
 * same data: it reads what the first wrote, writes what the first then reads, and streams the files the first
 * stored. Each run uses a schema of its own on the local PostgreSQL (POSTGRES_TEST_URL), dropped after.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { call, demoMemberToken, freePort, ready, startService, type ServiceProcess } from '../support/service-process.ts';

const URL = process.env.POSTGRES_TEST_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

describe('The PostgreSQL shape: two processes on data folders of their own share one database', function () {
  this.timeout(120_000);
  const schema = `bidder_roles_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  // No JWT_SECRET: the signing keys are PostgreSQL's too (an inherited JWT_SECRET is cleared).
  const env = { POSTGRES_URL: URL, POSTGRES_SCHEMA: schema, JWT_SECRET: '' };
  const started: ServiceProcess[] = [];
  let first: ServiceProcess;
  let second: ServiceProcess;

  const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-pg-roles-'));

  before(async function () {
    first = startService({ port: await freePort(), dataDir: dataDir(), env });
    started.push(first);
    await ready(first);
    second = startService({ role: 'api', port: await freePort(), dataDir: dataDir(), env });
    started.push(second);
    await ready(second);
  });
  after(async function () {
    for (const proc of started) proc.child.kill('SIGTERM');
    await Promise.all(started.map((proc) => proc.exited));
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
  });

  it('seeds once, into PostgreSQL: the second process answers the demo lots without a seed of its own', async function () {
    const token = await demoMemberToken(second.base);
    const lots = await call(second.base, 'GET', '/v1/lots?PageSize=5', token);
    expect(lots.status, lots.text).to.equal(200);
    expect(lots.body.Items).to.have.length(5);
    const admin = new pg.Pool({ connectionString: URL, max: 1 });
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE type = 'TenantConfigured'`);
    await admin.end();
    expect(rows[0].n).to.equal(3);
  });

  it('searches lots through the second process, whose lot index it built from the log on PostgreSQL', async function () {
    const token = await demoMemberToken(second.base);
    const deadline = Date.now() + 30_000;
    let found = 0;
    while (Date.now() < deadline) {
      const search = await call(second.base, 'GET', '/v1/lots/search?q=clock&pageSize=5', token);
      expect(search.status, search.text).to.equal(200);
      found = search.body.Items.length;
      if (found > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(found).to.be.greaterThan(0);
  });

  it('reads at once through either process what was written through the other', async function () {
    const token = await demoMemberToken(first.base);
    expect((await call(first.base, 'PUT', '/v1/me/watchlist/1001', token, { Type: 'watch' })).status).to.equal(200);
    const there = await call(second.base, 'GET', '/v1/me/watchlist', token);
    expect(there.body.Items.map((i: { Id: number }) => i.Id)).to.include(1001);
    expect((await call(second.base, 'PUT', '/v1/me/watchlist/1002', token, { Type: 'watch' })).status).to.equal(200);
    const back = await call(first.base, 'GET', '/v1/me/watchlist', token);
    expect(back.body.Items.map((i: { Id: number }) => i.Id)).to.include.members([1001, 1002]);
  });

  it("streams through the second process a file the first stored (an auction's document)", async function () {
    const token = await demoMemberToken(second.base);
    const auctions = await call(second.base, 'GET', '/v1/auctions', token);
    let document: { auction: number; id: string } | null = null;
    for (const auction of auctions.body.Items as Array<{ Id: number }>) {
      const listed = await call(second.base, 'GET', `/v1/auctions/${auction.Id}/documents`, token);
      const items = (listed.body.Items ?? listed.body) as Array<{ Id: string | number }>;
      if (Array.isArray(items) && items.length > 0) {
        document = { auction: auction.Id, id: String(items[0].Id) };
        break;
      }
    }
    expect(document, 'a demo auction with a document').to.not.equal(null);
    const response = await fetch(`${second.base}/v1/auctions/${document!.auction}/documents/${document!.id}`, {
      headers: { 'Api-Key': 'service-test-key-0123456789', Authorization: `Bearer ${token}` },
    });
    expect(response.status).to.equal(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).to.equal('%PDF-');
  });
});
