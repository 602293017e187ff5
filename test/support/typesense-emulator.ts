/**
 * A Typesense server over HTTP, for specs of the whole service on Typesense (TYPESENSE_URL) where no server runs:
 * the endpoints the adapter's client calls (src/adapters/typesense/client.ts), answered from a FakeTypesense
 * (test/contracts/typesense-fake.ts, which follows the server's source) the way the server sends them: a
 * status with a `{message}` body on failure (src/core_api.cpp), imports and exports as JSON lines in text/plain,
 * multi_search answering 200 with a `{code, error}` in place of a search it cannot run (post_multi_search).
 * Not a search engine: a search that runs finds nothing.
 *
 * Its faults: `hangImports` holds every import unanswered until it is set back (a node that takes a request and
 * does not answer it; the client sets no time-out on imports); `stop()` closes it (connections refused) until
 * `restart()`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { statusOf } from '../../src/adapters/typesense/client.ts';
import type { TypesenseDocument } from '../../src/adapters/typesense/documents.ts';
import type { TypesenseSearchParams } from '../../src/adapters/typesense/params.ts';
import { FakeTypesense } from '../contracts/typesense-fake.ts';

type Answer = { status: number; body: unknown; lines?: true };

export class TypesenseEmulator {
  readonly fake = new FakeTypesense();
  readonly url: string;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private held: Array<() => void> = [];
  private hanging = false;

  private constructor(
    private readonly port: number,
    private readonly apiKey: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  static async start(apiKey: string): Promise<TypesenseEmulator> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const emulator = new TypesenseEmulator(port, apiKey);
    await emulator.restart();
    return emulator;
  }

  /** Imports are held unanswered while true; set back, the held ones are answered. */
  get hangImports(): boolean {
    return this.hanging;
  }

  set hangImports(value: boolean) {
    this.hanging = value;
    if (!value) for (const answer of this.held.splice(0)) answer();
  }

  async restart(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  /** Closes it: connections are refused until restart(). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.held = [];
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new globalThis.URL(req.url ?? '/', 'http://emulator');
    const send = ({ status, body: answer, lines }: Answer) => {
      res.writeHead(status, { 'content-type': lines ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8' });
      res.end(lines ? (answer as unknown[]).map((l) => JSON.stringify(l)).join('\n') : JSON.stringify(answer));
    };
    if (req.headers['x-typesense-api-key'] !== this.apiKey)
      return send({ status: 401, body: { message: 'Forbidden - a valid `x-typesense-api-key` header must be sent.' } });
    const answer = () =>
      this.route(req.method ?? 'GET', url, body).then(send, (error: unknown) =>
        send({ status: statusOf(error) ?? 500, body: { message: error instanceof Error ? error.message : String(error) } }),
      );
    if (this.hanging && url.pathname.endsWith('/documents/import')) this.held.push(() => void answer());
    else await answer();
  }

  /** The server's answer to one request, from the fake. */
  private async route(method: string, url: URL, body: string): Promise<Answer> {
    const f = this.fake;
    const [top, name, sub, id] = url.pathname.split('/').slice(1).map(decodeURIComponent);
    const q = (key: string) => url.searchParams.get(key) ?? undefined;
    const json = () => JSON.parse(body) as Record<string, unknown>;
    const ok = (answer: unknown, status = 200): Answer => ({ status, body: answer ?? {} });
    if (top === 'multi_search') {
      const results = [];
      for (const { collection, ...params } of json().searches as Array<TypesenseSearchParams & { collection: string }>) {
        try {
          results.push(f.searchRefusal(collection, params) ?? (await f.search(collection, params)));
        } catch (error) {
          results.push({ code: statusOf(error) ?? 500, error: error instanceof Error ? error.message : String(error) });
        }
      }
      return ok({ results });
    }
    if (top === 'aliases' && method === 'GET') return ok({ name, collection_name: await f.retrieveAlias(name) });
    if (top === 'aliases' && method === 'PUT') {
      await f.upsertAlias(name, String(json().collection_name));
      return ok({ name, collection_name: json().collection_name });
    }
    if (top !== 'collections') return { status: 404, body: { message: 'Not Found' } };
    if (name === undefined && method === 'POST') return ok(await f.createCollection(json() as never), 201);
    if (sub === undefined && method === 'GET') return ok(await f.retrieveCollection(name));
    if (sub === undefined && method === 'PATCH') return ok(await f.updateCollection(name, json().fields as never));
    if (sub === undefined && method === 'DELETE') return ok(await f.deleteCollection(name));
    if (id === 'import') {
      const docs = body
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as TypesenseDocument);
      const dirty = q('dirty_values') === 'coerce_or_drop' ? { dirtyValues: 'coerce_or_drop' as const } : {};
      return { status: 200, body: await f.importDocuments(name, docs, q('action') as 'upsert' | 'update', dirty), lines: true };
    }
    if (id === 'export') {
      const filter = q('filter_by');
      if (filter === undefined) {
        const all = [];
        for await (const doc of f.exportAll(name)) all.push(doc);
        return { status: 200, body: all, lines: true };
      }
      return { status: 200, body: await f.exportDocuments(name, filter, (q('include_fields') ?? '').split(',')), lines: true };
    }
    if (id === undefined && method === 'DELETE') return ok({ num_deleted: await f.deleteDocuments(name, q('filter_by') ?? '') });
    if (id === undefined && method === 'POST') return ok(await f.upsertDocument(name, json() as TypesenseDocument), 201);
    if (method === 'GET') return ok(await f.retrieveDocument(name, id));
    return { status: 404, body: { message: 'Not Found' } };
  }

  async close(): Promise<void> {
    await this.stop();
  }
}
