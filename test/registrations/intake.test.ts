import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { importRecord, importLines } from '../../app/features/intake.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The registration intake kinds of docs/intake.md, `registrationRequest` and `registrationDecision`, as an
 * integrator runs them (`npm run import -- FILE.ndjson` with DATA_DIR set, while the service runs on the same
 * data folder) and as NDJSON lines, and what GET /v1/me/registrations/{auctionId} then answers.
 *
 * Demo data: auctions 1..5 of tenant `demo`; members 10 and 11 are imported here.
 */
describe('registration intake (npm run import)', function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-registrations-intake-'));
  const dataDir = path.join(dir, 'data');
  let server: TestServer;

  const head = () => server.runtime.services.log.headPosition();
  const at = (minutesAgo = 0) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const status = async (memberId: number, auctionId: number) => {
    const response = await server.request('GET', `/v1/me/registrations/${auctionId}`, { token: server.issueMemberToken('demo', memberId) });
    expect(response.status, response.text).to.equal(200);
    return response.body.Status as string;
  };
  const lines = async (records: unknown[]) => {
    const report = await importLines(
      server.runtime.services.log,
      records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))),
    );
    await server.runtime.services.projector.catchUp();
    return report;
  };

  before(async () => {
    server = await startTestServer({ dataDir });
    for (const memberId of [10, 11])
      await importRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId,
        email: `intake${memberId}@example.com`,
        passwordHash: 'scrypt$disabled',
        firstName: 'I',
        lastName: String(memberId),
        language: 'en',
        phone: '',
        signedUpAt: at(),
        confirmed: true,
        roles: ['bidder'],
      });
    await server.runtime.services.projector.catchUp();
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("runs through the import CLI while the service runs: a request is pending, the house's decision approves it", async () => {
    const file = path.join(dir, 'registrations.ndjson');
    const records = [
      { kind: 'registrationRequest', tenant: 'demo', memberId: 10, auctionId: 3, at: at(10) },
      { kind: 'registrationDecision', tenant: 'demo', memberId: 10, auctionId: 1, status: 'approved', at: at(9) },
    ];
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const run = () => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/import.ts', file], {
        env: { ...process.env, DATA_DIR: dataDir },
        encoding: 'utf8',
      });
      expect(result.stdout, result.stderr).to.not.equal('');
      return { status: result.status, report: JSON.parse(result.stdout) };
    };
    const first = run();
    expect(first.status, JSON.stringify(first.report)).to.equal(0);
    expect(first.report).to.include({ records: 2, appended: 2, unchanged: 0 });
    await server.runtime.services.projector.catchUp();
    expect(await status(10, 3)).to.equal('pending');
    expect(await status(10, 1)).to.equal('approved');

    // The same file again changes nothing.
    const before = await head();
    const second = run();
    expect(second.report).to.include({ records: 2, appended: 0, unchanged: 2 });
    expect(await head()).to.equal(before);
  });

  it('appends AuctionRegistrationRequested (pending, channel intake), then RegistrationApproved, on the stream of member and auction', async () => {
    const before = await head();
    const report = await lines([
      { kind: 'registrationRequest', tenant: 'demo', memberId: 11, auctionId: 1, at: at(5) },
      { kind: 'registrationDecision', tenant: 'demo', memberId: 11, auctionId: 1, status: 'approved', at: at(4) },
    ]);
    expect(report).to.include({ records: 2, appended: 2, unchanged: 0 });
    const events = await server.runtime.services.log.readAll({ fromPosition: before, maxCount: 10 });
    expect(events.map((e) => [e.type, e.streamId])).to.deep.equal([
      ['AuctionRegistrationRequested', 'registration-demo-11-1'],
      ['RegistrationApproved', 'registration-demo-11-1'],
    ]);
    expect(events[0].data).to.include({ tenant: 'demo', memberId: 11, auctionId: 1, status: 'pending', channel: 'intake' });
    expect(await status(11, 1)).to.equal('approved');
  });

  it('leaves a registration alone when a request arrives for it again, and a decision equal to the status appends nothing', async () => {
    const report = await lines([
      { kind: 'registrationRequest', tenant: 'demo', memberId: 11, auctionId: 1, at: at(3) },
      { kind: 'registrationDecision', tenant: 'demo', memberId: 11, auctionId: 1, status: 'approved', at: at(2) },
    ]);
    expect(report).to.include({ records: 2, appended: 0, unchanged: 2 });
    expect(await status(11, 1)).to.equal('approved');
  });

  it('takes the latest decision: rejected, then approved again', async () => {
    expect(
      (await lines([{ kind: 'registrationDecision', tenant: 'demo', memberId: 11, auctionId: 1, status: 'rejected', at: at(1) }])).appended,
    ).to.equal(1);
    expect(await status(11, 1)).to.equal('rejected');
    expect(
      (await lines([{ kind: 'registrationDecision', tenant: 'demo', memberId: 11, auctionId: 1, status: 'approved', at: at() }])).appended,
    ).to.equal(1);
    expect(await status(11, 1)).to.equal('approved');
  });

  it('reports a bad line with its number and what is wrong, and imports the others', async () => {
    const before = await head();
    const report = await lines([
      { kind: 'registrationDecision', tenant: 'demo', memberId: 11, auctionId: 2, status: 'maybe', at: at() },
      { kind: 'registrationRequest', tenant: 'demo', memberId: 11, auctionId: 'two', at: at() },
      { kind: 'registrationDecision', tenant: 'demo', memberId: 11, auctionId: 2, status: 'approved' },
      '{"kind":"registrationDecision",',
      { kind: 'registrationRequest', tenant: 'demo', memberId: 11, auctionId: 5, at: at() },
    ]);
    expect(report.records).to.equal(5);
    expect(report.appended).to.equal(1);
    expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2, 3, 4]);
    expect(report.errors[0].message).to.match(/status/);
    expect(report.errors[1].message).to.match(/auctionId/);
    expect(report.errors[2].message).to.match(/at/);
    expect(await head()).to.equal(before + 1);
    expect(await status(11, 2)).to.equal('none');
    expect(await status(11, 5)).to.equal('pending');
  });
});
