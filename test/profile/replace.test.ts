/**
 * Operation 43: PUT /v1/me, a replacement of the profile; and the background VAT check that decides
 * `VatFree` (read back with GET /v1/me, operation 42).
 */
import { expect } from 'chai';
import { importRecord } from '../../app/features/intake.ts';
import { CHECK_VAT_NUMBER } from '../../commands/profile/jobs.ts';
import { ViesChecker } from '../../src/adapters/vies/vies-checker.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import type { VatChecker, VatCheckResult } from '../../src/ports/vat.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { startFakeVies } from '../contracts/vat.contract.ts';

const DE = 'DE136695976';
const NL = 'NL004495445B01';
const SE = 'SE556188840401';
const INVALID = 'NL123456789B01';

/** Every writable MemberDto field, filled in. */
const fullProfile = () => ({
  Language: 'sv',
  FirstName: 'Anna',
  LastName: 'Berg',
  Title: 'Dr',
  Gender: 'female',
  CompanyName: 'Berg Antik',
  CompanyId: '556677-8899',
  CompanyRegistrationCity: 'Stockholm',
  VATNumber: null,
  Address: 'Storgatan',
  HouseNumber: '12 B',
  AddressSecond: 'c/o Lind',
  ZipCode: '114 51',
  City: 'Stockholm',
  Country: 'se',
  Fax: '+46 8 123 456 78',
  Phone: '+46 70 123 45 67',
  Phone2: '+31 20 123 4567',
  MailingLists: 'newsletter,auctions',
  FoundByOther: 'a friend',
  IdentificationType: 'passport',
  IdentificationValue: 'X1234567',
  PaymentOptionValue: 'invoice',
  PaymentExtraData: 'net 30',
  Website: 'https://berg-antik.example.com',
  DeliveryName: 'Berg Antik Lager',
  DeliveryAddress: 'Hamngatan',
  DeliveryHouseNumber: '3',
  DeliveryAddressSecond: 'Port 2',
  DeliveryZipCode: '111 47',
  DeliveryCity: 'Stockholm',
  DeliveryCountry: 'SE',
  DeliveryPhone: '+46 8 987 654 32',
  Timezone: 'Europe/Stockholm',
  FoundBy: 3,
  RegistrationType: 1,
  PaymentOptionId: 2,
  DateOfBirth: '1980-05-17',
  IsCompany: true,
  ExtraData: { newsletterFormat: 'html', lotsPerPage: 50, vip: true, referrer: null },
});

/** What the full profile is stored as. */
const fullStored = {
  Language: 'sv',
  FirstName: 'Anna',
  LastName: 'Berg',
  Title: 'Dr',
  Gender: 'female',
  CompanyName: 'Berg Antik',
  CompanyId: '556677-8899',
  CompanyRegistrationCity: 'Stockholm',
  VATNumber: null,
  Address: 'Storgatan',
  HouseNumber: '12 B',
  AddressSecond: 'c/o Lind',
  ZipCode: '114 51',
  City: 'Stockholm',
  Country: 'SE',
  Fax: '+46812345678',
  Phone: '+46701234567',
  Phone2: '+31201234567',
  MailingLists: 'newsletter,auctions',
  FoundByOther: 'a friend',
  IdentificationType: 'passport',
  IdentificationValue: 'X1234567',
  PaymentOptionValue: 'invoice',
  PaymentExtraData: 'net 30',
  Website: 'https://berg-antik.example.com',
  DeliveryName: 'Berg Antik Lager',
  DeliveryAddress: 'Hamngatan',
  DeliveryHouseNumber: '3',
  DeliveryAddressSecond: 'Port 2',
  DeliveryZipCode: '111 47',
  DeliveryCity: 'Stockholm',
  DeliveryCountry: 'SE',
  DeliveryPhone: '+46898765432',
  Timezone: 'Europe/Stockholm',
  FoundBy: 3,
  RegistrationType: 1,
  PaymentOptionId: 2,
  DateOfBirth: '1980-05-17',
  IsCompany: true,
  ExtraData: { newsletterFormat: 'html', lotsPerPage: 50, vip: true, referrer: null },
};
const WRITABLE = Object.keys(fullStored);

