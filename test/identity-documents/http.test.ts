/**
 * Operations 44–46: POST, GET /v1/me/identity-documents and DELETE /v1/me/identity-documents/{id}, and the
 * house's decision through intake.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { importAnyRecord, importLines } from '../../app/features/intake.ts';
import { renderPdf } from '../../src/pdf.ts';
import type { RecordedEvent } from '../../src/ports/event-log.ts';
import { identityDocumentFileKey, MAX_IDENTITY_DOCUMENT_BYTES } from '../../commands/identity-documents/events.ts';
import { expectProblem, readResponse, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    let c = (crc ^ byte) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real 1×1 grey PNG: signature, IHDR, IDAT, IEND. */
const header = Buffer.alloc(13);
header.writeUInt32BE(1, 0);
header.writeUInt32BE(1, 4);
header[8] = 8; // bit depth
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  pngChunk('IHDR', header),
  pngChunk('IDAT', zlib.deflateSync(Buffer.from([0, 0x80]))),
  pngChunk('IEND', Buffer.alloc(0)),
]);
/** A JPEG's start: SOI, a JFIF APP0 segment, EOI. */
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(300, 0x90)]);
const ZIP = Buffer.from('504b0304140000000000000000000000000000000000000000000000000000', 'hex');
const TEXT = Buffer.from('Dear house, here is my passport (not really).\n');
/** A PDF-looking file of exactly `size` bytes. */
const pdfOfSize = (size: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(size - 9, 0x20)]);

type Part = { name: string; value: string } | { name: string; file: Buffer; fileName: string; type?: string };

