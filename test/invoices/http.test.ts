/**
 * Operations 47–51: GET /v1/me/invoices, GET /v1/me/invoices/{id}, GET /v1/me/invoices/{id}/pdf,
 * POST /v1/me/invoices and PUT /v1/me/invoices/{id}/shipping.
 *
 * Demo data: in `demo` (EUR, VAT 21 %) the demo member (id 1) has invoice 1 (number 1, paid) and invoice 2
 * (number 2, unpaid, issued later); in `demo2` (SEK, VAT 25 %) invoice 1 (unpaid). Price lists: `demo`
 * printed-catalogue 1,500 and condition-report 2,500; `demo2` 15,000 and 25,000 (minor units, before VAT).
 */
import { expect } from 'chai';
import { importRecord, importAnyRecord } from '../../app/features/intake.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { pdfText } from '../support/pdf-text.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

interface Line {
  Description: string;
  Amount: number;
  VatRate: number;
  VatAmount: number;
}
interface Invoice {
  Id: number;
  Number: number;
  AuctionId: number | null;
  Status: 'unpaid' | 'paid';
  IssuedAt: string;
  DueAt: string;
  PaidAt: string | null;
  Currency: string;
  CostType: string | null;
  Lines: Line[];
  Subtotal: number;
  VatTotal: number;
  Total: number;
  Shipping: null | Record<string, string | null>;
}

const FIELDS = [
  'Id',
  'Number',
  'AuctionId',
  'Status',
  'IssuedAt',
  'DueAt',
  'PaidAt',
  'Currency',
  'CostType',
  'Lines',
  'Subtotal',
  'VatTotal',
  'Total',
  'Shipping',
];
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Every answer's arithmetic: integer minor units, VAT per line rounded half up, Total = Subtotal + VatTotal. */
function expectConsistent(invoice: Invoice) {
  expect(Object.keys(invoice)).to.have.members(FIELDS);
  expect(['unpaid', 'paid']).to.include(invoice.Status);
  expect(invoice.IssuedAt).to.match(RFC3339_UTC);
  expect(invoice.DueAt).to.match(RFC3339_UTC);
  expect(invoice.Currency).to.match(/^[A-Z]{3}$/);
  expect(invoice.Lines).to.not.have.length(0);
  for (const line of invoice.Lines) {
    expect(Number.isInteger(line.Amount) && Number.isInteger(line.VatAmount), JSON.stringify(line)).to.equal(true);
    expect(line.VatAmount, JSON.stringify(line)).to.equal(Math.floor((line.Amount * line.VatRate) / 100 + 0.5));
  }
  expect(invoice.Subtotal).to.equal(invoice.Lines.reduce((s, l) => s + l.Amount, 0));
  expect(invoice.VatTotal).to.equal(invoice.Lines.reduce((s, l) => s + l.VatAmount, 0));
  expect(invoice.Total).to.equal(invoice.Subtotal + invoice.VatTotal);
  expect([invoice.Subtotal, invoice.VatTotal, invoice.Total].every(Number.isInteger)).to.equal(true);
}

