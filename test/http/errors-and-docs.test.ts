/**
 * The HTTP shell: unknown routes and methods, problem+json without internals, X-Request-Id, and the
 * OpenAPI document and reference page.
 */
import { expect } from 'chai';
import { operations } from '../../app/features/operations.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

const LEAKS = /\bat\s+\S+\s+\(|node_modules|\.ts:\d+|\.js:\d+|Error:|stack|sqlite|SELECT |zod|express/i;

/** The operations this file's authors were given, with their methods (the OpenAPI document must list them). */
const REQUIRED = [
  ['post', '/v1/tokens'],
  ['post', '/v1/tokens/anonymous'],
  ['get', '/v1/tokens/current'],
  ['post', '/v1/auctions/{id}/terms-acceptance'],
  ['get', '/v1/me/watchlist'],
  ['put', '/v1/me/watchlist/{lotId}'],
  ['delete', '/v1/me/watchlist/{lotId}'],
  ['post', '/v1/sessions'],
  ['get', '/v1/me'],
  ['post', '/v1/contact'],
] as const;

describe('errors, X-Request-Id and the API documents', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  describe('unknown routes and methods', () => {
    it('answers 404 problem+json for an unknown route, with or without an Api-Key', async () => {
      for (const p of ['/v1/no-such-thing', '/v1', '/nope', '/v2/auctions', '/v1/me/watchlist/1/extra']) {
        expectProblem(await server.request('GET', p), 404);
        expectProblem(await server.request('GET', p, { apiKey: null }), 404);
      }
    });

    it('answers 405 problem+json with Allow for a wrong method on a known path', async () => {
      const cases: Array<[string, string, string[]]> = [
        ['DELETE', '/v1/tokens', ['POST']],
        ['GET', '/v1/tokens', ['POST']],
        ['POST', '/v1/tokens/current', ['GET']],
        ['PATCH', '/v1/me/watchlist/5', ['PUT', 'DELETE']],
        ['GET', '/v1/me/watchlist/5', ['PUT', 'DELETE']],
        ['DELETE', '/v1/me', ['GET']],
        ['GET', '/v1/sessions', ['POST']],
        ['GET', '/v1/contact', ['POST']],
        ['GET', '/v1/auctions/2/terms-acceptance', ['POST']],
      ];
      for (const [method, p, allowed] of cases) {
        const response = await server.request(method, p, { token: await server.anonymousToken('demo') });
        const problem = expectProblem(response, 405);
        const allow = (response.headers.get('allow') ?? '')
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean);
        expect(allow, `${method} ${p}`).to.include.members(allowed);
        expect(allow, `${method} ${p}`).to.not.include(method);
        expect(problem.detail).to.be.a('string');
      }
    });
  });

  describe('no answer carries a stack trace', () => {
    it('answers bad requests of every kind with a 4xx problem+json free of internals', async () => {
      const token = await server.anonymousToken('demo');
      const json = { 'Content-Type': 'application/json' };
      const requests: Array<[string, string, Parameters<TestServer['request']>[2]]> = [
        ['POST', '/v1/tokens', { rawBody: '{"ClientId": ', headers: json }],
        ['POST', '/v1/tokens', { rawBody: '{"ClientId": "a"}', headers: { 'Content-Type': 'application/json; charset=latin1' } }],
        ['POST', '/v1/tokens', { rawBody: 'ClientId=a', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }],
        ['POST', '/v1/tokens', { rawBody: JSON.stringify({ ClientId: 'x'.repeat(100_000) }), headers: json }],
        ['POST', '/v1/tokens', { rawBody: '{"ClientId": "a"}', headers: { ...json, 'Content-Encoding': 'br-unknown' } }],
        ['POST', '/v1/tokens', { body: { ClientId: { $gt: '' }, ClientSecret: ['a'] } }],
        ['POST', '/v1/tokens/anonymous', { body: { clientId: 'x'.repeat(500) } }],
        ['GET', '/v1/me/watchlist?page=1&page=2', { token }],
        ['GET', '/v1/auctions/99999999999999999999', { token }],
        ['GET', '/v1/auctions/%E0%A4%A', { token }],
        ['GET', '/v1/auctions/%', { token }],
        ['PUT', '/v1/me/watchlist/%FF', { token }],
        ['GET', '/v1/me', { token: 'a'.repeat(5000) }],
        ['GET', '/v1/me', { headers: { Authorization: 'Bearer ..........' } }],
        ['GET', '/v1/auctions', { token: 'eyJhbGciOiJIUzI1NiJ9.eyJ0ZW5hbnQiOnt9fQ.x' }],
        ['GET', '/v1/auctions', { apiKey: 'k'.repeat(1000) }],
        ['POST', '/v1/sessions', { token, body: { Email: 'a@b.c', Password: 'p'.repeat(1000) } }],
        ['GET', '/v1/nope/%', {}],
      ];
      const failures: string[] = [];
      for (const [method, p, options] of requests) {
        const response: TestResponse = await server.request(method, p, options);
        const label = `${method} ${p} ${JSON.stringify(options).slice(0, 80)}`;
        if (response.status < 400 || response.status >= 500) failures.push(`${label}: ${response.status} ${response.text.slice(0, 200)}`);
        else if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json'))
          failures.push(`${label}: ${response.headers.get('content-type')}`);
        else if (LEAKS.test(response.text)) failures.push(`${label}: leaks ${response.text.slice(0, 300)}`);
        else expectProblem(response, response.status);
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
    });

    it('gives every problem a type, a title, the status, a detail and the request as instance', async () => {
      const response = await server.request('GET', '/v1/no-such-thing', { headers: { 'X-Request-Id': 'problem-check-1' } });
      const problem = expectProblem(response, 404);
      expect(problem.type).to.be.a('string').and.not.equal('');
      expect(problem.title).to.equal('Not Found');
      expect(problem.instance).to.include('problem-check-1');
    });

    it('names each bad field of a validation error in an errors array', async () => {
      const problem = expectProblem(await server.request('POST', '/v1/tokens', { body: {} }), 400);
      expect(problem.errors).to.be.an('array');
      for (const error of problem.errors) expect(error).to.have.all.keys('field', 'message');
    });
  });

  describe('X-Request-Id', () => {
    it('echoes the X-Request-Id of the request on success and on errors', async () => {
      for (const [method, p, status] of [
        ['GET', '/healthz', 200],
        ['GET', '/v1/tokens/current', 200],
        ['GET', '/v1/nope', 404],
        ['GET', '/v1/auctions', 401],
      ] as const) {
        const id = `req-${status}-abc.DEF_123`;
        const response = await server.request(method, p, { headers: { 'X-Request-Id': id } });
        expect(response.status, p).to.equal(status);
        expect(response.headers.get('x-request-id'), p).to.equal(id);
      }
    });

    it('makes up a request id when none, or an unsafe one, is given', async () => {
      const none = await server.request('GET', '/healthz');
      expect(none.headers.get('x-request-id')).to.match(/^[A-Za-z0-9._-]{8,64}$/);
      const other = await server.request('GET', '/healthz');
      expect(other.headers.get('x-request-id')).to.not.equal(none.headers.get('x-request-id'));
      for (const unsafe of ['has space', 'x'.repeat(65), '<script>', 'a\\b']) {
        const response = await server.request('GET', '/healthz', { headers: { 'X-Request-Id': unsafe } });
        expect(response.headers.get('x-request-id'), unsafe).to.not.equal(unsafe);
        expect(response.headers.get('x-request-id'), unsafe).to.match(/^[A-Za-z0-9._-]{8,64}$/);
      }
    });
  });

  describe('GET /openapi.json and GET /docs', () => {
    it('serves an OpenAPI 3.1 document listing every implemented operation with its method', async () => {
      const response = await server.request('GET', '/openapi.json', { apiKey: null });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      const doc = response.body;
      expect(doc.openapi).to.match(/^3\.1\.\d+$/);
      expect(doc.info.title).to.be.a('string');
      // The unsubscribe link of a notification mail (RFC 8058) carries its own signed token, in its URL.
      expect(doc.components.securitySchemes).to.have.all.keys('ApiKey', 'Bearer', 'UnsubscribeToken');
      expect(doc.components.securitySchemes.UnsubscribeToken).to.include({ type: 'apiKey', in: 'query', name: 'token' });
      expect(doc.components.securitySchemes.ApiKey).to.include({ type: 'apiKey', in: 'header', name: 'Api-Key' });

      const missing = REQUIRED.filter(([method, p]) => !doc.paths?.[p]?.[method]).map(([m, p]) => `${m} ${p}`);
      expect(missing, 'required operations missing from the document').to.deep.equal([]);
      for (const { route } of operations) {
        const entry = doc.paths?.[route.path]?.[route.method];
        expect(entry, `${route.method} ${route.path}`).to.not.equal(undefined);
        expect(entry.operationId).to.equal(route.operationId);
        expect(entry.responses).to.have.property('200');
      }
      const listed = Object.entries(doc.paths as Record<string, object>).flatMap(([p, item]) =>
        Object.keys(item)
          .filter((k) => ['get', 'put', 'post', 'delete', 'patch'].includes(k))
          .map((m) => `${m} ${p}`),
      );
      expect(listed).to.have.length(operations.length);
      expect(new Set(doc.paths && listed).size).to.equal(listed.length);
      for (const p of Object.keys(doc.paths)) expect(p.startsWith('/v1/'), p).to.equal(true);
    });

    it('documents the credentials of each operation: Api-Key only for open ones, Api-Key and Bearer for the others, its token for a link', async () => {
      const doc = (await server.request('GET', '/openapi.json', { apiKey: null })).body;
      expect(doc.paths['/v1/tokens/anonymous'].post.security).to.deep.equal([{ ApiKey: [] }]);
      expect(doc.paths['/v1/me'].get.security).to.deep.equal([{ ApiKey: [], Bearer: [] }]);
      expect(doc.paths['/v1/notifications/unsubscribe'].post.security).to.deep.equal([{ UnsubscribeToken: [] }]);
      expect(doc.paths['/v1/me/watchlist/{lotId}'].put.responses).to.include.keys('200', '400', '401', '404', '413', '415');
      expect(doc.paths['/v1/contact'].post.responses).to.include.keys('200', '400', '401', '404', '429');
    });

    it('serves an interactive HTML reference page at /docs with its assets', async () => {
      const page = await server.request('GET', '/docs', { apiKey: null });
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.text).to.match(/<html/i);
      expect(page.text).to.include('/openapi.json');
      const script = page.text.match(/src="([^"]+\.js)"/)?.[1];
      expect(script, 'a script').to.be.a('string');
      const asset = await server.request('GET', script!, { apiKey: null });
      expect(asset.status).to.equal(200);
    });
  });
});

describe("calls from an auction house's web pages (CORS)", () => {
  let server: import('../support/server.ts').TestServer;
  before(async () => {
    const { startTestServer } = await import('../support/server.ts');
    server = await startTestServer({ seed: false });
  });
  after(async () => server?.close());

  it('answers a preflight with the methods and the headers the API needs', async () => {
    const r = await server.request('OPTIONS', '/v1/lots', {
      apiKey: null,
      headers: {
        Origin: 'https://shop.example.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'api-key, authorization',
      },
    });
    const { expect } = await import('chai');
    expect(r.status).to.equal(204);
    expect(r.headers.get('access-control-allow-origin')).to.equal('*');
    expect(r.headers.get('access-control-allow-headers')).to.include('Api-Key').and.include('Authorization');
    expect(r.headers.get('access-control-allow-methods')).to.include('PUT');
  });

  it('lets the page read the ETag, Content-Language, Date and Retry-After of an answer', async () => {
    const r = await server.request('GET', '/healthz', { apiKey: null, headers: { Origin: 'https://shop.example.com' } });
    const { expect } = await import('chai');
    expect(r.headers.get('access-control-expose-headers')).to.include('ETag').and.include('Retry-After').and.include('Date');
  });
});
