/**
 * The OpenAPI document (GET /openapi.json) describes what the service really does, and passes Spectral's
 * `spectral:oas` and OWASP rulesets (.spectral.yaml) with no error.
 */
import { expect } from 'chai';
import { buildOpenApiDocument } from '../../src/http/openapi/index.ts';
import { problemSchema, z } from '../../src/http/schemas.ts';
import { defineOperation, type Operation } from '../../src/http/operation.ts';
import { operations } from '../../app/features/operations.ts';
import { spectralErrors } from '../support/spectral.ts';

type Doc = ReturnType<typeof buildOpenApiDocument> & Record<string, any>;

const doc = buildOpenApiDocument(operations) as Doc;
const entryOf = (op: Operation) => (doc.paths as Record<string, Record<string, any>>)[op.route.path][op.route.method];
const stream = (op: Operation) => op.output.produces?.includes('text/event-stream') ?? false;
const binary = (op: Operation) => (op.output.produces?.length ?? 0) > 0 && !stream(op);

/** A component by its $ref, or the object itself. */
function deref(value: any): any {
  if (value && typeof value.$ref === 'string') {
    const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value.$ref) ?? [];
    return (doc.components as Record<string, Record<string, unknown>>)[kind][name];
  }
  return value;
}

const parameterNames = (op: Operation) => (entryOf(op).parameters ?? []).map((p: unknown) => `${deref(p).in}:${deref(p).name}`);