describe('PUT /v1/me (operation 43) and the VAT check', () => {
  let server: TestServer;
  let nextMember = 100;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 10_000 });
  const put = (token: string | undefined, body: unknown) => server.request('PUT', '/v1/me', { token, body });
  const get = (token: string) => server.request('GET', '/v1/me', { token });

  /** A new confirmed member of a tenant (an imported account: no profile events of its own yet), and its token. */
  async function newMember(tenant = 'demo', phone = '') {
    const memberId = ++nextMember;
    await importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant,
      memberId,
      email: `member${memberId}@example.com`,
      passwordHash: 'scrypt$disabled',
      firstName: 'Eva',
      lastName: `Member${memberId}`,
      language: 'en',
      phone,
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    await server.runtime.services.projector.catchUp();
    return { memberId, token: server.issueMemberToken(tenant, memberId) };
  }

  /** Polls GET /v1/me until `ok` holds (bounded), as a client waiting for the VAT check does. */
  async function eventually(token: string, ok: (dto: any) => boolean, what: string, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await get(token);
      expect(response.status, response.text).to.equal(200);
      if (ok(response.body)) return response.body;
      if (Date.now() > deadline)
        throw new Error(`not within ${timeoutMs} ms: ${what}; last: VatFree=${response.body.VatFree} VATNumber=${response.body.VATNumber}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The VAT checks recorded for a member since a position, once the background work is done. */
  async function checksSince(position: number, memberId: number) {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(30_000);
    await server.runtime.services.projector.catchUp();
    return (await since(position)).filter((e) => e.type === 'MemberVatNumberChecked' && e.data.memberId === memberId).map((e) => e.data);
  }

  /** Sets a company VAT number and waits until its check was recorded; answers the profile then. */
  async function vatDecided(token: string, memberId: number, vatNumber: string | null, body: Record<string, unknown> = {}) {
    const before = await head();
    const response = await put(token, { CompanyName: 'Berg GmbH', VATNumber: vatNumber, ...body });
    expect(response.status, response.text).to.equal(200);
    const checks = await checksSince(before, memberId);
    return { response: response.body, checks, dto: (await get(token)).body };
  }

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  describe('the replacement', () => {
    it('stores every writable field, normalised, answers the stored profile, and a GET right after shows it', async () => {
      const { memberId, token } = await newMember('demo');
      const before = await head();
      const response = await put(token, fullProfile());
      expect(response.status, response.text).to.equal(200);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      for (const field of WRITABLE) expect(response.body[field], field).to.deep.equal(fullStored[field as keyof typeof fullStored]);
      expect(response.body).to.include({
        Id: memberId,
        Email: `member${memberId}@example.com`,
        FullName: 'Anna Berg',
        FullNameWithId: `Anna Berg (${memberId})`,
      });

      const read = await get(token);
      expect(read.body).to.deep.equal(response.body);

      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['MemberProfileReplaced']);
      expect(events[0].streamId).to.equal(`profile-demo-${memberId}`);
      expect(events[0].data).to.deep.include({ tenant: 'demo', memberId });
      expect((events[0].data as any).profile).to.include({
        phone: '+46701234567',
        country: 'SE',
        companyName: 'Berg Antik',
        vatNumber: null,
      });
    });

    it('is a replacement, not a merge: a writable field left out is stored empty (the language: the house default)', async () => {
      const { token } = await newMember();
      expect((await put(token, { ...fullProfile(), Language: 'de' })).status).to.equal(200);
      const response = await put(token, { FirstName: 'Anna' });
      expect(response.status, response.text).to.equal(200);
      const expected: Record<string, unknown> = Object.fromEntries(WRITABLE.map((f) => [f, null]));
      Object.assign(expected, { Language: 'en', FirstName: 'Anna', IsCompany: false, ExtraData: {} });
      for (const field of WRITABLE) expect(response.body[field], field).to.deep.equal(expected[field]);
      expect(response.body).to.include({ FullName: 'Anna', VatFree: false, SmsVerificationCompleted: false });
      expect((await get(token)).body).to.deep.equal(response.body);
    });

    it('stores null, an empty text and a blank text alike: empty', async () => {
      const { token } = await newMember();
      const response = await put(token, {
        FirstName: '  Anna  ',
        LastName: '',
        Title: '   ',
        City: null,
        Phone: '',
        Country: '',
        VATNumber: ' ',
        Website: '',
      });
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.include({
        FirstName: 'Anna',
        LastName: null,
        Title: null,
        City: null,
        Phone: null,
        Country: null,
        VATNumber: null,
        Website: null,
      });
    });

    it('never takes server-owned fields from the body, nor empties them; unknown fields are ignored', async () => {
      const { memberId, token } = await newMember();
      const before = (await get(token)).body;
      const response = await put(token, {
        FirstName: 'Eva',
        LastName: before.LastName,
        Id: 99999,
        UID: '00000000-0000-4000-8000-000000000000',
        Email: 'someone.else@example.com',
        Roles: ['consigner'],
        Validated: false,
        HasBidderRole: false,
        IsConsigner: true,
        VatFree: true,
        IsPep: true,
        SmsVerificationCompleted: true,
        DateRegistered: '2000-01-01T00:00:00.000Z',
        Created: '2000-01-01T00:00:00.000Z',
        ExternalLogin: true,
        LoginProvider: 'google',
        ProviderKey: 'abc',
        ApplicationId: 'x',
        ApplicationName: 'y',
        FullName: 'Mallory',
        FullNameWithId: 'Mallory (1)',
        ValidationKey: 'key',
        IpAddress: '203.0.113.1',
        Password: 'hunter2hunter2',
        SomethingElse: { nested: true },
      });
      expect(response.status, response.text).to.equal(200);
      for (const field of [
        'Id',
        'UID',
        'Email',
        'Roles',
        'Validated',
        'HasBidderRole',
        'IsConsigner',
        'VatFree',
        'IsPep',
        'SmsVerificationCompleted',
        'DateRegistered',
        'Created',
        'ExternalLogin',
        'LoginProvider',
        'ProviderKey',
        'ApplicationId',
        'ApplicationName',
        'FullName',
        'FullNameWithId',
      ])
        expect(response.body[field], field).to.deep.equal(before[field]);
      expect(response.body).to.not.have.any.keys('ValidationKey', 'IpAddress', 'Password', 'SomethingElse');
      expect(response.body.Id).to.equal(memberId);
      expect(JSON.stringify((await server.events()).filter((e) => e.streamId === `profile-demo-${memberId}`))).to.not.match(
        /Mallory|hunter2|someone\.else|203\.0\.113/,
      );
    });

    it('appends nothing when the profile is sent back as GET answered it', async () => {
      const { token } = await newMember();
      const first = await put(token, { ...fullProfile(), Language: 'en', Country: 'NL', Phone: '020 123 4567' });
      expect(first.status, first.text).to.equal(200);
      const before = await head();
      const again = await put(token, (await get(token)).body);
      expect(again.status, again.text).to.equal(200);
      expect(again.body).to.deep.equal(first.body);
      expect(await head()).to.equal(before);
    });

    it("stores phone numbers in E.164, reading a national number as one of the house's country (demo NL, demo2 SE)", async () => {
      const nl = await newMember('demo');
      const se = await newMember('demo2');
      const inNl = await put(nl.token, {
        Phone: '06 12345678',
        Phone2: '+46 70-123 45 67',
        Fax: '(020) 123 4567',
        DeliveryPhone: '0031 6 87654321',
      });
      expect(inNl.status, inNl.text).to.equal(200);
      expect(inNl.body).to.include({ Phone: '+31612345678', Phone2: '+46701234567', Fax: '+31201234567', DeliveryPhone: '+31687654321' });
      const inSe = await put(se.token, { Phone: '070-123 45 67', Phone2: '+31 6 12345678' });
      expect(inSe.status, inSe.text).to.equal(200);
      expect(inSe.body).to.include({ Phone: '+46701234567', Phone2: '+31612345678' });
    });

    it('answers 400 naming each bad field, and appends nothing', async () => {
      const { token } = await newMember();
      const before = await head();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ Phone: 'call me maybe' }, 'body.Phone'],
        [{ Phone: '12' }, 'body.Phone'],
        [{ Phone: '+31 6 1234' }, 'body.Phone'],
        [{ Phone2: 'x' }, 'body.Phone2'],
        [{ Fax: '000' }, 'body.Fax'],
        [{ DeliveryPhone: '+999 123' }, 'body.DeliveryPhone'],
        [{ Phone: '+31 6 ' + '1'.repeat(60) }, 'body.Phone'],
        [{ Phone: 31612345678 }, 'body.Phone'],
        [{ FirstName: 'x'.repeat(201) }, 'body.FirstName'],
        [{ LastName: 'Berg\nDROP' }, 'body.LastName'],
        [{ ZipCode: '1'.repeat(21) }, 'body.ZipCode'],
        [{ PaymentExtraData: 'x'.repeat(1001) }, 'body.PaymentExtraData'],
        [{ Title: 5 }, 'body.Title'],
        [{ Country: 'NLD' }, 'body.Country'],
        [{ Country: 'XX' }, 'body.Country'],
        [{ DeliveryCountry: 'EU' }, 'body.DeliveryCountry'],
        [{ Language: 'fr' }, 'body.Language'],
        [{ Language: 'english' }, 'body.Language'],
        [{ FoundBy: -1 }, 'body.FoundBy'],
        [{ RegistrationType: 1.5 }, 'body.RegistrationType'],
        [{ PaymentOptionId: '2' }, 'body.PaymentOptionId'],
        [{ PaymentOptionId: 2147483648 }, 'body.PaymentOptionId'],
        [{ IsCompany: 'yes' }, 'body.IsCompany'],
        [{ DateOfBirth: '2020-02-30' }, 'body.DateOfBirth'],
        [{ DateOfBirth: '17-05-1980' }, 'body.DateOfBirth'],
        [{ DateOfBirth: '1850-01-01' }, 'body.DateOfBirth'],
        [{ DateOfBirth: '2999-01-01' }, 'body.DateOfBirth'],
        [{ Timezone: 'Mars/Olympus_Mons' }, 'body.Timezone'],
        [{ Website: 'javascript:alert(1)' }, 'body.Website'],
        [{ Website: 'not a url' }, 'body.Website'],
        [{ Website: `https://example.com/${'x'.repeat(200)}` }, 'body.Website'],
        [{ VATNumber: 'NL 123!' }, 'body.VATNumber'],
        [{ VATNumber: 'DE'.repeat(16) }, 'body.VATNumber'],
        [{ ExtraData: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'body.ExtraData'],
        [{ ExtraData: { 'a key': 1 } }, 'body.ExtraData.a key'],
        [{ ExtraData: { nested: { deep: true } } }, 'body.ExtraData.nested'],
        [{ ExtraData: { long: 'x'.repeat(1001) } }, 'body.ExtraData.long'],
        [{ ExtraData: ['a'] }, 'body.ExtraData'],
      ];
      for (const [body, field] of cases) {
        const problem = expectProblem(await put(token, body), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body).slice(0, 100),
        ).to.include(field);
      }
      // Several bad fields: each is named (the phones and the language, which depend on the house, once the others are right).
      const several = expectProblem(await put(token, { Country: 'XX', FirstName: 'x'.repeat(201), FoundBy: -1 }), 400);
      expect(several.errors.map((e: { field: string }) => e.field)).to.include.members(['body.Country', 'body.FirstName', 'body.FoundBy']);
      const phones = expectProblem(await put(token, { Phone: 'x', Phone2: '12', Language: 'fr' }), 400);
      expect(phones.errors.map((e: { field: string }) => e.field)).to.include.members(['body.Phone', 'body.Phone2', 'body.Language']);
      for (const raw of ['[]', '"profile"', 'null', '42', '{"FirstName": "An'])
        expectProblem(await server.request('PUT', '/v1/me', { token, rawBody: raw, headers: { 'Content-Type': 'application/json' } }), 400);
      expectProblem(await server.request('PUT', '/v1/me', { token }), 400);
      expect(await head()).to.equal(before);
    });

    it('answers 401 without a member token, and appends nothing', async () => {
      const before = await head();
      expectProblem(await put(undefined, { FirstName: 'X' }), 401);
      expectProblem(await put(await server.anonymousToken('demo'), { FirstName: 'X' }), 401);
      expectProblem(await put('not-a-token', { FirstName: 'X' }), 401);
      expect(await head()).to.equal(before);
    });

    it("never changes another member's profile, nor the same member id's profile in another tenant", async () => {
      const other = await newMember();
      const token1 = server.issueMemberToken('demo', 1);
      const otherBefore = (await get(other.token)).body;
      const demo2Before = (await get(server.issueMemberToken('demo2', 1))).body;
      const demoBefore = (await get(token1)).body;
      const { token } = await newMember();
      expect((await put(token, { ...fullProfile(), Language: 'en', VATNumber: DE })).status).to.equal(200);
      await server.runtime.services.jobs.whenIdle(30_000);
      await server.runtime.services.projector.catchUp();
      expect((await get(other.token)).body).to.deep.equal(otherBefore);
      expect((await get(server.issueMemberToken('demo2', 1))).body).to.deep.equal(demo2Before);
      expect((await get(token1)).body).to.deep.equal(demoBefore);
    });
  });

  describe('GET /v1/me shows the profile', () => {
    it("shows the demo member's demo profile: an address, a verified phone (in demo), an unverified one (in demo2), not VAT-free", async () => {
      const demo = (await get(server.issueMemberToken('demo', 1))).body;
      expect(demo).to.include({
        Address: 'Keizersgracht',
        HouseNumber: '123',
        ZipCode: '1015 CJ',
        City: 'Amsterdam',
        Country: 'NL',
        Phone: '+46700000001',
        SmsVerificationCompleted: true,
        VatFree: false,
      });
      const demo2 = (await get(server.issueMemberToken('demo2', 1))).body;
      expect(demo2).to.include({
        City: 'Stockholm',
        Country: 'SE',
        Phone: '+46700000001',
        SmsVerificationCompleted: false,
        VatFree: false,
      });
    });

    it('shows an imported member (no profile events) with the name, language and phone of the sign-up', async () => {
      const { memberId, token } = await newMember('demo', '+31 6 12345678');
      const dto = (await get(token)).body;
      expect(dto).to.include({
        Id: memberId,
        FirstName: 'Eva',
        LastName: `Member${memberId}`,
        Language: 'en',
        Phone: '+31612345678',
        VatFree: false,
        SmsVerificationCompleted: false,
        Address: null,
        IsCompany: false,
      });
      expect(dto.ExtraData).to.deep.equal({});
    });
  });

  describe('the VAT check', () => {
    it('makes a valid German number VAT-free in demo (NL), eventually, as a client polling GET /v1/me sees it', async () => {
      const { token } = await newMember();
      const response = await put(token, { CompanyName: 'Berg GmbH', VATNumber: 'de 136 695 976' });
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.include({ VATNumber: DE, VatFree: false });
      await eventually(token, (dto) => dto.VatFree === true, 'VatFree true for a German number');
    });

    it('appends a check request with the profile, and records the result of the check', async () => {
      const { memberId, token } = await newMember();
      const before = await head();
      const { checks, dto } = await vatDecided(token, memberId, DE);
      const events = (await since(before)).filter((e) => e.streamId === `profile-demo-${memberId}`);
      expect(events.map((e) => e.type)).to.deep.equal(['MemberProfileReplaced', 'MemberVatCheckRequested', 'MemberVatNumberChecked']);
      expect(events[1].data).to.include({ vatNumber: DE, companyName: 'Berg GmbH' });
      expect(checks).to.have.length(1);
      expect(checks[0]).to.include({
        checkId: (events[1].data as any).checkId,
        vatNumber: DE,
        valid: true,
        country: 'DE',
        source: 'format',
        homeCountry: 'NL',
        vatFree: true,
      });
      expect(dto.VatFree).to.equal(true);
    });

    it("makes a valid Dutch number in demo (the house's own country) not VAT-free", async () => {
      const { memberId, token } = await newMember();
      expect((await vatDecided(token, memberId, DE)).dto.VatFree).to.equal(true);
      const { checks, dto } = await vatDecided(token, memberId, NL);
      expect(checks.map((c) => c.vatNumber)).to.deep.equal([NL]);
      expect(checks[0]).to.include({ valid: true, country: 'NL', vatFree: false });
      expect(dto).to.include({ VATNumber: NL, VatFree: false });
    });

    it('makes an invalid number not VAT-free', async () => {
      const { memberId, token } = await newMember();
      expect((await vatDecided(token, memberId, DE)).dto.VatFree).to.equal(true);
      const { checks, dto } = await vatDecided(token, memberId, INVALID);
      expect(checks[0]).to.include({ vatNumber: INVALID, valid: false, vatFree: false });
      expect(dto).to.include({ VATNumber: INVALID, VatFree: false });
    });

    it('makes a member who removes the number not VAT-free, at once, with no check', async () => {
      const { memberId, token } = await newMember();
      expect((await vatDecided(token, memberId, DE)).dto.VatFree).to.equal(true);
      const before = await head();
      const response = await put(token, { CompanyName: 'Berg GmbH' });
      expect(response.body).to.include({ VATNumber: null, VatFree: false });
      expect(await checksSince(before, memberId)).to.deep.equal([]);
      expect((await since(before)).map((e) => e.type)).to.deep.equal(['MemberProfileReplaced']);
      expect((await get(token)).body.VatFree).to.equal(false);
    });

    it('decides by the house: a Swedish number is VAT-free in demo (NL) but not in demo2 (SE); a German one in both', async () => {
      const nl = await newMember('demo');
      const se = await newMember('demo2');
      expect((await vatDecided(nl.token, nl.memberId, SE)).dto.VatFree).to.equal(true);
      const inSe = await vatDecided(se.token, se.memberId, SE);
      expect(inSe.checks[0]).to.include({ valid: true, country: 'SE', homeCountry: 'SE', vatFree: false });
      expect(inSe.dto.VatFree).to.equal(false);
      expect((await vatDecided(se.token, se.memberId, DE)).dto.VatFree).to.equal(true);
    });

    it('makes a valid number of a country outside the EU not VAT-free', async () => {
      const { memberId, token } = await newMember();
      const { checks, dto } = await vatDecided(token, memberId, 'CHE-123.456.788');
      expect(checks[0]).to.include({ vatNumber: 'CHE123456788', valid: true, country: 'CH', vatFree: false });
      expect(dto.VatFree).to.equal(false);
    });

    it('checks again when only the company name changes, keeping the number VAT-free meanwhile', async () => {
      const { memberId, token } = await newMember();
      expect((await vatDecided(token, memberId, DE)).dto.VatFree).to.equal(true);
      const response = await put(token, { CompanyName: 'Berg & Söhne GmbH', VATNumber: DE });
      expect(response.body.VatFree).to.equal(true);
      const again = await vatDecided(token, memberId, DE, { CompanyName: 'Berg & Söhne GmbH KG' });
      expect(again.checks).to.have.length(1);
      expect(again.dto.VatFree).to.equal(true);
    });

    it('has one effect when its job is duplicated or run again', async () => {
      const { memberId, token } = await newMember();
      const before = await head();
      await vatDecided(token, memberId, DE);
      const requested = (await since(before)).find((e) => e.type === 'MemberVatCheckRequested')!;
      const { tenant, checkId, vatNumber } = requested.data as { tenant: string; checkId: string; vatNumber: string };
      const jobs = server.runtime.services.jobs;
      const data = { tenant, memberId, checkId, vatNumber };
      expect((await jobs.add(CHECK_VAT_NUMBER, data, { jobId: `vat-check-${tenant}-${checkId}` })).added).to.equal(false);
      const afterFirst = await head();
      await jobs.add(CHECK_VAT_NUMBER, data, { jobId: `vat-check-${tenant}-${checkId}-again`, attempts: 1 });
      expect(await checksSince(afterFirst, memberId)).to.deep.equal([]);
      expect(await head()).to.equal(afterFirst);
      expect((await get(token)).body.VatFree).to.equal(true);
    });

    it('never lets the result of an older check overwrite a later change of the number', async () => {
      const { memberId, token } = await newMember();
      const services = server.runtime.services;
      const real = services.vat;
      // A checker that holds the German number's check until released.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const slow: VatChecker = {
        async check(number): Promise<VatCheckResult> {
          if (number === DE) await held;
          return real.check(number);
        },
      };
      services.vat = slow;
      try {
        const before = await head();
        expect((await put(token, { CompanyName: 'Berg GmbH', VATNumber: DE })).status).to.equal(200);
        await services.projector.catchUp();
        // The German check is under way; the member now gives a Dutch number, checked at once.
        expect((await put(token, { CompanyName: 'Berg BV', VATNumber: NL })).status).to.equal(200);
        release();
        const checks = await checksSince(before, memberId);
        expect(checks.map((c) => c.vatNumber)).to.deep.equal([NL]);
        const dto = (await get(token)).body;
        expect(dto).to.include({ VATNumber: NL, VatFree: false });
      } finally {
        release();
        services.vat = real;
      }
    });

    it('leaves VatFree as it was during a VIES outage, retries, and decides once VIES answers', async function () {
      this.timeout(60_000);
      const vies = await startFakeVies();
      const services = server.runtime.services;
      const real = services.vat;
      try {
        const { memberId, token } = await newMember();
        services.vat = new ViesChecker({ url: vies.url, timeoutMs: 1000 });
        expect((await vatDecided(token, memberId, DE)).checks[0]).to.include({ source: 'vies', vatFree: true });

        vies.behave((_r, res) =>
          res
            .writeHead(200, { 'Content-Type': 'application/json' })
            .end(JSON.stringify({ actionSucceed: false, errorWrappers: [{ error: 'MS_UNAVAILABLE' }] })),
        );
        const before = await head();
        const seen = vies.requests.length;
        expect((await put(token, { CompanyName: 'Berg & Söhne GmbH', VATNumber: DE })).status).to.equal(200);
        await services.projector.catchUp();
        const requested = (await since(before)).find((e) => e.type === 'MemberVatCheckRequested')!;
        const jobId = `vat-check-demo-${(requested.data as any).checkId}`;
        // The check was tried, failed, and waits for its retry; VatFree stays as the last check decided.
        const deadline = Date.now() + 10_000;
        while (vies.requests.length === seen && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await services.jobs.getState(jobId)).to.equal('delayed');
        expect((await get(token)).body.VatFree).to.equal(true);
        expect((await since(before)).filter((e) => e.type === 'MemberVatNumberChecked')).to.deep.equal([]);

        // VIES is back: the retry decides.
        vies.behave(null);
        const checks = await checksSince(before, memberId);
        expect(checks).to.have.length(1);
        expect(checks[0]).to.include({ vatNumber: DE, source: 'vies', vatFree: true });
        expect(await services.jobs.getState(jobId)).to.equal('completed');
        expect((await get(token)).body.VatFree).to.equal(true);
      } finally {
        services.vat = real;
        await vies.close();
      }
    });
  });
});
