import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { importLines } from '../../app/features/intake.ts';
import { FolderFileStore } from '../../src/adapters/embedded/folder-files.ts';
import { interfaceDictionary } from '../../app/seed/interface-dictionary.ts';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';

/**
 * The intake record kinds of docs/intake.md for documents, interface translations and live sales, as an
 * integrator runs them (`npm run import -- FILE.ndjson` with DATA_DIR set, while the service runs on the same
 * data folder), and as GET /v1/auctions/{id}/documents, /v1/lots/{id}/documents/condition-report,
 * /v1/translations and /v1/auctions/{id}/live then answer them.
 *
 * Demo data: auctions 1..5 of tenant `demo` (3 upcoming); documents 1.. are the demo's; lots 1, 2, 3, 12,
 * 401, 402 and 851 have a condition report.
 */

/** Deterministic bytes that look like a PDF: a header, then `length` bytes from a seeded generator. */
function pdfBytes(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return Buffer.concat([Buffer.from('%PDF-1.4\n', 'latin1'), out, Buffer.from('\n%%EOF\n', 'latin1')]);
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Report {
  records: number;
  appended: number;
  unchanged: number;
  errors: Array<{ line: number; message: string }>;
}

describe('document, translation and live intake (npm run import)', function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-documents-intake-'));
  const dataDir = path.join(dir, 'data');
  const intakeDir = path.join(dir, 'intake');
  let server: TestServer;
  let token: string;

  const head = () => server.runtime.services.log.headPosition();
  const get = (p: string, headers: Record<string, string> = {}) => server.request('GET', p, { token, headers });
  /** A download's bytes and headers (server.request reads text). */
  const download = async (p: string, headers: Record<string, string> = {}) => {
    const response = await fetch(server.base + p, {
      headers: { 'Api-Key': server.credentials.apiKey, Authorization: `Bearer ${token}`, ...headers },
    });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  const listed = async (auctionId: number) => {
    const r = await get(`/v1/auctions/${auctionId}/documents`);
    expect(r.status, r.text).to.equal(200);
    return r.body as Array<{ Id: number; Name: string; Kind: string; Language: string; ContentType: string; Size: number }>;
  };
  const writeIntakeFile = (relative: string, bytes: Buffer | string) => {
    const file = path.join(intakeDir, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes);
    return file;
  };
  /** Runs the import CLI on an NDJSON file of `records` in the intake folder, then lets the service catch up. */
  const runImport = async (name: string, records: unknown[], input?: string) => {
    const file = writeIntakeFile(name, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/import.ts', input === undefined ? file : '-'], {
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
      input,
    });
    expect(result.stdout, result.stderr).to.not.equal('');
    const report = JSON.parse(result.stdout) as Report;
    await server.runtime.services.projector.catchUp();
    return { status: result.status, report };
  };

  const conditionsV1 = pdfBytes(11, 3000);
  const conditionsV2 = pdfBytes(12, 4321);
  const supplement = Buffer.from('Tillägg till katalogen: ändrade utrop för föremål 12 och 14.\n'.repeat(20), 'utf8');
  const conditionsRecord = {
    kind: 'auctionDocument',
    tenant: 'demo',
    auctionId: 1,
    documentId: 9001,
    name: 'Conditions of sale.pdf',
    documentKind: 'conditions',
    language: 'en',
    contentType: 'application/pdf',
    file: 'docs/conditions.pdf',
  };
  let firstEtag: string | null = null;

  before(async () => {
    fs.mkdirSync(intakeDir, { recursive: true });
    server = await startTestServer({ dataDir });
    token = await server.anonymousToken('demo');
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('auctionDocument', () => {
    it('stores a document given as a path relative to the NDJSON file, lists it, and serves the same bytes', async () => {
      writeIntakeFile('docs/conditions.pdf', conditionsV1);
      const before = await head();
      const { status, report } = await runImport('conditions.ndjson', [conditionsRecord]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 1, appended: 1, unchanged: 0 });
      expect(report.errors).to.deep.equal([]);
      expect(await head()).to.equal(before + 1);

      const entry = (await listed(1)).find((d) => d.Id === 9001);
      expect(entry).to.deep.equal({
        Id: 9001,
        Name: 'Conditions of sale.pdf',
        Kind: 'conditions',
        Language: 'en',
        ContentType: 'application/pdf',
        Size: conditionsV1.length,
      });

      const r = await download('/v1/auctions/1/documents/9001');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^application\/pdf/);
      expect(Number(r.headers.get('content-length'))).to.equal(conditionsV1.length);
      expect(r.headers.get('content-disposition')).to.include('Conditions of sale.pdf');
      expect(r.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(sha256(r.bytes)).to.equal(sha256(conditionsV1));
      firstEtag = r.headers.get('etag');
    });

    it("is served only under its own auction: another auction's list and download do not have it", async () => {
      expect((await listed(2)).map((d) => d.Id)).to.not.include(9001);
      expectProblem(await get('/v1/auctions/2/documents/9001'), 404);
    });

    it('takes the bytes as base64 just the same', async () => {
      const before = await head();
      const record = (documentId: number, auctionId: number) => ({
        kind: 'auctionDocument',
        tenant: 'demo',
        auctionId,
        documentId,
        name: `Katalogtillägg ${documentId}.txt`,
        documentKind: 'catalogue-supplement',
        language: 'sv',
        contentType: 'text/plain',
        base64: supplement.toString('base64'),
      });
      // Two documents with the same bytes (9002 in auction 1, 9003 in auction 2).
      const { status, report } = await runImport('supplement.ndjson', [record(9002, 1), record(9003, 2)]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 2, appended: 2, unchanged: 0 });
      expect(await head()).to.equal(before + 2);

      expect((await listed(1)).find((d) => d.Id === 9002)).to.deep.equal({
        Id: 9002,
        Name: 'Katalogtillägg 9002.txt',
        Kind: 'catalogue-supplement',
        Language: 'sv',
        ContentType: 'text/plain',
        Size: supplement.length,
      });
      expect((await listed(2)).find((d) => d.Id === 9003)).to.include({ Kind: 'catalogue-supplement', Size: supplement.length });
      for (const p of ['/v1/auctions/1/documents/9002', '/v1/auctions/2/documents/9003']) {
        const r = await download(p);
        expect(r.status, p).to.equal(200);
        expect(r.headers.get('content-type')).to.match(/^text\/plain/);
        expect(Number(r.headers.get('content-length'))).to.equal(supplement.length);
        expect(r.bytes.equals(supplement), p).to.equal(true);
      }
    });

    it('appends nothing when the same file is imported again', async () => {
      const before = await head();
      const list = await listed(1);
      const { status, report } = await runImport('conditions.ndjson', [conditionsRecord]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 1, appended: 0, unchanged: 1 });
      expect(await head()).to.equal(before);
      expect(await listed(1)).to.deep.equal(list);
    });

    it('rejects a file path that climbs out of the folder, or is absolute, with a line error, and appends nothing', async () => {
      fs.writeFileSync(path.join(dir, 'outside.pdf'), pdfBytes(99, 500));
      const before = await head();
      const bad = (documentId: number, file: string) => ({ ...conditionsRecord, documentId, name: `Bad ${documentId}.pdf`, file });
      const { status, report } = await runImport('escape.ndjson', [
        bad(9101, '../outside.pdf'),
        bad(9102, 'docs/../../outside.pdf'),
        bad(9103, path.join(dir, 'outside.pdf')),
        bad(9104, path.join(intakeDir, 'docs', 'conditions.pdf')),
      ]);
      expect(status).to.equal(1);
      expect(report.appended).to.equal(0);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2, 3, 4]);
      for (const e of report.errors) expect(e.message).to.match(/file/i);
      expect(await head()).to.equal(before);
      expect((await listed(1)).map((d) => d.Id)).to.not.include.members([9101, 9102, 9103, 9104]);
      expectProblem(await get('/v1/auctions/1/documents/9101'), 404);
    });

    it('rejects a symbolic link in the folder that leads out of it (docs/intake.md: the file must stay inside the folder)', async () => {
      fs.writeFileSync(path.join(dir, 'secret.txt'), 'not for publication\n');
      fs.mkdirSync(path.join(intakeDir, 'links'), { recursive: true });
      fs.symlinkSync(path.join(dir, 'secret.txt'), path.join(intakeDir, 'links', 'secret.txt'));
      const before = await head();
      const { status, report } = await runImport('symlink.ndjson', [
        { ...conditionsRecord, documentId: 9105, name: 'Secret.txt', contentType: 'text/plain', file: 'links/secret.txt' },
      ]);
      expect(
        report.errors.map((e) => e.line),
        JSON.stringify(report),
      ).to.deep.equal([1]);
      expect(status).to.equal(1);
      expect(await head()).to.equal(before);
      expectProblem(await get('/v1/auctions/1/documents/9105'), 404);
    });

    it('rejects a record with both file and base64, or with neither, with a line error, and appends nothing', async () => {
      const before = await head();
      const { file: _file, ...neither } = { ...conditionsRecord, documentId: 9112 };
      const { status, report } = await runImport('sources.ndjson', [
        { ...conditionsRecord, documentId: 9111, base64: conditionsV1.toString('base64') },
        neither,
      ]);
      expect(status).to.equal(1);
      expect(report.appended).to.equal(0);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2]);
      expect(await head()).to.equal(before);
      expect((await listed(1)).map((d) => d.Id)).to.not.include.members([9111, 9112]);
    });

    it('rejects a missing file, an unknown documentKind and bytes that are not base64 with a line error each', async () => {
      const before = await head();
      const { status, report } = await runImport('other-bad.ndjson', [
        { ...conditionsRecord, documentId: 9121, file: 'docs/missing.pdf' },
        { ...conditionsRecord, documentId: 9122, documentKind: 'invoice' },
        { ...conditionsRecord, documentId: 9123, file: undefined, base64: 'not base64 at all!' },
      ]);
      expect(status).to.equal(1);
      expect(report.appended).to.equal(0);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2, 3]);
      expect(await head()).to.equal(before);
    });

    it('takes base64 on standard input, where a file path has no folder to be relative to', async () => {
      const before = await head();
      const bytes = pdfBytes(21, 700);
      const lines = [
        { ...conditionsRecord, documentId: 9131, name: 'From stdin.pdf', file: undefined, base64: bytes.toString('base64') },
        { ...conditionsRecord, documentId: 9132, name: 'Path on stdin.pdf' },
      ];
      const { status, report } = await runImport('unused.ndjson', [], lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      expect(status).to.equal(1);
      expect(report).to.include({ records: 2, appended: 1 });
      expect(report.errors.map((e) => e.line)).to.deep.equal([2]);
      expect(await head()).to.equal(before + 1);
      const r = await download('/v1/auctions/1/documents/9131');
      expect(r.status).to.equal(200);
      expect(r.bytes.equals(bytes)).to.equal(true);
      expectProblem(await get('/v1/auctions/1/documents/9132'), 404);
    });

    it('replaces a document whose content changed: one entry with the new Size, the new bytes and a new ETag', async () => {
      writeIntakeFile('docs/conditions.pdf', conditionsV2);
      const before = await head();
      const { status, report } = await runImport('conditions.ndjson', [conditionsRecord]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 1, appended: 1, unchanged: 0 });
      expect(await head()).to.equal(before + 1);

      const entries = (await listed(1)).filter((d) => d.Id === 9001);
      expect(entries).to.have.length(1);
      expect(entries[0].Size).to.equal(conditionsV2.length);
      const r = await download('/v1/auctions/1/documents/9001');
      expect(r.status).to.equal(200);
      expect(Number(r.headers.get('content-length'))).to.equal(conditionsV2.length);
      expect(sha256(r.bytes)).to.equal(sha256(conditionsV2));
      expect(r.headers.get('etag')).to.not.equal(firstEtag);
      // A client holding the old copy gets the new one, not a 304.
      if (firstEtag) expect((await download('/v1/auctions/1/documents/9001', { 'If-None-Match': firstEtag })).status).to.equal(200);
    });

    it('replaces a document whose name, kind or language changed, with the same bytes', async () => {
      const { status, report } = await runImport('renamed.ndjson', [
        { ...conditionsRecord, name: 'Villkor.pdf', documentKind: 'terms', language: 'sv' },
      ]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report.appended).to.equal(1);
      expect((await listed(1)).find((d) => d.Id === 9001)).to.include({
        Name: 'Villkor.pdf',
        Kind: 'terms',
        Language: 'sv',
        Size: conditionsV2.length,
      });
      const r = await download('/v1/auctions/1/documents/9001');
      expect(r.headers.get('content-disposition')).to.include('Villkor.pdf');
    });
  });

  describe('auctionDocumentRemoved', () => {
    it('takes a document out of the list, and its download is then a 404', async () => {
      const before = await head();
      const { status, report } = await runImport('remove.ndjson', [{ kind: 'auctionDocumentRemoved', tenant: 'demo', documentId: 9002 }]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 1, appended: 1 });
      expect(await head()).to.equal(before + 1);
      expect((await listed(1)).map((d) => d.Id)).to.not.include(9002);
      expectProblem(await get('/v1/auctions/1/documents/9002'), 404);
    });

    it('leaves another document with the same bytes served', async () => {
      expect((await listed(2)).map((d) => d.Id)).to.include(9003);
      const r = await download('/v1/auctions/2/documents/9003');
      expect(r.status).to.equal(200);
      expect(r.bytes.equals(supplement)).to.equal(true);
    });

    it('appends nothing for a document already removed or never published', async () => {
      const before = await head();
      const { status, report } = await runImport('remove-again.ndjson', [
        { kind: 'auctionDocumentRemoved', tenant: 'demo', documentId: 9002 },
        { kind: 'auctionDocumentRemoved', tenant: 'demo', documentId: 9999 },
      ]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 2, appended: 0, unchanged: 2 });
      expect(await head()).to.equal(before);
    });

    it('lets a removed document be published again', async () => {
      const { report } = await runImport('republish.ndjson', [
        {
          kind: 'auctionDocument',
          tenant: 'demo',
          auctionId: 1,
          documentId: 9002,
          name: 'Katalogtillägg 9002.txt',
          documentKind: 'catalogue-supplement',
          language: 'sv',
          contentType: 'text/plain',
          base64: supplement.toString('base64'),
        },
      ]);
      expect(report.appended).to.equal(1);
      expect((await listed(1)).map((d) => d.Id)).to.include(9002);
      expect((await download('/v1/auctions/1/documents/9002')).bytes.equals(supplement)).to.equal(true);
    });
  });

  describe('conditionReport', () => {
    it("publishes a lot's condition report from a file, served as the lot document condition-report", async () => {
      expectProblem(await get('/v1/lots/5/documents/condition-report'), 404);
      const bytes = pdfBytes(5, 2500);
      writeIntakeFile('reports/lot-5.pdf', bytes);
      const record = {
        kind: 'conditionReport',
        tenant: 'demo',
        lotId: 5,
        language: 'en',
        contentType: 'application/pdf',
        file: 'reports/lot-5.pdf',
      };
      const { status, report } = await runImport('report.ndjson', [record]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ appended: 1 });

      const r = await download('/v1/lots/5/documents/condition-report');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^application\/pdf/);
      expect(Number(r.headers.get('content-length'))).to.equal(bytes.length);
      expect(r.headers.get('content-disposition')).to.include('condition-report.pdf');
      expect(r.bytes.equals(bytes)).to.equal(true);

      const again = await runImport('report.ndjson', [record]);
      expect(again.report).to.include({ appended: 0, unchanged: 1 });
    });

    it('replaces a condition report with a changed one', async () => {
      const bytes = Buffer.from('Condition: as new.\n', 'utf8');
      const { report } = await runImport('report-b64.ndjson', [
        {
          kind: 'conditionReport',
          tenant: 'demo',
          lotId: 5,
          name: 'Lot 5 report.txt',
          language: 'en',
          contentType: 'text/plain',
          base64: bytes.toString('base64'),
        },
      ]);
      expect(report).to.include({ appended: 1 });
      const r = await download('/v1/lots/5/documents/condition-report');
      expect(r.headers.get('content-type')).to.match(/^text\/plain/);
      expect(r.headers.get('content-disposition')).to.include('Lot 5 report.txt');
      expect(r.bytes.equals(bytes)).to.equal(true);
    });

    it('rejects a path that climbs out of the folder', async () => {
      const before = await head();
      const { status, report } = await runImport('report-bad.ndjson', [
        { kind: 'conditionReport', tenant: 'demo', lotId: 6, language: 'en', contentType: 'application/pdf', file: '../outside.pdf' },
      ]);
      expect(status).to.equal(1);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1]);
      expect(await head()).to.equal(before);
      expectProblem(await get('/v1/lots/6/documents/condition-report'), 404);
    });
  });

  describe('translations', () => {
    it("replaces a language's interface dictionary, as GET /v1/translations then answers", async () => {
      const sv = await get('/v1/translations', { 'Accept-Language': 'sv' });
      expect(sv.status).to.equal(200);
      expect(sv.body.Entries['button.placeBid']).to.equal(interfaceDictionary.sv['button.placeBid']);
      const en = await get('/v1/translations', { 'Accept-Language': 'en' });

      const entries = { ...interfaceDictionary.sv, 'button.placeBid': 'Lägg ditt bud' };
      const before = await head();
      const { status, report } = await runImport('translations.ndjson', [
        { kind: 'translations', tenant: 'demo', language: 'sv', entries },
      ]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 1, appended: 1 });
      expect(await head()).to.equal(before + 1);

      const changed = await get('/v1/translations', { 'Accept-Language': 'sv' });
      expect(changed.status).to.equal(200);
      expect(changed.body.Language).to.equal('sv');
      expect(changed.body.Entries['button.placeBid']).to.equal('Lägg ditt bud');
      expect({ ...changed.body.Entries, 'button.placeBid': sv.body.Entries['button.placeBid'] }).to.deep.equal(sv.body.Entries);
      expect((await get('/v1/translations', { 'Accept-Language': 'en' })).body).to.deep.equal(en.body);
    });

    it('appends nothing for the same entries again, in another key order', async () => {
      const entries = Object.fromEntries(Object.entries({ ...interfaceDictionary.sv, 'button.placeBid': 'Lägg ditt bud' }).reverse());
      const before = await head();
      const { status, report } = await runImport('translations-again.ndjson', [
        { kind: 'translations', tenant: 'demo', language: 'sv', entries },
      ]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ records: 1, appended: 0, unchanged: 1 });
      expect(await head()).to.equal(before);
    });
  });

  describe('live with startsAt', () => {
    const at = '2026-01-01T12:00:00.000Z';
    const live = (extra: Record<string, unknown>) => ({
      kind: 'live',
      tenant: 'demo',
      auctionId: 3,
      isLive: false,
      currentLotId: null,
      at,
      ...extra,
    });

    it('shows the announced start as StartsAt of GET /v1/auctions/{id}/live', async () => {
      const auction = (await get('/v1/auctions/3')).body;
      const before = await get('/v1/auctions/3/live');
      expect(before.status).to.equal(200);
      expect(before.body).to.deep.equal({ IsLive: false, CurrentLotId: null, StartsAt: auction.StartTime });

      const { status, report } = await runImport('live.ndjson', [live({ startsAt: '2030-06-01T18:30:00.000Z' })]);
      expect(status, JSON.stringify(report)).to.equal(0);
      expect(report).to.include({ appended: 1 });
      const r = await get('/v1/auctions/3/live');
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ IsLive: false, CurrentLotId: null, StartsAt: '2030-06-01T18:30:00.000Z' });
    });

    it('keeps the announced start when a later record has no startsAt', async () => {
      const { report } = await runImport('live-on.ndjson', [live({ isLive: true, currentLotId: 610, at: '2026-01-01T13:00:00.000Z' })]);
      expect(report).to.include({ appended: 1 });
      expect((await get('/v1/auctions/3/live')).body).to.deep.equal({
        IsLive: true,
        CurrentLotId: 610,
        StartsAt: '2030-06-01T18:30:00.000Z',
      });
    });

    it("falls back to the auction's start time when startsAt is cleared with null", async () => {
      const auction = (await get('/v1/auctions/3')).body;
      const { report } = await runImport('live-clear.ndjson', [live({ startsAt: null, at: '2026-01-01T14:00:00.000Z' })]);
      expect(report).to.include({ appended: 1 });
      expect((await get('/v1/auctions/3/live')).body).to.deep.equal({ IsLive: false, CurrentLotId: null, StartsAt: auction.StartTime });
    });
  });

  describe('importLines with a FolderFileStore', () => {
    it('resolves file paths against the given folder and stores the bytes under their SHA-256', async () => {
      const folder = fs.mkdtempSync(path.join(dir, 'lines-'));
      const bytes = pdfBytes(31, 1200);
      fs.writeFileSync(path.join(folder, 'terms.pdf'), bytes);
      const files = new FolderFileStore(path.join(dataDir, 'files'));
      const record = { ...conditionsRecord, documentId: 9201, auctionId: 3, name: 'Terms.pdf', documentKind: 'terms', file: 'terms.pdf' };
      const line = JSON.stringify(record);
      const log = server.runtime.services.log;
      const report = await importLines(log, [line, JSON.stringify({ ...record, documentId: 9202, file: '../terms.pdf' })], undefined, {
        files,
        baseDir: folder,
      });
      expect(report).to.include({ records: 2, appended: 1 });
      expect(report.errors.map((e) => e.line)).to.deep.equal([2]);
      const stored = await files.get('demo', `documents/${sha256(bytes)}`);
      expect(stored?.bytes.equals(bytes)).to.equal(true);
      const again = await importLines(log, [line], undefined, { files, baseDir: folder });
      expect(again).to.include({ appended: 0, unchanged: 1 });

      await server.runtime.services.projector.catchUp();
      const r = await download('/v1/auctions/3/documents/9201');
      expect(r.status).to.equal(200);
      expect(r.bytes.equals(bytes)).to.equal(true);
    });
  });
});