describe('the OpenAPI document', () => {
  it('passes Spectral (spectral:oas and the OWASP ruleset of .spectral.yaml) with no error', async function () {
    this.timeout(180_000);
    const { errors, shown } = await spectralErrors(doc, 'openapi.json');
    expect(errors, `${errors.length} Spectral errors, the first ones:\n${shown}`).to.have.length(0);
  });

  it('gives every operation a declared tag, a summary and a description written for its users', () => {
    const tags = new Map((doc.tags ?? []).map((t: { name: string; description?: string }) => [t.name, t.description]));
    for (const op of operations) {
      const entry = entryOf(op);
      const label = `${op.route.method} ${op.route.path}`;
      expect(entry.tags, label).to.deep.equal([op.route.group]);
      expect(tags.get(op.route.group), `tag ${op.route.group} is declared with a description`).to.be.a('string').and.not.equal('');
      expect(entry.summary, label).to.be.a('string').and.not.equal('');
      expect(entry.description, label).to.be.a('string').and.match(/Credentials:/);
      expect(entry.description, label).to.not.match(/API\.md|Operation \d+/);
    }
  });

  it('refuses an operation whose group is not a declared tag: in its type, and when the document is built', () => {
    const declared = defineOperation({
      route: { number: 99, operationId: 'probeGroup', group: 'Lots', method: 'get', path: '/v1/probe', auth: 'open' },
      docs: { summary: 'A probe' },
      output: { response: z.object({}) },
      handler: async () => ({}),
    });
    // The type of `group` is the union of the declared groups' names: an unknown one does not compile.
    // @ts-expect-error -- 'Lot' is not a declared group ('Lots' is)
    const typo: Operation['route'] = { ...declared.route, group: 'Lot' };
    // One that gets past the type (a cast, as a feature's operation list is typed loosely) stops the document.
    const stray = { ...declared, route: typo } as unknown as Operation;
    expect(() => buildOpenApiDocument([...operations, stray])).to.throw(/undeclared groups: probeGroup \("Lot"\).*"Lots"/);
    expect(() => buildOpenApiDocument([declared as unknown as Operation])).to.not.throw();
  });

  it('shows an example of every JSON answer and of every request body', () => {
    for (const op of operations) {
      const entry = entryOf(op);
      const label = `${op.route.method} ${op.route.path}`;
      if (stream(op)) expect(entry.responses[200].content['text/event-stream'].example, label).to.equal(op.docs.examples?.response);
      else if (!binary(op)) {
        expect(op.docs.examples?.response, `${label}: examples.response`).to.not.equal(undefined);
        expect(entry.responses[200].content['application/json'].example, label).to.deep.equal(op.docs.examples!.response);
      }
      if (op.input?.body) {
        expect(op.docs.examples?.body, `${label}: examples.body`).to.not.equal(undefined);
        expect(entry.requestBody.content['application/json'].example, label).to.deep.equal(op.docs.examples!.body);
      }
    }
  });

  it('keeps every example true to the schemas that validate and describe the operation', () => {
    const failures: string[] = [];
    for (const op of operations) {
      const label = `${op.route.method} ${op.route.path}`;
      const { examples } = op.docs;
      if (examples?.response !== undefined) {
        const result = op.output.response.safeParse(examples.response);
        if (!result.success) failures.push(`${label} response: ${JSON.stringify(result.error.issues).slice(0, 400)}`);
      }
      if (examples?.body !== undefined) {
        if (!op.input?.body) failures.push(`${label}: a body example without a body`);
        else {
          const result = op.input.body.safeParse(examples.body);
          if (!result.success) failures.push(`${label} body: ${JSON.stringify(result.error.issues).slice(0, 400)}`);
        }
      }
      for (const [status, response] of Object.entries(entryOf(op).responses as Record<string, any>)) {
        const example = response.content?.['application/problem+json']?.example;
        if (example === undefined) continue;
        const result = problemSchema.safeParse(example);
        if (!result.success) failures.push(`${label} ${status}: ${JSON.stringify(result.error.issues).slice(0, 400)}`);
        else if (example.status !== Number(status)) failures.push(`${label} ${status}: the example says ${example.status}`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('describes binary answers by their media types, with Content-Disposition', () => {
    const binaries = operations.filter(binary);
    expect(binaries.map((op) => op.route.operationId)).to.include.members(['getAuctionCataloguePdf', 'exportAuctionLots']);
    for (const op of binaries) {
      const ok = entryOf(op).responses[200];
      const label = `${op.route.method} ${op.route.path}`;
      expect(Object.keys(ok.content), label).to.have.members(op.output.produces!);
      for (const type of op.output.produces!) expect(deref(ok.content[type].schema), `${label} ${type}`).to.include({ type: 'string', format: 'binary' });
      expect(ok.content, label).to.not.have.property('application/json');
      expect(ok.headers, label).to.include.keys('Content-Disposition', 'ETag', 'X-Request-Id');
    }
    expect(Object.keys(entryOf(operations.find((op) => op.route.operationId === 'exportAuctionLots')!).responses[200].content)).to.deep.equal([
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ]);
  });

  it('documents 304 and If-None-Match on catalogue reads (and every GET, which all answer 304 to a matching ETag)', () => {
    const catalogue = operations.filter((op) => op.cache?.catalogue);
    expect(catalogue).to.not.have.length(0);
    // Streams have no representation to compare: no ETag, no 304.
    for (const op of operations.filter((o) => o.route.method === 'get' && !stream(o))) {
      const label = `${op.route.method} ${op.route.path}`;
      const notModified = entryOf(op).responses[304];
      expect(notModified, label).to.not.equal(undefined);
      expect(notModified.content, label).to.equal(undefined);
      expect(notModified.headers, label).to.include.keys('ETag', 'X-Request-Id');
      expect(parameterNames(op), label).to.include('header:If-None-Match');
    }
    for (const op of operations.filter((o) => o.route.method !== 'get'))
      expect(entryOf(op).responses, `${op.route.method} ${op.route.path}`).to.not.have.property('304');
  });

  it('documents the headers the service sends: X-Request-Id, ETag, Content-Language, WWW-Authenticate, Retry-After', () => {
    for (const op of operations) {
      const label = `${op.route.method} ${op.route.path}`;
      const responses = entryOf(op).responses as Record<string, any>;
      // A mail's link carries its own signed token: refused as a 400, never a 401.
      const link = op.route.auth === 'link';
      expect(responses, label).to.include.keys('200', '400', '500', ...(link ? [] : ['401']));
      for (const [status, response] of Object.entries(responses)) {
        expect(response.headers, `${label} ${status}`).to.have.property('X-Request-Id');
        if (Number(status) >= 400) {
          // The Problem, with `code` narrowed to the codes this operation answers with this status.
          const [problem, narrowed] = response.content['application/problem+json'].schema.allOf;
          expect(problem, `${label} ${status}`).to.deep.equal({ $ref: '#/components/schemas/Problem' });
          expect(narrowed.properties.code.enum, `${label} ${status}`).to.be.an('array').that.is.not.empty;
        }
      }
      if (!stream(op)) expect(responses[200].headers, label).to.have.property('ETag');
      if (!link) expect(responses[401].headers, label).to.have.property('WWW-Authenticate');
      if (responses[429]) expect(responses[429].headers, label).to.have.property('Retry-After');
      if (link) {
        expect(responses[200].headers, label).to.not.have.property('Content-Language');
        expect(entryOf(op).security, label).to.deep.equal([{ UnsubscribeToken: [] }]);
      } else if (op.route.auth !== 'open') {
        expect(responses[200].headers, label).to.have.property('Content-Language');
        expect(parameterNames(op), label).to.include('header:Accept-Language');
        expect(entryOf(op).security, label).to.deep.equal([{ ApiKey: [], Bearer: [] }]);
      } else expect(entryOf(op).security, label).to.deep.equal([{ ApiKey: [] }]);
    }
    const bearer = (doc.components as any).securitySchemes.Bearer;
    expect(bearer.description).to.match(/HS256/).and.match(/RFC8725/);
    expect((doc.components as any).securitySchemes.ApiKey.description).to.be.a('string').and.not.equal('');
  });

  it('describes the problem with every extension the service sends: code, messageKey, minimumNextBid, reason, errors', () => {
    const problem = (doc.components as any).schemas.Problem;
    expect(problem.properties).to.include.keys('code', 'messageKey', 'minimumNextBid', 'reason', 'errors');
    expect(problem.required).to.include('code');
    expect(problem.properties.code.enum).to.include.members(['bid-too-low', 'leader-must-raise', 'bidding-ended', 'member-token-required']);
  });

  it("lists each operation's codes by status: its credentials', its input's and its own", () => {
    const codesOf = (op: Operation, status: number): string[] =>
      entryOf(op).responses[status]?.content['application/problem+json'].schema.allOf[1].properties.code.enum ?? [];
    const placeBid = operations.find((op) => op.route.operationId === 'placeBid')!;
    expect(codesOf(placeBid, 400)).to.deep.equal(['validation-failed', 'text-invalid', 'bid-too-low', 'leader-must-raise']);
    expect(codesOf(placeBid, 401)).to.deep.equal(['api-key-invalid', 'token-invalid', 'member-token-required', 'session-ended']);
    expect(codesOf(placeBid, 403)).to.include.members(['not-registered', 'terms-not-accepted', 'registration-pending']);
    expect(codesOf(placeBid, 409)).to.include.members(['bidding-ended', 'auction-not-timed']);
    expect(codesOf(placeBid, 422)).to.deep.equal(['idempotency-key-reused']);
    expect(entryOf(placeBid).responses[403].content['application/problem+json'].example).to.include({ code: 'lot-closed', reason: 'lot-closed' });
    for (const op of operations) {
      const label = `${op.route.method} ${op.route.path}`;
      expect(codesOf(op, 400), label).to.include.members(['validation-failed', 'text-invalid']);
      if (op.input?.body) expect([...codesOf(op, 413), ...codesOf(op, 415)], label).to.deep.equal(['too-large', 'unsupported-media-type']);
      if (op.docs.errors?.includes(404)) expect(codesOf(op, 404), label).to.deep.equal(['not-found']);
      for (const code of op.docs.problems ?? []) expect(JSON.stringify(entryOf(op).responses), `${label} ${code}`).to.include(`"${code}"`);
    }
  });

  it('names Idempotency-Key on every operation that takes it (input.idempotencyKey), and on no other', () => {
    const taking = operations.filter((op) => op.input?.idempotencyKey).map((op) => op.route.operationId);
    expect(taking).to.include('placeBid');
    for (const op of operations)
      expect(parameterNames(op).includes('header:Idempotency-Key'), op.route.operationId).to.equal(taking.includes(op.route.operationId));
  });

  it("types each stream's events: a component per event type with its data, and their union by `event`", () => {
    const streaming = operations.filter((op) => op.output.streamEvents);
    expect(streaming.map((op) => op.route.operationId)).to.include('streamAuction');
    for (const op of streaming) {
      const media = entryOf(op).responses[200].content['text/event-stream'];
      const union = deref(media['x-item-schema']);
      expect(Object.keys(union.discriminator.mapping)).to.deep.equal(Object.keys(op.output.streamEvents!));
      for (const [event, target] of Object.entries(union.discriminator.mapping as Record<string, string>)) {
        const item = deref({ $ref: target });
        expect(item.properties.event.enum, event).to.deep.equal([event]);
        expect(item.required).to.include.members(['id', 'event', 'data']);
      }
    }
    // The events of each stream's example are true to their schemas.
    for (const op of streaming) {
      const example = String(op.docs.examples?.response ?? '');
      for (const [, event, data] of example.matchAll(/^event: (\S+)\ndata: (.*)$/gm)) {
        const schema = op.output.streamEvents![event];
        expect(schema, `${op.route.operationId}: an example event ${event} it does not declare`).to.not.equal(undefined);
        const result = schema.safeParse(JSON.parse(data));
        expect(result.success, `${op.route.operationId} ${event}: ${JSON.stringify(result.error?.issues)}`).to.equal(true);
      }
    }
    const auction = operations.find((op) => op.route.operationId === 'streamAuction')!;
    const bid = deref(deref(entryOf(auction).responses[200].content['text/event-stream']['x-item-schema']).oneOf[0]);
    expect(Object.keys(deref(bid.properties.data).properties)).to.deep.equal([
      'LotId',
      'CurrentBid',
      'Currency',
      'BidCount',
      'MinimumNextBid',
      'ReserveMet',
      'EndTime',
      'PlacedAt',
    ]);
  });
});
