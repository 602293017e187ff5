// createBidderClient: openapi-fetch over the generated paths, with the credentials (API.md "Credentials") set on
// every request by a middleware, so calls name only what they ask for.
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import type { components, paths } from './schema.ts';
import { ok } from './problems.ts';

type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type MediaType = `${string}/${string}`;
type Operation<Path extends keyof paths, M extends Method> = paths[Path][M];

/** The keys a call gives in one place of its parameters (`query`, `path`), or never when it gives none. */
type GivenIn<Init, Place extends string> = Init extends { params?: infer P }
  ? P extends { [K in Place]?: infer V }
    ? NonNullable<V>
    : never
  : never;

/** Each key a call gives in `params.query` or `params.path` that the operation does not declare, typed `never`. */
type Undeclared<Init, Declared, Place extends string> = [GivenIn<Init, Place>] extends [never]
  ? unknown
  : { [K in Exclude<keyof GivenIn<Init, Place>, keyof GivenIn<Declared, Place>>]: never };

/** A call's options as given, where an undeclared parameter (`Bogus: 1`, `pageSize` for `PageSize`) does not compile. */
type Exact<Init, Declared> = Init & {
  params?: { query?: Undeclared<Init, Declared, 'query'>; path?: Undeclared<Init, Declared, 'path'> };
};

/**
 * One HTTP method of the client: openapi-fetch's, with one difference. openapi-fetch infers the call's options as a type
 * of their own, which lets an object literal carry keys the operation does not have; here such a key is an error.
 */
export type StrictMethod<M extends Method> = <
  Path extends ClientPathsWithMethod<Client<paths>, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: undefined extends MaybeOptionalInit<paths[Path], M>
    ? [init?: Exact<Init, MaybeOptionalInit<paths[Path], M>>]
    : [init: Exact<Init, MaybeOptionalInit<paths[Path], M>>]
) => Promise<Operation<Path, M> extends infer Op extends Record<string, unknown> ? FetchResponse<Op, Init, MediaType> : never>;

export interface BidderClientOptions {
  /** Where the service answers, without `/v1` (`https://api.example.com`). */
  baseUrl: string;
  /** The application's Api-Key: it identifies the front end, and is not a secret. */
  apiKey: string;
  /** A bearer token (anonymous, application or member) to send from the start. */
  token?: string | null;
  /** The language to ask for (`Accept-Language`); null: the browser's or the house's default. */
  language?: string | null;
  /** Another fetch (tests, a server-side runtime). */
  fetch?: typeof globalThis.fetch;
}

/** The typed client: `client.GET('/v1/lots', { params: { query: { AuctionId: 10 } } })`, with its credentials. */
export interface BidderClient extends Omit<Client<paths>, 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'> {
  GET: StrictMethod<'get'>;
  PUT: StrictMethod<'put'>;
  POST: StrictMethod<'post'>;
  DELETE: StrictMethod<'delete'>;
  PATCH: StrictMethod<'patch'>;
  readonly baseUrl: string;
  /** The bearer token sent with each request (a call's own `Authorization` header wins). */
  token: string | null;
  /** The `Accept-Language` sent with each request (a call's own header wins). */
  language: string | null;
}

export type TokenResponse = components['schemas']['TokenResponse'];

export function createBidderClient(options: BidderClientOptions): BidderClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  let token = options.token ?? null;
  let language = options.language ?? null;
  const client = createClient<paths>({ baseUrl, fetch: options.fetch });
  const credentials: Middleware = {
    onRequest({ request }) {
      request.headers.set('Api-Key', options.apiKey);
      if (token && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${token}`);
      if (language && !request.headers.has('Accept-Language')) request.headers.set('Accept-Language', language);
      return request;
    },
  };
  client.use(credentials);
  return Object.defineProperties(client, {
    baseUrl: { value: baseUrl, enumerable: true },
    token: { get: () => token, set: (value: string | null) => (token = value), enumerable: true },
    language: { get: () => language, set: (value: string | null) => (language = value), enumerable: true },
  }) as BidderClient;
}

/** Takes an anonymous token of a house (its `clientId`, e.g. `demo`) and sends it from now on; the catalogue needs one. */
export async function useAnonymousToken(client: BidderClient, clientId: string): Promise<TokenResponse> {
  const answer = ok(await client.POST('/v1/tokens/anonymous', { body: { clientId } }));
  client.token = answer.Token;
  return answer;
}

/** Signs a member in (`POST /v1/sessions`, with the token held) and sends the member token from now on. */
export async function signIn(client: BidderClient, email: string, password: string): Promise<TokenResponse> {
  const answer = ok(await client.POST('/v1/sessions', { body: { Email: email, Password: password } }));
  client.token = answer.Token;
  return answer;
}
