/**
 * A fake of the Typesense calls the adapter makes (TypesenseApi, src/adapters/typesense/client.ts), answering
 * as the server and its client do, after their sources (typesense/typesense at src/…, the `typesense` client
 * in node_modules/typesense/lib/Typesense/…):
 * - collections, aliases and documents in memory; an alias is resolved wherever the server resolves one
 *   (src/collection_manager.cpp, get_collection_unsafe: a collection's name first, then an alias);
 * - searches check the fields they name against the collection's schema, as multi_search answers a search it
 *   cannot run: a `404` "Could not find a facet field named `X` in the schema." (src/collection.cpp),
 *   "Could not find a filter field named `X` in the schema." (src/filter.cpp), "Could not find a field named
 *   `X` in the schema." for query_by (src/collection.cpp);
 * - schema changes (PATCH /collections/:c, src/core_api.cpp patch_update_collection and src/collection.cpp
 *   validate_alter_payload): fields added, dropped (`{name, drop: true}`), or dropped and added in one change;
 *   a field added that is there already, or dropped that is not, is a 400; `id` cannot be altered; a second
 *   change while one runs is a 422 (src/raft_server.cpp); the documents held must fit the new fields;
 * - imports validate each line's values against the schema (src/validator.cpp: "Field `X` must be an int32.")
 *   unless `dirty_values=coerce_or_drop` leaves the value out;
 * - faults: `hangImports` holds every import until its AbortSignal fires, as a node that accepts a request and
 *   never answers does: the client sets no time-out on imports (Documents.js, `skipConnectionTimeout: true`)
 *   and rejects "Request aborted by caller." (ApiCall.js); `away` makes every other call fail as the client
 *   does after its retries: `hung`, axios's time-out (`ECONNABORTED`, ApiCall.js sets `timeout` from
 *   connectionTimeoutSeconds) after `clientTimeoutMs`; `refused`, `ECONNREFUSED` at once.
 * Filters are read with readFilter (exact matches only: what the adapter's exports and deletes use).
 */
import type { ImportAction, ImportOptions, TypesenseApi } from '../../src/adapters/typesense/client.ts';
import { TypesenseStatusError } from '../../src/adapters/typesense/client.ts';
import type { ImportItemResult, TypesenseDocument } from '../../src/adapters/typesense/documents.ts';
import { queryWords, type TypesenseSearchParams } from '../../src/adapters/typesense/params.ts';
import type { TypesenseSearchResponse } from '../../src/adapters/typesense/results.ts';
import type { FieldChange, LiveCollection, TypesenseCollectionSchema, TypesenseField } from '../../src/adapters/typesense/schema.ts';

// ---------------------------------------------------------------------------------------------------------
// Typesense's reading of filter_by, after its source (typesense/typesense, src/filter.cpp: the tokenizer
// splits on `&&` and `||` outside backticks and toggles on every backtick; src/string_utils.cpp:
// split_to_values splits a [list] on commas outside backticks, drops the backticks and trims).

export function splitValues(list: string): string[] {
  const out: string[] = [];
  let inTick = false;
  let buffer = '';
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const escapedTick = i > 0 && c === '`' && list[i - 1] === '\\';
    if (c === '`') {
      if (escapedTick) buffer += c;
      else if (inTick && buffer.length > 0) inTick = false;
      else inTick = true;
    } else if (c === ',' && !inTick) {
      out.push(buffer.trim());
      buffer = '';
    } else buffer += c;
  }
  if (buffer.length > 0) out.push(buffer.trim());
  return out;
}

export interface Condition {
  field: string;
  op: string;
  values: string[];
}

export function readFilter(filter: string): Condition[] {
  const parts: string[] = [];
  let inTick = false;
  let current = '';
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i];
    if (c === '`') inTick = !inTick;
    if (!inTick && ((c === '&' && filter[i + 1] === '&') || (c === '|' && filter[i + 1] === '|'))) {
      if (c === '|') throw new Error('an OR outside a literal');
      parts.push(current.trim());
      current = '';
      i++;
      continue;
    }
    if (!inTick && (c === '(' || c === ')')) throw new Error('a parenthesis outside a literal');
    current += c;
  }
  parts.push(current.trim());
  return parts.map((part) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*):(>=|<=|>|<|=)?\s*([\s\S]*)$/.exec(part);
    if (!m) throw new Error(`unreadable condition ${part}`);
    const raw = m[3].trim();
    const values = raw.startsWith('[') && raw.endsWith(']') ? splitValues(raw.slice(1, -1)) : splitValues(raw);
    return { field: m[1], op: m[2] ?? ':', values };
  });
}

// ---------------------------------------------------------------------------------------------------------
// The fake.

export function status(code: number, message: string): TypesenseStatusError {
  return new TypesenseStatusError(message, code);
}

