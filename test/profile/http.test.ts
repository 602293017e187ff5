/**
 * Operation 42: GET /v1/me, the signed-in member's MemberDto.
 */
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { memberAccounts } from '../../projections/members/index.ts';
import { expectProblem, startTestServer, TEST_PASSWORD, type TestServer } from '../support/server.ts';

/** Every MemberDto property the seed lists, except those that must never leave the service. */
const MEMBER_DTO_FIELDS = [
  'Email',
  'Language',
  'FirstName',
  'LastName',
  'Title',
  'Gender',
  'CompanyName',
  'CompanyId',
  'CompanyRegistrationCity',
  'VATNumber',
  'Address',
  'HouseNumber',
  'AddressSecond',
  'ZipCode',
  'City',
  'Country',
  'Fax',
  'Phone',
  'Phone2',
  'LoginProvider',
  'ProviderKey',
  'MailingLists',
  'FoundByOther',
  'IdentificationType',
  'IdentificationValue',
  'PaymentOptionValue',
  'PaymentExtraData',
  'Website',
  'DeliveryName',
  'DeliveryAddress',
  'DeliveryHouseNumber',
  'DeliveryAddressSecond',
  'DeliveryZipCode',
  'DeliveryCity',
  'DeliveryCountry',
  'DeliveryPhone',
  'FullName',
  'FullNameWithId',
  'Timezone',
  'ApplicationName',
  'UID',
  'ApplicationId',
  'Id',
  'FoundBy',
  'RegistrationType',
  'PaymentOptionId',
  'DateRegistered',
  'DateOfBirth',
  'Created',
  'IsConsigner',
  'HasBidderRole',
  'Validated',
  'IsCompany',
  'ExternalLogin',
  'VatFree',
  'IsPep',
  'SmsVerificationCompleted',
  'Roles',
  'ExtraData',
];

describe('GET /v1/me (operation 42)', () => {
  let server: TestServer;
  const head = () => server.runtime.services.log.headPosition();
  const me = (token?: string) => server.request('GET', '/v1/me', { token });

  const memberToken = (tenant: string, memberId: number) => server.issueMemberToken(tenant, memberId);

  before(async () => {
    server = await startTestServer();
    const log = server.runtime.services.log;
    const member = (tenant: string, memberId: number, email: string, firstName: string) =>
      importRecord(log, {
        kind: 'member',
        tenant,
        memberId,
        email,
        passwordHash: 'scrypt$disabled',
        firstName,
        lastName: 'Member',
        language: 'en',
        phone: '',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    await member('demo2', 2, 'other@example.com', 'Other');
    await member('demo', 3, 'leaving@example.com', 'Leaving');
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  it('answers the signed-in member as a MemberDto with every field of the seed, and appends nothing', async () => {
    const before = await head();
    const response = await me(await server.memberToken('demo'));
    expect(response.status, response.text).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    const dto = response.body;
    expect(dto).to.include({
      Id: 1,
      Email: 'bidder@example.com',
      FirstName: 'Demo',
      LastName: 'Bidder',
      Language: 'en',
      Phone: '+46700000001',
      FullName: 'Demo Bidder',
      FullNameWithId: 'Demo Bidder (1)',
      Validated: true,
      HasBidderRole: true,
      IsConsigner: true,
    });
    expect(dto.Roles).to.have.members(['bidder', 'consigner']);
    expect(dto.UID).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Date.parse(dto.DateRegistered)).to.be.lessThan(Date.now());
    expect(dto.DateRegistered).to.match(/Z$/);
    for (const field of MEMBER_DTO_FIELDS) expect(dto, field).to.have.property(field);
    expect(await head()).to.equal(before);
  });

  it('never carries a password, a hash, a ValidationKey or a reset key anywhere in the text', async () => {
    const response = await me(await server.memberToken('demo'));
    expect(response.status).to.equal(200);
    const stored = await memberAccounts(server.runtime.services.documents.forTenant('demo')).findById('1');
    expect(stored!.PasswordHash.startsWith('scrypt$')).to.equal(true);
    expect(response.text).to.not.include(stored!.PasswordHash.split('$').pop()!);
    expect(response.text).to.not.include(TEST_PASSWORD);
    expect(response.text).to.not.match(/password|hash|scrypt|ValidationKey|reset/i);
    expect(response.body).to.not.have.any.keys(
      'Password',
      'PasswordHash',
      'ValidationKey',
      'ResetKey',
      'PasswordResetKey',
      'SecurityStamp',
    );
  });

  it('answers 401 to an anonymous token, an application token, no token and a bad token', async () => {
    const application = await server.request('POST', '/v1/tokens', {
      body: { ClientId: server.credentials.clientId, ClientSecret: server.credentials.clientSecret },
    });
    expect(application.status).to.equal(200);
    expectProblem(await me(await server.anonymousToken('demo')), 401);
    expectProblem(await me(application.body.Token), 401);
    expectProblem(await me(), 401);
    expectProblem(await me('not-a-valid-token-at-all'), 401);
    expectProblem(await server.request('GET', '/v1/me', { apiKey: null, token: await server.memberToken('demo') }), 401);
  });

  it("shows a member token of another tenant that tenant's member only", async () => {
    const other = await me(memberToken('demo2', 2));
    expect(other.status, other.text).to.equal(200);
    expect(other.body).to.include({ Id: 2, Email: 'other@example.com', FirstName: 'Other' });

    // Member 2 exists in demo2 only: a demo token for member 2 has no member behind it.
    expectProblem(await me(memberToken('demo', 2)), 401);

    // Member 1 exists in both tenants as separate accounts.
    const inDemo = await me(memberToken('demo', 1));
    const inDemo2 = await me(memberToken('demo2', 1));
    expect(inDemo.status).to.equal(200);
    expect(inDemo2.status).to.equal(200);
    expect(inDemo2.body.UID).to.not.equal(inDemo.body.UID);
  });

  it('answers 401 once the member of the token was removed', async () => {
    const token = memberToken('demo', 3);
    const before = await me(token);
    expect(before.status, before.text).to.equal(200);
    expect(before.body.Email).to.equal('leaving@example.com');

    await importRecord(server.runtime.services.log, { kind: 'memberRemoved', tenant: 'demo', memberId: 3, at: new Date().toISOString() });
    await server.runtime.services.projector.catchUp();
    expectProblem(await me(token), 401);
  });
});
