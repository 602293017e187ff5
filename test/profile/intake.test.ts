/**
 * The profile intake kinds of docs/intake.md, `profile` and `phoneVerified`, as NDJSON lines, and what
 * GET /v1/me then shows.
 */
import { expect } from 'chai';
import { importRecord, importLines } from '../../app/features/intake.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('profile intake (profile, phoneVerified)', function () {
  this.timeout(120_000);
  let server: TestServer;
  const head = () => server.runtime.services.log.headPosition();
  const lines = async (records: unknown[]) => {
    const report = await importLines(
      server.runtime.services.log,
      records.map((r) => JSON.stringify(r)),
    );
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(30_000);
    await server.runtime.services.projector.catchUp();
    return report;
  };
  const me = async (memberId: number) => (await server.request('GET', '/v1/me', { token: server.issueMemberToken('demo', memberId) })).body;

  before(async () => {
    server = await startTestServer();
    for (const memberId of [20, 21])
      await importRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId,
        email: `profile${memberId}@example.com`,
        passwordHash: 'scrypt$disabled',
        firstName: 'I',
        lastName: 'Member',
        language: 'en',
        phone: '',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  const record = {
    kind: 'profile',
    tenant: 'demo',
    memberId: 20,
    language: 'de',
    firstName: ' Karl ',
    lastName: 'Schmidt',
    companyName: 'Schmidt GmbH',
    vatNumber: 'DE 136 695 976',
    address: 'Hauptstraße',
    houseNumber: '1',
    zipCode: '10115',
    city: 'Berlin',
    country: 'de',
    phone: '030 1234567',
    isCompany: true,
    extraData: { source: 'legacy' },
  };

  it('replaces the profile (phones read in its country, the VAT number normalised and checked) and appends nothing when imported again', async () => {
    const report = await lines([record]);
    expect(report.errors).to.deep.equal([]);
    const dto = await me(20);
    expect(dto).to.include({
      Language: 'de',
      FirstName: 'Karl',
      LastName: 'Schmidt',
      CompanyName: 'Schmidt GmbH',
      VATNumber: 'DE136695976',
      City: 'Berlin',
      Country: 'DE',
      Phone: '+49301234567',
      IsCompany: true,
      Title: null,
      VatFree: true,
      SmsVerificationCompleted: false,
    });
    expect(dto.ExtraData).to.deep.equal({ source: 'legacy' });

    const before = await head();
    const again = await lines([{ ...record, at: new Date().toISOString() }]);
    expect(again).to.include({ appended: 0, unchanged: 1 });
    expect(await head()).to.equal(before);
  });

  it("imports a verified phone, which counts while it is the profile's phone, once", async () => {
    const report = await lines([{ kind: 'phoneVerified', tenant: 'demo', memberId: 20, phone: '+49 30 1234567' }]);
    expect(report.errors).to.deep.equal([]);
    expect((await me(20)).SmsVerificationCompleted).to.equal(true);
    const before = await head();
    expect(await lines([{ kind: 'phoneVerified', tenant: 'demo', memberId: 20, phone: '+49301234567' }])).to.include({ appended: 0 });
    expect(await head()).to.equal(before);
    // A phone that is not the profile's verifies nothing shown.
    expect((await lines([{ kind: 'phoneVerified', tenant: 'demo', memberId: 21, phone: '+31612345678' }])).errors).to.deep.equal([]);
    expect((await me(21)).SmsVerificationCompleted).to.equal(false);
  });

  it('reports bad records by line and appends nothing for them', async () => {
    const before = await head();
    const report = await lines([
      { ...record, memberId: 999 },
      { ...record, phone: 'not a phone' },
      { ...record, country: 'Germany' },
      { ...record, firstName: 'x'.repeat(201) },
      { ...record, language: undefined },
      { kind: 'phoneVerified', tenant: 'demo', memberId: 20, phone: '0612345678' },
      { kind: 'phoneVerified', tenant: 'demo', memberId: 999, phone: '+31612345678' },
    ]);
    expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    expect(report.errors[0].message).to.match(/does not exist/);
    expect(report.errors[1].message).to.match(/phone/);
    expect(await head()).to.equal(before);
  });
});
