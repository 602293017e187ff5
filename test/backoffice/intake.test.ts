// BACKOFFICE.md "Intake over HTTP": POST /backoffice/v1/intake, NDJSON records of the key's own tenant, through
// the same intake as `npm run import`; Idempotency-Key; size limits; line errors.
import http from 'node:http';
import { expect } from 'chai';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';
import { INTAKE_BODY_LIMIT, INTAKE_FLOOR } from '../../commands/backoffice-intake/operations.ts';

describe('intake over HTTP', () => {
  let server: TestServer;
  let counter = 0;
  const post = (body: string | Buffer, headers: Record<string, string> = {}, tenant: 'demo' | 'demo2' = 'demo'): Promise<TestResponse> =>
    server.request('POST', '/backoffice/v1/intake', {
      apiKey: null,
      rawBody: body,
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys[tenant]}`, 'Content-Type': 'application/x-ndjson', ...headers },
    });
  const category = (id: number, name: string, tenant = 'demo') =>
    JSON.stringify({ kind: 'category', tenant, categoryId: id, parentId: null, names: { en: name, sv: name, de: name }, sortOrder: 1 });
  const translations = (tenant = 'demo') =>
    JSON.stringify({ kind: 'translations', tenant, language: 'en', entries: { 'spec.intake': String(++counter) } });
  const eventCount = async () => (await server.events()).length;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it('takes the good lines, reports the bad ones by line number, and the records reach the bidder API', async () => {
    const body = [
      category(9001, 'Clocks'),
      '',
      '{not json',
      category(9002, 'Barometers', 'demo2'),
      JSON.stringify({ kind: 'tenant', tenant: 'demo', name: 'x' }),
      JSON.stringify({ kind: 'backOfficeKey', tenant: 'demo', keyId: 'k2', name: 'mine', key: 'a-long-enough-key-0123456789' }),
      JSON.stringify({
        kind: 'conditionReport',
        tenant: 'demo',
        lotId: 1,
        language: 'en',
        contentType: 'application/pdf',
        file: '../etc/passwd',
      }),
      JSON.stringify({ kind: 'nope', tenant: 'demo' }),
      translations(),
    ].join('\r\n');
    const answer = await post(body);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body.Records).to.equal(8);
    expect(answer.body.Appended).to.equal(2);
    expect(answer.body.Errors.map((e: { Line: number }) => e.Line)).to.deep.equal([3, 4, 5, 6, 7, 8]);
    const detail = (line: number) => answer.body.Errors.find((e: { Line: number }) => e.Line === line).Detail as string;
    expect(detail(4)).to.match(/own tenant \(demo\)/);
    expect(detail(5)).to.match(/operator/);
    expect(detail(6)).to.match(/operator/);
    expect(detail(7)).to.match(/base64/);
    const catalogued = (await server.events()).filter(
      (e) => e.type === 'CategoryCatalogued' && [9001, 9002].includes(e.data.categoryId as number),
    );
    expect(catalogued.map((e) => [e.data.tenant, e.data.categoryId])).to.deep.equal([['demo', 9001]]);
    // Through the same intake as the CLI: the correlation id of its events is the request's id.
    expect((catalogued[0] as unknown as { metadata: { correlationId?: string } }).metadata.correlationId).to.equal(
      answer.headers.get('x-request-id'),
    );
    // Sent again, equal records append nothing.
    const again = await post(body);
    expect(again.body).to.include({ Records: 8, Appended: 0 });
  });

  it('refuses a record whose text holds U+0000, a lone surrogate, a C1 control or a bad key as a line error naming the field, appending nothing for it', async () => {
    const body = [
      category(9101, 'Clocks\u0000'),
      category(9102, 'Barometers\udc00'),
      JSON.stringify({ kind: 'translations', tenant: 'demo', language: 'en', entries: { 'spec.ok': 'ok', 'spec.\u0007': 'x' } }),
      category(9103, 'Music\u009bboxes'),
      JSON.stringify({ kind: 'translations', tenant: 'demo', language: 'sv', entries: { 'spec.lines': 'Rad ett\nRad två' } }),
    ].join('\n');
    const before = await eventCount();
    const answer = await post(body);
    expect(answer.status, answer.text).to.equal(200);
    // The category's name in each of its three languages.
    const inEach = (message: string) => ['en', 'sv', 'de'].map((l) => `names.${l}: ${message}`).join('; ');
    expect(answer.body).to.deep.equal({
      Records: 5,
      Appended: 1,
      Errors: [
        { Line: 1, Detail: inEach('must not hold the control character U+0000') },
        { Line: 2, Detail: inEach('must not hold a lone surrogate (U+DC00), which is not Unicode text') },
        { Line: 3, Detail: 'entries.spec.\\u{7}: a key must not hold the control character U+0007' },
        { Line: 4, Detail: inEach('must not hold the control character U+009B') },
      ],
    });
    const appended = (await server.events()).slice(before);
    expect(appended.map((e) => [e.type, e.data.language, e.data.entries])).to.deep.equal([
      ['InterfaceTranslationsPublished', 'sv', { 'spec.lines': 'Rad ett\nRad två' }],
    ]);
  });

  it('answers the first answer again for the same Idempotency-Key and body, 422 for another body, appending nothing', async () => {
    const body = `${translations()}\n${category(9003, 'Music boxes')}\n`;
    const first = await post(body, { 'Idempotency-Key': 'batch-2026-11-26-a' });
    expect(first.status).to.equal(200);
    expect(first.body.Appended).to.equal(2);
    const before = await eventCount();
    const second = await post(body, { 'Idempotency-Key': 'batch-2026-11-26-a' });
    expect(second.status).to.equal(200);
    expect(second.body).to.deep.equal(first.body);
    expectProblem(await post(`${translations()}\n`, { 'Idempotency-Key': 'batch-2026-11-26-a' }), 422);
    expect(await eventCount()).to.equal(before);
    // Keys are per tenant: demo2 may use the same one.
    expect((await post(`${translations('demo2')}\n`, { 'Idempotency-Key': 'batch-2026-11-26-a' }, 'demo2')).status).to.equal(200);
  });

  it('lets one of parallel requests with the same key run; the others get its answer or a 409, never a second run', async () => {
    const body = `${translations()}\n`;
    const answers = await Promise.all(Array.from({ length: 4 }, () => post(body, { 'Idempotency-Key': 'parallel-key' })));
    const ok = answers.filter((a) => a.status === 200);
    for (const other of answers.filter((a) => a.status !== 200)) expectProblem(other, 409);
    expect(ok.length).to.be.at.least(1);
    for (const a of ok) expect(a.body).to.deep.equal({ Records: 1, Appended: 1, Errors: [] });
    const published = (await server.events()).filter(
      (e) => e.type === 'InterfaceTranslationsPublished' && e.data.entries && JSON.stringify(e.data.entries).includes(`"${counter}"`),
    );
    expect(published).to.have.length(1);
  });

  it("holds a house's slow uploads to that house: another house's intake goes on, and a body slower than 16 KiB in 10 s is ended with 408", async function () {
    this.timeout(30_000);
    /** An intake that declares 1 MB and sends a byte every 500 ms: its status and body, and when the socket closed. */
    const trickle = () =>
      new Promise<{ status: number; body: any; closed: Promise<void> }>((resolve, reject) => {
        const req = http.request(`${server.base}/backoffice/v1/intake`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${server.credentials.backOfficeKeys.demo}`,
            'Content-Type': 'application/x-ndjson',
            'Content-Length': 1_000_000,
          },
        });
        const closed = new Promise<void>((done) => req.on('close', () => done()));
        const drip = setInterval(() => req.write('{'), 500);
        req.on('response', (res) => {
          clearInterval(drip);
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), closed }));
        });
        req.on('error', (error) => (clearInterval(drip), reject(error)));
        req.write('{');
      });
    const before = await eventCount();
    const started = Date.now();
    const slow = [trickle(), trickle()];
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The house's two slots are taken: a third of its own waits its turn; another house's goes through.
    const third = await post(translations());
    expectProblem(third, 429);
    expect(third.headers.get('retry-after')).to.equal('1');
    const other = await post(translations('demo2'), {}, 'demo2');
    expect(other.status, other.text).to.equal(200);
    expect(other.body.Appended).to.equal(1);
    for (const answer of await Promise.all(slow)) {
      expect(answer.status).to.equal(408);
      expect(answer.body).to.include({ status: 408, title: 'Request Timeout' });
      await answer.closed;
    }
    expect(Date.now() - started).to.be.within(INTAKE_FLOOR.perMs - 500, INTAKE_FLOOR.perMs + 5000);
    // Nothing of them was taken; the house's slots are free again.
    expect(await eventCount()).to.equal(before + 1);
    expect((await post(translations())).status).to.equal(200);
  });

  it('refuses a body over 64 MiB (413, readable by fetch), another media type (415), a bad key (400) and bidder credentials (401), appending nothing', async () => {
    const before = await eventCount();
    const big = Buffer.alloc(INTAKE_BODY_LIMIT + 1, 0x20);
    const tooLarge = await fetch(`${server.base}/backoffice/v1/intake`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys.demo}`, 'Content-Type': 'application/x-ndjson' },
      body: big,
    });
    expect(tooLarge.status).to.equal(413);
    expect(tooLarge.headers.get('content-type')).to.match(/application\/problem\+json/);
    expectProblem(await post(translations(), { 'Content-Type': 'text/plain' }), 415);
    expectProblem(await post(translations(), { 'Idempotency-Key': 'x'.repeat(201) }), 400);
    expectProblem(
      await server.request('POST', '/backoffice/v1/intake', {
        token: await server.anonymousToken(),
        rawBody: translations(),
        headers: { 'Content-Type': 'application/x-ndjson' },
      }),
      401,
    );
    expect(await eventCount()).to.equal(before);
  });
});
