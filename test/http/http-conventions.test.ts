import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { expectProblem, startTestServer, type TestServer, type RawResponse } from '../support/server.ts';

/**
 * API.md "Conventions" and "Errors" as the HTTP shell applies them to every operation: query parameters in
 * bracket form or given twice, compression of answers over 1 KB, errors of Node's HTTP parser as
 * problem+json, and `X-Content-Type-Options: nosniff` on binary answers.
 */

/** Decompresses a body by its Content-Encoding. */
function decode(response: RawResponse): Buffer {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'gzip') return zlib.gunzipSync(response.bytes);
  if (encoding === 'br') return zlib.brotliDecompressSync(response.bytes);
  if (encoding === undefined || encoding === 'identity') return response.bytes;
  throw new Error(`unexpected Content-Encoding ${encoding}`);
}

const varyOf = (response: RawResponse) =>
  String(response.headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers (status line, headers, body) of a raw HTTP/1.1 exchange, in order; bodies delimited by Content-Length. */
function parseRawAnswers(raw: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = raw;
  while (rest.length) {
    const text = rest.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    expect(end, `no end of headers in ${JSON.stringify(text.slice(0, 200))}`).to.be.greaterThan(0);
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    expect(match, statusLine).to.not.equal(null);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = end + 4; // latin1: one character per byte
    const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : rest.length - bodyStart;
    answers.push({ status: Number(match![1]), headers, body: rest.subarray(bodyStart, bodyStart + length).toString('utf8') });
    rest = rest.subarray(bodyStart + length);
  }
  return answers;
}

/** The one answer of a raw exchange. */
function parseRawAnswer(raw: Buffer): RawAnswer {
  const answers = parseRawAnswers(raw);
  expect(answers, 'one answer').to.have.length(1);
  return answers[0];
}

function expectRawProblem(answer: RawAnswer, status: number) {
  expect(answer.status).to.equal(status);
  expect(answer.headers['content-type']).to.match(/^application\/problem\+json/);
  const problem = JSON.parse(answer.body);
  expect(problem).to.include({ status });
  for (const field of ['type', 'title', 'detail']) expect(problem[field], field).to.be.a('string').and.not.equal('');
  expect(answer.body).to.not.match(/\bat\s+\S+\s+\(|node_modules|\.ts:\d+|HPE_/);
  if (answer.headers['content-length'] !== undefined)
    expect(Number(answer.headers['content-length'])).to.equal(Buffer.byteLength(answer.body));
  return problem;
}

describe('HTTP conventions of the service shell', () => {
  let server: TestServer;
  let token: string;
  let member: string;
  const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token, headers });

  /** A GET with node:http, which leaves the body as sent (fetch decompresses it). */
  const rawGet = (path: string, headers: Record<string, string> = {}, credentials: { token?: string | null; apiKey?: boolean } = {}) =>
    server.rawGet(path, {
      headers,
      token: credentials.token === undefined ? token : credentials.token,
      apiKey: credentials.apiKey === false ? null : undefined,
    });

  /**
   * Sends raw bytes to the server's port and answers everything it writes back until it closes. With
   * `then`, those bytes are sent on the same connection once the first answer has arrived (keep-alive).
   */
  const rawExchange = (bytes: string | Buffer, then?: string | Buffer) =>
    new Promise<Buffer>((resolve, reject) => {
      const { hostname, port } = new URL(server.base);
      const socket = net.connect({ host: hostname, port: Number(port) });
      const chunks: Buffer[] = [];
      let next = then;
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(Buffer.concat(chunks));
      }, 10_000);
      socket.on('connect', () => socket.write(bytes));
      socket.on('data', (c: Buffer) => {
        chunks.push(c);
        const sofar = Buffer.concat(chunks).toString('latin1');
        const end = sofar.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(sofar.slice(0, end));
        if (next !== undefined && end > 0 && length && sofar.length >= end + 4 + Number(length[1])) {
          socket.write(next);
          next = undefined;
        }
      });
      socket.on('end', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
      socket.on('error', (error) => {
        clearTimeout(timer);
        // A reset after the answer was read still leaves the answer to check.
        if (chunks.length) resolve(Buffer.concat(chunks));
        else reject(error);
      });
    });

  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken('demo');
    member = await server.memberToken('demo');
  });
  after(async () => server?.close());

  describe('query parameters', () => {
    const OPERATIONS = ['/v1/lots', '/v1/auctions', '/v1/lots/search?q=chair', '/v1/categories'];
    const BRACKETED = ['AuctionId[]=1', 'status[x]=current', 'page[]=1', 'AuctionId[0]=1', 'PAGE[]=1'];
    const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

    for (const path of OPERATIONS) {
      it(`${path} refuses a parameter in bracket form with a 400 problem naming it`, async () => {
        for (const query of BRACKETED) {
          const name = query.slice(0, query.indexOf('['));
          const problem = expectProblem(await get(withQuery(path, query)), 400);
          expect(problem.errors, query).to.be.an('array').that.is.not.empty;
          const fields = problem.errors.map((e: any) => String(e.field));
          expect(
            fields.some((f: string) => f.toLowerCase().includes(name.toLowerCase())),
            `${path} ${query}: ${fields}`,
          ).to.equal(true);
        }
      });
    }

    it('refuses bracket form percent-encoded as well (AuctionId%5B%5D=1)', async () => {
      const problem = expectProblem(await get('/v1/lots?AuctionId%5B%5D=1'), 400);
      expect(problem.errors.map((e: any) => e.field).join(' ')).to.match(/AuctionId/);
    });

    it('refuses bracket form on member operations too', async () => {
      const problem = expectProblem(await server.request('GET', '/v1/me/consignments?auctionId[]=1', { token: member }), 400);
      expect(problem.errors.map((e: any) => e.field).join(' ')).to.match(/auctionId/i);
    });

    it('still accepts MetaDataProperties[Material]=oak on /v1/lots, and filters by it', async () => {
      const r = await get('/v1/lots?MetaDataProperties[Material]=oak&pageSize=100');
      expect(r.status, r.text).to.equal(200);
      expect(r.body.TotalCount).to.be.greaterThan(0);
      for (const lot of r.body.Items) expect(lot.Attributes.find((a: any) => a.Name === 'Material').Value.toLowerCase()).to.equal('oak');
      const encoded = await get('/v1/lots?MetaDataProperties%5BMaterial%5D=oak&pageSize=100');
      expect(encoded.status).to.equal(200);
      expect(encoded.body.TotalCount).to.equal(r.body.TotalCount);
      const all = await get('/v1/lots?pageSize=1');
      expect(r.body.TotalCount).to.be.lessThan(all.body.TotalCount);
    });

    it('refuses a parameter that expects one value and is given several with a 400 naming it', async () => {
      const cases: Array<[string, RegExp]> = [
        ['/v1/lots?AuctionId=1&AuctionId=2', /AuctionId/],
        ['/v1/lots?AuctionId=1&auctionid=1', /AuctionId/i],
        ['/v1/auctions?status=current&status=closed', /status/i],
        ['/v1/auctions?page=1&PAGE=2', /page/i],
        ['/v1/lots/search?q=chair&q=table', /\bquery\.q\b/],
        ['/v1/categories?showAll=true&showAll=false', /showAll/i],
        ['/v1/lots?lang=sv&lang=de', /lang/i],
      ];
      for (const [path, field] of cases) {
        const problem = expectProblem(await get(path), 400);
        expect(problem.errors.map((e: any) => e.field).join(' '), path).to.match(field);
      }
    });

    it('refuses lang given twice in different cases (names are matched case-insensitively) with a 400 naming it', async () => {
      for (const path of ['/v1/auctions?lang=sv&LANG=de', '/v1/categories?Lang=sv&lang=sv', '/v1/lots/1?lang=de&LANG=sv']) {
        const problem = expectProblem(await get(path), 400);
        expect(problem.errors.map((e: any) => e.field).join(' '), path).to.match(/lang/i);
      }
    });

    it('ignores unknown plain parameters', async () => {
      for (const path of OPERATIONS) {
        const plain = await get(path);
        const tagged = await get(withQuery(path, 'utm_source=mail&_=1700000000&foo=bar'));
        expect(tagged.status, `${path}: ${tagged.text.slice(0, 200)}`).to.equal(200);
        expect(tagged.body, path).to.deep.equal(plain.body);
      }
    });
  });

  describe('compression', () => {
    const LARGE = '/v1/lots?pageSize=100';

    it('compresses an answer over 1 KB with gzip when Accept-Encoding allows only gzip, with Vary: Accept-Encoding', async () => {
      const plain = await rawGet(LARGE);
      expect(plain.status).to.equal(200);
      expect(plain.bytes.length).to.be.greaterThan(1024);
      const gzip = await rawGet(LARGE, { 'Accept-Encoding': 'gzip' });
      expect(gzip.status).to.equal(200);
      expect(gzip.headers['content-encoding']).to.equal('gzip');
      expect(varyOf(gzip)).to.include('accept-encoding');
      expect(gzip.bytes.length).to.be.lessThan(plain.bytes.length);
      if (gzip.headers['content-length'] !== undefined) expect(Number(gzip.headers['content-length'])).to.equal(gzip.bytes.length);
      expect(gzip.headers['content-type']).to.match(/^application\/json/);
      expect(JSON.parse(decode(gzip).toString('utf8'))).to.deep.equal(JSON.parse(plain.bytes.toString('utf8')));
    });

    it('compresses with br when Accept-Encoding allows only br', async () => {
      const plain = await rawGet(LARGE);
      const br = await rawGet(LARGE, { 'Accept-Encoding': 'br' });
      expect(br.status).to.equal(200);
      expect(br.headers['content-encoding']).to.equal('br');
      expect(varyOf(br)).to.include('accept-encoding');
      expect(JSON.parse(decode(br).toString('utf8'))).to.deep.equal(JSON.parse(plain.bytes.toString('utf8')));
    });

    it('compresses with gzip or br when a browser offers both', async () => {
      const plain = await rawGet(LARGE);
      const r = await rawGet(LARGE, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(r.headers['content-encoding']).to.be.oneOf(['gzip', 'br']);
      expect(JSON.parse(decode(r).toString('utf8'))).to.deep.equal(JSON.parse(plain.bytes.toString('utf8')));
    });

    it('honours q-values: br;q=0, gzip is answered with gzip', async () => {
      const r = await rawGet(LARGE, { 'Accept-Encoding': 'br;q=0, gzip' });
      expect(r.headers['content-encoding']).to.equal('gzip');
      expect(() => zlib.gunzipSync(r.bytes)).to.not.throw();
    });

    it('sends the bytes as they are for Accept-Encoding: identity, for none, and when every coding is refused', async () => {
      for (const headers of [{ 'Accept-Encoding': 'identity' }, {}, { 'Accept-Encoding': 'gzip;q=0, br;q=0' }] as Array<
        Record<string, string>
      >) {
        const r = await rawGet(LARGE, headers);
        expect(r.status).to.equal(200);
        expect(r.headers['content-encoding'], JSON.stringify(headers)).to.equal(undefined);
        expect(JSON.parse(r.bytes.toString('utf8')).Items).to.have.length(100);
        // The answer still varies by Accept-Encoding, so a shared cache does not hand it to a gzip client blindly.
        expect(varyOf(r), JSON.stringify(headers)).to.include('accept-encoding');
      }
    });

    it('does not compress a small answer (under 1 KB, e.g. /v1/live)', async () => {
      const r = await rawGet('/v1/live', { 'Accept-Encoding': 'gzip, br' });
      expect(r.status).to.equal(200);
      expect(r.bytes.length).to.be.lessThan(1024);
      expect(r.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(r.bytes.toString('utf8'))).to.have.all.keys('IsLive', 'AuctionId', 'CurrentLotId');
    });

    it('compresses a problem answer over 1 KB too (every response over 1 KB)', async () => {
      const path = '/v1/lots?' + Array.from({ length: 40 }, (_, i) => `Filter${i}[]=x`).join('&');
      const plain = await rawGet(path);
      expect(plain.status).to.equal(400);
      expect(plain.bytes.length).to.be.greaterThan(1024);
      const gzip = await rawGet(path, { 'Accept-Encoding': 'gzip' });
      expect(gzip.status).to.equal(400);
      expect(gzip.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(gzip.headers['content-encoding']).to.equal('gzip');
      expect(varyOf(gzip)).to.include('accept-encoding');
      const problem = JSON.parse(decode(gzip).toString('utf8'));
      expect(problem.status).to.equal(400);
      expect(problem.errors).to.have.length(40);
    });

    it('compresses member answers over 1 KB too', async () => {
      const path = '/v1/me/consignments?pageSize=30';
      const plain = await rawGet(path, {}, { token: member });
      expect(plain.status).to.equal(200);
      expect(plain.bytes.length).to.be.greaterThan(1024);
      const gzip = await rawGet(path, { 'Accept-Encoding': 'gzip' }, { token: member });
      expect(gzip.headers['content-encoding']).to.equal('gzip');
      expect(varyOf(gzip)).to.include('accept-encoding');
      expect(JSON.parse(decode(gzip).toString('utf8'))).to.deep.equal(JSON.parse(plain.bytes.toString('utf8')));
    });

    it('answers a cached catalogue answer compressed twice with identical bytes', async () => {
      for (const encoding of ['gzip', 'br']) {
        const path = `/v1/lots?pageSize=50&Sort=EndTime&x=${encoding}`;
        const first = await rawGet(path, { 'Accept-Encoding': encoding });
        const second = await rawGet(path, { 'Accept-Encoding': encoding });
        expect(first.headers['content-encoding']).to.equal(encoding);
        expect(second.headers['content-encoding']).to.equal(encoding);
        expect(second.headers.etag).to.equal(first.headers.etag);
        expect(Buffer.compare(first.bytes, second.bytes), encoding).to.equal(0);
        expect(JSON.parse(decode(second).toString('utf8')).Items).to.have.length(50);
      }
    });

    it('still answers 304 to a matching If-None-Match when compressing', async () => {
      const first = await rawGet(LARGE, { 'Accept-Encoding': 'gzip' });
      const etag = first.headers.etag!;
      expect(etag).to.be.a('string');
      const again = await rawGet(LARGE, { 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
      expect(again.status).to.equal(304);
      expect(again.bytes.length).to.equal(0);
      expect(again.headers.etag).to.equal(etag);
      const stale = await rawGet(LARGE, { 'Accept-Encoding': 'gzip', 'If-None-Match': 'W/"stale"' });
      expect(stale.status).to.equal(200);
      expect(stale.headers['content-encoding']).to.equal('gzip');
    });

    it('compresses /openapi.json too', async () => {
      const plain = await rawGet('/openapi.json', {}, { token: null, apiKey: false });
      expect(plain.status).to.equal(200);
      expect(plain.bytes.length).to.be.greaterThan(1024);
      for (const encoding of ['gzip', 'br']) {
        const r = await rawGet('/openapi.json', { 'Accept-Encoding': encoding }, { token: null, apiKey: false });
        expect(r.status).to.equal(200);
        expect(r.headers['content-encoding']).to.equal(encoding);
        expect(varyOf(r)).to.include('accept-encoding');
        expect(JSON.parse(decode(r).toString('utf8'))).to.deep.equal(JSON.parse(plain.bytes.toString('utf8')));
      }
    });
  });

  describe("errors of Node's HTTP parser", () => {
    it('answers a 17 KB URL with 431 problem+json', async () => {
      const path = `/v1/lots?SearchTerms=${'a'.repeat(17 * 1024)}`;
      const raw = await rawExchange(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nApi-Key: ${server.credentials.apiKey}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      );
      const problem = expectRawProblem(parseRawAnswer(raw), 431);
      expect(problem.status).to.equal(431);
    });

    it('answers a 17 KB URL sent by an HTTP client with 431 problem+json', async () => {
      const r = await rawGet(`/v1/lots?SearchTerms=${'b'.repeat(17 * 1024)}`);
      expect(r.status).to.equal(431);
      expect(r.headers['content-type']).to.match(/^application\/problem\+json/);
      expect(JSON.parse(r.bytes.toString('utf8'))).to.include({ status: 431 });
    });

    it('answers a malformed request line with 400 problem+json', async () => {
      const raw = await rawExchange('GARBAGE\r\n\r\n');
      const problem = expectRawProblem(parseRawAnswer(raw), 400);
      expect(problem.status).to.equal(400);
    });

    it('answers a request line with a bad HTTP version with 400 problem+json', async () => {
      const raw = await rawExchange('GET /v1/lots HTTP/9.Z\r\nHost: x\r\n\r\n');
      expectRawProblem(parseRawAnswer(raw), 400);
    });

    it('answers 17 KB of headers with 431 problem+json', async () => {
      const raw = await rawExchange(`GET /v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'c'.repeat(17 * 1024)}\r\n\r\n`);
      expectRawProblem(parseRawAnswer(raw), 431);
    });

    it('answers a 17 KB URL with 431 problem+json on a kept-alive connection that already had an answer', async () => {
      const raw = await rawExchange(
        'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
        `GET /v1/lots?SearchTerms=${'d'.repeat(17 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      );
      const answers = parseRawAnswers(raw);
      expect(
        answers.map((a) => a.status),
        'the first answer, then the 431',
      ).to.deep.equal([200, 431]);
      expectRawProblem(answers[1], 431);
    });

    it('answers a malformed request with 400 problem+json on a kept-alive connection that already had an answer', async () => {
      const raw = await rawExchange('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'GARBAGE\r\n\r\n');
      const answers = parseRawAnswers(raw);
      expect(
        answers.map((a) => a.status),
        'the first answer, then the 400',
      ).to.deep.equal([200, 400]);
      expectRawProblem(answers[1], 400);
    });

    it('answers a 17 KB URL from a keep-alive HTTP client (a reused connection) with 431 problem+json', async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const send = (path: string) => server.rawGet(path, { token, agent });
      try {
        expect((await send('/v1/live')).status).to.equal(200);
        const r = await send(`/v1/lots?SearchTerms=${'e'.repeat(17 * 1024)}`);
        expect(r.status).to.equal(431);
        expect(r.headers['content-type']).to.match(/^application\/problem\+json/);
        expect(JSON.parse(r.bytes.toString('utf8'))).to.include({ status: 431 });
      } finally {
        agent.destroy();
      }
    });

    it('keeps serving well-formed requests afterwards', async () => {
      const r = await get('/v1/live');
      expect(r.status).to.equal(200);
    });
  });

  describe('binary answers', () => {
    it('carry X-Content-Type-Options: nosniff (an auction document)', async () => {
      const r = await rawGet('/v1/auctions/1/documents/1');
      expect(r.status).to.equal(200);
      expect(r.headers['content-type']).to.match(/^application\/pdf/);
      expect(r.headers['x-content-type-options']).to.equal('nosniff');
      expect(r.bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    });

    it('carry X-Content-Type-Options: nosniff (a condition report)', async () => {
      const r = await rawGet('/v1/lots/1/documents/condition-report');
      expect(r.status).to.equal(200);
      expect(r.headers['x-content-type-options']).to.equal('nosniff');
    });
  });
});
