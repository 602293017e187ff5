/**
 * Bodies over their limit, as browsers and `fetch` send them (API.md "Errors": 413): the client reads the
 * `413` problem instead of a broken connection, a client that waits for `100 Continue` is refused without
 * sending, and nothing is stored. The service runs in a process of its own: a client sharing the server's
 * event loop never meets the race of an answer sent, and the connection closed, while it is still sending.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { MAX_IDENTITY_DOCUMENT_BYTES } from '../../commands/identity-documents/events.ts';
import { discardBound, JSON_BODY_LIMIT } from '../../src/http/request-body.ts';
import { expectProblem, readResponse } from '../support/server.ts';
import { call, demoMemberToken, freePort, ready, SERVICE_API_KEY, startService, type ServiceProcess } from '../support/service-process.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A PNG-looking file of `size` bytes. */
const pngOfSize = (size: number) => Buffer.concat([PNG_SIGNATURE, Buffer.alloc(size - PNG_SIGNATURE.length, 0x41)]);

/** A stream of `total` bytes in 64 KiB chunks: fetch sends it chunked, without Content-Length. */
function chunked(prefix: Buffer, total: number, suffix = Buffer.alloc(0)): ReadableStream<Uint8Array> {
  let sent = 0;
  const filler = Buffer.alloc(64 * 1024, 0x41);
  return new ReadableStream({
    pull(controller) {
      if (sent === 0) {
        controller.enqueue(prefix);
        sent = prefix.length;
      } else if (sent < total - suffix.length) {
        const n = Math.min(filler.length, total - suffix.length - sent);
        controller.enqueue(filler.subarray(0, n));
        sent += n;
      } else {
        if (suffix.length) controller.enqueue(suffix);
        controller.close();
      }
    },
  });
}

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The server asked for the body (100 Continue). */
  continued: boolean;
  /** Bytes of the body the client wrote before the answer came. */
  written: number;
}

/**
 * A request with node:http that sends `Expect: 100-continue` (or not), and the body only when asked for (or at
 * once), in 64 KiB writes; stops writing once the answer has come.
 */
function rawRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body: Buffer; expectContinue: boolean },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let continued = false;
    let answered = false;
    let written = 0;
    const req = http.request(url, {
      method: options.method,
      headers: {
        ...options.headers,
        'Content-Length': String(options.body.length),
        ...(options.expectContinue ? { Expect: '100-continue' } : {}),
      },
      agent: false,
    });
    const send = () => {
      const step = () => {
        while (!answered && written < options.body.length) {
          const chunk = options.body.subarray(written, written + 64 * 1024);
          written += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', step);
        }
        if (!answered) req.end();
      };
      step();
    };
    req.on('continue', () => {
      continued = true;
      send();
    });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), continued, written });
        req.destroy();
      });
    });
    req.on('error', (error) => (answered ? undefined : reject(error)));
    if (!options.expectContinue) send();
    else req.flushHeaders();
  });
}

