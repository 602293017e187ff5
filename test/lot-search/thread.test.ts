import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/server.ts';

// The lot search run in the index's thread (SEARCH_THREAD, as `npm start` runs it) answers byte for byte as the
// handler run on the event loop: the same data folder served by one service and then the other, at one instant.
describe('GET /v1/lots/search in the lot index thread: the same answers as on the event loop', function () {
  const now = new Date(Date.now() + 60_000);
  const HEADERS = ['content-type', 'content-encoding', 'content-length', 'etag', 'vary', 'cache-control', 'content-language'];
  const REQUESTS: Array<[string, Record<string, string>]> = [
    ['/v1/lots/search?q=chair', {}],
    ['/v1/lots/search?q=chair', { 'Accept-Encoding': 'gzip' }],
    ['/v1/lots/search?q=chair', { 'Accept-Encoding': 'br, gzip' }],
    ['/v1/lots/search?q=chiar&pageSize=5&Page=2', { 'Accept-Language': 'sv' }],
    ['/v1/lots/search?q=st&AuctionId=1&ShowClosedLots=true', { 'Accept-Encoding': 'gzip' }],
    ['/v1/lots/search?q=nothing-like-this', {}],
    ['/v1/lots/search?q=chair&CategoryId=1', { 'Accept-Language': 'de', 'Accept-Encoding': 'br' }],
    ['/v1/lots/search?q=', {}],
    ['/v1/lots/search?q=chair&Page=0', {}],
  ];

  interface Raw {
    status: number;
    headers: Record<string, string | undefined>;
    body: Buffer;
  }

  const get = (server: TestServer, path: string, headers: Record<string, string>): Promise<Raw> =>
    new Promise((resolve, reject) => {
      http
        .get(server.base + path, { headers: { 'Api-Key': server.credentials.apiKey, ...headers } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: Object.fromEntries(HEADERS.map((h) => [h, res.headers[h] as string | undefined])),
              body: Buffer.concat(chunks),
            }),
          );
        })
        .on('error', reject);
    });

  async function answers(server: TestServer, token: string): Promise<Raw[]> {
    const out: Raw[] = [];
    for (const [path, headers] of REQUESTS) {
      const first = await get(server, path, { Authorization: `Bearer ${token}`, ...headers });
      // Asked again: from the response cache, and conditional on the ETag.
      const again = await get(server, path, { Authorization: `Bearer ${token}`, ...headers });
      const conditional = first.headers.etag
        ? await get(server, path, { Authorization: `Bearer ${token}`, 'If-None-Match': first.headers.etag, ...headers })
        : null;
      out.push(first, again, ...(conditional ? [conditional] : []));
    }
    return out;
  }

  it('status, headers and bytes, compressed or not, problems included', async function () {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-search-thread-'));
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const threaded = await startTestServer({ dataDir, env: { SEARCH_THREAD: 'true' }, now: () => now });
    expect(threaded.runtime.engines.describe.search).to.match(/in a thread of its own with the lot search/);
    const token = await threaded.anonymousToken('demo');
    const inThread = await answers(threaded, token);
    await threaded.close();
    const onLoop = await startTestServer({ dataDir, seed: false, env: { SEARCH_THREAD: 'false' }, now: () => now });
    const loop = await answers(onLoop, token);
    await onLoop.close();
    expect(inThread.map((r) => r.status)).to.include.members([200, 304, 400]);
    expect(inThread.filter((r) => r.headers['content-encoding'] === 'br')).to.not.have.length(0);
    expect(inThread.filter((r) => r.headers['content-encoding'] === 'gzip')).to.not.have.length(0);
    // A problem names its request (`instance`): the one thing that differs.
    const bytes = (r: Raw) => r.body.toString('base64');
    const comparable = (r: Raw) =>
      r.headers['content-type']?.startsWith('application/problem+json')
        ? { ...r, body: r.body.toString().replace(/"instance":"urn:request:[^"]+"/, '') }
        : { ...r, body: bytes(r) };
    inThread.forEach((r, i) => expect(comparable(r), `answer ${i}`).to.deep.equal(comparable(loop[i])));
  });
});