describe('invoices (operations 47–51)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let token: string;
  let other: string;
  let demo2: string;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });
  const catchUp = () => server.runtime.services.projector.catchUp();

  const list = (query = '', t: string | null = token) => server.request('GET', `/v1/me/invoices${query}`, { token: t });
  const get = (id: number | string, t: string | null = token) => server.request('GET', `/v1/me/invoices/${id}`, { token: t });
  const raise = (body: unknown, t: string | null = token, headers: Record<string, string> = {}) =>
    server.request('POST', '/v1/me/invoices', { token: t, body, headers });
  const ship = (id: number | string, body: unknown, t: string | null = token) =>
    server.request('PUT', `/v1/me/invoices/${id}/shipping`, { token: t, body });
  const pdf = (id: number | string, t: string | null = token, headers: Record<string, string> = {}) =>
    server.rawGet(`/v1/me/invoices/${id}/pdf`, { token: t, headers });
  /** All of a member's invoices (every page). */
  const all = async (t = token): Promise<Invoice[]> => {
    const r = await list('?pageSize=100', t);
    expect(r.status, r.text).to.equal(200);
    return r.body.Items;
  };
  const ok = <T = Invoice>(r: { status: number; text: string; body: unknown }): T => {
    expect(r.status, r.text).to.equal(200);
    return r.body as T;
  };

  const addMember = async (tenant: string, memberId: number, firstName = 'Other', lastName = 'Member') => {
    await importRecord(server.runtime.services.log, {
      kind: 'member',
      tenant,
      memberId,
      email: `member${memberId}@example.com`,
      passwordHash: 'scrypt$disabled',
      firstName,
      lastName,
      language: 'en',
      phone: '',
      signedUpAt: new Date().toISOString(),
      confirmed: true,
      roles: ['bidder'],
    });
    return server.issueMemberToken(tenant, memberId);
  };

  /** Given the profile read model (the profile feature's) says what it says of a member. */
  const givenProfile = async (tenant: string, memberId: number, fields: Record<string, unknown>) => {
    const documents = server.runtime.services.documents;
    await documents.ensureCollection({ name: 'profiles' });
    const name = 'invoices-test-profiles';
    const expected = await documents.getCheckpoint(name);
    await documents
      .live()
      .commit([{ op: 'put', collection: 'profiles', tenant, doc: { _id: String(memberId), _pos: expected + 1, ...fields } }], {
        projection: name,
        expected,
        position: expected + 1,
      });
  };

  before(async () => {
    server = await startTestServer();
    token = await server.memberToken('demo');
    demo2 = await server.memberToken('demo2');
    other = await addMember('demo', 2);
    await catchUp();
  });
  after(async () => server?.close());

  describe('GET /v1/me/invoices', () => {
    it("lists the demo member's paid and unpaid invoice, newest first, in the paged envelope", async () => {
      const body = ok<{ Items: Invoice[]; TotalCount: number; Page: number; PageSize: number; TotalPages: number }>(await list());
      expect(body).to.include({ TotalCount: 2, Page: 1, PageSize: 20, TotalPages: 1 });
      expect(body.Items.map((i) => [i.Id, i.Number, i.Status])).to.deep.equal([
        [2, 2, 'unpaid'],
        [1, 1, 'paid'],
      ]);
      body.Items.forEach(expectConsistent);
      expect(body.Items[0].IssuedAt > body.Items[1].IssuedAt).to.equal(true);
      expect(body.Items[1].PaidAt).to.match(RFC3339_UTC);
      expect(body.Items[0].PaidAt).to.equal(null);
    });

    it('shows each line with its VAT rate in percent and its VAT rounded half up, and the totals', async () => {
      const [unpaid, paid] = await all();
      expect(unpaid).to.deep.include({
        AuctionId: 4,
        Currency: 'EUR',
        CostType: null,
        Lines: [
          { Description: 'Lot 57, hammer price', Amount: 45000, VatRate: 0, VatAmount: 0, LotId: 907, VatScheme: 'margin' },
          {
            Description: "Lot 57, buyer's premium 26 % (VAT included)",
            Amount: 14157,
            VatRate: 0,
            VatAmount: 0,
            LotId: 907,
            VatScheme: 'margin',
          },
          { Description: 'Storage, 10 days', Amount: 1250, VatRate: 21, VatAmount: 263, LotId: null, VatScheme: null },
        ],
        Subtotal: 60407,
        VatTotal: 263,
        Total: 60670,
        Shipping: null,
      });
      expect(paid).to.include({ Subtotal: 105168, VatTotal: 0, Total: 105168 });
    });

    it('pages: page and pageSize, a page past the end is empty, bad values are 400', async () => {
      const first = ok<{ Items: Invoice[]; TotalPages: number; PageSize: number }>(await list('?pageSize=1'));
      expect(first.Items.map((i) => i.Id)).to.deep.equal([2]);
      expect(first).to.include({ TotalPages: 2, PageSize: 1 });
      const second = ok<{ Items: Invoice[]; Page: number }>(await list('?PAGE=2&pagesize=1'));
      expect(second.Items.map((i) => i.Id)).to.deep.equal([1]);
      expect(second.Page).to.equal(2);
      expect(ok<{ Items: Invoice[]; TotalCount: number }>(await list('?page=5'))).to.deep.include({ Items: [], TotalCount: 2 });
      for (const query of ['?page=0', '?page=x', '?pageSize=0', '?pageSize=101', '?page=1&page=2', '?page[]=1'])
        expectProblem(await list(query), 400);
    });

    it('shows another member none of them', async () => {
      expect(ok<{ Items: Invoice[]; TotalCount: number }>(await list('', other))).to.deep.include({ Items: [], TotalCount: 0 });
    });

    it("shows a member of another house only that house's invoices", async () => {
      const items = await all(demo2);
      expect(items.map((i) => [i.Id, i.Number, i.Currency, i.Total])).to.deep.equal([[1, 1, 'SEK', 262500]]);
      items.forEach(expectConsistent);
    });
  });

  describe('GET /v1/me/invoices/{id}', () => {
    it("answers one of the caller's invoices with its lines and totals", async () => {
      const invoice = ok(await get(2));
      expectConsistent(invoice);
      expect(invoice).to.include({ Id: 2, Number: 2, Status: 'unpaid', Total: 60670 });
      expect(invoice).to.deep.equal((await all()).find((i) => i.Id === 2));
    });

    it("answers 404 for another member's invoice and an unknown id", async () => {
      expectProblem(await get(2, other), 404);
      expectProblem(await get(999999), 404);
    });

    it("answers 404 for another house's invoice, whose content it never shows", async () => {
      const demoTwo = ok(await get(1, demo2));
      expect(demoTwo.Currency).to.equal('SEK');
      expect(demoTwo.Lines.map((l) => l.Description)).to.not.include('Lot 12, hammer price');
      expectProblem(await get(2, demo2), 404);
    });

    it('answers 400 for an id that is not a positive int32', async () => {
      for (const id of ['abc', '0', '-1', '2147483648', '1.5']) expectProblem(await get(id), 400);
    });
  });

  describe('GET /v1/me/invoices/{id}/pdf', () => {
    it('answers a PDF with the house, number, dates, member, lines, VAT, totals and shipping', async () => {
      const file = await pdf(2);
      expect(file.status, file.body).to.equal(200);
      expect(file.headers['content-type']).to.equal('application/pdf');
      expect(file.headers['cache-control']).to.equal('no-store');
      expect(file.headers['content-disposition']).to.match(/^inline; filename="Invoice 2\.pdf"/);
      expect(file.bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
      const text = await pdfText(file.bytes);
      const invoice = ok(await get(2));
      const date = (iso: string) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));
      for (const expected of [
        'Demo Auctions',
        'Invoice 2',
        `Issued: ${date(invoice.IssuedAt)}`,
        `Due: ${date(invoice.DueAt)}`,
        'Unpaid',
        'Winter Silver and Jewellery',
        'Demo Bidder',
        'Member no. 1',
        'Lot 57, hammer price',
        "Lot 57, buyer's premium 26 % (VAT included)",
        '€450',
        '€141.57',
        '€2.63',
        'Subtotal €604.07',
        'VAT €2.63',
        'Total €606.70',
        'VAT included under the margin scheme',
        'Shipping Not chosen yet',
      ])
        expect(text, expected).to.contain(expected);
      // The margin lot's lines show no VAT of their own: no 21 % beside its premium, only beside the storage.
      expect(text).to.not.contain('€29.73');
    });

    it('says when a paid invoice was paid', async () => {
      const invoice = ok(await get(1));
      const text = await pdfText((await pdf(1)).bytes);
      const date = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(invoice.PaidAt!));
      expect(text).to.contain(`Paid (Paid on ${date})`);
      expect(text).to.contain('Total €1,051.68');
    });

    it('is written in the negotiated language', async () => {
      const text = await pdfText((await pdf(2, token, { 'Accept-Language': 'sv' })).bytes);
      expect(text).to.contain('Faktura 2');
      expect(text).to.contain('Att betala');
      expect(text).to.match(/606,70\s?€/);
      expect(text).to.contain('Moms ingår enligt vinstmarginalbeskattning');
    });

    it('is made once and answered again from the file store, with 304 for its ETag', async () => {
      const first = await pdf(2);
      const made = server.runtime.services.generatedFiles.generated;
      const again = await pdf(2);
      expect(server.runtime.services.generatedFiles.generated).to.equal(made);
      expect(again.bytes.equals(first.bytes)).to.equal(true);
      expect(again.headers.etag).to.equal(first.headers.etag);
      const notModified = await pdf(2, token, { 'If-None-Match': first.headers.etag! });
      expect(notModified.status).to.equal(304);
    });

    it("answers 404 for another member's invoice or an unknown one, 400 for a bad id", async () => {
      expect((await pdf(2, other)).status).to.equal(404);
      expect((await pdf(424242)).status).to.equal(404);
      expect((await pdf('x')).status).to.equal(400);
    });
  });

  describe('POST /v1/me/invoices', () => {
    it('raises an invoice for a printed catalogue: the price list amount plus 21 % VAT, the next number, due in 14 days', async () => {
      const before = await head();
      const invoice = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 1 }));
      expectConsistent(invoice);
      expect(invoice).to.deep.include({
        Id: 3,
        Number: 3,
        AuctionId: 1,
        Status: 'unpaid',
        PaidAt: null,
        Currency: 'EUR',
        CostType: 'printed-catalogue',
        Lines: [{ Description: 'Printed catalogue', Amount: 1500, VatRate: 21, VatAmount: 315, LotId: null, VatScheme: null }],
        Subtotal: 1500,
        VatTotal: 315,
        Total: 1815,
        Shipping: null,
      });
      expect(Date.parse(invoice.DueAt) - Date.parse(invoice.IssuedAt)).to.equal(14 * 86_400_000);
      const events = await since(before);
      expect(events.map((e) => [e.type, e.streamId])).to.deep.equal([['CostInvoiceRaised', 'invoices-demo']]);
      expect(events[0].data).to.include({
        tenant: 'demo',
        invoiceId: 3,
        number: 3,
        memberId: 1,
        auctionId: 1,
        costType: 'printed-catalogue',
        vatFree: false,
      });
    });

    it('shows the raised invoice right away in the list (first) and by id (read your writes)', async () => {
      const raised = ok(await raise({ CostType: 'condition-report', AuctionId: 2 }));
      const items = await all();
      expect(items[0]).to.deep.equal(raised);
      expect(ok(await get(raised.Id))).to.deep.equal(raised);
    });

    it('takes the amount from the price list, never from the body, and the member from the token', async () => {
      const before = await head();
      const invoice = ok(
        await raise({
          CostType: 'condition-report',
          AuctionId: 1,
          Amount: 1,
          Total: 1,
          Lines: [{ Description: 'x', Amount: 1 }],
          VatRate: 0,
          MemberId: 2,
          Currency: 'SEK',
        }),
      );
      expect(invoice).to.deep.include({
        Currency: 'EUR',
        Lines: [{ Description: 'Condition report', Amount: 2500, VatRate: 21, VatAmount: 525, LotId: null, VatScheme: null }],
        Total: 3025,
      });
      const [event] = await since(before);
      expect(event.data).to.include({ memberId: 1 });
      expect((await all(other)).map((i) => i.Id)).to.not.include(invoice.Id);
    });

    it('answers the same unpaid invoice when the same cost is raised again, and appends nothing', async () => {
      const first = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 5 }));
      const before = await head();
      const again = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 5 }));
      expect(again).to.deep.equal(first);
      expect(await head()).to.equal(before);
    });

    it('raises a new one once the previous one is paid', async () => {
      const first = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 3 }));
      await importAnyRecord(server.runtime.services.log, {
        kind: 'invoicePaid',
        tenant: 'demo',
        invoiceId: first.Id,
        paidAt: new Date().toISOString(),
      });
      await catchUp();
      expect(ok(await get(first.Id)).Status).to.equal('paid');
      const second = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 3 }));
      expect(second.Id).to.not.equal(first.Id);
      expect(second.Number).to.be.greaterThan(first.Number);
    });

    it('allows a closed auction (a printed catalogue of a past sale)', async () => {
      const invoice = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 4 }));
      expect(invoice).to.include({ AuctionId: 4, Total: 1815 });
    });

    it('writes the description in the negotiated language', async () => {
      const invoice = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 1 }, other, { 'Accept-Language': 'sv' }));
      expect(invoice.Lines[0].Description).to.equal('Tryckt katalog');
    });

    it('charges a member whose profile says VatFree no VAT, and prints that the VAT is reverse charged', async () => {
      const vatFree = await addMember('demo', 3, 'Vera', 'Free');
      await catchUp();
      await givenProfile('demo', 3, {
        VatFree: true,
        CompanyName: 'Free Trade GmbH',
        Address: 'Hauptstraße',
        HouseNumber: '5',
        ZipCode: '10115',
        City: 'Berlin',
        Country: 'DE',
      });
      const invoice = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 1 }, vatFree));
      expectConsistent(invoice);
      expect(invoice).to.deep.include({
        Lines: [{ Description: 'Printed catalogue', Amount: 1500, VatRate: 0, VatAmount: 0, LotId: null, VatScheme: null }],
        VatTotal: 0,
        Total: 1500,
      });
      const text = await pdfText((await pdf(invoice.Id, vatFree)).bytes);
      for (const expected of ['Vera Free', 'Free Trade GmbH', 'Hauptstraße 5', '10115 Berlin', 'DE', 'VAT reverse charged', 'Total €15'])
        expect(text, expected).to.contain(expected);
    });

    it('charges a member without a VatFree profile VAT', async () => {
      const member = await addMember('demo', 4);
      await catchUp();
      await givenProfile('demo', 4, { VatFree: false });
      expect(ok(await raise({ CostType: 'printed-catalogue', AuctionId: 1 }, member)).VatTotal).to.equal(315);
    });

    it("raises in another house with that house's price list, currency, VAT rate and numbers", async () => {
      const before = await head();
      const invoice = ok(await raise({ CostType: 'printed-catalogue', AuctionId: 1 }, demo2));
      expectConsistent(invoice);
      expect(invoice).to.deep.include({
        Id: 2,
        Number: 2,
        Currency: 'SEK',
        Lines: [{ Description: 'Printed catalogue', Amount: 15000, VatRate: 25, VatAmount: 3750, LotId: null, VatScheme: null }],
        Total: 18750,
      });
      expect(Date.parse(invoice.DueAt) - Date.parse(invoice.IssuedAt)).to.equal(10 * 86_400_000);
      expect((await since(before)).map((e) => e.streamId)).to.deep.equal(['invoices-demo2']);
      expect((await all()).map((i) => i.Currency)).to.not.include('SEK');
    });

    it('answers 400 naming body.CostType for a cost type the price list does not have, and appends nothing', async () => {
      const before = await head();
      for (const CostType of ['framing', 'Printed-Catalogue', '', 'a b', 'x'.repeat(65), 3, null]) {
        const problem = expectProblem(await raise({ CostType, AuctionId: 1 }), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(CostType),
        ).to.include('body.CostType');
      }
      expect(await head()).to.equal(before);
    });

    it('answers 400 for a missing or bad AuctionId or body, and appends nothing', async () => {
      const before = await head();
      for (const body of [
        { CostType: 'printed-catalogue' },
        { CostType: 'printed-catalogue', AuctionId: '1' },
        { CostType: 'printed-catalogue', AuctionId: 0 },
        { CostType: 'printed-catalogue', AuctionId: 2147483648 },
        { CostType: 'printed-catalogue', AuctionId: 1.5 },
      ]) {
        const problem = expectProblem(await raise(body), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body),
        ).to.include('body.AuctionId');
      }
      expectProblem(await raise(undefined), 400);
      expectProblem(await raise([1, 2]), 400);
      expectProblem(
        await server.request('POST', '/v1/me/invoices', {
          token,
          rawBody: '{"CostType":',
          headers: { 'Content-Type': 'application/json' },
        }),
        400,
      );
      expect(await head()).to.equal(before);
    });

    it("answers 404 for an auction the house does not have (another house's included), and appends nothing", async () => {
      const before = await head();
      expectProblem(await raise({ CostType: 'printed-catalogue', AuctionId: 999 }), 404);
      expectProblem(await raise({ CostType: 'printed-catalogue', AuctionId: 2 }, demo2), 404);
      expect(await head()).to.equal(before);
    });

    it('numbers invoices raised at the same time uniquely and without gaps', async () => {
      const members = await Promise.all([10, 11, 12, 13, 14, 15, 16, 17].map((id) => addMember('demo', id)));
      await catchUp();
      const before = ok<{ Items: Invoice[] }>(await list('?pageSize=1')).Items[0];
      const numbersBefore = (await server.runtime.services.log.readStream('invoices-demo')).length;
      const answers = await Promise.all(
        members.flatMap((member) => [1, 2, 5].map((AuctionId) => raise({ CostType: 'condition-report', AuctionId }, member))),
      );
      const invoices = answers.map((r) => ok(r));
      const numbers = invoices.map((i) => i.Number).sort((a, b) => a - b);
      const ids = new Set(invoices.map((i) => i.Id));
      expect(ids.size).to.equal(24);
      const first = numbers[0];
      expect(numbers).to.deep.equal(Array.from({ length: 24 }, (_, i) => first + i));
      expect(first).to.be.greaterThan(before.Number);
      expect((await server.runtime.services.log.readStream('invoices-demo')).length).to.equal(numbersBefore + 24);
    });
  });

  describe('PUT /v1/me/invoices/{id}/shipping', () => {
    const address = { Method: 'post', Name: 'Demo Bidder', Address: 'Herengracht 7', ZipCode: '1015 CJ', City: 'Amsterdam', Country: 'NL' };

    it('sets the shipping preference of an unpaid invoice, shown right away', async () => {
      const before = await head();
      const invoice = ok(await ship(2, address));
      expectConsistent(invoice);
      const { Method, Name, Address, ZipCode, City, Country } = invoice.Shipping!;
      expect({ Method, Name, Address, ZipCode, City, Country }).to.deep.equal(address);
      expect(invoice.Shipping!.ChosenAt).to.match(RFC3339_UTC);
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['InvoiceShippingSelected']);
      expect(events[0].data).to.include({ tenant: 'demo', invoiceId: 2, memberId: 1, method: 'post', city: 'Amsterdam' });
      expect(ok(await get(2)).Shipping).to.deep.equal(invoice.Shipping);
    });

    it('appends nothing when the same preference is sent again', async () => {
      const before = await head();
      ok(await ship(2, address));
      expect(await head()).to.equal(before);
    });

    it('remakes the PDF with the new shipping', async () => {
      const before = await pdf(2);
      expect(await pdfText(before.bytes)).to.contain('Herengracht 7');
      ok(await ship(2, { ...address, Method: 'courier', Address: 'Prinsengracht 263' }));
      const after = await pdf(2);
      expect(after.headers.etag).to.not.equal(before.headers.etag);
      const text = await pdfText(after.bytes);
      expect(text).to.contain('Courier');
      expect(text).to.contain('Prinsengracht 263');
      expect(text, text).to.not.contain('Herengracht 7');
    });

    it('accepts pickup without an address', async () => {
      const invoice = ok(await ship(2, { Method: 'pickup' }));
      expect(invoice.Shipping).to.deep.include({ Method: 'pickup', Name: null, Address: null, ZipCode: null, City: null, Country: null });
      expect(await pdfText((await pdf(2)).bytes)).to.contain('Pickup at the auction house');
    });

    it('answers 400 naming each missing address field unless pickup, and appends nothing', async () => {
      const before = await head();
      for (const Method of ['post', 'courier']) {
        const problem = expectProblem(await ship(2, { Method }), 400);
        expect(problem.errors.map((e: { field: string }) => e.field)).to.have.members([
          'body.Name',
          'body.Address',
          'body.ZipCode',
          'body.City',
          'body.Country',
        ]);
      }
      const blank = expectProblem(await ship(2, { ...address, City: '  ' }), 400);
      expect(blank.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.City']);
      for (const [body, field] of [
        [{ ...address, Method: 'drone' }, 'body.Method'],
        [{ ...address, Method: undefined }, 'body.Method'],
        [{ ...address, Country: 'nl' }, 'body.Country'],
        [{ ...address, Country: 'NLD' }, 'body.Country'],
        [{ ...address, Name: 'x'.repeat(201) }, 'body.Name'],
        [{ ...address, ZipCode: 12345 }, 'body.ZipCode'],
        [{ ...address, Address: 'Herengracht\n7' }, 'body.Address'],
      ] as const) {
        const problem = expectProblem(await ship(2, body), 400);
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body),
        ).to.include(field);
      }
      expectProblem(await ship(2, undefined), 400);
      expect(await head()).to.equal(before);
    });

    it('answers 409 for a paid invoice, and appends nothing', async () => {
      const before = await head();
      expectProblem(await ship(1, address), 409);
      expectProblem(await ship(1, { Method: 'pickup' }), 409);
      expect(await head()).to.equal(before);
    });

    it('answers 409 once the house has recorded the payment, and the PDF then says paid', async () => {
      const invoice = ok(await raise({ CostType: 'condition-report', AuctionId: 3 }));
      ok(await ship(invoice.Id, address));
      await importAnyRecord(server.runtime.services.log, {
        kind: 'invoicePaid',
        tenant: 'demo',
        invoiceId: invoice.Id,
        paidAt: '2026-01-02T03:04:05.000Z',
      });
      await catchUp();
      expectProblem(await ship(invoice.Id, { Method: 'pickup' }), 409);
      const paid = ok(await get(invoice.Id));
      expect(paid).to.include({ Status: 'paid', PaidAt: '2026-01-02T03:04:05.000Z' });
      expect(paid.Shipping).to.include({ Method: 'post' });
      expect(await pdfText((await pdf(invoice.Id)).bytes)).to.contain('Paid on Jan 2, 2026');
    });

    it("answers 404 for another member's invoice, another house's and an unknown one, and appends nothing", async () => {
      const before = await head();
      expectProblem(await ship(2, address, other), 404);
      expectProblem(await ship(3, address, demo2), 404);
      expectProblem(await ship(999999, address), 404);
      expectProblem(await ship('abc', address), 400);
      expect(await head()).to.equal(before);
      expect(ok(await get(2)).Shipping).to.include({ Method: 'pickup' });
    });
  });

  describe('credentials', () => {
    it('answers 401 to every invoice operation without a member token', async () => {
      const anonymous = await server.anonymousToken('demo');
      for (const t of [null, anonymous, 'not-a-token']) {
        expectProblem(await list('', t), 401);
        expectProblem(await get(2, t), 401);
        expect((await pdf(2, t)).status).to.equal(401);
        expectProblem(await raise({ CostType: 'printed-catalogue', AuctionId: 1 }, t), 401);
        expectProblem(await ship(2, { Method: 'pickup' }, t), 401);
      }
    });

    it('answers 401 to a member token whose member no longer exists', async () => {
      const gone = await addMember('demo', 20);
      await importRecord(server.runtime.services.log, {
        kind: 'memberRemoved',
        tenant: 'demo',
        memberId: 20,
        at: new Date().toISOString(),
      });
      await catchUp();
      expectProblem(await list('', gone), 401);
    });
  });
});