type Doc = Record<string, unknown>;

interface Collection {
  schema: TypesenseCollectionSchema;
  docs: Map<string, Doc>;
}

/** An error as the client throws it after its retries: axios's, with the socket's code (ApiCall.js rethrows it). */
function clientError(code: 'ECONNABORTED' | 'ECONNREFUSED', message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A request the server never answers: ended only by its AbortSignal, as the client ends it (ApiCall.js). */
function unanswered<T>(signal: AbortSignal | undefined): Promise<T> {
  return new Promise<T>((_, reject) => {
    signal?.addEventListener('abort', () => reject(new Error('Request aborted by caller.')), { once: true });
  });
}

/** Whether a value fits a field of this type (src/validator.cpp, without the coercions it may try). */
function fits(type: TypesenseField['type'], value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'int32':
      return Number.isInteger(value) && (value as number) >= -2147483648 && (value as number) <= 2147483647;
    case 'int64':
      return Number.isSafeInteger(value);
    case 'bool':
      return typeof value === 'boolean';
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}

/** src/validator.cpp: "Field `X` must be an int32." / "… must be a string." */
function mustBe(field: TypesenseField): string {
  const kind = field.type === 'string[]' ? 'an array of string' : field.type === 'string' ? 'a string' : `an ${field.type}`;
  return `Field \`${field.name}\` must be ${kind}.`;
}

/** A field as GET /collections describes it: the server's defaults filled in (src/field.cpp). */
function described(f: TypesenseField): LiveCollection['fields'][number] {
  const sort = f.sort ?? ['int32', 'int64', 'bool'].includes(f.type);
  return { name: f.name, type: f.type, facet: f.facet ?? false, optional: f.optional ?? false, sort, index: true };
}

export class FakeTypesense implements TypesenseApi {
  readonly collections = new Map<string, Collection>();
  readonly aliases = new Map<string, string>();
  readonly calls: string[] = [];
  readonly searches: Array<{ collection: string; params: TypesenseSearchParams }> = [];
  /** Every call made to the server, answered or not (one the adapter does not make never counts). */
  requests = 0;
  searchResponse: TypesenseSearchResponse = { found: 0, hits: [], facet_counts: [] };
  /** A failure to report for a document, as Typesense reports one line of an import. */
  failImport: (doc: TypesenseDocument) => ImportItemResult | undefined = () => undefined;
  /** Imports are never answered (ended by their AbortSignal only). */
  hangImports = false;
  /** The server away: `hung` (every call times out in the client; imports hang), `refused` (nothing listens). */
  away: 'hung' | 'refused' | null = null;
  /** The client's time-out of a call to a hung server (connectionTimeoutSeconds, short here). */
  clientTimeoutMs = 20;
  /** Holds a schema change under way (another meanwhile is a 422) until it resolves. */
  alterHold: Promise<void> | null = null;
  private readonly altering = new Set<string>();

  /** Counts the request; fails as the client does when the server is away (see `away`). */
  private async reach(): Promise<void> {
    this.requests++;
    if (this.away === 'refused') throw clientError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8108');
    if (this.away === 'hung') {
      await new Promise((resolve) => setTimeout(resolve, this.clientTimeoutMs));
      throw clientError('ECONNABORTED', `timeout of ${this.clientTimeoutMs}ms exceeded`);
    }
  }

  /** The collection of a name or an alias (a collection's own name first: get_collection_unsafe). */
  private resolve(name: string): Collection & { name: string } {
    const physical = this.collections.has(name) ? name : (this.aliases.get(name) ?? name);
    const c = this.collections.get(physical);
    if (!c) throw status(404, `Collection ${name} not found`);
    return { ...c, name: physical };
  }

  private matching(name: string, filter: string): Doc[] {
    const conditions = readFilter(filter);
    return [...this.resolve(name).docs.values()].filter((doc) =>
      conditions.every((c) => c.op === '=' && c.values.includes(String(doc[c.field]))),
    );
  }

  docs(name: string): Doc[] {
    return [...this.resolve(name).docs.values()];
  }

  async createCollection(schema: TypesenseCollectionSchema) {
    this.calls.push(`create ${schema.name}`);
    await this.reach();
    if (this.collections.has(schema.name)) throw status(409, 'already exists');
    this.collections.set(schema.name, { schema: { ...schema, fields: schema.fields.map((f) => ({ ...f })) }, docs: new Map() });
  }

  async retrieveCollection(name: string): Promise<LiveCollection> {
    await this.reach();
    const c = this.resolve(name);
    return { name: c.name, fields: c.schema.fields.map(described), token_separators: [...(c.schema.token_separators ?? [])] };
  }

  async updateCollection(name: string, changes: FieldChange[], signal?: AbortSignal) {
    this.calls.push(`alter ${name} ${changes.map((c) => ('drop' in c ? `-${c.name}` : `+${c.name}`)).join(' ')}`);
    await this.reach();
    const c = this.collections.get(this.collections.has(name) ? name : (this.aliases.get(name) ?? name));
    if (!c) throw status(404, 'Collection not found');
    if (this.altering.has(name)) throw status(422, 'Another collection update operation is in progress.');
    const fields = this.altered(c, changes);
    this.altering.add(name);
    // The server goes on with an alteration whose caller gave up (its answer is what is lost).
    const done = (async () => {
      try {
        if (this.alterHold) await this.alterHold;
        c.schema = { ...c.schema, fields };
      } finally {
        this.altering.delete(name);
      }
    })();
    await Promise.race([done, ...(signal ? [unanswered<void>(signal)] : [])]);
  }

  /** The fields after a change, or the server's 400 (src/collection.cpp, validate_alter_payload). */
  private altered(c: Collection, changes: FieldChange[]): TypesenseField[] {
    const dropped = new Set(changes.filter((f) => 'drop' in f).map((f) => f.name));
    const has = (n: string) => c.schema.fields.some((f) => f.name === n);
    for (const change of changes) {
      if (change.name === 'id') throw status(400, 'Field `id` cannot be altered.');
      if ('drop' in change && !has(change.name)) throw status(400, `Field \`${change.name}\` is not part of collection schema.`);
      if (!('drop' in change) && has(change.name) && !dropped.has(change.name))
        throw status(
          400,
          `Field \`${change.name}\` is already part of the schema: To change this field, drop it first before adding it back to the schema.`,
        );
    }
    const added = changes.filter((f): f is TypesenseField => !('drop' in f));
    // The documents held must fit the new fields.
    for (const doc of c.docs.values())
      for (const f of added)
        if (doc[f.name] !== undefined && doc[f.name] !== null && !fits(f.type, doc[f.name])) throw status(400, mustBe(f));
    return [...c.schema.fields.filter((f) => !dropped.has(f.name)), ...added.map((f) => ({ ...f }))];
  }

  async deleteCollection(name: string) {
    this.calls.push(`drop ${name}`);
    await this.reach();
    if (!this.collections.delete(name)) throw status(404, 'not found');
  }

  async retrieveAlias(alias: string) {
    await this.reach();
    const target = this.aliases.get(alias);
    if (target === undefined) throw status(404, 'not found');
    return target;
  }

  async upsertAlias(alias: string, collection: string) {
    this.calls.push(`alias ${alias} -> ${collection}`);
    await this.reach();
    this.aliases.set(alias, collection);
  }

  async importDocuments(collection: string, docs: TypesenseDocument[], action: ImportAction, options: ImportOptions = {}) {
    this.calls.push(`import ${action} ${collection} ${docs.length}`);
    // No client time-out on imports: a hung server holds them until the caller aborts.
    if (this.hangImports || this.away === 'hung') {
      this.requests++;
      return unanswered<ImportItemResult[]>(options.signal);
    }
    await this.reach();
    const { schema, docs: store } = this.resolve(collection);
    return docs.map((doc): ImportItemResult => {
      const failure = this.failImport(doc);
      if (failure) return failure;
      const fitted: Doc = { ...doc };
      for (const f of schema.fields) {
        const v = fitted[f.name];
        if (v === undefined || v === null || fits(f.type, v)) continue;
        if (options.dirtyValues !== 'coerce_or_drop') return { success: false, code: 400, error: mustBe(f) };
        delete fitted[f.name];
      }
      const old = store.get(doc.id);
      if (action === 'update') {
        if (!old) return { success: false, code: 404, error: `Could not find a document with id: ${doc.id}` };
        const merged = { ...old, ...fitted };
        for (const [k, v] of Object.entries(fitted)) if (v === null) delete merged[k];
        store.set(doc.id, merged);
      } else store.set(doc.id, fitted);
      return { success: true };
    });
  }

  async exportDocuments(collection: string, filter: string, fields: string[]) {
    this.calls.push(`export ${collection}`);
    await this.reach();
    return this.matching(collection, filter).map((d) => Object.fromEntries(fields.map((f) => [f, d[f]])));
  }

  async *exportAll(collection: string): AsyncIterable<TypesenseDocument> {
    this.calls.push(`export all ${collection}`);
    await this.reach();
    for (const doc of this.docs(collection)) yield { ...doc } as TypesenseDocument;
  }

  async deleteDocuments(collection: string, filter: string) {
    this.calls.push(`delete ${collection}`);
    await this.reach();
    const gone = this.matching(collection, filter);
    for (const d of gone) this.resolve(collection).docs.delete(String(d.id));
    return gone.length;
  }

  async retrieveDocument(collection: string, id: string) {
    await this.reach();
    const doc = this.resolve(collection).docs.get(id);
    if (!doc) throw status(404, 'not found');
    return doc;
  }

  async upsertDocument(collection: string, doc: TypesenseDocument) {
    this.calls.push(`put ${collection} ${doc.id}`);
    await this.reach();
    this.resolve(collection).docs.set(doc.id, { ...doc });
  }

  async search(collection: string, params: TypesenseSearchParams) {
    await this.reach();
    this.checkSearch(collection, params);
    this.searches.push({ collection, params });
    return this.searchResponse;
  }

  /** The fields a search names, checked as the server checks them; failed as client.ts throws a failed multi-search. */
  protected checkSearch(collection: string, params: TypesenseSearchParams): void {
    const refused = this.searchRefusal(collection, params);
    if (refused) throw status(refused.code, `typesense search of ${collection}: ${refused.code} ${refused.error}`);
  }

  /** What multi_search answers in place of a search's result when it cannot run it (`{code, error}`), or null. */
  searchRefusal(collection: string, params: TypesenseSearchParams): { code: number; error: string } | null {
    const fields = this.resolve(collection).schema.fields;
    const field = (name: string) => fields.find((f) => f.name === name);
    for (const name of params.query_by.split(','))
      if (!field(name)) return { code: 404, error: `Could not find a field named \`${name}\` in the schema.` };
    for (const { field: name } of readFilter(params.filter_by))
      if (!field(name)) return { code: 404, error: `Could not find a filter field named \`${name}\` in the schema.` };
    for (const name of params.facet_by?.split(',') ?? [])
      if (!field(name)?.facet) return { code: 404, error: `Could not find a facet field named \`${name}\` in the schema.` };
    return null;
  }
}

/** Damerau-Levenshtein distance (optimal string alignment: a transposition of neighbours is one typo). */
function typos(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The fake client, searching its documents the way the server's typo loop does for the parameters the
 * adapter sends (equality filters only). Typesense looks for matches with 0 typos, then 1, then up to
 * `num_typos`, and stops as soon as the documents found so far reach `typo_tokens_threshold` (default 1):
 * docs, https://typesense.org/docs/27.1/api/search.html#typo-tolerance-parameters ("if at least N results
 * are not found for a search term, then Typesense will start looking for typo-corrected variations, until at
 * least N results are found, up to a maximum of num_typo number of corrections ... Default: 1"); source,
 * typesense/typesense src/index.cpp, the typo loop: `if(field_num_results >= typo_tokens_threshold) {
 * // if typo threshold is breached, we are done`. A word of fewer than `min_len_1typo` (`min_len_2typo`)
 * characters gets no typo (a second one); the last word also matches as a prefix when `prefix` is set.
 * Hits rank by fewer typos, then by doc_id (the adapter's sort_by tie-break).
 */
export class SearchingFakeTypesense extends FakeTypesense {
  override async search(collection: string, params: TypesenseSearchParams) {
    this.checkSearch(collection, params);
    const conditions = readFilter(params.filter_by);
    if (conditions.some((c) => c.op !== '=')) throw new Error('this fake evaluates equality filters only');
    const words = params.q.split(' ');
    const fields = params.query_by.split(',');
    const threshold = params.typo_tokens_threshold ?? 1; // the server's default when the parameter is absent
    const candidates = this.docs(collection).filter((doc) => conditions.every((c) => c.values.includes(String(doc[c.field]))));
    const found = new Map<string, { doc: Record<string, unknown>; cost: number }>();
    for (let allowed = 0; allowed <= params.num_typos; allowed++) {
      for (const doc of candidates) {
        if (found.has(String(doc.id))) continue;
        const tokens = fields.flatMap((f) => queryWords(String(doc[f] ?? '')));
        let cost = 0;
        const matched = words.every((word, i) => {
          const maxTypos = Math.min(allowed, word.length >= params.min_len_2typo ? 2 : word.length >= params.min_len_1typo ? 1 : 0);
          const last = i === words.length - 1 && params.prefix;
          const best = Math.min(...tokens.map((t) => (last && t.startsWith(word) ? 0 : typos(word, t))));
          cost += best;
          return best <= maxTypos;
        });
        if (matched) found.set(String(doc.id), { doc, cost });
      }
      if (found.size >= threshold) break; // the typo threshold is reached: no more typo variants
    }
    const hits = [...found.values()]
      .sort((a, b) => a.cost - b.cost || String(a.doc.doc_id).localeCompare(String(b.doc.doc_id)))
      .map(({ doc, cost }) => ({ document: { doc_id: doc.doc_id }, text_match: 100 - cost }));
    const start = (params.page - 1) * params.per_page;
    return { found: hits.length, hits: hits.slice(start, start + params.per_page), facet_counts: [] };
  }
}
