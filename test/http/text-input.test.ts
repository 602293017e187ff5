/**
 * No text an operation takes can hold what a store refuses (src/text/allowed-characters.ts): every operation the
 * service registers, walked from its schemas, so that a new operation is covered without a line here. For each
 * text of its path, query and JSON body (and each key of a map it stores), a valid request with U+0000, another
 * control or a lone surrogate in that one place answers 400 `text-invalid` naming it, and appends nothing.
 */
import { expect } from 'chai';
import { service } from '../../app/features/index.ts';
import type { Operation } from '../../src/http/operation.ts';
import type { z } from '../../src/http/schemas.ts';
import { inner, sample, setAt, textSlots } from '../support/schema-texts.ts';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;

/** A path parameter's value the schema takes (an id, or the first of an enum). */
function pathValue(schema: Schema): string {
  const def = inner(schema)._zod.def as Def;
  return def.type === 'enum' ? String(Object.values(def.entries as Record<string, unknown>)[0]) : '1';
}

const BAD = {
  nul: 'a\u0000b',
  control: 'a\u001bb',
  c1: 'a\u0085b',
  lone: 'a\ud800b',
  nonCharacter: 'a\uffffb',
};

describe('texts every operation takes hold only what every store keeps (400 text-invalid)', () => {
  let server: TestServer;
  let tokens: { anon: string; member: string };
  const head = () => server.runtime.services.log.headPosition();

  before(async () => {
    server = await startTestServer();
    tokens = { anon: await server.anonymousToken('demo'), member: await server.memberToken('demo') };
  });
  after(async () => server?.close());

  /** Sends a request as the operation's caller. */
  const send = (op: Operation, urlPath: string, body?: unknown): Promise<TestResponse> => {
    const { auth } = op.route;
    if (auth === 'backoffice')
      return server.request(op.route.method.toUpperCase(), urlPath, {
        apiKey: null,
        headers: { Authorization: `Bearer ${server.credentials.backOfficeKeys.demo}` },
        body,
      });
    if (auth === 'link') {
      // A mail's link: its own valid token in the query, and the form it takes.
      const link = { tenant: 'demo', memberId: 1, kind: 'reminder', scope: null };
      const { token } = server.runtime.services.links.unsubscribe(link, Date.now());
      return server.request(op.route.method.toUpperCase(), `${urlPath}${urlPath.includes('?') ? '&' : '?'}token=${token}`, {
        apiKey: null,
        rawBody: 'List-Unsubscribe=One-Click',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
    }
    const token = auth === 'member' ? tokens.member : auth === 'anon' ? tokens.anon : null;
    return server.request(op.route.method.toUpperCase(), urlPath, { token, body });
  };

  /** The operation's path with each parameter a valid value, or `bad` (encoded) in `param`. */
  const pathOf = (op: Operation, param?: string, bad?: string) =>
    op.route.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      name === param ? encodeURIComponent(bad!) : pathValue((op.input?.params?.shape as Record<string, Schema>)[name]),
    );

  /** Sends it and expects 400 text-invalid naming `field`, with nothing appended. */
  const refused = async (op: Operation, label: string, field: string, urlPath: string, body?: unknown) => {
    const before = await head();
    const response = await send(op, urlPath, body);
    const where = `${op.route.method.toUpperCase()} ${op.route.path}: ${label}`;
    expect(response.status, `${where}: ${response.text}`).to.equal(400);
    const problem = expectProblem(response, 400, 'text-invalid');
    expect(
      problem.errors.map((e: { field: string }) => e.field),
      where,
    ).to.include(field);
    expect(await head(), `${where} appended`).to.equal(before);
  };

  const operations = service.operations.filter((op) => op.input);

  it('covers every operation with a path, query or JSON body (the walk finds their texts)', () => {
    const withText = operations.filter((op) => op.input?.params || op.input?.query || op.input?.body);
    expect(withText.length).to.be.greaterThan(60);
    const bodies = withText.filter((op) => op.input?.body && textSlots(op.input.body).length);
    expect(bodies.map((op) => op.route.operationId)).to.include.members([
      'signUp',
      'replaceProfile',
      'sendContactMessage',
      'registerWebhook',
    ]);
  });

  it('refuses a control, U+0000 or C1, in any path parameter', async () => {
    for (const op of operations)
      for (const param of Object.keys(op.input?.params?.shape ?? {}))
        for (const bad of [BAD.nul, BAD.control, BAD.c1]) await refused(op, `path ${param}`, `path.${param}`, pathOf(op, param, bad));
  });

  it('refuses a control, U+0000 or C1, in any query parameter (and in lang, which every operation reads)', async () => {
    for (const op of service.operations) {
      // A stream ticket is a credential, read (and refused: 401) before the input, as a header is; so is a mail
      // link's token (refused: 400 unsubscribe-link-invalid).
      const credential = (name: string) => name === 'ticket' || (op.route.auth === 'link' && name === 'token');
      const names = [...Object.keys(op.input?.query?.shape ?? {}).filter((n) => !credential(n)), 'lang'];
      for (const name of names)
        for (const bad of [BAD.nul, BAD.control, BAD.c1, BAD.nonCharacter])
          await refused(op, `query ${name}`, `query.${name}`, `${pathOf(op)}?${name}=${encodeURIComponent(bad)}`, bodyOf(op));
    }
  });

  it('refuses U+0000, a control, a lone surrogate or a non-character in any text of a JSON body, and in any key of a map it keeps', async () => {
    let cases = 0;
    for (const op of operations) {
      if (!op.input?.body) continue;
      const base = bodyOf(op);
      for (const slot of textSlots(op.input.body)) {
        const field = ['body', ...slot.path].join('.');
        if (slot.key) {
          await refused(op, `key of ${field}`, `${field}.a\\u{0}`, pathOf(op), setAt(base, slot.path, { 'a\u0000': 'x' }));
          await refused(op, `$key of ${field}`, `${field}.$where`, pathOf(op), setAt(base, slot.path, { $where: 'x' }));
          cases += 2;
          continue;
        }
        for (const bad of Object.values(BAD)) {
          await refused(op, `${field} = ${JSON.stringify(bad)}`, field, pathOf(op), setAt(base, slot.path, bad));
          cases += 1;
        }
      }
    }
    expect(cases).to.be.greaterThan(250);
  });

  it('takes tab and line breaks in the fields that hold lines, and refuses them in every other', async () => {
    const withLines: string[] = [];
    for (const op of operations) {
      if (!op.input?.body) continue;
      const base = bodyOf(op);
      for (const slot of textSlots(op.input.body).filter((s) => !s.key)) {
        const field = ['body', ...slot.path].join('.');
        const text = 'line one\r\nline two\tand a tab\n';
        if (!slot.lines) {
          await refused(op, `${field} with lines`, field, pathOf(op), setAt(base, slot.path, text));
          continue;
        }
        withLines.push(`${op.route.operationId} ${field}`);
        const response = await send(op, pathOf(op), setAt(base, slot.path, text));
        expect(response.body?.code, `${op.route.operationId} ${field}: ${response.text}`).to.not.equal('text-invalid');
      }
    }
    // The fields of the API that hold lines (docs/api-decisions.md "Texts").
    expect(withLines).to.deep.equal(['replaceProfile body.ExtraData.k', 'sendContactMessage body.Message']);
  });

  it("stores the lines of a contact message and of a profile's own data as sent", async () => {
    const message = 'Is the frame original?\r\n\tThanks,\nAda';
    const before = await head();
    const sent = await server.request('POST', '/v1/contact', {
      token: tokens.anon,
      body: { Name: 'Ada', Email: 'ada@example.org', Subject: 'Frame', Message: message },
    });
    expect(sent.status, sent.text).to.equal(200);
    const [event] = await server.runtime.services.log.readAll({ fromPosition: before, maxCount: 10 });
    expect(event.data.message).to.equal(message.trim());
    const profile = await server.request('PUT', '/v1/me', {
      token: tokens.member,
      body: { FirstName: 'Ada', ExtraData: { note: 'one\ntwo' } },
    });
    expect(profile.status, profile.text).to.equal(200);
    expect(profile.body.ExtraData).to.deep.equal({ note: 'one\ntwo' });
  });

  it('refuses U+0000 or a control in any text field of an upload, and in its file name', async () => {
    const uploads = operations.filter((op) => op.input?.upload);
    expect(uploads.map((op) => op.route.operationId)).to.include('uploadIdentityDocument');
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
    const boundary = 'text-input-boundary';
    /** A multipart body with the fields (name, value) and the file, its name given as RFC 5987 UTF-8 (so any character can be sent). */
    const form = (fields: Array<[string, string]>, fileName: string) =>
      Buffer.concat([
        ...fields.map(([name, value]) =>
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
        ),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(fileName)}\r\nContent-Type: application/pdf\r\n\r\n`,
        ),
        pdf,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    for (const op of uploads) {
      const { fields, file } = op.input!.upload!;
      const valid = Object.entries(fields.shape as Record<string, Schema>).map(([name, schema]): [string, string] => [
        name,
        String(sample(schema)),
      ]);
      const post = async (label: string, field: string, body: Buffer) => {
        const before = await head();
        const response = await server.request('POST', op.route.path, {
          token: tokens.member,
          rawBody: body,
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        });
        expect(response.status, `${label}: ${response.text}`).to.equal(400);
        const problem = expectProblem(response, 400, 'text-invalid');
        expect(
          problem.errors.map((e: { field: string }) => e.field),
          label,
        ).to.include(field);
        expect(await head(), `${label} appended`).to.equal(before);
      };
      for (const [name] of valid)
        for (const bad of [BAD.nul, BAD.control, BAD.c1])
          await post(
            `field ${name}`,
            `body.${name}`,
            form(
              valid.map(([n, v]): [string, string] => [n, n === name ? bad : v]),
              'scan.pdf',
            ),
          );
      for (const bad of [BAD.nul, BAD.control, BAD.c1, 'a\nb.pdf'])
        await post(`file name ${JSON.stringify(bad)}`, `body.${file}`, form(valid, bad));
    }
  });

  /** A valid body of the operation: its documented example, else one made from its schema. */
  function bodyOf(op: Operation): unknown {
    if (!op.input?.body) return undefined;
    return op.docs.examples?.body ?? sample(op.input.body);
  }
});
