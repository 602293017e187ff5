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
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../support/server.ts';

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type Segment = string | number;

/** A schema under its wrappers (optional, nullable, default, pipe, ...). */
function inner(schema: Schema): Schema {
  const def = schema._zod.def as Def;
  if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type))
    return inner(def.innerType as Schema);
  if (def.type === 'pipe') return inner(def.in as Schema);
  return schema;
}

/** Where a body holds texts: each string's path, and each map's path (where a key goes). */
function textSlots(schema: Schema, path: Segment[] = []): Array<{ path: Segment[]; key: boolean }> {
  const def = inner(schema)._zod.def as Def;
  switch (def.type) {
    case 'string':
      return [{ path, key: false }];
    case 'object':
      return Object.entries(def.shape as Record<string, Schema>).flatMap(([k, s]) => textSlots(s, [...path, k]));
    case 'array':
      return textSlots(def.element as Schema, [...path, 0]);
    case 'record':
      return [{ path, key: true }, ...textSlots(def.valueType as Schema, [...path, 'k'])];
    case 'union': {
      const slots = (def.options as Schema[]).flatMap((o) => textSlots(o, path));
      return slots.filter((s, i) => slots.findIndex((t) => t.path.join('.') === s.path.join('.') && t.key === s.key) === i);
    }
    default:
      return [];
  }
}

/** A value of a schema, where the operation gives no example body. */
function sample(schema: Schema): unknown {
  const def = inner(schema)._zod.def as Def;
  switch (def.type) {
    case 'string':
      return 'x';
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>)[0];
    case 'literal':
      return (def.values as unknown[])[0];
    case 'object': {
      const required = Object.entries(def.shape as Record<string, Schema>).filter(
        ([, s]) => !(s as z.ZodType).safeParse(undefined).success,
      );
      return Object.fromEntries(required.map(([k, s]) => [k, sample(s)]));
    }
    case 'union':
      return sample((def.options as Schema[])[0]);
    case 'array':
      return [];
    default:
      return {};
  }
}

/** A copy of `value` with `leaf` at `path` (objects and arrays made on the way). */
function setAt(value: unknown, path: Segment[], leaf: unknown): unknown {
  if (!path.length) return leaf;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const copy = Array.isArray(value) ? [...(value as unknown[])] : [];
    copy[head] = setAt(copy[head], rest, leaf);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  copy[head] = setAt(copy[head], rest, leaf);
  return copy;
}

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
      // A stream ticket is a credential, read (and refused: 401) before the input, as a header is.
      const names = [...Object.keys(op.input?.query?.shape ?? {}).filter((n) => n !== 'ticket'), 'lang'];
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