describe('bodies over their limit (413) as browsers and fetch send them', function () {
  this.timeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-body-limits-'));
  let service: ServiceProcess;
  let base: string;
  let member: string;

  before(async () => {
    service = startService({ port: await freePort(), dataDir });
    base = service.base;
    await ready(service);
    member = await demoMemberToken(base);
  });
  after(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** What a refused request must leave as it was: the member's identity documents and watchlist. */
  const stored = async () => {
    const documents = await call(base, 'GET', '/v1/me/identity-documents', member);
    const watchlist = await call(base, 'GET', '/v1/me/watchlist?PageSize=100', member);
    return { documents: documents.body, watchlist: watchlist.body.Items };
  };
  const headers = (extra: Record<string, string> = {}) => ({ 'Api-Key': SERVICE_API_KEY, Authorization: `Bearer ${member}`, ...extra });
  const uploadForm = (file: Buffer) => {
    const form = new FormData();
    form.set('DocumentType', 'passport');
    form.set('file', new Blob([new Uint8Array(file)], { type: 'application/octet-stream' }), 'passport');
    return form;
  };

  describe('an identity document upload', () => {
    it('of 11 MiB, sent by fetch with its Content-Length, is read as 413 problem+json, and nothing is stored', async () => {
      const before = await stored();
      const response = await readResponse(
        await fetch(`${base}/v1/me/identity-documents`, {
          method: 'POST',
          headers: headers(),
          body: uploadForm(pngOfSize(11 * 1024 * 1024)),
        }),
      );
      const problem = expectProblem(response, 413, 'too-large');
      expect(problem.detail).to.include(String(MAX_IDENTITY_DOCUMENT_BYTES));
      expect(await stored()).to.deep.equal(before);
    });

    it('of 11 MiB, streamed by fetch without a Content-Length, is read as 413 problem+json once it passes the limit', async () => {
      const boundary = 'limit-test-boundary';
      const prefix = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="DocumentType"\r\n\r\npassport\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="passport.png"\r\nContent-Type: image/png\r\n\r\n`,
      );
      const suffix = Buffer.from(`\r\n--${boundary}--\r\n`);
      const before = await stored();
      const response = await readResponse(
        await fetch(`${base}/v1/me/identity-documents`, {
          method: 'POST',
          headers: headers({ 'Content-Type': `multipart/form-data; boundary=${boundary}` }),
          body: chunked(Buffer.concat([prefix, Buffer.from('%PDF-1.4\n')]), 11 * 1024 * 1024, suffix),
          duplex: 'half',
        } as RequestInit),
      );
      expectProblem(response, 413);
      expect(await stored()).to.deep.equal(before);
    });

    it('of 5 MiB whose content is no PDF, JPEG or PNG is read as 415 problem+json (the body goes on after the refusal)', async () => {
      const before = await stored();
      const response = await readResponse(
        await fetch(`${base}/v1/me/identity-documents`, {
          method: 'POST',
          headers: headers(),
          body: uploadForm(pngOfSize(5 * 1024 * 1024)),
        }),
      );
      expectProblem(response, 415, 'unsupported-media-type');
      expect(await stored()).to.deep.equal(before);
    });

    it('that waits for 100 Continue with a Content-Length over the limit is refused with 413 without it, and sends nothing', async () => {
      const answer = await rawRequest(`${base}/v1/me/identity-documents`, {
        method: 'POST',
        headers: headers({ 'Content-Type': 'multipart/form-data; boundary=x' }),
        body: Buffer.alloc(11 * 1024 * 1024, 0x41),
        expectContinue: true,
      });
      expect(answer.status).to.equal(413);
      expect(answer.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(answer.continued).to.equal(false);
      expect(answer.written).to.equal(0);
      expect(answer.headers.connection).to.equal('close');
    });

    it('that waits for 100 Continue without a valid token is answered 401 without it', async () => {
      const answer = await rawRequest(`${base}/v1/me/identity-documents`, {
        method: 'POST',
        headers: { 'Api-Key': SERVICE_API_KEY, Authorization: 'Bearer nonsense', 'Content-Type': 'multipart/form-data; boundary=x' },
        body: Buffer.alloc(1024, 0x41),
        expectContinue: true,
      });
      expect(answer.status).to.equal(401);
      expect(answer.continued).to.equal(false);
      expect(answer.written).to.equal(0);
    });

    it('that waits for 100 Continue within the limit gets it, and is stored', async () => {
      const form = uploadForm(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(2048, 0x20)]));
      const request = new Request('http://x/', { method: 'POST', body: form });
      const body = Buffer.from(await request.arrayBuffer());
      const answer = await rawRequest(`${base}/v1/me/identity-documents`, {
        method: 'POST',
        headers: headers({ 'Content-Type': request.headers.get('content-type')! }),
        body,
        expectContinue: true,
      });
      expect(answer.status, answer.body).to.equal(200);
      expect(answer.continued).to.equal(true);
      expect(JSON.parse(answer.body)).to.have.property('Id');
    });

    it('declared far beyond what is worth reading is answered 413 at once, and the connection is closed', async () => {
      const declared = discardBound(MAX_IDENTITY_DOCUMENT_BYTES) + 1024 * 1024;
      const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = http.request(`${base}/v1/me/identity-documents`, {
          method: 'POST',
          headers: headers({ 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(declared) }),
          agent: false,
        });
        req.on('response', (res) => {
          res.resume();
          resolve({ status: res.statusCode!, connection: res.headers.connection });
        });
        req.on('error', reject);
        req.write(Buffer.alloc(64 * 1024, 0x41));
      });
      expect(answer).to.deep.equal({ status: 413, connection: 'close' });
    });
  });

  describe('a JSON body', () => {
    // 1 MB: within the 1 MiB of a refused body that is read and dropped (past it the connection closes under the body).
    const big = JSON.stringify({ Type: 'watch', Padding: 'x'.repeat(1_000_000) });

    it('of 1 MB, sent by fetch with its Content-Length, is read as 413 problem+json, and nothing is appended', async () => {
      const before = await stored();
      const response = await readResponse(
        await fetch(`${base}/v1/me/watchlist/20`, { method: 'PUT', headers: headers({ 'Content-Type': 'application/json' }), body: big }),
      );
      expectProblem(response, 413);
      expect(await stored()).to.deep.equal(before);
    });

    it('of 1 MB, streamed by fetch without a Content-Length, is read as 413 problem+json', async () => {
      const before = await stored();
      const response = await readResponse(
        await fetch(`${base}/v1/me/watchlist/20`, {
          method: 'PUT',
          headers: headers({ 'Content-Type': 'application/json' }),
          body: chunked(Buffer.from('{"Type":"watch","Padding":"'), 1024 * 1024, Buffer.from('"}')),
          duplex: 'half',
        } as RequestInit),
      );
      expectProblem(response, 413);
      expect(await stored()).to.deep.equal(before);
    });

    it('over the limit, waiting for 100 Continue, is refused with 413 without it', async () => {
      const answer = await rawRequest(`${base}/v1/me/watchlist/20`, {
        method: 'PUT',
        headers: headers({ 'Content-Type': 'application/json' }),
        body: Buffer.from(big),
        expectContinue: true,
      });
      expect(answer.status).to.equal(413);
      expect(answer.continued).to.equal(false);
      expect(answer.written).to.equal(0);
    });

    it('within the limit, waiting for 100 Continue, gets it and is taken', async () => {
      const answer = await rawRequest(`${base}/v1/me/watchlist/21`, {
        method: 'PUT',
        headers: headers({ 'Content-Type': 'application/json' }),
        body: Buffer.from(JSON.stringify({ Type: 'watch' })),
        expectContinue: true,
      });
      expect(answer.status, answer.body).to.equal(200);
      expect(answer.continued).to.equal(true);
    });

    it('refused as too large leaves its kept-alive connection usable for the next request', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const send = (body: string) =>
          new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
            const req = http.request(`${base}/v1/me/watchlist/22`, {
              method: 'PUT',
              headers: headers({ 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }),
              agent,
            });
            req.on('response', (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode!, socket: req.socket }));
            });
            req.on('error', reject);
            req.end(body);
          });
        const refused = await send(JSON.stringify({ Type: 'watch', Padding: 'x'.repeat(JSON_BODY_LIMIT) }));
        const taken = await send(JSON.stringify({ Type: 'watch' }));
        expect([refused.status, taken.status]).to.deep.equal([413, 200]);
        expect(taken.socket).to.equal(refused.socket);
      } finally {
        agent.destroy();
      }
    });

    it('of another type is read as 415 problem+json by fetch, also when it is large', async () => {
      const response = await readResponse(
        await fetch(`${base}/v1/me/watchlist/20`, {
          method: 'PUT',
          headers: headers({ 'Content-Type': 'text/plain' }),
          body: 'x'.repeat(512 * 1024),
        }),
      );
      expectProblem(response, 415);
    });
  });
});
