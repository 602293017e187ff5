import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { importRecord } from '../../app/features/intake.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';
import { foldSpace, pdfPages, pdfText } from '../support/pdf-text.ts';

/**
 * Operations 6 (GET /v1/auctions/{id}/catalogue), 7 (GET /v1/auctions/{id}/export), 12 (GET
 * /v1/auctions/{id}/documents), 13 (GET /v1/auctions/{id}/documents/{documentId}) and 19 (GET
 * /v1/lots/{id}/documents/{fieldname}); API.md "Conventions", "Credentials", "Details of the catalogue
 * operations", "Errors" and "Demo data".
 *
 * Demo tenant `demo` (en default, sv, de; EUR): auction 1 lots 1..400, 2: 401..600, 3: 601..850,
 * 4 (closed): 851..1100, 5: 1101..1220. Auction documents 1..15 are the terms of auctions 1..5 in en, sv, de
 * (auction 1: 1, 2, 3; auction 2: 4, 5, 6; ...), 16 "Conditions of sale.pdf" and 17 "Catalogue
 * supplement.txt" (text/plain) belong to auction 1. Condition reports: lots 1, 2, 3, 12, 401, 402, 851.
 * Tenant `demo2` (en, SEK): auction 1 with lots 1..60, no documents.
 *
 * Lots are changed (re-imported) only in auctions 2 and 5, so the checks on auctions 1, 3 and 4 read the
 * seeded catalogue.
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const DOCUMENT_KINDS = ['terms', 'conditions', 'catalogue-supplement', 'other'];
const LANGUAGES = ['en', 'sv', 'de'] as const;
const TERMS_HEADING: Record<string, string> = { en: 'Terms of sale', sv: 'Försäljningsvillkor', de: 'Versteigerungsbedingungen' };
const AUCTION_LOTS: Record<number, number> = { 1: 400, 2: 200, 3: 250, 4: 250, 5: 120 };
const CONDITION_REPORT_LOTS = [1, 2, 3, 12, 401, 402, 851];
const BAD_IDS = ['abc', '1.5', '2147483648', '-1', '0', '1e3'];

interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** An amount in minor units as a person reads it in a language (`1 130 €`, `1.130 €`, `€1,130`). */
const money = (minor: number, currency: string, language: string) => {
  const major = minor / 100;
  return foldSpace(
    new Intl.NumberFormat(language, {
      style: 'currency',
      currency,
      minimumFractionDigits: Number.isInteger(major) ? 0 : 2,
      maximumFractionDigits: 2,
    }).format(major),
  );
};

/** The file name of a Content-Disposition header: `filename*` (RFC 5987, UTF-8) when present, else `filename`. */
function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) return decodeURIComponent(extended[1].trim());
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1];
}

/** Where each of `needles` is found in `text`, each after the previous one; -1 from the first one missing. */
function findInSequence(text: string, needles: string[]): number[] {
  const at: number[] = [];
  let from = 0;
  for (const needle of needles) {
    const i = from < 0 ? -1 : text.indexOf(needle, from);
    at.push(i);
    from = i < 0 ? -1 : i + needle.length;
  }
  return at;
}

async function workbookOf(bytes: Buffer) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  expect(workbook.worksheets.length, 'worksheets').to.be.greaterThan(0);
  const sheet = workbook.worksheets[0];
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const values: unknown[] = [];
    for (let c = 1; c <= sheet.columnCount; c++) {
      const v = row.getCell(c).value;
      values.push(v && typeof v === 'object' && 'result' in v ? (v as { result: unknown }).result : v);
    }
    rows.push(values);
  });
  return { sheet, header: rows[0].map((v) => (v === null || v === undefined ? '' : String(v))), rows: rows.slice(1) };
}

/** Column indexes of an English export, found by their header texts. */
function englishColumns(header: string[]) {
  const find = (re: RegExp, label: string) => {
    const i = header.findIndex((h) => re.test(h));
    expect(i, `a "${label}" column in ${JSON.stringify(header)}`).to.be.greaterThan(-1);
    return i;
  };
  return {
    lotNumber: find(/lot\s*(number|no)/i, 'lot number'),
    title: find(/^title/i, 'title'),
    description: find(/description/i, 'description'),
    category: find(/category/i, 'category'),
    estimateLow: find(/(low.*estimate|estimate.*low)/i, 'estimate low'),
    estimateHigh: find(/(high.*estimate|estimate.*high)/i, 'estimate high'),
    startingPrice: find(/starting/i, 'starting price'),
    currentBid: find(/current\s*bid/i, 'current bid'),
    currency: find(/^currency/i, 'currency'),
    endTime: find(/end/i, 'end time'),
  };
}

const blank = (v: unknown) => v === null || v === undefined || v === '';

