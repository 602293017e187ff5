/**
 * The back office's OpenAPI document (GET /backoffice/openapi.json, BACKOFFICE.md): served beside the bidder
 * API's, made by the same generator from the back office's operations only, under their own credential (a
 * back-office key as the bearer), passing Spectral's `spectral:oas` and OWASP rulesets (.spectral.yaml) with no
 * error, every example true to its schema.
 */
import zlib from 'node:zlib';
import { expect } from 'chai';
import { buildBackOfficeOpenApiDocument, buildOpenApiDocument } from '../../src/http/openapi/index.ts';
import { problemSchema, z } from '../../src/http/schemas.ts';
import { defineOperation, type Operation } from '../../src/http/operation.ts';
import { backOfficeOperations, operations } from '../../app/features/operations.ts';
import { listEvents } from '../../queries/backoffice-feed/operations.ts';
import { RETRY_SCHEDULE_MS } from '../../commands/webhooks/index.ts';
import { MAX_FEED_READERS } from '../../src/events/feed.ts';
import { spectralErrors } from '../support/spectral.ts';
import { startTestServer, type RawResponse, type TestServer } from '../support/server.ts';

type Doc = ReturnType<typeof buildBackOfficeOpenApiDocument> & Record<string, any>;

const doc = buildBackOfficeOpenApiDocument(backOfficeOperations) as Doc;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const entryOf = (op: Operation, document: Doc = doc) => (document.paths as Record<string, Record<string, any>>)[op.route.path][op.route.method];
const label = (op: Operation) => `${op.route.method} ${op.route.path}`;
const streams = (op: Operation) => op.output.produces?.includes('text/event-stream') ?? false;
const intake = () => backOfficeOperations.find((op) => op.input?.ndjson);
/** The feed's item, as the feed, the stream and a webhook delivery give it. */
const feedItem = listEvents.output.response.shape.Items.element;

/** A component by its $ref, or the object itself. */
function deref(value: any, document: Doc = doc): any {
  if (value && typeof value.$ref === 'string') {
    const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value.$ref) ?? [];
    return (document.components as Record<string, Record<string, unknown>>)[kind][name];
  }
  return value;
}

const parameterNames = (entry: any) => (entry.parameters ?? []).map((p: unknown) => `${deref(p).in}:${deref(p).name}`);

/** The events of a text/event-stream: id, event and data of each (comments left out). */
function parseEventStream(text: string) {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => block.split('\n').filter((line) => !line.startsWith(':')))
    .filter((lines) => lines.length > 0)
    .map((lines) => Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart()])));
}

