/**
 * What a handler is given (issue 7, "Handlers receive every service"): the engines it uses, already bound to
 * the token's tenant, a command runner without the raw log or the projector, and callers checked through the
 * AccessDirectory the composition root passes in. The shell is built here with buildApp over stub engines and
 * a stub directory, so only the shell is under test.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { z } from 'zod';
import { buildApp } from '../../src/http/app.ts';
import { listen } from '../../src/http/server.ts';
import { defineOperation, type Operation } from '../../src/http/operation.ts';
import type { AccessDirectory } from '../../src/http/access-directory.ts';
import type { Services } from '../../src/services.ts';
import type { Decider } from '../../src/decider.ts';
import { defineEvent, defineEvents, tenantId, type EventsOf } from '../../src/events/define.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { GeneratedFiles } from '../../src/generated-files.ts';
import type { FileStore } from '../../src/ports/files.ts';
import type { SearchIndex } from '../../src/ports/search.ts';
import { TokenService } from '../../src/security/tokens.ts';
import { singleKey } from '../../src/security/signing-keys.ts';
import { sha256 } from '../../src/security/passwords.ts';
import { createLogger } from '../../src/logger.ts';

const API_KEY = 'handler-context-api-key';

const ProbeNoted = defineEvent({
  type: 'ProbeNoted',
  version: 1,
  schema: z.object({ tenant: tenantId, memberId: z.number() }),
  description: 'A test event.',
  stream: 'probe-<tenant>-<memberId>',
});
const probeEvents = defineEvents([ProbeNoted]);
type ProbeEvent = EventsOf<typeof probeEvents>;
const probeDecider: Decider<number, { tenant: string; memberId: number }, ProbeEvent> = {
  events: probeEvents,
  initialState: () => 0,
  evolve: (count) => count + 1,
  decide: (command) => [{ type: 'ProbeNoted', data: command }],
};
const probeStream = (tenant: string, memberId: number) => `probe-${tenant}-${memberId}`;

const tenantDoc = (id: string) => ({
  _id: id,
  Tenant: id,
  Name: id,
  Languages: ['en', 'sv'],
  DefaultLanguage: 'en',
  Currency: 'EUR',
  PageSize: 20,
  PublicAccess: true,
  ContactEmail: `${id}@example.com`,
  Country: null,
  VatRate: null,
});

describe('handler contexts: what a handler is given', () => {
  let dir: string;
  let log: SqliteEventLog;
  let server: Server;
  let base: string;
  const tokens = new TokenService(singleKey(Buffer.alloc(32, 7)));
  /** Tenants named by the engines' calls, in order. */
  let engineTenants: string[] = [];
  const waits: Array<{ position: number; names: string[] }> = [];
  const members = new Map<string, object>([
    ['a/7', { _id: '7', Id: 7 }],
    ['b/7', { _id: '7', Id: 7 }],
  ]);

  const directory: AccessDirectory = {
    apiKey: async (hash) => (hash === sha256(API_KEY) ? { keyId: 'k1', tenants: ['a', 'b'] } : null),
    tenant: async (id) => (id === 'a' || id === 'b' ? (tenantDoc(id) as never) : null),
    member: async (tenant, memberId) => (members.get(`${tenant}/${memberId}`) as never) ?? null,
    application: async () => null,
  };

  const probe = defineOperation({
    route: { number: 1, operationId: 'probe', group: 'Lots', method: 'get', path: '/v1/probe', auth: 'anon' },
    docs: { summary: 'Uses every tenant-bound engine' },
    output: { response: z.object({ keys: z.array(z.string()), db: z.string() }) },
    async handler(_input, ctx) {
      await ctx.search.search('lots', { q: 'x', queryBy: ['Title'], page: 1, perPage: 1 });
      await ctx.files.open('some/key');
      const made = { key: 'made/1.txt', family: 'made', contentType: 'text/plain' };
      await ctx.generatedFiles.open(made, async () => Buffer.from('made'));
      return { keys: Object.keys(ctx).sort(), db: ctx.db.tenant };
    },
  });

  const note = defineOperation({
    route: { number: 2, operationId: 'note', group: 'Lots', method: 'post', path: '/v1/probe/notes', auth: 'member' },
    docs: { summary: 'Runs a command and reads its stream back' },
    output: { response: z.object({ position: z.number(), count: z.number() }) },
    async handler(_input, ctx) {
      const streamId = probeStream(ctx.tenant.Tenant, ctx.member.Id);
      const command = { tenant: ctx.tenant.Tenant, memberId: ctx.member.Id };
      const result = await ctx.commands.run(streamId, probeDecider, command, { projections: ['probe'] });
      return { position: result.position, count: await ctx.commands.fold(streamId, probeDecider) };
    },
  });

  const request = (method: string, p: string, token: string | null, headers: Record<string, string> = {}) =>
    fetch(base + p, { method, headers: { 'Api-Key': API_KEY, ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handler-context-'));
    log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
    const record = (tenant: string) => {
      engineTenants.push(tenant);
    };
    const files: FileStore = {
      put: async (tenant) => record(tenant),
      putStream: async (tenant) => (record(tenant), { size: 0 }),
      get: async (tenant) => (record(tenant), null),
      open: async (tenant) => (record(tenant), null),
      delete: async (tenant) => record(tenant),
    };
    const search = {
      search: async (_collection: string, tenant: string) => (record(tenant), { found: 0, hits: [], facets: {} }),
    } as unknown as SearchIndex;
    const services = {
      log,
      documents: { forTenant: (tenant: string) => ({ tenant, collection: () => ({}) }) },
      search,
      files,
      generatedFiles: new GeneratedFiles(files),
      jobs: { add: async () => ({ id: 'j', added: true }) },
      limiter: {},
      tokens,
      keys: {},
      projector: {
        waitFor: async (position: number, names: string[]) => (waits.push({ position, names }), true),
        // No search projection behind: searches go to the index (src/http/search-gate.ts).
        status: async () => ({}),
      },
      logger: createLogger({ level: 'silent' }),
      now: () => new Date(),
      readYourWritesTimeoutMs: 1000,
    } as unknown as Services;
    const http = { corsOrigins: [], trustProxy: false, responseCache: false };
    const app = buildApp(services, [probe, note] as unknown as Operation[], http, () => null, directory);
    server = await listen(app, 0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await log?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    engineTenants = [];
    waits.length = 0;
  });

  it('gives a handler the engines it uses, not the services, each bound to the tenant of the token', async () => {
    for (const tenant of ['a', 'b']) {
      engineTenants = [];
      const response = await request('GET', '/v1/probe', tokens.issue('anonymous', tenant, 'anonymous:x').Token);
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).to.equal(200);
      expect(body.keys).to.not.include('services');
      const engines = ['db', 'search', 'files', 'generatedFiles', 'commands', 'keys', 'jobs', 'limiter', 'tokens', 'logger', 'now'];
      expect(body.keys).to.include.members(engines);
      expect(body.db).to.equal(tenant);
      // search, files.open, and the generated file (looked up, then stored with its family marker)
      expect(engineTenants.length).to.be.greaterThan(3);
      expect(new Set(engineTenants)).to.deep.equal(new Set([tenant]));
    }
  });

  it('runs a command with the request id as its correlation id, waits for the projections named, and folds the stream back', async () => {
    const token = tokens.issue('member', 'a', '7').Token;
    const first = await request('POST', '/v1/probe/notes', token, { 'X-Request-Id': 'probe-request-1' });
    const body = await first.json();
    expect(first.status, JSON.stringify(body)).to.equal(200);
    expect(body.count).to.equal(1);
    expect(waits).to.deep.equal([{ position: body.position, names: ['probe'] }]);
    const [recorded] = await log.readStream(probeStream('a', 7));
    expect(recorded.metadata).to.deep.equal({ tenant: 'a', correlationId: 'probe-request-1' });
    expect((await (await request('POST', '/v1/probe/notes', token)).json()).count).to.equal(2);
  });

  it('checks Api-Keys, tenants and members through the directory it is given', async () => {
    expect((await fetch(`${base}/v1/probe`, { headers: { 'Api-Key': 'unknown' } })).status).to.equal(401);
    expect((await request('GET', '/v1/probe', tokens.issue('anonymous', 'c', 'anonymous:x').Token)).status).to.equal(401);
    members.delete('b/7');
    expect((await request('POST', '/v1/probe/notes', tokens.issue('member', 'b', '7').Token)).status).to.equal(401);
    expect((await request('POST', '/v1/probe/notes', tokens.issue('member', 'a', '7').Token)).status).to.equal(200);
  });
});