describe('identity documents (operations 44–46)', () => {
  let server: TestServer;
  let PDF: Buffer;
  let token: string;
  const head = () => server.runtime.services.log.headPosition();
  const since = (position: number): Promise<RecordedEvent[]> =>
    server.runtime.services.log.readAll({ fromPosition: position, maxCount: 1000 });
  const member = (memberId: number, tenant = 'demo') => server.issueMemberToken(tenant, memberId);
  /** The file names in the tenant's file-store folder. */
  const stored = (tenant = 'demo') => {
    const dir = path.join(server.dataDir, 'files', tenant);
    return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  };

  const send = async (
    form: FormData | undefined,
    t: string | null = token,
    headers: Record<string, string> = {},
  ): Promise<TestResponse> => {
    const h: Record<string, string> = { 'Api-Key': server.credentials.apiKey, ...headers };
    if (t) h.Authorization = `Bearer ${t}`;
    return readResponse(await fetch(`${server.base}/v1/me/identity-documents`, { method: 'POST', headers: h, body: form }));
  };
  const formOf = (parts: Part[]) => {
    const form = new FormData();
    for (const part of parts) {
      if ('value' in part) form.append(part.name, part.value);
      else form.append(part.name, new Blob([new Uint8Array(part.file)], { type: part.type ?? 'application/octet-stream' }), part.fileName);
    }
    return form;
  };
  const upload = (file: Buffer, fileName = 'passport.pdf', documentType = 'passport', t: string | null = token, type = 'application/pdf') =>
    send(
      formOf([
        { name: 'DocumentType', value: documentType },
        { name: 'file', file, fileName, type },
      ]),
      t,
    );
  const list = (t: string | null = token) => server.request('GET', '/v1/me/identity-documents', { token: t });
  const remove = (id: string, t: string | null = token) => server.request('DELETE', `/v1/me/identity-documents/${id}`, { token: t });

  /** Runs a refused request and checks that it appended no event and left no file (not even a temp file) behind. */
  async function refused(status: number, run: () => Promise<TestResponse>) {
    const before = await head();
    const files = stored();
    const response = await run();
    const problem = expectProblem(response, status);
    expect(await since(before), 'no event').to.deep.equal([]);
    expect(stored(), 'no file').to.deep.equal(files);
    return problem;
  }

  before(async () => {
    server = await startTestServer();
    token = await server.memberToken('demo');
    PDF = await renderPdf({ title: 'Passport', language: 'en' }, (doc) => {
      doc.text('Passport of Anna Berg');
    });
    for (const memberId of [2, 3, 4, 5, 6]) {
      await importAnyRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId,
        email: `member${memberId}@example.com`,
        passwordHash: 'scrypt$disabled',
        firstName: 'O',
        lastName: 'T',
        language: 'en',
        phone: '',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    }
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  describe('POST /v1/me/identity-documents', () => {
    it('takes a PDF with its DocumentType, answers its uuid, appends IdentityDocumentUploaded and keeps the bytes under a key naming member and document', async () => {
      const before = await head();
      const response = await upload(PDF, 'passport.pdf', 'passport');
      expect(response.status, response.text).to.equal(200);
      expect(Object.keys(response.body)).to.deep.equal(['Id']);
      expect(response.body.Id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['IdentityDocumentUploaded']);
      expect(events[0].streamId).to.equal('identitydocuments-demo-1');
      expect(events[0].data).to.deep.include({
        tenant: 'demo',
        memberId: 1,
        documentId: response.body.Id,
        documentType: 'passport',
        fileName: 'passport.pdf',
        contentType: 'application/pdf',
        size: PDF.length,
        sha256: createHash('sha256').update(PDF).digest('hex'),
      });
      const file = await server.runtime.services.files.get('demo', identityDocumentFileKey(1, response.body.Id));
      expect(file?.bytes.equals(PDF)).to.equal(true);
      expect(file?.contentType).to.equal('application/pdf');
    });

    it('lists the new document at once (read your writes), pending', async () => {
      const response = await upload(PNG, 'licence.png', 'driving-licence', token, 'image/png');
      expect(response.status, response.text).to.equal(200);
      const listed = await list();
      expect(listed.status).to.equal(200);
      const item = listed.body.find((d: { Id: string }) => d.Id === response.body.Id);
      expect(item).to.deep.include({
        DocumentType: 'driving-licence',
        FileName: 'licence.png',
        ContentType: 'image/png',
        Size: PNG.length,
        Status: 'pending',
      });
      expect(item.UploadedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Object.keys(item).sort()).to.deep.equal(['ContentType', 'DocumentType', 'FileName', 'Id', 'Size', 'Status', 'UploadedAt']);
    });

    it('decides the type from the bytes: a PNG named .pdf and declared application/pdf is a PNG; a JPEG declared as anything is a JPEG', async () => {
      const png = await upload(PNG, 'scan.pdf', 'proof-of-address', token, 'application/pdf');
      expect(png.status, png.text).to.equal(200);
      const jpeg = await upload(JPEG, 'card', 'national-id', token, 'text/plain');
      expect(jpeg.status, jpeg.text).to.equal(200);
      const items = new Map<string, { ContentType: string; FileName: string }>((await list()).body.map((d: { Id: string }) => [d.Id, d]));
      expect(items.get(png.body.Id)).to.include({ ContentType: 'image/png', FileName: 'scan.pdf' });
      expect(items.get(jpeg.body.Id)).to.include({ ContentType: 'image/jpeg', FileName: 'card' });
    });

    it('takes every DocumentType of the contract, in any order of the parts', async () => {
      const t = member(6);
      for (const type of ['passport', 'national-id', 'driving-licence', 'proof-of-address', 'company-registration']) {
        const response = await send(
          formOf([
            { name: 'file', file: PDF, fileName: `${type}.pdf` },
            { name: 'DocumentType', value: type },
          ]),
          t,
        );
        expect(response.status, `${type}: ${response.text}`).to.equal(200);
      }
      expect((await list(t)).body.map((d: { DocumentType: string }) => d.DocumentType)).to.have.members([
        'passport',
        'national-id',
        'driving-licence',
        'proof-of-address',
        'company-registration',
      ]);
    });

    it('answers 415 for an EXE, a ZIP or a text file named .pdf and declared application/pdf, and keeps nothing', async () => {
      for (const bytes of [EXE, ZIP, TEXT]) {
        const problem = await refused(415, () => upload(bytes, 'passport.pdf'));
        expect(problem.detail).to.match(/PDF, JPEG or PNG/);
      }
    });

    it('answers 400 for an empty file, and keeps nothing', async () => {
      const problem = await refused(400, () => upload(Buffer.alloc(0), 'empty.pdf'));
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.file']);
    });

    it('takes a file of exactly 10 MiB', async () => {
      const response = await upload(pdfOfSize(MAX_IDENTITY_DOCUMENT_BYTES), 'big.pdf', 'passport', member(5));
      expect(response.status, response.text).to.equal(200);
      expect((await list(member(5))).body[0]).to.include({ Size: MAX_IDENTITY_DOCUMENT_BYTES });
    });

    it('answers 413 for 10 MiB and 1 byte, and keeps nothing (no event, no file, no temp file)', async () => {
      const problem = await refused(413, () => upload(pdfOfSize(MAX_IDENTITY_DOCUMENT_BYTES + 1), 'big.pdf'));
      expect(problem.detail).to.match(/at most 10485760 bytes/);
    });

    it('answers 413 at once, unread, for a body declared far larger than 10 MiB', async () => {
      const before = await head();
      const files = stored();
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(`${server.base}/v1/me/identity-documents`, {
          method: 'POST',
          headers: {
            'Api-Key': server.credentials.apiKey,
            Authorization: `Bearer ${token}`,
            'Content-Type': 'multipart/form-data; boundary=xyz',
            'Content-Length': String(50 * 1024 * 1024),
          },
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode!);
          req.destroy();
        });
        req.on('error', reject);
        req.write('--xyz\r\n');
      });
      expect(status).to.equal(413);
      expect(await since(before)).to.deep.equal([]);
      expect(stored()).to.deep.equal(files);
    });

    it('answers 400 naming body.file or body.DocumentType when one is missing, or the DocumentType is unknown, and keeps nothing', async () => {
      const noFile = await refused(400, () => send(formOf([{ name: 'DocumentType', value: 'passport' }])));
      expect(noFile.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.file']);
      const noType = await refused(400, () => send(formOf([{ name: 'file', file: PDF, fileName: 'p.pdf' }])));
      expect(noType.errors.map((e: { field: string }) => e.field)).to.deep.equal(['body.DocumentType']);
      for (const value of ['visa', 'Passport', '', 'x'.repeat(5000)]) {
        const bad = await refused(400, () => upload(PDF, 'p.pdf', value));
        expect(
          bad.errors.map((e: { field: string }) => e.field),
          value.slice(0, 20),
        ).to.deep.equal(['body.DocumentType']);
      }
      const nothing = await refused(400, () => send(undefined));
      expect(nothing.errors.map((e: { field: string }) => e.field)).to.have.members(['body.file', 'body.DocumentType']);
    });

    it('answers 400 for a second file, for a file under another name, or a file sent as a text field, and keeps nothing', async () => {
      await refused(400, () =>
        send(
          formOf([
            { name: 'DocumentType', value: 'passport' },
            { name: 'file', file: PDF, fileName: 'a.pdf' },
            { name: 'file', file: PNG, fileName: 'b.png' },
          ]),
        ),
      );
      await refused(400, () =>
        send(
          formOf([
            { name: 'DocumentType', value: 'passport' },
            { name: 'file', file: PDF, fileName: 'a.pdf' },
            { name: 'other', file: PNG, fileName: 'b.png' },
          ]),
        ),
      );
      await refused(400, () =>
        send(
          formOf([
            { name: 'DocumentType', value: 'passport' },
            { name: 'scan', file: PDF, fileName: 'a.pdf' },
          ]),
        ),
      );
      await refused(400, () =>
        send(
          formOf([
            { name: 'DocumentType', value: 'passport' },
            { name: 'file', value: '%PDF-1.4 not a file part' },
          ]),
        ),
      );
    });

    it('answers 400 for a malformed multipart body or one without a boundary', async () => {
      await refused(400, () =>
        server.request('POST', '/v1/me/identity-documents', {
          token,
          rawBody: '--xyz\r\nnot a header\r\n\r\n',
          headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
        }),
      );
      await refused(400, () =>
        server.request('POST', '/v1/me/identity-documents', {
          token,
          rawBody: '--xyz\r\n',
          headers: { 'Content-Type': 'multipart/form-data' },
        }),
      );
      await refused(400, () =>
        server.request('POST', '/v1/me/identity-documents', {
          token,
          rawBody:
            '--xyz\r\nContent-Disposition: form-data; name="DocumentType"\r\n\r\npassport\r\n--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 cut short',
          headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
        }),
      );
    });

    it('answers 415 for a JSON or any other body that is not multipart/form-data', async () => {
      await refused(415, () =>
        server.request('POST', '/v1/me/identity-documents', { token, body: { DocumentType: 'passport', file: PDF.toString('base64') } }),
      );
      await refused(415, () =>
        server.request('POST', '/v1/me/identity-documents', { token, rawBody: PDF, headers: { 'Content-Type': 'application/pdf' } }),
      );
      await refused(415, () =>
        server.request('POST', '/v1/me/identity-documents', {
          token,
          rawBody: '--x\r\n',
          headers: { 'Content-Type': 'multipart/mixed; boundary=x' },
        }),
      );
    });

    it('still answers 415 to a multipart body sent to another route', async () => {
      const form = formOf([{ name: 'file', file: PDF, fileName: 'a.pdf' }]);
      const response = await fetch(`${server.base}/v1/contact`, {
        method: 'POST',
        headers: { 'Api-Key': server.credentials.apiKey, Authorization: `Bearer ${await server.anonymousToken()}` },
        body: form,
      });
      expect(response.status).to.equal(415);
      await response.arrayBuffer();
    });

    it('answers 401 without a member token (none, an anonymous one), and keeps nothing', async () => {
      await refused(401, () => upload(PDF, 'p.pdf', 'passport', null));
      await refused(401, () => upload(PDF, 'p.pdf', 'passport', 'not-a-token'));
      const anonymous = await server.anonymousToken('demo');
      await refused(401, () => upload(PDF, 'p.pdf', 'passport', anonymous));
    });

    it('sanitises the file name: no path, no control or invisible characters, at most 200 characters with the extension kept', async () => {
      const t = member(2);
      const names = [
        'C:\\Users\\anna\\passport.pdf',
        '../../etc/passwd.pdf',
        'scan\u202egpj.exe',
        `${'a'.repeat(300)}.pdf`,
        '\u200b\u202e',
        '  ..hidden.pdf',
      ];
      const ids: string[] = [];
      for (const name of names) {
        const response = await upload(PDF, name, 'passport', t);
        expect(response.status, response.text).to.equal(200);
        ids.push(response.body.Id);
      }
      const byId = new Map<string, string>((await list(t)).body.map((d: { Id: string; FileName: string }) => [d.Id, d.FileName]));
      const listed = ids.map((id) => byId.get(id)!);
      expect(listed.slice(0, 3)).to.deep.equal(['passport.pdf', 'passwd.pdf', 'scangpj.exe']);
      expect(listed[3]).to.have.length(200);
      expect(listed[3]).to.match(/^a+\.pdf$/);
      expect(listed[4]).to.equal('document.pdf');
      expect(listed[5]).to.equal('hidden.pdf');
    });

    it('leaves nothing behind when the client breaks off half way through the file', async () => {
      const before = await head();
      const files = stored();
      const boundary = 'cut-short';
      const start =
        `--${boundary}\r\nContent-Disposition: form-data; name="DocumentType"\r\n\r\npassport\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
      const waitFor = async (condition: () => boolean) => {
        const deadline = Date.now() + 5000;
        while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        return condition();
      };
      const req = http.request(`${server.base}/v1/me/identity-documents`, {
        method: 'POST',
        headers: {
          'Api-Key': server.credentials.apiKey,
          Authorization: `Bearer ${token}`,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(2 * 1024 * 1024),
        },
      });
      req.on('error', () => undefined);
      req.write(start);
      req.write(pdfOfSize(512 * 1024));
      // The file is being written (a temp file) when the client goes away.
      expect(await waitFor(() => stored().some((f) => f.includes('.tmp-'))), 'a temp file while the upload runs').to.equal(true);
      req.destroy();
      // The server notices the broken connection and removes what it had written.
      expect(await waitFor(() => JSON.stringify(stored()) === JSON.stringify(files)), 'the folder as it was').to.equal(true);
      expect(await since(before)).to.deep.equal([]);
      expect((await list()).status).to.equal(200);
    });

    it('answers 409 for the 11th document of a member, before storing anything', async () => {
      const t = member(3);
      for (let i = 0; i < 10; i++) expect((await upload(PNG, `p${i}.png`, 'passport', t)).status).to.equal(200);
      const problem = await refused(409, () => upload(PDF, 'eleven.pdf', 'passport', t));
      expect(problem.detail).to.match(/at most 10/);
      expect((await list(t)).body).to.have.length(10);
    });

    it('holds the limit under parallel uploads: of 16 at once, exactly 10 are kept, and only their files stay', async () => {
      const t = member(4);
      const files = stored();
      const responses = await Promise.all(Array.from({ length: 16 }, (_, i) => upload(PDF, `p${i}.pdf`, 'passport', t)));
      const statuses = responses.map((r) => r.status).sort();
      expect(
        statuses.filter((s) => s === 200),
        statuses.join(),
      ).to.have.length(10);
      expect(
        statuses.filter((s) => s === 409),
        statuses.join(),
      ).to.have.length(6);
      const listed = (await list(t)).body as Array<{ Id: string }>;
      expect(listed.map((d) => d.Id).sort()).to.deep.equal(
        responses
          .filter((r) => r.status === 200)
          .map((r) => r.body.Id)
          .sort(),
      );
      // Each kept document is a data file and its sidecar; the refused ones left nothing.
      expect(stored().length - files.length).to.equal(20);
      for (const d of listed) expect(await server.runtime.services.files.get('demo', identityDocumentFileKey(4, d.Id))).to.not.equal(null);
      const events = (await server.events()).filter((e) => e.streamId === 'identitydocuments-demo-4');
      expect(events).to.have.length(10);
    });
  });

  describe('GET /v1/me/identity-documents', () => {
    it("lists the caller's documents only, oldest first", async () => {
      const mine = (await list()).body as Array<{ Id: string; UploadedAt: string }>;
      expect(mine.length).to.be.within(1, 10);
      expect(mine.map((d) => d.UploadedAt)).to.deep.equal([...mine.map((d) => d.UploadedAt)].sort());
      const theirs = (await list(member(3))).body as Array<{ Id: string }>;
      expect(theirs.filter((d) => mine.some((m) => m.Id === d.Id))).to.deep.equal([]);
      // The same member id in another tenant has none of them.
      expect((await list(await server.memberToken('demo2'))).body).to.deep.equal([]);
    });

    it('answers 401 without a member token', async () => {
      expectProblem(await list(null), 401);
      expectProblem(await list(await server.anonymousToken('demo')), 401);
    });

    it('serves no route to the bytes of a document', async () => {
      const [doc] = (await list()).body as Array<{ Id: string }>;
      expectProblem(await server.request('GET', `/v1/me/identity-documents/${doc.Id}`, { token }), 405);
      expectProblem(await server.request('GET', `/v1/me/identity-documents/${doc.Id}/file`, { token }), 404);
    });
  });

  describe('DELETE /v1/me/identity-documents/{id}', () => {
    it('removes the document: 200, IdentityDocumentRemoved, gone from the list at once, and its file deleted by a job', async () => {
      const created = await upload(PDF, 'to-remove.pdf', 'passport', member(2));
      const id = created.body.Id as string;
      const key = identityDocumentFileKey(2, id);
      expect(await server.runtime.services.files.get('demo', key)).to.not.equal(null);
      const before = await head();
      const response = await remove(id, member(2));
      expect(response.status, response.text).to.equal(200);
      expect(response.body).to.deep.equal({ Id: id, Removed: true });
      const events = await since(before);
      expect(events.map((e) => e.type)).to.deep.equal(['IdentityDocumentRemoved']);
      expect(events[0].data).to.include({ tenant: 'demo', memberId: 2, documentId: id });
      expect((await list(member(2))).body.map((d: { Id: string }) => d.Id)).to.not.include(id);
      await server.runtime.services.projector.catchUp();
      await server.runtime.services.jobs.whenIdle(10_000);
      expect(await server.runtime.services.files.get('demo', key)).to.equal(null);
    });

    it('answers 404 the second time, and for an unknown id, appending nothing', async () => {
      const created = await upload(PNG, 'twice.png', 'passport', member(2));
      expect((await remove(created.body.Id, member(2))).status).to.equal(200);
      const before = await head();
      expectProblem(await remove(created.body.Id, member(2)), 404);
      expectProblem(await remove('7c9e6679-7425-40de-944b-e07fc1f90ae7', member(2)), 404);
      expect(await since(before)).to.deep.equal([]);
    });

    it("answers 404 for another member's document, and for the same member id of another tenant, leaving it in place", async () => {
      const [doc] = (await list()).body as Array<{ Id: string }>;
      const before = await head();
      expectProblem(await remove(doc.Id, member(3)), 404);
      expectProblem(await remove(doc.Id, await server.memberToken('demo2')), 404);
      expect(await since(before)).to.deep.equal([]);
      expect((await list()).body.map((d: { Id: string }) => d.Id)).to.include(doc.Id);
    });

    it('answers 400 for an id that is not a uuid, and 401 without a member token', async () => {
      const problem = expectProblem(await remove('12'), 400);
      expect(problem.errors.map((e: { field: string }) => e.field)).to.deep.equal(['path.id']);
      const [doc] = (await list()).body as Array<{ Id: string }>;
      expectProblem(await remove(doc.Id, null), 401);
      expectProblem(await remove(doc.Id, await server.anonymousToken('demo')), 401);
    });

    it('makes room for a new document at the limit', async () => {
      const t = member(3);
      const [first] = (await list(t)).body as Array<{ Id: string }>;
      expectProblem(await upload(PNG, 'x.png', 'passport', t), 409);
      expect((await remove(first.Id, t)).status).to.equal(200);
      expect((await upload(PNG, 'x.png', 'passport', t)).status).to.equal(200);
    });
  });

  describe("the house's decision (intake kind identityDocumentDecision)", () => {
    it('approves or rejects a document: its Status changes; the same decision again appends nothing', async () => {
      const created = await upload(PDF, 'decide.pdf', 'passport', member(2));
      const id = created.body.Id as string;
      const log = server.runtime.services.log;
      const decide = (status: string) =>
        importAnyRecord(log, {
          kind: 'identityDocumentDecision',
          tenant: 'demo',
          memberId: 2,
          documentId: id,
          status,
          at: '2026-11-22T12:00:00.000Z',
        });
      const statusOf = async () => {
        await server.runtime.services.projector.catchUp();
        return (await list(member(2))).body.find((d: { Id: string }) => d.Id === id).Status;
      };
      const approved = await decide('approved');
      expect(approved.events.map((e) => e.type)).to.deep.equal(['IdentityDocumentReviewed']);
      expect(approved.events[0].data).to.deep.equal({
        tenant: 'demo',
        memberId: 2,
        documentId: id,
        status: 'approved',
        at: '2026-11-22T12:00:00.000Z',
      });
      expect(await statusOf()).to.equal('approved');
      expect((await decide('approved')).events).to.deep.equal([]);
      expect((await decide('rejected')).events.map((e) => e.type)).to.deep.equal(['IdentityDocumentReviewed']);
      expect(await statusOf()).to.equal('rejected');
    });

    it("reports a decision for an unknown, removed or another member's document, or a bad status, as a line error", async () => {
      const created = await upload(PNG, 'removed.png', 'passport', member(2));
      expect((await remove(created.body.Id, member(2))).status).to.equal(200);
      const [mine] = (await list()).body as Array<{ Id: string }>;
      const record = (fields: Record<string, unknown>) =>
        JSON.stringify({
          kind: 'identityDocumentDecision',
          tenant: 'demo',
          memberId: 2,
          status: 'approved',
          at: '2026-11-22T12:00:00.000Z',
          ...fields,
        });
      const before = await head();
      const report = await importLines(server.runtime.services.log, [
        record({ documentId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }),
        record({ documentId: created.body.Id }),
        record({ documentId: mine.Id }),
        record({ documentId: mine.Id, memberId: 1, status: 'maybe' }),
        record({ documentId: 'not-a-uuid' }),
      ]);
      expect(report.errors.map((e) => e.line)).to.deep.equal([1, 2, 3, 4, 5]);
      expect(report.errors[0].message).to.match(/no identity document/);
      expect(await since(before)).to.deep.equal([]);
    });
  });
});