/** The retry schedule as the documents word it: "5 seconds, 5 minutes, ... and 10 hours". */
function scheduleText(schedule: readonly number[]): string {
  const words = schedule.map((ms) =>
    ms % 3_600_000 === 0 ? `${ms / 3_600_000} hours` : ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms / 1000} seconds`,
  );
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

describe('the back office OpenAPI document', () => {
  it('passes Spectral (spectral:oas and the OWASP ruleset of .spectral.yaml) with no error', async function () {
    this.timeout(180_000);
    const { errors, shown } = await spectralErrors(doc, 'backoffice-openapi.json');
    expect(errors, `${errors.length} Spectral errors, the first ones:\n${shown}`).to.have.length(0);
  });

  it('lists exactly the back-office operations (none of /v1), each with its tag, summary and description', () => {
    expect(doc.openapi).to.match(/^3\.1\.\d+$/);
    expect(doc.info.title).to.equal('Bidder API: back office');
    expect(backOfficeOperations).to.not.have.length(0);
    const listed = Object.entries(doc.paths as Record<string, object>).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((k) => METHODS.includes(k))
        .map((m) => `${m} ${p}`),
    );
    expect(listed).to.have.members(backOfficeOperations.map(label));
    for (const p of Object.keys(doc.paths as object)) expect(p.startsWith('/backoffice/v1/'), p).to.equal(true);
    expect((doc.tags ?? []).map((t: { name: string }) => t.name)).to.deep.equal(['Back office']);
    for (const op of backOfficeOperations) {
      const entry = entryOf(op);
      expect(entry.operationId, label(op)).to.equal(op.route.operationId);
      expect(entry.tags, label(op)).to.deep.equal(['Back office']);
      expect(entry.summary, label(op)).to.be.a('string').and.not.equal('');
      expect(entry.description, label(op)).to.match(/Credentials: a back-office key as the bearer token/);
    }
  });

  it('names one credential, a back-office key as the HTTP bearer (not a JWT, no Api-Key), with 401s that say so', () => {
    const schemes = (doc.components as any).securitySchemes;
    expect(schemes).to.have.all.keys('BackOfficeKey');
    expect(schemes.BackOfficeKey).to.include({ type: 'http', scheme: 'bearer' });
    expect(schemes.BackOfficeKey).to.not.have.property('bearerFormat');
    expect(schemes.BackOfficeKey.description).to.match(/Authorization: Bearer <key>/).and.match(/opaque/).and.match(/no `Api-Key`/);
    for (const op of backOfficeOperations) {
      const entry = entryOf(op);
      expect(entry.security, label(op)).to.deep.equal([{ BackOfficeKey: [] }]);
      expect(parameterNames(entry), label(op)).to.not.include.members(['header:Api-Key', 'header:Accept-Language']);
      const unauthorized = entry.responses[401];
      expect(unauthorized.description, label(op)).to.match(/back-office key/);
      expect(unauthorized.headers, label(op)).to.have.property('WWW-Authenticate');
      expect(unauthorized.content['application/problem+json'].example.detail, label(op)).to.equal(
        'A valid back-office key is required (Authorization: Bearer <key>).',
      );
      expect(entry.responses[200].headers, label(op)).to.not.have.property('Content-Language');
    }
    const text = JSON.stringify(doc);
    expect(text).to.not.include('#/components/securitySchemes/ApiKey');
    expect(text).to.not.include('"Api-Key"');
  });

  it("summarises the contract's rules in its description: opaque positions, signatures, retries, URL rules, Idempotency-Key", () => {
    const { description } = doc.info;
    expect(description).to.match(/opaque/);
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(description).to.include(header);
    expect(description).to.include(scheduleText(RETRY_SCHEDULE_MS));
    expect(description).to.match(/`https`/).and.match(/public addresses/).and.match(/20 webhooks/);
    expect(description).to.match(/Idempotency-Key/).and.match(/`422`/).and.match(/64 MiB/).and.match(/application\/x-ndjson/);
  });

  it('answers problem+json errors, with 413 and 415 on every body and 503 on every change', () => {
    for (const op of backOfficeOperations) {
      const responses = entryOf(op).responses as Record<string, any>;
      expect(responses, label(op)).to.include.keys('200', '400', '401', '500');
      for (const [status, response] of Object.entries(responses)) {
        expect(response.headers, `${label(op)} ${status}`).to.have.property('X-Request-Id');
        if (Number(status) >= 400)
          expect(response.content['application/problem+json'].schema.allOf[0], `${label(op)} ${status}`).to.deep.equal({ $ref: '#/components/schemas/Problem' });
      }
      for (const status of op.docs.errors ?? []) expect(responses, `${label(op)} lists ${status}`).to.have.property(String(status));
      if (op.input?.body || op.input?.ndjson) expect(responses, label(op)).to.include.keys('413', '415');
      if (op.route.method !== 'get') expect(responses, label(op)).to.have.property('503');
      if (responses[429]) expect(responses[429].headers, label(op)).to.have.property('Retry-After');
      if (op.input?.body) {
        expect(responses[413].description, label(op)).to.match(/JSON body is larger than 64 kB/);
        expect(entryOf(op).requestBody.content, label(op)).to.have.all.keys('application/json');
      }
    }
  });

  it('documents 304 and If-None-Match on the JSON reads, and an ETag on their answers', () => {
    for (const op of backOfficeOperations.filter((o) => o.route.method === 'get' && !streams(o))) {
      const entry = entryOf(op);
      expect(entry.responses[304], label(op)).to.not.equal(undefined);
      expect(entry.responses[200].headers, label(op)).to.include.keys('ETag', 'Cache-Control');
      expect(parameterNames(entry), label(op)).to.include('header:If-None-Match');
    }
  });

  it('describes the stream as text/event-stream, resumed from Last-Event-ID, with no ETag and no 304', () => {
    const stream = backOfficeOperations.filter(streams);
    expect(stream.map((op) => op.route.operationId)).to.deep.equal(['streamBackOfficeEvents']);
    const entry = entryOf(stream[0]);
    const ok = entry.responses[200];
    expect(Object.keys(ok.content)).to.deep.equal(['text/event-stream']);
    expect(deref(ok.content['text/event-stream'].schema)).to.include({ type: 'string' });
    expect(ok.headers).to.not.have.property('ETag');
    expect(entry.responses).to.not.have.property('304');
    expect(parameterNames(entry)).to.include('header:Last-Event-ID').and.not.include('header:If-None-Match');
  });

  it('describes intake as an application/x-ndjson body with its example: 413 at 64 MiB, 415, 422 for a reused Idempotency-Key, 429', () => {
    const op = intake();
    expect(op, 'the intake operation (input.ndjson)').to.not.equal(undefined);
    const entry = entryOf(op!);
    expect(entry.requestBody.required).to.equal(true);
    expect(Object.keys(entry.requestBody.content)).to.deep.equal(['application/x-ndjson']);
    const body = entry.requestBody.content['application/x-ndjson'];
    expect(body.example).to.equal(op!.input!.ndjson!.example);
    expect(body.schema).to.include({ type: 'string', maxLength: 64 * 1024 * 1024 });
    expect(parameterNames(entry)).to.include('header:Idempotency-Key');
    expect(entry.responses[413].description).to.match(/64 MiB/).and.not.match(/64 kB/);
    expect(entry.responses[413].content['application/problem+json'].example.detail).to.match(/64 MiB/);
    expect(entry.responses[415].description).to.match(/application\/x-ndjson/);
    expect(entry.responses[422].description).to.match(/Idempotency-Key/).and.match(/another body/);
    expect(entry.responses[429].headers).to.have.property('Retry-After');
  });

  it('documents an NDJSON body for any operation that declares one (input.ndjson), with its own limit', () => {
    const probe = defineOperation({
      route: { number: 99, operationId: 'probeNdjson', group: 'Back office', method: 'post', path: '/backoffice/v1/probe', auth: 'backoffice' },
      docs: { summary: 'A probe', examples: { response: { Taken: 1 } } },
      input: { idempotencyKey: true, ndjson: { maxBytes: 1024 * 1024, description: 'Probe lines.', example: '{"a":1}\n{"a":2}\n' } },
      output: { response: z.object({ Taken: z.number().int().min(0).max(10) }) },
      handler: async () => ({ Taken: 1 }),
    }) as unknown as Operation;
    const probed = buildBackOfficeOpenApiDocument([probe]) as Doc;
    const entry = entryOf(probe, probed);
    expect(entry.requestBody.description).to.equal('Probe lines.');
    expect(entry.requestBody.content['application/x-ndjson']).to.deep.include({ example: '{"a":1}\n{"a":2}\n' });
    expect(entry.requestBody.content['application/x-ndjson'].schema.maxLength).to.equal(1024 * 1024);
    expect(entry.responses[413].description).to.match(/larger than 1 MiB/);
    expect(entry.responses[415].description).to.match(/application\/x-ndjson/);
    expect(parameterNames(entry)).to.include('header:Idempotency-Key');
    // Without the feed's operations, no webhook refers to a FeedItem the document does not hold.
    expect(probed.webhooks ?? {}).to.deep.equal({});
  });

  it("words a read's 503 as the feed's limit of readers (no Retry-After), a change's as write contention (Retry-After)", () => {
    const read = defineOperation({
      route: { number: 98, operationId: 'probeRead', group: 'Back office', method: 'get', path: '/backoffice/v1/probe', auth: 'backoffice' },
      docs: { summary: 'A probe', errors: [503], examples: { response: {} } },
      output: { response: z.object({}) },
      handler: async () => ({}),
    }) as unknown as Operation;
    const probed = buildBackOfficeOpenApiDocument([read]) as Doc;
    const busy = entryOf(read, probed).responses[503];
    expect(busy.description).to.include(`event streams and waiting requests open as it serves (${MAX_FEED_READERS.toLocaleString('en-US')})`);
    expect(busy.headers).to.not.have.property('Retry-After');
    expect(busy.content['application/problem+json'].example.detail).to.match(/streams and waiting requests already/);
    for (const op of backOfficeOperations.filter((o) => o.route.method !== 'get')) {
      const contention = entryOf(op).responses[503];
      expect(contention.headers, label(op)).to.have.property('Retry-After');
      expect(contention.description, label(op)).to.match(/colliding with parallel changes/);
    }
  });

  it('describes the webhook delivery (webhooks): the Standard Webhooks headers, a feed item as its body, the retry schedule', () => {
    const delivery = (doc.webhooks as any)?.eventDelivery?.post;
    expect(delivery, 'webhooks.eventDelivery.post').to.not.equal(undefined);
    expect(delivery.parameters.map((p: any) => `${p.in}:${p.name}:${p.required}`)).to.deep.equal([
      'header:webhook-id:true',
      'header:webhook-timestamp:true',
      'header:webhook-signature:true',
    ]);
    expect(delivery.requestBody.content['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/FeedItem' });
    expect(deref(delivery.requestBody.content['application/json'].schema)).to.have.property('properties');
    expect(delivery.description).to.include(scheduleText(RETRY_SCHEDULE_MS));
    expect(delivery.responses).to.have.all.keys('2XX', 'default');
  });

  it('keeps every example true to the schemas that validate and describe the operations', () => {
    const failures: string[] = [];
    const check = (where: string, schema: z.ZodType, value: unknown) => {
      const result = schema.safeParse(value);
      if (!result.success) failures.push(`${where}: ${JSON.stringify(result.error.issues).slice(0, 400)}`);
    };
    for (const op of backOfficeOperations) {
      const { examples } = op.docs;
      if (examples?.response !== undefined) check(`${label(op)} response`, op.output.response, examples.response);
      if (examples?.body !== undefined) {
        if (!op.input?.body) failures.push(`${label(op)}: a body example without a JSON body`);
        else check(`${label(op)} body`, op.input.body, examples.body);
      }
      const ndjson = op.input?.ndjson;
      if (ndjson) {
        if (Buffer.byteLength(ndjson.example) > ndjson.maxBytes) failures.push(`${label(op)}: the NDJSON example is over its limit`);
        for (const line of ndjson.example.split('\n').filter((l) => l.trim() !== ''))
          check(`${label(op)} NDJSON line ${line.slice(0, 60)}`, z.record(z.string(), z.unknown()), JSON.parse(line));
      }
      for (const [status, response] of Object.entries(entryOf(op).responses as Record<string, any>)) {
        const example = response.content?.['application/problem+json']?.example;
        if (example === undefined) continue;
        check(`${label(op)} ${status}`, problemSchema, example);
        if (example.status !== Number(status)) failures.push(`${label(op)} ${status}: the example says ${example.status}`);
      }
    }
    // The examples the document adds: the stream's events and the webhook delivery's body are feed items.
    const stream = entryOf(backOfficeOperations.find(streams)!).responses[200].content['text/event-stream'].example as string;
    const events = parseEventStream(stream);
    expect(events).to.not.have.length(0);
    for (const event of events) {
      const item = JSON.parse(event.data);
      check('the stream example', feedItem, item);
      expect(event.id).to.equal(item.Position);
      expect(event.event).to.equal(item.Type);
    }
    check('the webhook delivery example', feedItem, (doc.webhooks as any).eventDelivery.post.requestBody.content['application/json'].example);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it("keeps the two documents apart: the bidder API's refuses back-office operations, the back office's refuses /v1 ones", () => {
    expect(() => buildOpenApiDocument([...operations, ...backOfficeOperations])).to.throw(/credentials the "Bidder API" document does not describe: listBackOfficeEvents/);
    expect(() => buildBackOfficeOpenApiDocument([...backOfficeOperations, operations[0]])).to.throw(/"Bidder API: back office" document does not describe/);
  });
});

describe('GET /backoffice/openapi.json and GET /docs/backoffice', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ seed: false });
  });
  after(async () => server?.close());

  const get = (path: string, headers: Record<string, string> = {}) => server.rawGet(path, { apiKey: null, headers });
  const decode = (r: RawResponse) =>
    r.headers['content-encoding'] === 'br'
      ? zlib.brotliDecompressSync(r.bytes)
      : r.headers['content-encoding'] === 'gzip'
        ? zlib.gunzipSync(r.bytes)
        : r.bytes;

  it('serves the document with no credential, as /openapi.json is served: ETag, 304, compression', async () => {
    const plain = await get('/backoffice/openapi.json');
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-type']).to.match(/^application\/json/);
    const served = JSON.parse(plain.body);
    expect(served).to.deep.equal(JSON.parse(JSON.stringify(doc)));
    const etag = plain.headers.etag!;
    expect(etag).to.match(/^W\/"/);
    const again = await get('/backoffice/openapi.json', { 'If-None-Match': etag });
    expect(again.status).to.equal(304);
    expect(again.bytes.length).to.equal(0);
    for (const encoding of ['gzip', 'br']) {
      const r = await get('/backoffice/openapi.json', { 'Accept-Encoding': encoding });
      expect(r.headers['content-encoding'], encoding).to.equal(encoding);
      expect(JSON.parse(decode(r).toString('utf8'))).to.deep.equal(served);
    }
    // The bidder API's document keeps the back office out.
    const bidder = JSON.parse((await get('/openapi.json')).body);
    expect(Object.keys(bidder.paths).filter((p) => p.startsWith('/backoffice'))).to.deep.equal([]);
  });

  it('serves a reference page for it at /docs/backoffice, linked from /docs', async () => {
    const page = await get('/docs/backoffice');
    expect(page.status).to.equal(200);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    expect(page.body).to.include("url: '/backoffice/openapi.json'");
    expect(page.body).to.include('href="/docs"');
    const bidderPage = await get('/docs');
    expect(bidderPage.body).to.include("url: '/openapi.json'");
    expect(bidderPage.body).to.include('href="/docs/backoffice"');
  });
});