describe('auction documents, lot documents, the printed catalogue and the spreadsheet export', () => {
  let server: TestServer;
  let token: string;
  let demo2: string;

  const get = (path: string, headers: Record<string, string> = {}, as = token) => server.request('GET', path, { token: as, headers });
  /** A binary answer: its bytes as sent (the JSON helper decodes bodies as UTF-8). */
  const download = async (path: string, headers: Record<string, string> = {}, as: string | null = token): Promise<Download> => {
    const h: Record<string, string> = { 'Api-Key': server.credentials.apiKey, ...headers };
    if (as) h.Authorization = `Bearer ${as}`;
    const r = await fetch(server.base + path, { headers: h });
    return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
  };
  /** A problem answer from a download (fetched raw), checked like any other. */
  const asProblem = (d: Download, status: number) => {
    const text = d.bytes.toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return expectProblem({ status: d.status, headers: d.headers, body, text } satisfies TestResponse, status);
  };
  const generated = () => server.runtime.services.generatedFiles.generated;

  /** Every lot of an auction, open and closed, in lot-number order, in a language. */
  const lotsOf = async (auctionId: number, language = 'en', as = token) => {
    const lots: any[] = [];
    for (let page = 1; ; page++) {
      const r = await get(
        `/v1/lots?AuctionId=${auctionId}&ShowClosedLots=true&Sort=LotNumber&pageSize=100&page=${page}`,
        { 'Accept-Language': language },
        as,
      );
      expect(r.status, r.text).to.equal(200);
      lots.push(...r.body.Items);
      if (page >= r.body.TotalPages) return lots;
    }
  };

  /** Re-imports a lot's catalogue record with a new title in one language (an intake update of the lot). */
  const retitleLot = async (lotId: number, language: string, title: string) => {
    const events = await server.runtime.services.log.readStream(`lot-demo-${lotId}`);
    const data = events.filter((e) => e.type === 'LotCatalogued').at(-1)!.data as Record<string, any>;
    const texts = { ...data.texts, [language]: { ...data.texts[language], title } };
    await importRecord(server.runtime.services.log, { ...data, kind: 'lot', texts } as unknown as Parameters<typeof importRecord>[1]);
    await server.runtime.services.projector.catchUp();
  };

  before(async function () {
    this.timeout(60000);
    server = await startTestServer();
    token = await server.anonymousToken('demo');
    demo2 = await server.anonymousToken('demo2');
  });
  after(async () => server?.close());

  describe('GET /v1/auctions/{id}/documents (12)', () => {
    it('lists the documents of an auction as [{Id, Name, Kind, Language, ContentType, Size}] with the demo documents of auction 1', async () => {
      const r = await get('/v1/auctions/1/documents');
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^application\/json/);
      expect(r.body).to.be.an('array');
      for (const d of r.body) {
        expect(d).to.have.all.keys('Id', 'Name', 'Kind', 'Language', 'ContentType', 'Size');
        expect(Number.isInteger(d.Id), `Id ${d.Id}`).to.equal(true);
        expect(d.Name).to.be.a('string').and.not.equal('');
        expect(d.Kind).to.be.oneOf(DOCUMENT_KINDS);
        expect(d.Language).to.be.oneOf([...LANGUAGES]);
        expect(d.ContentType).to.match(/^[a-z]+\/[a-z0-9.+-]+/i);
        expect(Number.isInteger(d.Size) && d.Size >= 0, `Size ${d.Size}`).to.equal(true);
      }
      expect(r.body.map((d: any) => d.Id)).to.have.members([1, 2, 3, 16, 17]);
      const byId = new Map<number, any>(r.body.map((d: any) => [d.Id, d]));
      expect(byId.get(16)).to.include({
        Name: 'Conditions of sale.pdf',
        Kind: 'conditions',
        Language: 'en',
        ContentType: 'application/pdf',
      });
      expect(byId.get(17)).to.include({
        Name: 'Catalogue supplement.txt',
        Kind: 'catalogue-supplement',
        Language: 'en',
        ContentType: 'text/plain',
      });
    });

    it('lists the terms of every demo auction in every published language, as PDFs', async () => {
      for (let auctionId = 1; auctionId <= 5; auctionId++) {
        const r = await get(`/v1/auctions/${auctionId}/documents`);
        expect(r.status, `auction ${auctionId}: ${r.text}`).to.equal(200);
        const terms = r.body.filter((d: any) => d.Kind === 'terms');
        expect(
          terms.map((d: any) => d.Language),
          `terms of auction ${auctionId}`,
        ).to.have.members([...LANGUAGES]);
        for (const d of terms) expect(d.ContentType).to.equal('application/pdf');
        const first = (auctionId - 1) * 3 + 1;
        expect(
          terms.map((d: any) => d.Id),
          `term ids of auction ${auctionId}`,
        ).to.have.members([first, first + 1, first + 2]);
      }
    });

    it('lists the documents in ascending Id order', async () => {
      for (let auctionId = 1; auctionId <= 5; auctionId++) {
        const ids = (await get(`/v1/auctions/${auctionId}/documents`)).body.map((d: any) => d.Id);
        expect(ids, `auction ${auctionId}`).to.deep.equal([...ids].sort((a: number, b: number) => a - b));
      }
    });

    it('lists every language whatever the negotiated language, and says which language each document is in', async () => {
      const en = await get('/v1/auctions/1/documents');
      for (const language of ['sv', 'de']) {
        const other = await get('/v1/auctions/1/documents', { 'Accept-Language': language });
        expect(other.status).to.equal(200);
        expect(other.body).to.deep.equal(en.body);
        expect(other.headers.get('content-language')).to.equal(language);
      }
      const terms = en.body.filter((d: any) => d.Kind === 'terms');
      expect(terms.find((d: any) => d.Language === 'sv').Name).to.contain('Försäljningsvillkor');
      expect(terms.find((d: any) => d.Language === 'de').Name).to.contain('Versteigerungsbedingungen');
    });

    it('lists a Size equal to the number of bytes each download answers', async () => {
      for (let auctionId = 1; auctionId <= 5; auctionId++) {
        for (const d of (await get(`/v1/auctions/${auctionId}/documents`)).body) {
          const file = await download(`/v1/auctions/${auctionId}/documents/${d.Id}`, { 'Accept-Encoding': 'identity' });
          expect(file.status, `document ${d.Id}`).to.equal(200);
          expect(file.bytes.length, `bytes of document ${d.Id}`).to.equal(d.Size);
        }
      }
    });

    it('carries an ETag and answers 304 to a matching If-None-Match', async () => {
      const r = await get('/v1/auctions/1/documents');
      const etag = r.headers.get('etag');
      expect(etag).to.be.a('string').and.not.equal('');
      const again = await get('/v1/auctions/1/documents', { 'If-None-Match': etag! });
      expect(again.status).to.equal(304);
      expect(again.text).to.equal('');
    });

    it('answers 404 for an auction that does not exist', async () => {
      expectProblem(await get('/v1/auctions/99/documents'), 404);
      expectProblem(await get('/v1/auctions/2147483647/documents'), 404);
    });

    it('answers 400 for an auction id that is not an int32, never a 500', async () => {
      for (const id of BAD_IDS) {
        const problem = expectProblem(await get(`/v1/auctions/${encodeURIComponent(id)}/documents`), 400);
        expect(problem.errors, `errors for ${id}`).to.be.an('array').that.is.not.empty;
      }
    });

    it('answers 401 without a token, with a bad token, and without or with an unknown Api-Key', async () => {
      expectProblem(await server.request('GET', '/v1/auctions/1/documents', { token: null }), 401);
      expectProblem(await server.request('GET', '/v1/auctions/1/documents', { token: 'not-a-token' }), 401);
      expectProblem(await server.request('GET', '/v1/auctions/1/documents', { token, apiKey: null }), 401);
      expectProblem(await server.request('GET', '/v1/auctions/1/documents', { token, apiKey: 'unknown-key-0123456789' }), 401);
    });
  });

  describe('GET /v1/auctions/{id}/documents/{documentId} (13)', () => {
    it("answers a terms document as a PDF whose text names the auction's title in the document's language", async () => {
      for (let auctionId = 1; auctionId <= 5; auctionId++) {
        const translations = (await get(`/v1/auctions/${auctionId}/translations`)).body.Translations as Array<{
          Language: string;
          Title: string;
        }>;
        const listed = (await get(`/v1/auctions/${auctionId}/documents`)).body.filter((d: any) => d.Kind === 'terms');
        for (const d of listed) {
          const file = await download(`/v1/auctions/${auctionId}/documents/${d.Id}`);
          expect(file.status).to.equal(200);
          expect(file.headers.get('content-type')).to.match(/^application\/pdf/);
          expect(file.bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
          const text = await pdfText(file.bytes);
          const title = translations.find((t) => t.Language === d.Language)!.Title;
          expect(text, `document ${d.Id} (${d.Language})`).to.contain(foldSpace(title));
          expect(text, `document ${d.Id} (${d.Language})`).to.contain(TERMS_HEADING[d.Language]);
        }
      }
    });

    it('answers the Swedish terms of auction 1 in Swedish, with Content-Language sv whatever the negotiated language', async () => {
      const file = await download('/v1/auctions/1/documents/2', { 'Accept-Language': 'de' });
      expect(file.headers.get('content-language')).to.equal('sv');
      const text = await pdfText(file.bytes);
      expect(text).to.contain('Försäljningsvillkor');
      expect(text).to.contain('Vårens designauktion');
      expect(text).to.not.contain('Terms of sale');
    });

    it('answers Content-Type, Content-Length equal to the listed Size, and Content-Disposition with the name (filename* in UTF-8)', async () => {
      const listed = (await get('/v1/auctions/1/documents')).body as any[];
      for (const d of listed) {
        const file = await download(`/v1/auctions/1/documents/${d.Id}`, { 'Accept-Encoding': 'identity' });
        expect(file.status).to.equal(200);
        expect(file.headers.get('content-type')!.split(';')[0].trim(), `type of ${d.Id}`).to.equal(d.ContentType);
        expect(Number(file.headers.get('content-length')), `Content-Length of ${d.Id}`).to.equal(d.Size);
        const disposition = file.headers.get('content-disposition');
        expect(disposition, `Content-Disposition of ${d.Id}`).to.match(/^(attachment|inline)\s*;/);
        expect(dispositionName(disposition), `name of ${d.Id}`).to.equal(d.Name);
      }
      const swedish = await download('/v1/auctions/1/documents/2');
      expect(swedish.headers.get('content-disposition')).to.contain(`filename*=UTF-8''${encodeURIComponent('Försäljningsvillkor')}`);
      // The plain `filename` fallback is ASCII only.
      expect(/filename="([^"]*)"/.exec(swedish.headers.get('content-disposition')!)![1]).to.match(/^[\x20-\x7e]*$/);
    });

    it('answers the Content-Length of the listed Size also when the client accepts compression', async () => {
      const d = (await get('/v1/auctions/1/documents')).body.find((x: any) => x.Id === 3);
      const r = await fetch(`${server.base}/v1/auctions/1/documents/3`, {
        headers: { 'Api-Key': server.credentials.apiKey, Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip, br' },
      });
      const bytes = Buffer.from(await r.arrayBuffer());
      expect(r.status).to.equal(200);
      expect(bytes.length).to.equal(d.Size);
      if (!r.headers.get('content-encoding')) expect(Number(r.headers.get('content-length'))).to.equal(d.Size);
    });

    it('answers the text/plain catalogue supplement with its content type and text', async () => {
      const file = await download('/v1/auctions/1/documents/17');
      expect(file.status).to.equal(200);
      expect(file.headers.get('content-type')).to.match(/^text\/plain/);
      expect(file.bytes.toString('utf8')).to.contain('Spring Design Sale');
      expect(dispositionName(file.headers.get('content-disposition'))).to.equal('Catalogue supplement.txt');
    });

    it('answers the conditions of sale as a PDF', async () => {
      const file = await download('/v1/auctions/1/documents/16');
      expect(file.status).to.equal(200);
      expect(await pdfText(file.bytes)).to.contain('Conditions of sale');
    });

    it('carries an ETag and answers 304 to a matching If-None-Match, without a body', async () => {
      const first = await download('/v1/auctions/1/documents/1');
      const etag = first.headers.get('etag');
      expect(etag).to.be.a('string').and.not.equal('');
      const again = await download('/v1/auctions/1/documents/1', { 'If-None-Match': etag! });
      expect(again.status).to.equal(304);
      expect(again.bytes.length).to.equal(0);
      const weak = await download('/v1/auctions/1/documents/1', { 'If-None-Match': `W/${etag}` });
      expect(weak.status).to.equal(304);
      const other = await download('/v1/auctions/1/documents/1', { 'If-None-Match': '"something-else"' });
      expect(other.status).to.equal(200);
      expect(other.bytes.equals(first.bytes)).to.equal(true);
      const second = await download('/v1/auctions/1/documents/2');
      expect(second.headers.get('etag')).to.not.equal(etag);
    });

    it('answers 404 for a document of another auction of the same tenant', async () => {
      asProblem(await download('/v1/auctions/1/documents/4'), 404);
      asProblem(await download('/v1/auctions/2/documents/1'), 404);
      asProblem(await download('/v1/auctions/2/documents/16'), 404);
    });

    it('answers 404 for an unknown document id and for an unknown auction', async () => {
      asProblem(await download('/v1/auctions/1/documents/99'), 404);
      asProblem(await download('/v1/auctions/1/documents/2147483647'), 404);
      asProblem(await download('/v1/auctions/99/documents/1'), 404);
    });

    it('answers 400 for an auction id or a document id that is not an int32, never a 500', async () => {
      for (const id of BAD_IDS) {
        asProblem(await download(`/v1/auctions/${encodeURIComponent(id)}/documents/1`), 400);
        asProblem(await download(`/v1/auctions/1/documents/${encodeURIComponent(id)}`), 400);
      }
    });

    it('answers 401 without a token and without an Api-Key', async () => {
      asProblem(await download('/v1/auctions/1/documents/1', {}, null), 401);
      const r = await fetch(`${server.base}/v1/auctions/1/documents/1`, { headers: { Authorization: `Bearer ${token}` } });
      asProblem({ status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) }, 401);
    });
  });

  describe('GET /v1/lots/{id}/documents/{fieldname} (19)', () => {
    describe('factsheet', () => {
      it("is a PDF with the lot's title, description, attribute values and estimate in the default language", async () => {
        const lot = (await get('/v1/lots/1')).body;
        const file = await download('/v1/lots/1/documents/factsheet');
        expect(file.status).to.equal(200);
        expect(file.headers.get('content-type')).to.match(/^application\/pdf/);
        expect(file.headers.get('content-language')).to.equal('en');
        const text = await pdfText(file.bytes);
        expect(text).to.contain(foldSpace(lot.Title));
        expect(text).to.contain(foldSpace(lot.Description));
        for (const a of lot.Attributes) expect(text, `attribute ${a.Name}`).to.contain(foldSpace(a.Value));
        expect(text).to.contain(money(lot.EstimateLow, 'EUR', 'en'));
        expect(text).to.contain(money(lot.EstimateHigh, 'EUR', 'en'));
        for (const image of lot.Images) expect(text, 'image link').to.contain(image);
      });

      it('is in German with Accept-Language: de (title, description, attribute labels and values, estimate)', async () => {
        const lot = (await get('/v1/lots/1', { 'Accept-Language': 'de' })).body;
        const english = (await get('/v1/lots/1')).body;
        expect(lot.Title).to.not.equal(english.Title);
        const file = await download('/v1/lots/1/documents/factsheet', { 'Accept-Language': 'de' });
        expect(file.status).to.equal(200);
        expect(file.headers.get('content-language')).to.equal('de');
        const text = await pdfText(file.bytes);
        expect(text).to.contain(foldSpace(lot.Title));
        expect(text).to.contain(foldSpace(lot.Description));
        expect(text).to.not.contain(english.Title);
        for (const a of lot.Attributes) {
          expect(text, `label of ${a.Name}`).to.contain(foldSpace(a.Label));
          expect(text, `value of ${a.Name}`).to.contain(foldSpace(a.Value));
        }
        expect(text).to.contain('Epoche');
        expect(text).to.contain('Schätzpreis');
        expect(text).to.contain(money(lot.EstimateLow, 'EUR', 'de'));
        expect(text).to.contain(money(lot.EstimateHigh, 'EUR', 'de'));
      });

      it('follows the lang override ahead of Accept-Language', async () => {
        const lot = (await get('/v1/lots/2', { 'Accept-Language': 'sv' })).body;
        const file = await download('/v1/lots/2/documents/factsheet?lang=sv', { 'Accept-Language': 'de' });
        expect(file.status).to.equal(200);
        expect(file.headers.get('content-language')).to.equal('sv');
        expect(await pdfText(file.bytes)).to.contain(foldSpace(lot.Title));
      });

      it('is made on the first request and kept: a second request answers the same bytes without generating again', async () => {
        const before = generated();
        const first = await download('/v1/lots/3/documents/factsheet');
        expect(first.status).to.equal(200);
        expect(generated()).to.equal(before + 1);
        const second = await download('/v1/lots/3/documents/factsheet');
        expect(second.status).to.equal(200);
        expect(second.bytes.equals(first.bytes)).to.equal(true);
        expect(second.headers.get('etag')).to.equal(first.headers.get('etag'));
        expect(generated()).to.equal(before + 1);
      });

      it('answers 20 concurrent first requests with identical bytes, generating the factsheet exactly once', async () => {
        const before = generated();
        const answers = await Promise.all(Array.from({ length: 20 }, () => download('/v1/lots/8/documents/factsheet')));
        for (const a of answers) {
          expect(a.status).to.equal(200);
          expect(a.bytes.equals(answers[0].bytes)).to.equal(true);
        }
        expect(generated()).to.equal(before + 1);
      });

      it('is made once per language', async () => {
        const before = generated();
        const en = await download('/v1/lots/4/documents/factsheet');
        const sv = await download('/v1/lots/4/documents/factsheet', { 'Accept-Language': 'sv' });
        expect(generated()).to.equal(before + 2);
        expect(sv.bytes.equals(en.bytes)).to.equal(false);
        expect(sv.headers.get('etag')).to.not.equal(en.headers.get('etag'));
        await download('/v1/lots/4/documents/factsheet', { 'Accept-Language': 'sv' });
        await download('/v1/lots/4/documents/factsheet');
        expect(generated()).to.equal(before + 2);
      });

      it('carries an ETag and answers 304 to a matching If-None-Match without generating', async () => {
        const first = await download('/v1/lots/6/documents/factsheet');
        const etag = first.headers.get('etag');
        expect(etag).to.be.a('string').and.not.equal('');
        const before = generated();
        const again = await download('/v1/lots/6/documents/factsheet', { 'If-None-Match': etag! });
        expect(again.status).to.equal(304);
        expect(again.bytes.length).to.equal(0);
        expect(generated()).to.equal(before);
      });

      it('is remade when the lot changes: a re-imported title shows in the next factsheet, under a new ETag', async () => {
        const first = await download('/v1/lots/1105/documents/factsheet');
        expect(first.status).to.equal(200);
        const oldTitle = (await get('/v1/lots/1105')).body.Title;
        expect(await pdfText(first.bytes)).to.contain(foldSpace(oldTitle));
        await retitleLot(1105, 'en', 'Renamed Factsheet Lot');
        expect((await get('/v1/lots/1105')).body.Title).to.equal('Renamed Factsheet Lot');
        const before = generated();
        const stale = await download('/v1/lots/1105/documents/factsheet', { 'If-None-Match': first.headers.get('etag')! });
        expect(stale.status, 'the old ETag no longer matches').to.equal(200);
        const text = await pdfText(stale.bytes);
        expect(text).to.contain('Renamed Factsheet Lot');
        expect(text).to.not.contain(foldSpace(oldTitle));
        expect(stale.headers.get('etag')).to.not.equal(first.headers.get('etag'));
        expect(generated()).to.equal(before + 1);
      });

      it('has a Content-Disposition and a Content-Length matching its bytes', async () => {
        const file = await download('/v1/lots/7/documents/factsheet', { 'Accept-Encoding': 'identity' });
        expect(file.status).to.equal(200);
        expect(file.headers.get('content-disposition')).to.match(/^(inline|attachment)\s*;/);
        expect(dispositionName(file.headers.get('content-disposition'))).to.match(/\.pdf$/);
        if (file.headers.get('content-length')) expect(Number(file.headers.get('content-length'))).to.equal(file.bytes.length);
      });
    });

    describe('condition-report', () => {
      it('is a PDF for every demo lot that has one', async () => {
        for (const lotId of CONDITION_REPORT_LOTS) {
          const file = await download(`/v1/lots/${lotId}/documents/condition-report`);
          expect(file.status, `lot ${lotId}`).to.equal(200);
          expect(file.headers.get('content-type')).to.match(/^application\/pdf/);
          expect(file.bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
          expect(await pdfText(file.bytes), `lot ${lotId}`).to.match(/condition report/i);
        }
      });

      it('carries an ETag and answers 304 to a matching If-None-Match', async () => {
        const first = await download('/v1/lots/1/documents/condition-report');
        const etag = first.headers.get('etag');
        expect(etag).to.be.a('string').and.not.equal('');
        const again = await download('/v1/lots/1/documents/condition-report', { 'If-None-Match': etag! });
        expect(again.status).to.equal(304);
      });

      it('is 404 for a lot without one (lot 5, lot 600, closed lot 852)', async () => {
        for (const lotId of [5, 600, 852]) asProblem(await download(`/v1/lots/${lotId}/documents/condition-report`), 404);
      });
    });

    it('answers 404 for any other fieldname, never a 400 or a 500', async () => {
      for (const fieldname of ['unknown', 'Factsheet', 'FACTSHEET', 'condition_report', 'images', 'factsheet.pdf', '%20', 'x'.repeat(64)]) {
        asProblem(await download(`/v1/lots/1/documents/${fieldname}`), 404);
      }
    });

    it('answers 404 for a long unknown fieldname too (any other fieldname is 404)', async () => {
      asProblem(await download(`/v1/lots/1/documents/${'x'.repeat(65)}`), 404);
      asProblem(await download(`/v1/lots/1/documents/${'factsheet-'.repeat(20)}`), 404);
    });

    it('answers 404 for an unknown lot and 400 for a lot id that is not an int32', async () => {
      asProblem(await download('/v1/lots/99999/documents/factsheet'), 404);
      asProblem(await download('/v1/lots/99999/documents/condition-report'), 404);
      for (const id of BAD_IDS) asProblem(await download(`/v1/lots/${encodeURIComponent(id)}/documents/factsheet`), 400);
    });

    it('answers 401 without a token', async () => {
      asProblem(await download('/v1/lots/1/documents/factsheet', {}, null), 401);
      asProblem(await download('/v1/lots/1/documents/condition-report', {}, null), 401);
    });
  });

  describe('GET /v1/auctions/{id}/catalogue (6)', () => {
    it('answers application/pdf in Swedish with ?lang=sv: the auction title and dates on the first page, Content-Language sv', async () => {
      const auction = (await get('/v1/auctions/1')).body;
      const file = await download('/v1/auctions/1/catalogue?lang=sv');
      expect(file.status).to.equal(200);
      expect(file.headers.get('content-type')).to.match(/^application\/pdf/);
      expect(file.headers.get('content-language')).to.equal('sv');
      expect(file.bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
      const pages = await pdfPages(file.bytes);
      const first = foldSpace(pages[0]);
      expect(first).to.contain('Vårens designauktion');
      for (const when of [auction.StartTime, auction.EndTime]) {
        const date = new Date(when);
        const readable = [
          when.slice(0, 10),
          foldSpace(new Intl.DateTimeFormat('sv', { dateStyle: 'medium', timeZone: 'UTC' }).format(date)),
          foldSpace(new Intl.DateTimeFormat('sv', { dateStyle: 'long', timeZone: 'UTC' }).format(date)),
        ];
        expect(
          readable.some((r) => first.includes(r)),
          `${when} on the first page as one of ${JSON.stringify(readable)}`,
        ).to.equal(true);
      }
    });

    it('lists every lot of the auction in lot-number order with its number, Swedish title, estimate in € and short description', async () => {
      const lots = await lotsOf(1, 'sv');
      expect(lots).to.have.length(400);
      const text = await pdfText((await download('/v1/auctions/1/catalogue?lang=sv')).bytes);
      const at = findInSequence(
        text,
        lots.map((l) => foldSpace(l.Title)),
      );
      const missing = at.findIndex((i) => i < 0);
      expect(missing, missing < 0 ? '' : `lot number ${lots[missing].LotNumber} "${lots[missing].Title}" not found in order`).to.equal(-1);
      lots.forEach((lot, k) => {
        const before = text.slice(Math.max(0, at[k] - 30), at[k]);
        expect(
          new RegExp(`(^|\\D)${lot.LotNumber}(\\D|$)`).test(before),
          `lot number ${lot.LotNumber} before its title: "${before}"`,
        ).to.equal(true);
        const after = text.slice(at[k], k + 1 < at.length ? at[k + 1] : undefined);
        expect(after, `estimate of lot ${lot.LotNumber}`).to.contain(money(lot.EstimateLow, 'EUR', 'sv'));
        expect(after, `estimate of lot ${lot.LotNumber}`).to.contain(money(lot.EstimateHigh, 'EUR', 'sv'));
        expect(after, `description of lot ${lot.LotNumber}`).to.contain(foldSpace(lot.Description).slice(0, 40));
      });
      expect(text).to.contain('€');
      expect(text).to.not.contain((await get('/v1/lots/1')).body.Title);
    });

    it('answers the closed auction 4 with all of its closed lots', async () => {
      const lots = await lotsOf(4);
      expect(lots).to.have.length(250);
      expect(lots.every((l) => l.IsClosed)).to.equal(true);
      const file = await download('/v1/auctions/4/catalogue');
      expect(file.status).to.equal(200);
      const text = await pdfText(file.bytes);
      expect(text).to.contain('Winter Silver and Jewellery');
      const at = findInSequence(
        text,
        lots.map((l) => foldSpace(l.Title)),
      );
      const missing = at.findIndex((i) => i < 0);
      expect(missing, missing < 0 ? '' : `closed lot number ${lots[missing].LotNumber} not found in order`).to.equal(-1);
    });

    it('takes the language from Accept-Language without lang, and lang overrides Accept-Language', async () => {
      const de = await download('/v1/auctions/1/catalogue', { 'Accept-Language': 'de' });
      expect(de.status).to.equal(200);
      expect(de.headers.get('content-language')).to.equal('de');
      expect(foldSpace((await pdfPages(de.bytes))[0])).to.contain('Frühjahrs-Designauktion');
      const sv = await download('/v1/auctions/1/catalogue?lang=sv', { 'Accept-Language': 'de' });
      expect(sv.headers.get('content-language')).to.equal('sv');
      expect(foldSpace((await pdfPages(sv.bytes))[0])).to.contain('Vårens designauktion');
      const upper = await download('/v1/auctions/1/catalogue?LANG=sv', { 'Accept-Language': 'de' });
      expect(upper.status).to.equal(200);
      expect(upper.headers.get('content-language'), 'query parameter names are case-insensitive').to.equal('sv');
    });

    it('weighs Accept-Language q-values and matches a regional tag to its language', async () => {
      const weighted = await download('/v1/auctions/2/catalogue', { 'Accept-Language': 'fr;q=1, sv;q=0.5, de;q=0.8' });
      expect(weighted.status).to.equal(200);
      expect(weighted.headers.get('content-language')).to.equal('de');
      expect(foldSpace((await pdfPages(weighted.bytes))[0])).to.contain('Live-Kunstabend');
      const regional = await download('/v1/auctions/2/catalogue', { 'Accept-Language': 'sv-SE' });
      expect(regional.headers.get('content-language')).to.equal('sv');
      expect(foldSpace((await pdfPages(regional.bytes))[0])).to.contain('Levande konstafton');
    });

    it('falls back to the default language for an unknown lang', async () => {
      const file = await download('/v1/auctions/1/catalogue?lang=xx');
      expect(file.status).to.equal(200);
      expect(file.headers.get('content-language')).to.equal('en');
      expect(foldSpace((await pdfPages(file.bytes))[0])).to.contain('Spring Design Sale');
    });

    it('answers 50 concurrent first requests for one catalogue with identical bytes, generating it exactly once', async function () {
      this.timeout(60000);
      const before = generated();
      const answers = await Promise.all(Array.from({ length: 50 }, () => download('/v1/auctions/3/catalogue?lang=de')));
      for (const a of answers) expect(a.status).to.equal(200);
      const first = answers[0];
      expect(first.bytes.length).to.be.greaterThan(0);
      for (const a of answers) {
        expect(a.bytes.equals(first.bytes), 'same bytes').to.equal(true);
        expect(a.headers.get('etag')).to.equal(first.headers.get('etag'));
      }
      expect(generated()).to.equal(before + 1);
      expect(foldSpace((await pdfPages(first.bytes))[0])).to.contain('Sommerklassiker');
    });

    it('serves a repeated request without generating again, and another language as its own file', async () => {
      const before = generated();
      const again = await download('/v1/auctions/3/catalogue?lang=de');
      expect(again.status).to.equal(200);
      expect(generated()).to.equal(before);
      const etag = again.headers.get('etag');
      expect(etag).to.be.a('string').and.not.equal('');
      const notModified = await download('/v1/auctions/3/catalogue?lang=de', { 'If-None-Match': etag! });
      expect(notModified.status).to.equal(304);
      expect(notModified.bytes.length).to.equal(0);
      const en = await download('/v1/auctions/3/catalogue?lang=en');
      expect(en.status).to.equal(200);
      expect(en.headers.get('etag')).to.not.equal(etag);
      expect(en.bytes.equals(again.bytes)).to.equal(false);
      expect(generated()).to.equal(before + 1);
    });

    it('makes a new version after a lot of the auction changes, showing the change', async () => {
      const first = await download('/v1/auctions/5/catalogue');
      expect(first.status).to.equal(200);
      const etag = first.headers.get('etag')!;
      await retitleLot(1110, 'en', 'Renamed Catalogue Lot');
      const before = generated();
      const next = await download('/v1/auctions/5/catalogue', { 'If-None-Match': etag });
      expect(next.status, 'the old ETag no longer matches').to.equal(200);
      expect(next.headers.get('etag')).to.not.equal(etag);
      expect(next.bytes.equals(first.bytes)).to.equal(false);
      expect(generated()).to.equal(before + 1);
      const lots = await lotsOf(5);
      const text = await pdfText(next.bytes);
      const at = findInSequence(
        text,
        lots.map((l) => foldSpace(l.Title)),
      );
      expect(
        at.every((i) => i >= 0),
        'every lot in order',
      ).to.equal(true);
      const tenth = lots.findIndex((l) => l.Id === 1110);
      expect(lots[tenth].Title).to.equal('Renamed Catalogue Lot');
      expect(text.slice(at[tenth - 1], at[tenth + 1])).to.contain('Renamed Catalogue Lot');
    });

    it('answers 404 for an unknown auction and 400 for an auction id that is not an int32', async () => {
      asProblem(await download('/v1/auctions/99/catalogue'), 404);
      for (const id of BAD_IDS) asProblem(await download(`/v1/auctions/${encodeURIComponent(id)}/catalogue`), 400);
    });

    it('answers 400 for lang given twice or in bracket form', async () => {
      asProblem(await download('/v1/auctions/1/catalogue?lang=sv&lang=de'), 400);
      asProblem(await download('/v1/auctions/1/catalogue?lang=sv&lang=sv'), 400);
      asProblem(await download('/v1/auctions/1/catalogue?lang[]=sv'), 400);
    });

    it('answers 401 without a token', async () => {
      asProblem(await download('/v1/auctions/1/catalogue', {}, null), 401);
    });
  });

  describe('GET /v1/auctions/{id}/export (7)', () => {
    it('answers an .xlsx workbook with its content type and an attachment name ending in .xlsx', async () => {
      const file = await download('/v1/auctions/1/export');
      expect(file.status).to.equal(200);
      expect(file.headers.get('content-type')!.split(';')[0]).to.equal(XLSX);
      expect(file.headers.get('content-disposition')).to.match(/^attachment\s*;/);
      expect(dispositionName(file.headers.get('content-disposition'))).to.match(/\.xlsx$/);
      expect(file.bytes.subarray(0, 2).toString('latin1')).to.equal('PK');
      await workbookOf(file.bytes);
    });

    it('has a header row, then one row per lot in lot-number order, with every column API.md names and the values of GET /v1/lots/{id}', async () => {
      const lots = await lotsOf(1);
      const { header, rows } = await workbookOf((await download('/v1/auctions/1/export')).bytes);
      const c = englishColumns(header);
      expect(rows).to.have.length(400);
      expect(rows.map((r) => r[c.lotNumber])).to.deep.equal(lots.map((l) => l.LotNumber));
      const categoryNames = new Map<number, string>();
      for (const id of new Set(lots.map((l) => l.CategoryId).filter((id) => id !== null)))
        categoryNames.set(id, (await get(`/v1/categories/${id}`)).body.Name);
      rows.forEach((row, k) => {
        const lot = lots[k];
        const where = `row of lot ${lot.LotNumber}`;
        expect(row[c.title], where).to.equal(lot.Title);
        expect(row[c.description], where).to.equal(lot.Description);
        if (lot.CategoryId === null) expect(blank(row[c.category]), `${where}: no category`).to.equal(true);
        else expect(row[c.category], where).to.equal(categoryNames.get(lot.CategoryId));
        expect(row[c.estimateLow], where).to.equal(lot.EstimateLow / 100);
        expect(row[c.estimateHigh], where).to.equal(lot.EstimateHigh / 100);
        expect(row[c.startingPrice], where).to.equal(lot.StartingPrice / 100);
        if (lot.CurrentBid === null) expect(blank(row[c.currentBid]), `${where}: no current bid`).to.equal(true);
        else expect(row[c.currentBid], where).to.equal(lot.CurrentBid / 100);
        expect(row[c.currency], where).to.equal('EUR');
        const end = row[c.endTime];
        expect(end, `${where}: end time is a date`).to.be.instanceOf(Date);
        expect(
          Math.abs((end as Date).getTime() - Date.parse(lot.EndTime)),
          `${where}: ${(end as Date).toISOString()} vs ${lot.EndTime}`,
        ).to.be.lessThan(1000);
      });
    });

    it('checks one lot against GET /v1/lots/{id}: estimate low is EstimateLow / 100', async () => {
      const lot = (await get('/v1/lots/12')).body;
      const { header, rows } = await workbookOf((await download('/v1/auctions/1/export')).bytes);
      const c = englishColumns(header);
      const row = rows.find((r) => r[c.lotNumber] === lot.LotNumber)!;
      expect(row[c.estimateLow]).to.equal(lot.EstimateLow / 100);
      expect(row[c.estimateHigh]).to.equal(lot.EstimateHigh / 100);
      expect(row[c.title]).to.equal(lot.Title);
    });

    it('writes titles, descriptions, categories and headers in the negotiated language (Accept-Language: sv)', async () => {
      const lots = await lotsOf(1, 'sv');
      const en = await workbookOf((await download('/v1/auctions/1/export')).bytes);
      const c = englishColumns(en.header);
      const file = await download('/v1/auctions/1/export', { 'Accept-Language': 'sv' });
      expect(file.headers.get('content-language')).to.equal('sv');
      const sv = await workbookOf(file.bytes);
      expect(sv.header).to.have.length(en.header.length);
      expect(sv.header).to.not.deep.equal(en.header);
      expect(sv.rows).to.have.length(400);
      expect(sv.rows.map((r) => r[c.title])).to.deep.equal(lots.map((l) => l.Title));
      expect(sv.rows.map((r) => r[c.description])).to.deep.equal(lots.map((l) => l.Description));
      const svCategory = (await get(`/v1/categories/${lots[0].CategoryId}`, { 'Accept-Language': 'sv' })).body.Name;
      expect(sv.rows[0][c.category]).to.equal(svCategory);
      expect(sv.rows.map((r) => r[c.estimateLow])).to.deep.equal(en.rows.map((r) => r[c.estimateLow]));
    });

    it('follows the lang override (lang=de) ahead of Accept-Language', async () => {
      const lots = await lotsOf(3, 'de');
      const file = await download('/v1/auctions/3/export?lang=de', { 'Accept-Language': 'sv' });
      expect(file.status).to.equal(200);
      expect(file.headers.get('content-language')).to.equal('de');
      const { rows } = await workbookOf(file.bytes);
      expect(rows).to.have.length(250);
      rows.forEach((row, k) => expect(row, `row ${k + 1}`).to.include(lots[k].Title));
    });

    it("has exactly the auction's LotCount rows for every demo auction", async () => {
      for (const [id, count] of Object.entries(AUCTION_LOTS)) {
        expect((await get(`/v1/auctions/${id}`)).body.LotCount, `LotCount of auction ${id}`).to.equal(count);
        const { rows } = await workbookOf((await download(`/v1/auctions/${id}/export`)).bytes);
        expect(rows, `rows of auction ${id}`).to.have.length(count);
      }
    });

    it('exports every lot of the closed auction 4', async () => {
      const lots = await lotsOf(4);
      const { header, rows } = await workbookOf((await download('/v1/auctions/4/export')).bytes);
      const c = englishColumns(header);
      expect(rows).to.have.length(250);
      expect(rows.map((r) => r[c.lotNumber])).to.deep.equal(lots.map((l) => l.LotNumber));
    });

    it('carries an ETag and answers 304 to a matching If-None-Match', async () => {
      const first = await download('/v1/auctions/1/export');
      const etag = first.headers.get('etag');
      expect(etag).to.be.a('string').and.not.equal('');
      const again = await download('/v1/auctions/1/export', { 'If-None-Match': etag! });
      expect(again.status).to.equal(304);
      expect(again.bytes.length).to.equal(0);
      const sv = await download('/v1/auctions/1/export', { 'Accept-Language': 'sv', 'If-None-Match': etag! });
      expect(sv.status, 'another language is another representation').to.equal(200);
    });

    it('shows a new bid and a changed title at once, under a new ETag', async () => {
      const first = await download('/v1/auctions/2/export');
      const etag = first.headers.get('etag')!;
      const lot = (await get('/v1/lots/450')).body;
      const amount = (lot.CurrentBid ?? lot.StartingPrice) + 123_400;
      await importRecord(server.runtime.services.log, {
        kind: 'bid',
        tenant: 'demo',
        lotId: 450,
        bidId: 'export-test-1',
        amount,
        bidType: 'online',
        placedAt: new Date().toISOString(),
      });
      await server.runtime.services.projector.catchUp();
      expect((await get('/v1/lots/450')).body.CurrentBid).to.equal(amount);
      const afterBid = await download('/v1/auctions/2/export', { 'If-None-Match': etag });
      expect(afterBid.status, 'the old ETag no longer matches').to.equal(200);
      let sheet = await workbookOf(afterBid.bytes);
      let c = englishColumns(sheet.header);
      expect(sheet.rows.find((r) => r[c.lotNumber] === lot.LotNumber)![c.currentBid]).to.equal(amount / 100);
      await retitleLot(450, 'en', 'Renamed Export Lot');
      const afterRename = await download('/v1/auctions/2/export', { 'If-None-Match': afterBid.headers.get('etag')! });
      expect(afterRename.status).to.equal(200);
      sheet = await workbookOf(afterRename.bytes);
      c = englishColumns(sheet.header);
      expect(sheet.rows.find((r) => r[c.lotNumber] === lot.LotNumber)![c.title]).to.equal('Renamed Export Lot');
    });

    it('answers 404 for an unknown auction and 400 for an auction id that is not an int32', async () => {
      asProblem(await download('/v1/auctions/99/export'), 404);
      for (const id of BAD_IDS) asProblem(await download(`/v1/auctions/${encodeURIComponent(id)}/export`), 400);
    });

    it('answers 401 without a token', async () => {
      asProblem(await download('/v1/auctions/1/export', {}, null), 401);
    });
  });

  describe('tenant isolation', () => {
    it("gives a demo2 token its own auction 1's documents (none), never demo's", async () => {
      expect((await get('/v1/auctions/1/documents')).body).to.not.be.empty;
      const r = await get('/v1/auctions/1/documents', {}, demo2);
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal([]);
    });

    it("answers 404 to a demo2 token for demo's auctions 2..5 and their documents", async () => {
      for (let auctionId = 2; auctionId <= 5; auctionId++) {
        expectProblem(await get(`/v1/auctions/${auctionId}/documents`, {}, demo2), 404);
        asProblem(await download(`/v1/auctions/${auctionId}/documents/${(auctionId - 1) * 3 + 1}`, {}, demo2), 404);
        asProblem(await download(`/v1/auctions/${auctionId}/catalogue`, {}, demo2), 404);
        asProblem(await download(`/v1/auctions/${auctionId}/export`, {}, demo2), 404);
      }
    });

    it("answers 404 to a demo2 token for every document of demo's auction 1", async () => {
      for (const id of [1, 2, 3, 16, 17]) asProblem(await download(`/v1/auctions/1/documents/${id}`, {}, demo2), 404);
    });

    it("never gives a demo2 token demo's condition reports or lots", async () => {
      for (const lotId of CONDITION_REPORT_LOTS) asProblem(await download(`/v1/lots/${lotId}/documents/condition-report`, {}, demo2), 404);
      asProblem(await download('/v1/lots/61/documents/factsheet', {}, demo2), 404);
      asProblem(await download('/v1/lots/851/documents/factsheet', {}, demo2), 404);
    });

    it("gives a demo2 token the factsheet of its own lot 1, not demo's lot 1", async () => {
      const mine = (await get('/v1/lots/1', {}, demo2)).body;
      const theirs = (await get('/v1/lots/1')).body;
      expect(mine.Title).to.not.equal(theirs.Title);
      await download('/v1/lots/1/documents/factsheet');
      const file = await download('/v1/lots/1/documents/factsheet', {}, demo2);
      expect(file.status).to.equal(200);
      const text = await pdfText(file.bytes);
      expect(text).to.contain(foldSpace(mine.Title));
      expect(text).to.not.contain(foldSpace(theirs.Title));
      expect(text).to.not.contain('€');
    });

    it("gives a demo2 token the catalogue and export of its own auction 1 (Nordic Modern, SEK), not demo's", async () => {
      await download('/v1/auctions/1/catalogue');
      const pdf = await download('/v1/auctions/1/catalogue', {}, demo2);
      expect(pdf.status).to.equal(200);
      const text = await pdfText(pdf.bytes);
      expect(text).to.contain('Nordic Modern');
      expect(text).to.not.contain('Spring Design Sale');
      expect(text).to.not.contain('€');
      const lots = await lotsOf(1, 'en', demo2);
      expect(lots).to.have.length(60);
      expect(
        findInSequence(
          text,
          lots.map((l) => foldSpace(l.Title)),
        ).every((i) => i >= 0),
      ).to.equal(true);

      const xlsx = await download('/v1/auctions/1/export', {}, demo2);
      expect(xlsx.status).to.equal(200);
      const { header, rows } = await workbookOf(xlsx.bytes);
      const c = englishColumns(header);
      expect(rows).to.have.length(60);
      expect(rows.map((r) => r[c.title])).to.deep.equal(lots.map((l) => l.Title));
      for (const r of rows) expect(r[c.currency]).to.equal('SEK');
      expect(rows[0][c.estimateLow]).to.equal(lots[0].EstimateLow / 100);
    });
  });

  describe('after the house changes the catalogue through intake', () => {
    const importDocument = async (record: Record<string, unknown>) => {
      await importRecord(server.runtime.services.log, record as unknown as Parameters<typeof importRecord>[1], {
        files: server.runtime.services.files,
      });
      await server.runtime.services.projector.catchUp();
    };
    const reimportLot = async (lotId: number, change: Record<string, unknown>) => {
      const events = await server.runtime.services.log.readStream(`lot-demo-${lotId}`);
      const data = events.filter((e) => e.type === 'LotCatalogued').at(-1)!.data as Record<string, unknown>;
      await importRecord(server.runtime.services.log, { ...data, ...change, kind: 'lot' } as unknown as Parameters<typeof importRecord>[1]);
      await server.runtime.services.projector.catchUp();
    };

    it('serves a replaced document with its new bytes, Size and ETag', async () => {
      const old = await download('/v1/auctions/1/documents/17');
      const text = 'Supplement, second edition\nLot 12: withdrawn.\nÄndrad: ü ö å\n';
      await importDocument({
        kind: 'auctionDocument',
        tenant: 'demo',
        auctionId: 1,
        documentId: 17,
        name: 'Catalogue supplement (2).txt',
        documentKind: 'catalogue-supplement',
        language: 'en',
        contentType: 'text/plain',
        base64: Buffer.from(text, 'utf8').toString('base64'),
      });
      const listed = (await get('/v1/auctions/1/documents')).body.find((d: any) => d.Id === 17);
      expect(listed).to.include({ Name: 'Catalogue supplement (2).txt', Size: Buffer.byteLength(text, 'utf8') });
      const fresh = await download('/v1/auctions/1/documents/17', {
        'If-None-Match': old.headers.get('etag')!,
        'Accept-Encoding': 'identity',
      });
      expect(fresh.status, 'the old ETag no longer matches').to.equal(200);
      expect(fresh.bytes.toString('utf8')).to.equal(text);
      expect(Number(fresh.headers.get('content-length'))).to.equal(listed.Size);
      expect(dispositionName(fresh.headers.get('content-disposition'))).to.equal('Catalogue supplement (2).txt');
    });

    it('neither lists nor serves a document the house removed', async () => {
      await importDocument({ kind: 'auctionDocumentRemoved', tenant: 'demo', documentId: 16 });
      const ids = (await get('/v1/auctions/1/documents')).body.map((d: any) => d.Id);
      expect(ids).to.not.include(16);
      expect(ids).to.include.members([1, 2, 3, 17]);
      asProblem(await download('/v1/auctions/1/documents/16'), 404);
    });

    it('serves a condition report published for a lot that had none', async () => {
      asProblem(await download('/v1/lots/5/documents/condition-report'), 404);
      const pdf = (await download('/v1/auctions/2/documents/4')).bytes;
      await importDocument({
        kind: 'conditionReport',
        tenant: 'demo',
        lotId: 5,
        name: 'condition-report-5.pdf',
        language: 'en',
        contentType: 'application/pdf',
        base64: pdf.toString('base64'),
      });
      const file = await download('/v1/lots/5/documents/condition-report');
      expect(file.status).to.equal(200);
      expect(file.headers.get('content-type')).to.match(/^application\/pdf/);
      expect(file.bytes.equals(pdf)).to.equal(true);
    });

    it("shows a changed auction title on the next catalogue's first page", async () => {
      const first = await download('/v1/auctions/5/catalogue');
      const events = await server.runtime.services.log.readStream('auction-demo-5');
      const data = events.filter((e) => e.type === 'AuctionCatalogued').at(-1)!.data as Record<string, any>;
      await importRecord(server.runtime.services.log, {
        ...data,
        kind: 'auction',
        texts: { ...data.texts, en: { ...data.texts.en, title: 'Collectors Week Revised' } },
      } as unknown as Parameters<typeof importRecord>[1]);
      await server.runtime.services.projector.catchUp();
      const next = await download('/v1/auctions/5/catalogue', { 'If-None-Match': first.headers.get('etag')! });
      expect(next.status).to.equal(200);
      expect(next.headers.get('etag')).to.not.equal(first.headers.get('etag'));
      expect(foldSpace((await pdfPages(next.bytes))[0])).to.contain('Collectors Week Revised');
    });

    it('prints and exports by lot number, not by lot id: a lot renumbered to the end comes last', async () => {
      await reimportLot(1101, { lotNumber: 500 });
      const lots = await lotsOf(5);
      expect(lots.at(-1).Id).to.equal(1101);
      const text = await pdfText((await download('/v1/auctions/5/catalogue')).bytes);
      const at = findInSequence(
        text,
        lots.map((l) => foldSpace(l.Title)),
      );
      const missing = at.findIndex((i) => i < 0);
      expect(missing, missing < 0 ? '' : `lot number ${lots[missing].LotNumber} not found in order`).to.equal(-1);
      expect(new RegExp(`(^|\\D)500(\\D|$)`).test(text.slice(at.at(-1)! - 30, at.at(-1)))).to.equal(true);
      const { header, rows } = await workbookOf((await download('/v1/auctions/5/export')).bytes);
      const c = englishColumns(header);
      expect(rows.map((r) => r[c.lotNumber])).to.deep.equal(lots.map((l) => l.LotNumber));
      expect(rows.at(-1)![c.lotNumber]).to.equal(500);
    });

    it("moves a lot that changed auction out of the old auction's catalogue and export and into the new one's", async () => {
      const oldCatalogue = await download('/v1/auctions/5/catalogue');
      const newCatalogue = await download('/v1/auctions/2/catalogue');
      await reimportLot(1119, { auctionId: 2, lotNumber: 201 });
      await retitleLot(1119, 'en', 'Moved Lot Title');
      const five = await download('/v1/auctions/5/catalogue', { 'If-None-Match': oldCatalogue.headers.get('etag')! });
      const two = await download('/v1/auctions/2/catalogue', { 'If-None-Match': newCatalogue.headers.get('etag')! });
      expect(five.status, 'auction 5 has a new version').to.equal(200);
      expect(two.status, 'auction 2 has a new version').to.equal(200);
      expect(await pdfText(five.bytes)).to.not.contain('Moved Lot Title');
      expect(await pdfText(two.bytes)).to.contain('Moved Lot Title');
      const fiveRows = (await workbookOf((await download('/v1/auctions/5/export')).bytes)).rows;
      const twoSheet = await workbookOf((await download('/v1/auctions/2/export')).bytes);
      const c = englishColumns(twoSheet.header);
      expect(fiveRows).to.have.length(119);
      expect(fiveRows.map((r) => r[c.title])).to.not.include('Moved Lot Title');
      expect(twoSheet.rows).to.have.length(201);
      expect(twoSheet.rows.at(-1)![c.title]).to.equal('Moved Lot Title');
    });

    it('prints and exports every lot of a 2,000-lot auction in lot-number order, whatever order the lots came in', async function () {
      this.timeout(60000);
      const log = server.runtime.services.log;
      await importRecord(log, {
        kind: 'auction',
        tenant: 'demo',
        auctionId: 7,
        auctionType: 1,
        texts: { en: { title: 'Large Test Sale', description: 'Two thousand lots.' } },
        startTime: '2030-01-01T10:00:00.000Z',
        endTime: '2030-01-05T10:00:00.000Z',
        currency: 'EUR',
        requiresTermsAcceptance: false,
      } as unknown as Parameters<typeof importRecord>[1]);
      for (let n = 1; n <= 2000; n++) {
        const lotNumber = 2001 - n; // lot ids ascend while lot numbers descend
        await importRecord(log, {
          kind: 'lot',
          tenant: 'demo',
          lotId: 5000 + n,
          auctionId: 7,
          lotNumber,
          categoryId: 3,
          texts: { en: { title: `Large sale item ${lotNumber} end`, description: `Item ${lotNumber} of the large sale.` } },
          attributes: [],
          images: [],
          hotLot: false,
          vatFree: false,
          currency: 'EUR',
          startingPrice: 1000 + lotNumber * 100,
          estimateLow: 2000 + lotNumber * 100,
          estimateHigh: 4000 + lotNumber * 100,
          endTime: '2030-01-05T10:00:00.000Z',
          combiId: null,
          ownerId: null,
        } as unknown as Parameters<typeof importRecord>[1]);
      }
      await server.runtime.services.projector.catchUp();
      expect((await get('/v1/auctions/7')).body.LotCount).to.equal(2000);
      const numbers = Array.from({ length: 2000 }, (_, i) => i + 1);

      const pdf = await download('/v1/auctions/7/catalogue');
      expect(pdf.status).to.equal(200);
      const text = await pdfText(pdf.bytes);
      const at = findInSequence(
        text,
        numbers.map((n) => `Large sale item ${n} end`),
      );
      const missing = at.findIndex((i) => i < 0);
      expect(missing, missing < 0 ? '' : `lot number ${missing + 1} not found in order`).to.equal(-1);
      expect(text).to.contain(money(2000 + 2000 * 100, 'EUR', 'en'));

      const { header, rows } = await workbookOf((await download('/v1/auctions/7/export')).bytes);
      const c = englishColumns(header);
      expect(rows.map((r) => r[c.lotNumber])).to.deep.equal(numbers);
      expect(rows.map((r) => r[c.title])).to.deep.equal(numbers.map((n) => `Large sale item ${n} end`));
      expect(rows.map((r) => r[c.estimateLow])).to.deep.equal(numbers.map((n) => (2000 + n * 100) / 100));
    });

    it('prints the title and dates of a new auction without lots, and exports only the header row', async () => {
      const startTime = '2030-03-01T10:00:00.000Z';
      const endTime = '2030-03-10T18:00:00.000Z';
      await importRecord(server.runtime.services.log, {
        kind: 'auction',
        tenant: 'demo',
        auctionId: 6,
        auctionType: 1,
        texts: {
          en: { title: 'Empty Test Sale', description: 'Nothing yet.' },
          sv: { title: 'Tom testauktion', description: 'Inget än.' },
          de: { title: 'Leere Testauktion', description: 'Noch nichts.' },
        },
        startTime,
        endTime,
        currency: 'EUR',
        requiresTermsAcceptance: false,
      } as unknown as Parameters<typeof importRecord>[1]);
      await server.runtime.services.projector.catchUp();
      const pdf = await download('/v1/auctions/6/catalogue?lang=de');
      expect(pdf.status).to.equal(200);
      const first = foldSpace((await pdfPages(pdf.bytes))[0]);
      expect(first).to.contain('Leere Testauktion');
      expect(first).to.match(/2030/);
      const xlsx = await download('/v1/auctions/6/export');
      expect(xlsx.status).to.equal(200);
      const { header, rows } = await workbookOf(xlsx.bytes);
      englishColumns(header);
      expect(rows).to.have.length(0);
      const documents = await get('/v1/auctions/6/documents');
      expect(documents.status).to.equal(200);
      expect(documents.body).to.deep.equal([]);
    });
  });
});
